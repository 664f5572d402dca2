// `serve`: a reference server on 127.0.0.1, to try a client by hand.
import type { Era } from '../../servers/era.ts';
import { defineCommand, optionLines, UsageError } from './command.ts';

export const serve = defineCommand({
  name: 'serve',
  summary: 'start a reference server on 127.0.0.1 and print the URL to give a client',
  options: {
    era: { type: 'string' },
    personality: { type: 'string', multiple: true },
    port: { type: 'string' },
    json: { type: 'boolean' },
    quiet: { type: 'boolean' },
  },
  async help() {
    const [{ ERA_DESCRIPTIONS, ERAS }, { PERSONALITIES }] = await Promise.all([import('../../servers/era.ts'), import('../../servers/personalities/index.ts')]);
    const width = Math.max(...ERAS.map((e) => e.length), ...Object.keys(PERSONALITIES).map((p) => p.length)) + 2;
    return [
      'usage: mcp-client-conformance serve --era <era> [--personality <name>]... [--port <n>] [--json] [--quiet]',
      '',
      optionLines([
        ['--era <era>', 'the era the server speaks (below)'],
        ['--personality <name>', 'compose a personality (repeatable; below)'],
        ['--port <n>', 'listen on this port (default 0: a free one)'],
        ['--json', 'print one JSON line {"url", "era", "personalities"} instead of text'],
        ['--quiet', 'do not log each exchange to stderr'],
      ]),
      '',
      'eras:',
      ...ERAS.map((era) => `  ${era.padEnd(width)}${ERA_DESCRIPTIONS[era]}`),
      '',
      'personalities:',
      ...Object.entries(PERSONALITIES).map(([name, entry]) => `  ${name.padEnd(width)}${entry.description}`),
      '',
      'Ctrl-C stops the server cleanly.',
    ].join('\n');
  },
  async run(values) {
    const [{ ERAS }, { PERSONALITIES }] = await Promise.all([import('../../servers/era.ts'), import('../../servers/personalities/index.ts')]);
    if (!values.era) throw new UsageError('serve needs --era <era>; see `mcp-client-conformance serve --help`');
    if (!(ERAS as readonly string[]).includes(values.era)) throw new UsageError(`unknown era "${values.era}"; eras: ${ERAS.join(', ')}`);
    const names = values.personality ?? [];
    const unknown = names.filter((name) => !(name in PERSONALITIES));
    if (unknown.length > 0) throw new UsageError(`unknown personality ${unknown.map((n) => `"${n}"`).join(', ')}; personalities: ${Object.keys(PERSONALITIES).join(', ')}`);
    const port = Number(values.port ?? '0');
    if (!/^\d+$/.test(values.port ?? '0') || port > 65_535) throw new UsageError(`--port takes a port number, not "${values.port}"`);
    const [{ startReferenceServer }, { formatExchange }] = await Promise.all([import('../../servers/server.ts'), import('../../suites/evidence.ts')]);
    const server = await startReferenceServer({
      era: values.era as Era,
      personalities: names.map((name) => PERSONALITIES[name]!.create()),
      port,
    }).catch((error: Error) => {
      throw new UsageError(error.message);
    });
    if (values.json) console.log(JSON.stringify({ url: server.url, era: server.era, personalities: names }));
    else console.log(`${server.era} reference server${names.length > 0 ? ` (${names.join(', ')})` : ''} at ${server.url}\nCtrl-C to stop.`);
    if (!values.quiet) server.record.onEnded((exchange) => console.error(formatExchange(exchange)));
    const stop = () => {
      void server.close().then(() => process.exit(0));
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    return undefined;
  },
});
