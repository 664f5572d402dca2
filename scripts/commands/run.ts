// `run`: the scenarios against one adapter, a verdict table on stdout.
import { AdapterLoadError, loadChosenAdapter, runnerOperationTimeoutMs } from '../../clients/load.ts';
import { basePolicy } from '../../config/settings.ts';
import { explain } from '../../suites/evidence.ts';
import { SCENARIOS } from '../../suites/index.ts';
import { plannedCases } from '../../suites/plan.ts';
import { bounded, runCase } from '../../suites/runner.ts';
import type { ScenarioResult, Verdict } from '../../suites/scenario.ts';
import { attemptsNote } from '../matrix/results.ts';
import { defineCommand, optionLines, UsageError } from './command.ts';

const VERDICT_ORDER: readonly Verdict[] = ['pass', 'fail', 'warn', 'inconclusive', 'n/a'];

/** What the reruns of a case say, in the matrix reports' words ("judged at time scale 2 after 1 inconclusive run: …"). */
const attemptsOf = (r: ScenarioResult) => attemptsNote({ verdict: r.verdict, ...(r.attempts !== undefined ? { attempts: r.attempts } : {}), ...(r.evidence !== undefined ? { timeScale: r.evidence.time.scale } : {}) });

export function table(results: readonly ScenarioResult[]): string {
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

export const run = defineCommand({
  name: 'run',
  summary: 'run the scenarios against one client (an adapter) and print a verdict table',
  options: {
    adapter: { type: 'string' },
    'adapter-command': { type: 'string' },
    scenario: { type: 'string', multiple: true },
    strict: { type: 'boolean' },
    verbose: { type: 'boolean' },
  },
  help: () =>
    [
      'usage: mcp-client-conformance run (--adapter <name or file> | --adapter-command "<program>") [options]',
      '',
      optionLines([
        ['--adapter <name>', 'a built-in adapter (see `mcp-client-conformance adapters`)'],
        ['--adapter <file>', 'the adapter a module exports (./my-adapter.ts: its default export or "adapter", a\nClientAdapter or a function returning one, or a "processAdapter" config)'],
        ['--adapter-command <c>', 'a client program speaking the line protocol (docs/line-protocol.md), e.g.\n"python3 clients/drivers/python/driver.py"'],
        ['--scenario <text>', 'only scenarios whose id contains <text> (repeatable)'],
        ['--strict', 'SHOULD violations fail instead of warning'],
        ['--verbose', 'print the evidence of every result that is not a pass'],
      ]),
    ].join('\n'),
  async run(values) {
    const filters = values.scenario ?? [];
    const scenarios = SCENARIOS.filter((s) => filters.length === 0 || filters.some((f) => s.id.includes(f)));
    if (scenarios.length === 0) throw new UsageError(`no scenario matches ${filters.map((f) => `"${f}"`).join(', ')}`);
    const adapter = await loadChosenAdapter({ adapter: values.adapter, command: values['adapter-command'] }).catch((error: unknown) => {
      throw error instanceof AdapterLoadError ? new UsageError(error.message) : error;
    });
    const results: ScenarioResult[] = [];
    const cases = plannedCases(scenarios);
    const operationTimeoutMs = runnerOperationTimeoutMs();
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
    if (judged.length === 0) console.error(`mcp-client-conformance: no scenario applies to ${adapter.name}: check the revisions and features it declares`);
    const inconclusive = results.filter((r) => r.verdict === 'inconclusive').length;
    if (inconclusive > 0) console.error(`mcp-client-conformance: ${inconclusive} ${inconclusive === 1 ? 'case was' : 'cases were'} inconclusive: the suite could not judge ${inconclusive === 1 ? 'it' : 'them'} (the reason column says why)`);
    setTimeout(() => process.exit(), 2_000).unref();
    return judged.length === 0 || results.some((r) => r.verdict === 'fail') ? 1 : 0;
  },
});
