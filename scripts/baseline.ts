#!/usr/bin/env node
// Writes an adapter's baseline (format 2, one entry per check) from a run: every cell its baseline names (either
// format: an old file is migrated) is run as the suites run it (runCase: calibrated, inconclusive cases again with
// larger bounds), and the file is written again from which checks fail, keeping each entry's reason and spec URL.
// Re-runnable: run it again whenever the judges change. It never invents a reason: a new failing check in a cell with
// several entries is reported, not written.
import { existsSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { findAdapter } from '../clients/index.ts';
import { baselineMismatch, baselinePath, cellKey, claimsOf, readBaselineJson, revisionsRun, writeBaselineFromRun } from '../suites/baselines.ts';
import { SCENARIOS } from '../suites/index.ts';
import { runCase } from '../suites/runner.ts';
import type { ScenarioResult } from '../suites/scenario.ts';

const USAGE = `usage: npx node scripts/baseline.ts <adapter> [--from <file>] [--to <file>] [--concurrency <n>]
       npx node scripts/baseline.ts --adapter-command "<program>" [...]

  <adapter>          a built-in adapter name or a module path (as run --adapter)
  --from <file>      the baseline to rewrite or migrate (default: <adapter>.json in MCP_CONFORMANCE_BASELINES, else suites/baselines/)
  --to <file>        where to write it (default: the --from file)
  --concurrency <n>  cases run at once (default 3)`;

const fail = (message: string): never => {
  console.error(`baseline: ${message}`);
  process.exit(2);
};

const { values, positionals } = (() => {
  try {
    return parseArgs({
      allowPositionals: true,
      options: { from: { type: 'string' }, to: { type: 'string' }, concurrency: { type: 'string' }, 'adapter-command': { type: 'string' }, help: { type: 'boolean' } },
    });
  } catch (error) {
    return fail(`${(error as Error).message.split('\n')[0]}\n${USAGE}`);
  }
})();
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
if (positionals.length > 1) fail(`one adapter at a time\n${USAGE}`);
const concurrency = Number(values.concurrency ?? 3);
if (!Number.isInteger(concurrency) || concurrency < 1) fail('--concurrency must be a positive whole number');

const builtIn = values['adapter-command'] === undefined && positionals[0] !== undefined ? findAdapter(positionals[0]) : undefined;
const adapter = builtIn ?? (await loadOther());

/** A module or a line-protocol program, as `run` loads them (clients/load.ts). */
async function loadOther() {
  const { AdapterLoadError, loadChosenAdapter } = await import('../clients/load.ts');
  return loadChosenAdapter({ adapter: positionals[0], command: values['adapter-command'] }).catch((error: unknown) => {
    if (error instanceof AdapterLoadError) fail(error.message);
    throw error;
  });
}
const from = values.from === undefined ? baselinePath(adapter.name) : resolve(values.from);
const to = values.to === undefined ? from : resolve(values.to);
if (!existsSync(from)) fail(`no baseline at ${from}: nothing to rewrite (write its entries by hand first, each with its reason)`);

const runs = revisionsRun(adapter, SCENARIOS);
// The cells to run; what the file says of cells that do not run is noted when it is written (writeBaselineFromRun).
const claims = claimsOf(readBaselineJson(from), adapter.name, from, runs, []);

// One run per cell, a few at a time.
const cells = [...new Map(claims.map((claim) => [cellKey(claim.scenario, claim.revision), claim])).values()];
const results = new Map<string, ScenarioResult>();
let next = 0;
try {
  await Promise.all(
    Array.from({ length: Math.min(concurrency, cells.length) }, async () => {
      while (next < cells.length) {
        const { scenario: id, revision } = cells[next++]!;
        const scenario = SCENARIOS.find((s) => s.id === id)!;
        const result = await runCase(scenario, adapter, revision);
        const reruns = result.attempts?.length ? ` (after ${result.attempts.length} inconclusive ${result.attempts.length === 1 ? 'run' : 'runs'})` : '';
        console.error(`${cellKey(id, revision)}: ${result.verdict}${reruns}`);
        results.set(cellKey(id, revision), result);
      }
    }),
  );
} finally {
  await adapter.shutdown?.();
}

const { baseline, notes, entriesBefore } = writeBaselineFromRun({ adapter: adapter.name, from, to, results: results.values(), runs });
for (const note of notes) console.log(`- ${note}`);
console.log(`${adapter.name}: ${cells.length} cells run; entries ${entriesBefore} → ${baseline.known.length}; written to ${relative(process.cwd(), to) || to}`);
// The file written must match the run it was written from; what does not (a check no entry names) is shown.
const left = [...results.values()].flatMap((result) => {
  const mismatch = baselineMismatch(result, baseline);
  return mismatch === undefined ? [] : [`${cellKey(result.scenarioId, result.revision)}: ${mismatch.replaceAll('\n', '; ')}`];
});
for (const mismatch of left) console.log(`  still a mismatch: ${mismatch}`);
process.exit(left.length > 0 ? 1 : 0);
