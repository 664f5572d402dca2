#!/usr/bin/env node
// mcp-client-conformance: the command line. Each command is a module of scripts/commands/ with its own options and
// help; an option of another command, or an unknown one, is bad usage (exit 2), never ignored.
import './node-version.ts'; // first: on a Node too old, one clear line instead of a stack trace from an import
import { PACKAGE_VERSION } from '../api/package.ts';
import { adapters } from './commands/adapters.ts';
import { USAGE_EXIT, UsageError, parseCommandArgs, type Command } from './commands/command.ts';
import { compare } from './commands/compare.ts';
import { init } from './commands/init.ts';
import { list } from './commands/list.ts';
import { matrix } from './commands/matrix.ts';
import { run } from './commands/run.ts';
import { serve } from './commands/serve.ts';
import { serveStdio } from './commands/serve-stdio.ts';
import { setupClients } from './commands/setup-clients.ts';

const COMMANDS = [init, list, adapters, run, matrix, compare, serve, serveStdio, setupClients] as unknown as readonly Command[];

const USAGE = `usage: mcp-client-conformance <command> [options]
       mcp-client-conformance <command> --help      the options of one command
       mcp-client-conformance --version

commands:
${COMMANDS.map((command) => `  ${command.name.padEnd(11)} ${command.summary}`).join('\n')}

exit code: 0 when judged and nothing failed (an inconclusive case, which the suite could not judge, is printed but
does not fail), 1 when a scenario failed or a result does not match the baseline (run), a cell regressed or was lost
(matrix --compare, compare) or has a verdict --fail-on names (matrix), 2 on bad usage or bad input (an output path
that cannot be written included), 3 when a matrix run ended incomplete (matrix --resume completes it), 4 when nothing
was judged (run: no case got a pass, fail or warn; matrix: the row of a client that loaded), 5 when an output file could not be written
at the end (the table is printed, the other files written), 130 or 143 when interrupted by SIGINT or SIGTERM; each
command's --help says which it uses and which comes first`;

function fail(message: string): never {
  console.error(`mcp-client-conformance: ${message}`);
  process.exit(USAGE_EXIT);
}

async function main(argv: string[]): Promise<number | undefined> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h') {
    console.log(USAGE);
    return 0;
  }
  if (name === '--version') {
    if (rest.length > 0) fail(`--version takes no arguments (got ${rest.map((arg) => `"${arg}"`).join(', ')})`);
    console.log(PACKAGE_VERSION);
    return 0;
  }
  if (name === 'help') {
    const [topic, ...extra] = rest;
    if (extra.length > 0) fail('help takes one command name');
    const command = COMMANDS.find((c) => c.name === topic);
    if (topic !== undefined && command === undefined) fail(`unknown command "${topic}"; commands: ${COMMANDS.map((c) => c.name).join(', ')}`);
    console.log(command ? await command.help() : USAGE);
    return 0;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (command === undefined) fail(`unknown command "${name}"; commands: ${COMMANDS.map((c) => c.name).join(', ')} (see \`mcp-client-conformance --help\`)`);
  try {
    const parsed = parseCommandArgs(command, rest, COMMANDS);
    if (parsed.help) {
      console.log(await command.help());
      return 0;
    }
    return await command.run(parsed.values, parsed.positionals);
  } catch (error) {
    if (error instanceof UsageError) fail(error.message);
    throw error;
  }
}

const code = await main(process.argv.slice(2));
if (code !== undefined) process.exitCode = code;
