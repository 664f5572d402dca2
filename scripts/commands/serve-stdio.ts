// `serve-stdio`: the stdio reference server for a human: prints the command line (and environment) to give a client,
// then, as the client launches it, what every process reports (stdin lines, answers, stderr, EOF, signals, exits).
import { defineCommand, optionLines, UsageError } from './command.ts';

/** A word as a POSIX shell reads it back. */
const shellWord = (word: string) => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`);

/** At most `max` characters of `text`, on one line. */
const clip = (text: string, max = 160) => {
  const line = text.replaceAll('\n', '\\n');
  return line.length > max ? `${line.slice(0, max)}… (${line.length} chars)` : line;
};

export const serveStdio = defineCommand({
  name: 'serve-stdio',
  summary: 'print the command line of a stdio reference server to give a client, and what it records',
  options: {
    era: { type: 'string' },
    personality: { type: 'string', multiple: true },
    json: { type: 'boolean' },
    quiet: { type: 'boolean' },
  },
  async help() {
    const [{ STDIO_ERA_DESCRIPTIONS, STDIO_ERAS }, { STDIO_PERSONALITIES }] = await Promise.all([
      import('../../servers/stdio/protocol.ts'),
      import('../../servers/stdio/personalities.ts'),
    ]);
    const names = Object.keys(STDIO_PERSONALITIES);
    const width = Math.max(...STDIO_ERAS.map((e) => e.length), ...names.map((p) => p.length)) + 2;
    return [
      'usage: mcp-client-conformance serve-stdio --era <era> [--personality <name>[:<json options>]]... [--json] [--quiet]',
      '',
      'Prints the command (and the environment variable that names the side channel) to configure in a client as its',
      'stdio server. Each time the client launches it, the process reports to this command, which prints the record on',
      'stderr as it arrives. The server runs without this command too, recording nothing.',
      '',
      optionLines([
        ['--era <era>', 'the era the server speaks (below)'],
        ['--personality <name>', 'compose a personality (repeatable; below); options as JSON after a colon,\ne.g. probe-slow-start:{"ms":2000} or crash-mid-call:{"tool":"slow"}'],
        ['--json', 'print one JSON line {"command", "args", "env", "era", "personalities"} instead of text'],
        ['--quiet', 'do not print the record'],
      ]),
      '',
      'eras:',
      ...STDIO_ERAS.map((era) => `  ${era.padEnd(width)}${STDIO_ERA_DESCRIPTIONS[era]}`),
      '',
      'personalities:',
      ...Object.entries(STDIO_PERSONALITIES).map(([name, entry]) => `  ${name.padEnd(width)}${entry.description}`),
      '',
      'Ctrl-C stops it: any server process still running is killed, and the side channel removed.',
    ].join('\n');
  },
  async run(values) {
    const [{ STDIO_ERAS, parsePersonalityArg }, { STDIO_PERSONALITIES }] = await Promise.all([
      import('../../servers/stdio/protocol.ts'),
      import('../../servers/stdio/personalities.ts'),
    ]);
    if (!values.era) throw new UsageError('serve-stdio needs --era <era>; see `mcp-client-conformance serve-stdio --help`');
    if (!(STDIO_ERAS as readonly string[]).includes(values.era)) throw new UsageError(`unknown era "${values.era}"; eras: ${STDIO_ERAS.join(', ')}`);
    const specs = (values.personality ?? []).map((arg) => {
      try {
        return parsePersonalityArg(arg);
      } catch (error) {
        throw new UsageError(`--personality ${arg}: ${(error as Error).message}`);
      }
    });
    const unknown = specs.filter((spec) => !(spec.name in STDIO_PERSONALITIES));
    if (unknown.length > 0) throw new UsageError(`unknown personality ${unknown.map((s) => `"${s.name}"`).join(', ')}; personalities: ${Object.keys(STDIO_PERSONALITIES).join(', ')}`);
    const { startStdioServer } = await import('../../servers/stdio/harness.ts');
    type Personality = import('../../servers/stdio/harness.ts').StdioPersonality;
    const era = values.era as (typeof STDIO_ERAS)[number];
    const server = await startStdioServer({ era, personalities: specs as Personality[] }).catch((error: Error) => {
      throw new UsageError(error.message);
    });
    // Before anything is printed: a user (or a test) may press Ctrl-C as soon as the command line appears.
    const stop = () => {
      void server.close().then(() => {
        if (server.record.cleanup && server.record.cleanup.killed.length > 0) console.error(`killed what was still running: pid ${server.record.cleanup.killed.join(', ')}`);
        process.exit(0);
      });
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    const { command, args, env = {} } = server.target;
    const names = specs.map((s) => s.name);
    if (values.json) {
      console.log(JSON.stringify({ command, args, env, era, personalities: specs }));
    } else {
      console.log(
        [
          `${era} stdio reference server${names.length > 0 ? ` (${names.join(', ')})` : ''}: give a client this server command`,
          '',
          `  ${[...Object.entries(env).map(([k, v]) => `${k}=${shellWord(v)}`), ...[command, ...args].map(shellWord)].join(' ')}`,
          '',
          'or, as JSON (command, args, env):',
          '',
          `  ${JSON.stringify({ command, args, env })}`,
          '',
          'Ctrl-C to stop.',
        ].join('\n'),
      );
    }
    if (!values.quiet) {
      server.record.onEvent((p, event) => {
        const who = `[${p.index}${p.pid === undefined ? '' : ` pid ${p.pid}`}]`;
        const say = (text: string) => console.error(`${who} ${text}`);
        switch (event.t) {
          case 'hello':
            return say(`${event.role} started (launch ${p.launch}${p.parent === undefined ? '' : `, child of [${p.parent}]`}), era ${event.era}`);
          case 'stdin':
            return say(`stdin: ${Buffer.from(event.data, 'base64').length} bytes`);
          case 'line':
            return say(`line ${event.line}: ${clip(event.text)}${event.error === undefined ? '' : `  (${event.error})`}`);
          case 'sent':
            return say(`sent${event.line === undefined ? '' : ` (line ${event.line})`}: ${clip(JSON.stringify(event.message))}`);
          case 'stderr':
            return say(`stderr: ${event.bytes} bytes${event.bytes <= 200 ? `: ${clip(event.head.trimEnd())}` : ''}`);
          case 'stdin-eof':
            return say('stdin EOF');
          case 'signal':
            return say(`signal ${event.signal}`);
          case 'child':
            return say(`spawned pid ${event.pid}`);
          case 'note':
            return say(`note ${event.label}${event.line === undefined ? '' : ` (line ${event.line})`}`);
          case 'stdout-error':
            return say(`stdout error: ${event.error}`);
          case 'exit':
            return say(`exiting: ${event.signal ?? `code ${event.code}`} (${event.reason})`);
          case 'channel-closed':
            return say(p.exit?.inferred ? 'gone without an exit record: killed (SIGKILL)' : 'gone');
          default:
            return undefined;
        }
      });
    }
    return undefined;
  },
});
