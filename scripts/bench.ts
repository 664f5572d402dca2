#!/usr/bin/env node
// Benchmarks: the in-process cost of one scenario (fresh server, client, judge, teardown), per adapter.
// Prints a table and writes reports/bench.json. Timing lives here, never in test assertions.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { BUILT_IN_ADAPTERS } from '../clients/index.ts';
import { SCENARIOS } from '../suites/index.ts';
import { plannedCases } from '../suites/plan.ts';
import { runScenario } from '../suites/runner.ts';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '30' }, warmup: { type: 'string', default: '3' } } });
const runs = Number(values.runs);
const warmup = Number(values.warmup);

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}

const rows: { adapter: string; scenario: string; revision: string; medianMs: number; p90Ms: number; runs: number }[] = [];
const all: number[] = [];
for (const adapter of BUILT_IN_ADAPTERS) {
  for (const { scenario, revision } of plannedCases(SCENARIOS)) {
    const times: number[] = [];
    for (let i = 0; i < warmup + runs; i++) {
      const started = performance.now();
      const result = await runScenario(scenario, adapter, revision);
      if (i >= warmup) times.push(performance.now() - started);
      if (result.verdict === 'n/a') break;
    }
    if (times.length === 0) continue;
    times.sort((a, b) => a - b);
    all.push(...times);
    rows.push({ adapter: adapter.name, scenario: scenario.id, revision, medianMs: percentile(times, 0.5), p90Ms: percentile(times, 0.9), runs: times.length });
  }
}
all.sort((a, b) => a - b);
const summary = { node: process.version, cpus: (await import('node:os')).cpus().length, runsPerCase: runs, medianScenarioMs: percentile(all, 0.5), p90ScenarioMs: percentile(all, 0.9) };

for (const row of rows) {
  console.log(`${row.adapter.padEnd(16)} ${`${row.scenario} @ ${row.revision}`.padEnd(48)} median ${row.medianMs.toFixed(1).padStart(6)} ms  p90 ${row.p90Ms.toFixed(1).padStart(6)} ms`);
}
console.log(`\none scenario, all adapters: median ${summary.medianScenarioMs.toFixed(1)} ms, p90 ${summary.p90ScenarioMs.toFixed(1)} ms (${all.length} runs, node ${summary.node}, ${summary.cpus} cpus)`);
const out = join(import.meta.dirname, '..', 'reports');
mkdirSync(out, { recursive: true });
writeFileSync(join(out, 'bench.json'), `${JSON.stringify({ summary, rows }, null, 2)}\n`);
console.log(`written: reports/bench.json`);
