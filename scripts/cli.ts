#!/usr/bin/env node
// mcp-client-conformance: list the scenarios, or run them against an adapter and print a verdict table.
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { BROKEN_ADAPTERS, BUILT_IN_ADAPTERS } from '../clients/index.ts';
import { AdapterLoadError, loadChosenAdapter, runnerOperationTimeoutMs } from '../clients/load.ts';
import { basePolicy } from '../config/settings.ts';
import { ERA_DESCRIPTIONS, ERAS, type Era } from '../servers/era.ts';
import { PERSONALITIES } from '../servers/personalities/index.ts';
import { startReferenceServer } from '../servers/server.ts';
import { explain, formatExchange } from '../suites/evidence.ts';
import { SCENARIOS } from '../suites/index.ts';
import { plannedCases } from '../suites/plan.ts';
import { attemptsNote } from './matrix/results.ts';
import { bounded, runCase } from '../suites/runner.ts';
import type { ScenarioResult, Verdict } from '../suites/scenario.ts';

const USAGE = `usage: mcp-client-conformance <command> [options]

commands:
  list                       print every scenario with its revisions, features and spec reference
  run --adapter <name>       run the scenarios against a built-in adapter and print a verdict table
  run --adapter <file>       ... against the adapter a module exports (./my-adapter.ts: its default export or
                             "adapter", a ClientAdapter or a function returning one, or a "processAdapter" config)
  run --adapter-command <c>  ... against a client program speaking the line protocol (docs/line-protocol.md),
                             e.g. --adapter-command "python3 clients/drivers/python/driver.py"; its deadlines:
                             MCP_CONFORMANCE_OPERATION_TIMEOUT_MS (4000), MCP_CONFORMANCE_HELLO_TIMEOUT_MS (10000)
      [--scenario <text>]    only scenarios whose id contains <text> (repeatable)
      [--strict]             SHOULD violations fail instead of warning
      [--verbose]            print the evidence of every result that is not a pass
                             Each case runs with the client's calibrated time bounds; one inconclusive for lack of
                             time runs again with bounds twice as large (at most 3 runs), and the table says so.
                             Ctrl-C prints the table of the cases that finished (exit code 130).
  adapters                   print the built-in adapters
  matrix                     run every client of the matrix file across the suites, in parallel, and write
                             results.json, summary.md, junit.xml and report.html (docs/matrix-results.md)
      [--config <file>]      the matrix file (default: matrix.json)
      [--clients <a,b,c*>]   only these entries (a trailing * matches a prefix)
      [--scenario <text>]    only scenarios whose id contains <text>
      [--out <dir>]          the reports folder (default: reports/matrix)
      [--shard <i/n>]        only this shard of the suite files, as vitest --shard
      [--strict]             SHOULD violations fail instead of warning
      [--compare <file>]     an earlier results.json: list regressions, exit 1 if any
  matrix --resume <dir>      complete an interrupted or killed matrix run: run only the cells missing from the
                             reports folder <dir>, with the selection it was started with, and write complete results
  compare <old> <new>        compare two results.json files: regressions, new passes, cells that could not be judged,
                             new clients
      [--markdown <file>]    also write the comparison as Markdown
  serve --era <era>          start a reference server on 127.0.0.1 and print the URL to give a client
      [--personality <name>] compose a personality (repeatable)
      [--port <n>]           listen on this port (default 0: a free one)
      [--json]               print one JSON line {"url", "era", "personalities"} instead of text
      [--quiet]              do not log each exchange to stderr

exit code: 0 when nothing failed (an inconclusive case, which the suite could not judge, is printed but does not
fail), 1 when a scenario failed (run) or a cell regressed (matrix --compare, compare), 2 on bad usage or bad input,
3 when a matrix run ended incomplete (matrix --resume completes it), 130 or 143 when interrupted by SIGINT or SIGTERM`;

function serveHelp(): string {
  const width = Math.max(...ERAS.map((e) => e.length), ...Object.keys(PERSONALITIES).map((p) => p.length)) + 2;
  return [
    'usage: mcp-client-conformance serve --era <era> [--personality <name>]... [--port <n>] [--json] [--quiet]',
    '',
    'eras:',
    ...ERAS.map((era) => `  ${era.padEnd(width)}${ERA_DESCRIPTIONS[era]}`),
    '',
    'personalities:',
    ...Object.entries(PERSONALITIES).map(([name, entry]) => `  ${name.padEnd(width)}${entry.description}`),
    '',
    'Ctrl-C stops the server cleanly.',
  ].join('\n');
}

