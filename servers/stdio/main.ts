// The reference stdio server program: what the client under test launches (`<node> servers/stdio/main.ts --era <era>
// [--personality <name>[:<json>]]...`, or main.js in the compiled package; harness.ts builds the command line). It
// connects to the side channel named in MCP_CONFORMANCE_STDIO_CHANNEL, says hello, records its stdin from the first
// byte, and only then loads the era's server (serve.ts: the SDK is most of the start-up), so no byte goes unrecorded.
// With the `wrapper` personality it is instead an npx-like parent: it spawns itself without that personality, with
// inherited stdio, and never forwards a signal.
import { spawn } from 'node:child_process';
import { enableCompileCache } from 'node:module';
import { ProgramChannel } from './channel.ts';
import { procStart, ProgramIo } from './io.ts';
import { epochNow, parseProgramArgs, programArgs, STDIO_CHANNEL_ENV, type StdioEra, type StdioPersonalitySpec } from './protocol.ts';

/** The program's file, in this layout (main.ts from the sources, main.js compiled): harness.ts launches it. */
export const PROGRAM_FILE = import.meta.filename;

/** The wrapper: spawns the real server, reports its pid, exits as it exits; a signal kills the wrapper alone. */
function runWrapper(channel: ProgramChannel, io: ProgramIo, era: StdioEra, personalities: StdioPersonalitySpec[]): void {
  const inner = personalities.filter((p) => p.name !== 'wrapper');
  const child = spawn(process.execPath, [...process.execArgv, PROGRAM_FILE, ...programArgs(era, inner)], { stdio: 'inherit', env: process.env });
  if (child.pid !== undefined) channel.report({ t: 'child', at: epochNow(), pid: child.pid });
  // Not forwarded: the wrapper records the signal and dies of it, as an unwary launcher does; the server lives on.
  io.onSignal((signal) => void io.exit({ signal }, `${signal} received (not forwarded to the server)`));
  child.on('exit', (code, signal) => {
    void io.exit({ code: code ?? 1 }, `the server exited (${signal ?? `code ${code}`})`);
  });
  child.on('error', (error) => {
    void io.exit({ code: 1 }, `could not start the server: ${error.message}`);
  });
}

async function main(): Promise<void> {
  // The era's server takes most of a launch to compile; V8's cache (Node's own, in the temporary directory) halves it.
  enableCompileCache?.();
  const { era, personalities, channel: channelArg } = parseProgramArgs(process.argv.slice(2));
  const channel = new ProgramChannel(process.env[STDIO_CHANNEL_ENV] ?? channelArg);
  const wrapper = personalities.find((p) => p.name === 'wrapper');
  const io = new ProgramIo(channel, personalities);
  io.watchSignals();
  channel.report({
    t: 'hello',
    at: epochNow(),
    pid: process.pid,
    ppid: process.ppid,
    role: wrapper ? 'wrapper' : 'server',
    era,
    personalities,
    argv: process.argv.slice(1),
    ...(procStart() !== undefined && { procStart: procStart()! }),
  });
  process.on('uncaughtException', (error) => {
    void io.stderr(`${error.stack ?? error.message}\n`).then(() => io.exit({ code: 1 }, `uncaught exception: ${error.message}`));
  });
  // A launch-bound wrapper must know its launch before it decides what it is; every other decision can wait for it.
  if (wrapper?.launch !== undefined) io.setLaunch(await channel.welcome);
  if (wrapper && (wrapper.launch === undefined || io.has('wrapper'))) return runWrapper(channel, io, era, personalities);

  io.watchStdout();
  io.readStdin();
  io.hold(channel.welcome.then((launch) => io.setLaunch(launch)));
  io.onSignal((signal) => {
    if (signal === 'SIGTERM' && io.has('ignores-sigterm')) return io.note('ignored-sigterm');
    void io.exit({ signal }, `${signal} received`);
  });
  const slow = io.has('probe-slow-start');
  if (slow) io.hold(new Promise((resolve) => setTimeout(resolve, slow.ms ?? 1_000)));
  const { serveEra } = await import('./serve.ts');
  await serveEra(io, channel, era);
}

if (import.meta.main) await main();
