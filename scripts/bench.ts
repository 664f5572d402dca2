#!/usr/bin/env node
// Benchmarks, printed and written to reports/bench.json. Timing lives here, never in test assertions.
//   scenarios: the in-process cost of one scenario (fresh server, client, judge, teardown), per adapter
//   servers:   the start-and-close time of each era server, and what the wire record costs in requests/second
//   adapters:  what running a client out of process costs per operation (clients/process/bench.ts)
// `npm run bench` runs every section; `npm run bench -- --only servers` runs one.
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Agent, request } from 'undici';
import { BUILT_IN_ADAPTERS } from '../clients/index.ts';
import { adapterOverhead } from '../clients/process/bench.ts';
import { ERAS } from '../servers/era.ts';
import { startReferenceServer } from '../servers/server.ts';
import { SCENARIOS } from '../suites/index.ts';
import { plannedCases } from '../suites/plan.ts';
import { runScenario } from '../suites/runner.ts';

const { values } = parseArgs({
  options: {
    only: { type: 'string' },
    runs: { type: 'string', default: '30' },
    'scenario-runs': { type: 'string', default: '3' },
    requests: { type: 'string', default: '3000' },
  },
});
const runs = Number(values.runs);

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}

const ms = (value: number) => `${value.toFixed(1).padStart(6)} ms`;

/** Every case (scenario × revision) for every built-in adapter, one at a time: `--scenario-runs` timed runs after one warm-up. */
async function scenarios() {
  const scenarioRuns = Number(values['scenario-runs']);
  const rows = [];
  const all: number[] = [];
  for (const adapter of BUILT_IN_ADAPTERS) {
    for (const { scenario, revision } of plannedCases(SCENARIOS)) {
      const times: number[] = [];
      for (let i = 0; i < 1 + scenarioRuns; i++) {
        const started = performance.now();
        const result = await runScenario(scenario, adapter, revision);
        if (result.verdict === 'n/a') break;
        if (i >= 1) times.push(performance.now() - started);
      }
      if (times.length === 0) continue;
      all.push(...times);
      const row = { adapter: adapter.name, scenario: scenario.id, revision, medianMs: percentile(times, 0.5), p90Ms: percentile(times, 0.9), runs: times.length };
      rows.push(row);
    }
    const own = rows.filter((row) => row.adapter === adapter.name).map((row) => row.medianMs);
    if (own.length > 0) console.log(`${adapter.name.padEnd(16)} ${String(own.length).padStart(3)} cases  median ${ms(percentile(own, 0.5))}  p90 ${ms(percentile(own, 0.9))}  total ${ms(own.reduce((a, b) => a + b, 0))}`);
  }
  const slowest = [...rows].sort((a, b) => b.medianMs - a.medianMs).slice(0, 5);
  for (const row of slowest) console.log(`  slowest: ${row.adapter} ${row.scenario} @ ${row.revision}: ${ms(row.medianMs)}`);
  const summary = { medianMs: percentile(all, 0.5), p90Ms: percentile(all, 0.9), runs: all.length };
  console.log(`one scenario, all adapters: median ${ms(summary.medianMs)}, p90 ${ms(summary.p90Ms)} (${all.length} runs)\n`);
  return { summary, rows };
}

async function serverStarts() {
  const rows = [];
  for (const era of ERAS) {
    const times: number[] = [];
    try {
      for (let i = 0; i < 3 + runs; i++) {
        const started = performance.now();
        const server = await startReferenceServer({ era });
        const listening = performance.now();
        await server.close();
        if (i >= 3) times.push(listening - started);
      }
    } catch (error) {
      console.log(`${era.padEnd(12)} skipped: ${(error as Error).message}`);
      continue;
    }
    const row = { era, medianStartMs: percentile(times, 0.5), p90StartMs: percentile(times, 0.9), runs: times.length };
    rows.push(row);
    console.log(`${era.padEnd(12)} start median ${ms(row.medianStartMs)}  p90 ${ms(row.p90StartMs)}`);
  }
  const medians = rows.map((r) => r.medianStartMs);
  const summary = { medianStartMs: medians.length > 0 ? percentile(medians, 0.5) : undefined };
  console.log(`median server start across eras: ${summary.medianStartMs?.toFixed(1)} ms\n`);
  return { summary, rows };
}

/** Requests per second of `tools/call echo` in one session, with the wire record on and off, rounds interleaved. */
async function recordCost() {
  const total = Number(values.requests);
  const concurrency = 16;
  const rounds = 3;
  const measure = async (recording: boolean) => {
    const server = await startReferenceServer({ era: '2025-06-18', recording });
    const agent = new Agent({ connections: concurrency });
    try {
      const post = async (body: unknown, headers: Record<string, string> = {}) => {
        const response = await request(server.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
          body: JSON.stringify(body),
          dispatcher: agent,
        });
        await response.body.text();
        return response;
      };
      const init = await post({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '0' } } });
      const headers = { 'mcp-session-id': String(init.headers['mcp-session-id']), 'mcp-protocol-version': '2025-06-18' };
      await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, headers);
      let next = 1;
      const started = performance.now();
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (next <= total) {
            const id = next++;
            const response = await post({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: { text: 'x' } } }, headers);
            if (response.statusCode !== 200) throw new Error(`request ${id}: HTTP ${response.statusCode}`);
          }
        }),
      );
      const seconds = (performance.now() - started) / 1000;
      return { requestsPerSecond: total / seconds, recorded: server.record.exchanges.length };
    } finally {
      await agent.close();
      await server.close();
    }
  };
  const withRecord: number[] = [];
  const without: number[] = [];
  for (let round = 0; round < rounds; round++) {
    withRecord.push((await measure(true)).requestsPerSecond);
    without.push((await measure(false)).requestsPerSecond);
  }
  const summary = {
    requests: total,
    concurrency,
    rounds,
    withRecordRps: percentile(withRecord, 0.5),
    withoutRecordRps: percentile(without, 0.5),
  };
  const cost = 1 - summary.withRecordRps / summary.withoutRecordRps;
  console.log(
    `wire record: ${summary.withRecordRps.toFixed(0)} req/s with, ${summary.withoutRecordRps.toFixed(0)} req/s without (median of ${rounds} interleaved rounds of ${total} tools/call, ${concurrency} concurrent): ${(cost * 100).toFixed(1)}% cost\n`,
  );
  return { ...summary, costFraction: cost };
}

const sections = { scenarios, servers: serverStarts, record: recordCost, adapters: () => adapterOverhead({ calls: 200 }) } as const;
const chosen = values.only ? values.only.split(',') : Object.keys(sections);
const results: Record<string, unknown> = { node: process.version, cpus: cpus().length, at: new Date().toISOString() };
for (const name of chosen) {
  const section = sections[name as keyof typeof sections];
  if (!section) throw new Error(`unknown section ${name}; sections: ${Object.keys(sections).join(', ')}`);
  console.log(`== ${name}`);
  results[name] = await section();
}
const out = join(import.meta.dirname, '..', 'reports');
mkdirSync(out, { recursive: true });
writeFileSync(join(out, 'bench.json'), `${JSON.stringify(results, null, 2)}\n`);
console.log('written: reports/bench.json');