async function serve(values: { era?: string; personality?: string[]; port?: string; json?: boolean; quiet?: boolean }): Promise<void> {
  if (!values.era) fail(`serve needs --era <era>\n${serveHelp()}`);
  if (!(ERAS as readonly string[]).includes(values.era)) fail(`unknown era "${values.era}"; eras: ${ERAS.join(', ')}`);
  const names = values.personality ?? [];
  const unknown = names.filter((name) => !(name in PERSONALITIES));
  if (unknown.length > 0) fail(`unknown personality ${unknown.map((n) => `"${n}"`).join(', ')}; personalities: ${Object.keys(PERSONALITIES).join(', ')}`);
  const port = Number(values.port ?? '0');
  if (!Number.isInteger(port) || port < 0 || port > 65_535) fail(`--port takes a port number, not "${values.port}"`);
  const server = await startReferenceServer({
    era: values.era as Era,
    personalities: names.map((name) => PERSONALITIES[name]!.create()),
    port,
  }).catch((error: Error) => fail(error.message));
  if (values.json) console.log(JSON.stringify({ url: server.url, era: server.era, personalities: names }));
  else console.log(`${server.era} reference server${names.length > 0 ? ` (${names.join(', ')})` : ''} at ${server.url}\nCtrl-C to stop.`);
  if (!values.quiet) server.record.onEnded((exchange) => console.error(formatExchange(exchange)));
  const stop = () => {
    void server.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

function fail(message: string): never {
  console.error(`mcp-client-conformance: ${message}`);
  process.exit(2);
}

function list(): void {
  for (const scenario of SCENARIOS) {
    const { spec, seed } = scenario.source;
    console.log(`${scenario.id}\n  ${scenario.title}`);
    console.log(`  revisions: ${scenario.revisions.join(', ')}`);
    console.log(`  requires:  ${scenario.requires.length > 0 ? scenario.requires.join(', ') : '-'}`);
    console.log(`  spec:      ${spec.level} ${spec.section} <${spec.url}>${seed ? `\n  seed:      ${seed}` : ''}`);
  }
}

const VERDICT_ORDER: readonly Verdict[] = ['pass', 'fail', 'warn', 'inconclusive', 'n/a'];

/** What the reruns of a case say, in the matrix reports' words ("judged at time scale 2 after 1 inconclusive run: …"). */
const attemptsOf = (r: ScenarioResult) => attemptsNote({ verdict: r.verdict, ...(r.attempts !== undefined ? { attempts: r.attempts } : {}), ...(r.evidence !== undefined ? { timeScale: r.evidence.time.scale } : {}) });

function table(results: readonly ScenarioResult[]): string {
  // An inconclusive case is marked: the suite could not judge it, which is neither a pass nor a failure.
  const verdict = (r: ScenarioResult) => (r.verdict === 'inconclusive' ? '? inconclusive' : r.verdict);
  const reason = (r: ScenarioResult) => [r.reason, attemptsOf(r)].filter((part) => part !== undefined).join(' — ');
  const rows = results.map((r) => [r.scenarioId, r.revision, verdict(r), `${r.durationMs.toFixed(0)} ms`, reason(r)]);
  const header = ['scenario', 'revision', 'verdict', 'time', 'reason'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => (i === 4 ? 0 : row[i]!.length))));
  const line = (cells: string[]) => cells.map((cell, i) => (i === 4 ? cell : cell.padEnd(widths[i]!))).join('  ').trimEnd();
  const counts = VERDICT_ORDER.map((v) => `${results.filter((r) => r.verdict === v).length} ${v}`).join(', ');
  return [line(header), ...rows.map(line), '', counts].join('\n');
}

