// Section `scenarios`: the in-process cost of one scenario (fresh server, client, judge, teardown), per built-in adapter.
import { BUILT_IN_ADAPTERS } from '../../clients/index.ts';
import { SCENARIOS } from '../../suites/index.ts';
import { plannedCases } from '../../suites/plan.ts';
import { runScenario } from '../../suites/runner.ts';
import { ms, percentile } from './stats.ts';

/** Every case (scenario × revision) for every built-in adapter, one at a time: `scenarioRuns` timed runs after one warm-up. */
export async function scenarioCosts(options: { scenarioRuns: number }) {
  const rows = [];
  const all: number[] = [];
  for (const adapter of BUILT_IN_ADAPTERS) {
    for (const { scenario, revision } of plannedCases(SCENARIOS)) {
      const times: number[] = [];
      for (let i = 0; i < 1 + options.scenarioRuns; i++) {
        const started = performance.now();
        const result = await runScenario(scenario, adapter, revision);
        if (result.verdict === 'n/a') break;
        if (i >= 1) times.push(performance.now() - started);
      }
      if (times.length === 0) continue;
      all.push(...times);
      rows.push({ adapter: adapter.name, scenario: scenario.id, revision, medianMs: percentile(times, 0.5), p90Ms: percentile(times, 0.9), runs: times.length });
    }
    const own = rows.filter((row) => row.adapter === adapter.name).map((row) => row.medianMs);
    if (own.length > 0) console.log(`${adapter.name.padEnd(16)} ${String(own.length).padStart(3)} cases  median ${ms(percentile(own, 0.5))}  p90 ${ms(percentile(own, 0.9))}  total ${ms(own.reduce((a, b) => a + b, 0))}`);
  }
  const slowest = [...rows].sort((a, b) => b.medianMs - a.medianMs).slice(0, 5);
  for (const row of slowest) console.log(`  slowest: ${row.adapter} ${row.scenario} @ ${row.revision}: ${ms(row.medianMs)}`);
  const summary = { medianMs: percentile(all, 0.5), p90Ms: percentile(all, 0.9), runs: all.length };
  console.log(`one scenario, all adapters: median ${ms(summary.medianMs)}, p90 ${ms(summary.p90Ms)} (${all.length} runs)`);
  return { summary, rows };
}