async function run(values: { adapter?: string; 'adapter-command'?: string; scenario?: string[]; strict?: boolean; verbose?: boolean }): Promise<void> {
  const filters = values.scenario ?? [];
  const scenarios = SCENARIOS.filter((s) => filters.length === 0 || filters.some((f) => s.id.includes(f)));
  if (scenarios.length === 0) fail(`no scenario matches ${filters.map((f) => `"${f}"`).join(', ')}`);
  // A built-in name, a module, or a line-protocol program (clients/load.ts); a program is spawned once for the run.
  const adapter = await loadChosenAdapter({ adapter: values.adapter, command: values['adapter-command'] }).catch((error: unknown) => {
    if (error instanceof AdapterLoadError) fail(error.message);
    throw error;
  });
  const results: ScenarioResult[] = [];
  const cases = plannedCases(scenarios);
  const operationTimeoutMs = runnerOperationTimeoutMs();
  // Ctrl-C (or a CI job's SIGTERM): what finished is judged and must not be lost. The table of those cases is printed
  // at once, the case in flight is dropped, the client is given its bounded shutdown; a second signal ends it at once.
  const interrupt = (signal: NodeJS.Signals) => {
    const code = signal === 'SIGINT' ? 130 : 143;
    process.once(signal, () => process.exit(code));
    console.log(table(results));
    console.error(`mcp-client-conformance: interrupted by ${signal} after ${results.length} of ${cases.length} cases; the table above has the ones that finished`);
    process.exitCode = code;
    const shutdown = Promise.resolve().then(() => adapter.shutdown?.());
    void bounded(shutdown, 'shutdown', basePolicy().ms.operation).catch(() => {}).finally(() => process.exit(code));
  };
  process.once('SIGINT', interrupt);
  process.once('SIGTERM', interrupt);
  try {
    for (const { scenario, revision } of cases) {
      const result = await runCase(scenario, adapter, revision, { strict: values.strict ?? false, ...(operationTimeoutMs !== undefined ? { operationTimeoutMs } : {}) });
      results.push(result);
      if (values.verbose && result.verdict !== 'pass') console.log(`${explain(result)}\n`);
    }
  } finally {
    process.off('SIGINT', interrupt);
    process.off('SIGTERM', interrupt);
    await adapter.shutdown?.();
  }
  console.log(table(results));
  const judged = results.filter((r) => r.verdict !== 'n/a');
  // A run in which nothing applied proves nothing: say so, and do not let CI read it as a success.
  if (judged.length === 0) console.error(`mcp-client-conformance: no scenario applies to ${adapter.name}: check the revisions and features it declares`);
  const inconclusive = results.filter((r) => r.verdict === 'inconclusive').length;
  // Not a failure (nothing was blamed on the client), but never silent either.
  if (inconclusive > 0) console.error(`mcp-client-conformance: ${inconclusive} ${inconclusive === 1 ? 'case was' : 'cases were'} inconclusive: the suite could not judge ${inconclusive === 1 ? 'it' : 'them'} (the reason column says why)`);
  process.exitCode = judged.length === 0 || results.some((r) => r.verdict === 'fail') ? 1 : 0;
  // The table is out: whatever a client left behind (a socket, a timer of its own) must not keep the run alive.
  setTimeout(() => process.exit(), 2_000).unref();
}

const [command, ...rest] = process.argv.slice(2);
const { values, positionals } = (() => {
  try {
    return parseArgs({
      args: rest,
      allowPositionals: command === 'compare',
      options: {
        adapter: { type: 'string' },
        'adapter-command': { type: 'string' },
        scenario: { type: 'string', multiple: true },
        strict: { type: 'boolean' },
        verbose: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
        era: { type: 'string' },
        personality: { type: 'string', multiple: true },
        port: { type: 'string' },
        json: { type: 'boolean' },
        quiet: { type: 'boolean' },
        config: { type: 'string' },
        clients: { type: 'string' },
        out: { type: 'string' },
        shard: { type: 'string' },
        compare: { type: 'string' },
        resume: { type: 'string' },
        markdown: { type: 'string' },
      },
    });
  } catch (error) {
    fail((error as Error).message);
  }
})();

if (command === 'serve' && values.help) {
  console.log(serveHelp());
} else if (values.help || command === undefined || command === 'help' || command === '--help' || command === '-h') {
  console.log(USAGE);
} else if (command === 'list') {
  list();
} else if (command === 'adapters') {
  for (const adapter of [...BUILT_IN_ADAPTERS, ...BROKEN_ADAPTERS]) console.log(`${adapter.name.padEnd(30)} ${adapter.description}`);
} else if (command === 'serve') {
  await serve(values);
} else if (command === 'run') {
  await run(values);
} else if (command === 'matrix') {
  if ((values.scenario?.length ?? 0) > 1) fail('matrix takes one --scenario');
  const { runMatrix } = await import('./matrix/run.ts');
  const { config, clients, out, shard, strict, compare, resume } = values;
  process.exitCode = await runMatrix({ config, clients, out, shard, strict, compare, resume, scenario: values.scenario?.[0] }).catch((error: Error) => fail(error.message));
} else if (command === 'compare') {
  const { runCompare } = await import('./matrix/compare.ts');
  // Paths are the user's: relative to where npm was run (INIT_CWD), not to the package.
  const fromUser = (path: string) => resolve(process.env.INIT_CWD ?? process.cwd(), path);
  process.exitCode = await runCompare([...positionals.map(fromUser), ...(values.markdown !== undefined ? ['--markdown', fromUser(values.markdown)] : [])]);
} else {
  fail(`unknown command "${command}"\n${USAGE}`);
}
