#!/usr/bin/env node
// Benchmarks, printed and written as JSON (reports/bench.json). Timing lives here, never in test assertions.
// Every number is a wall time on the machine it ran on; the JSON notes the load average before and after each
// section, since on a shared machine the numbers mean little without it.
//
// Sections (scripts/bench/*.ts), by default:
//   scenarios  the in-process cost of one scenario (fresh server, client, judge, teardown) for every case of every
//              built-in adapter: `--scenario-runs` timed runs after one warm-up                  (bench/scenarios.ts)
//   servers    the start time of each era's reference server, `--runs` timed                     (bench/servers.ts)
//   record     what the wire record costs: tools/call req/s with it on and off, `--requests`     (bench/servers.ts)
//   adapters   what running a client out of process costs per operation              (clients/process/bench.ts)
//   cases      one case's cost by path (in process, line protocol), transport (HTTP, stdio) and language: the
//              handshake scenario and its stdio twin, `--case-runs` timed runs, for the reference and SDK v2 clients
//              in process, the SDK v2 client through the Node driver, and one client per language beyond npm (set
//              up by npm run clients:setup; a row that is not is reported skipped)                (bench/case-costs.ts)
//   harness    per equivalent scenario, the official harness in client mode
//              (`conformance client --command … --scenario initialize | tools_call`: its own server, the minimal
//              SDK v1 client scripts/bench/harness-client.ts) against runScenario in process (initialize ↔
//              negotiation/handshake-order, tools_call ↔ negotiation/version-per-revision, both at 2025-11-25, with
//              the sdk-v1 and reference adapters): medians of `--harness-runs` and `--our-runs`, the ratio
//              harness/ours (goal ≥ 100×), and where the harness's time goes, phase by phase       (bench/harness.ts)
// Opt-in, as they take minutes:
//   full       --full: `vitest run`, the whole default suite, one run                           (bench/whole-runs.ts)
//   matrix     --scaling: `cli.ts matrix` with the first 1, 2, 4, 8 of `--matrix-clients`      (bench/whole-runs.ts)
//   shards     --scaling: the 8-client matrix with `--shard i/N`, N = 1, 2, 3, shards one after another: per-shard
//              time and the max, what N parallel runners would take                             (bench/whole-runs.ts)
//
//   npm run bench                              the default sections
//   npm run bench -- --full --scaling          every section (about 12 minutes on 2 cores)
//   npm run bench -- --only harness,shards     just these (any section, opt-in or not)
// Options: --runs 30, --scenario-runs 3, --requests 3000, --harness-runs 5, --our-runs 30, --case-runs 10, --out reports/bench.json,
// --matrix-clients <a,b,…> (names in matrix.json; default reference, sdk-v1@latest, sdk-v2-legacy@latest,
// sdk-v1-sse@latest, sdk-v2-auto@latest, sdk-v2-pinned@latest, sdk-v1@1.24, sdk-v2-legacy@2.3).
// The JSON is rewritten after each section; every matrix run writes into a temporary directory, removed after.
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, platform } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { adapterOverhead } from '../clients/process/bench.ts';
import { caseCosts } from './bench/case-costs.ts';
import { killRunning } from './bench/child.ts';
import { harnessComparison } from './bench/harness.ts';
import { scenarioCosts } from './bench/scenarios.ts';
import { recordCost, serverStarts } from './bench/servers.ts';
import { loadAverage, seconds } from './bench/stats.ts';
import { fullSuite, MATRIX_CLIENT_COUNTS, MATRIX_CLIENTS, matrixGrowth, matrixShards, SHARD_COUNTS } from './bench/whole-runs.ts';

const { values } = parseArgs({
  options: {
    only: { type: 'string' },
    full: { type: 'boolean', default: false },
    scaling: { type: 'boolean', default: false },
    runs: { type: 'string', default: '30' },
    'scenario-runs': { type: 'string', default: '3' },
    requests: { type: 'string', default: '3000' },
    'harness-runs': { type: 'string', default: '5' },
    'our-runs': { type: 'string', default: '30' },
    'case-runs': { type: 'string', default: '10' },
    'matrix-clients': { type: 'string', default: MATRIX_CLIENTS.join(',') },
    out: { type: 'string', default: join(import.meta.dirname, '..', 'reports', 'bench.json') },
  },
});
const count = (name: keyof typeof values) => {
  const value = Number(values[name]);
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} takes a positive integer, not ${String(values[name])}`);
  return value;
};
const matrixClients = values['matrix-clients'].split(',').map((name) => name.trim()).filter(Boolean);

const SECTIONS: Record<string, { optIn?: 'full' | 'scaling'; run: () => Promise<object> }> = {
  scenarios: { run: () => scenarioCosts({ scenarioRuns: count('scenario-runs') }) },
  servers: { run: () => serverStarts({ runs: count('runs') }) },
  record: { run: () => recordCost({ requests: count('requests') }) },
  adapters: { run: () => adapterOverhead({ calls: 200 }) },
  cases: { run: () => caseCosts({ runs: count('case-runs') }) },
  harness: { run: () => harnessComparison({ runs: count('harness-runs'), ourRuns: count('our-runs') }) },
  full: { optIn: 'full', run: () => fullSuite() },
  matrix: { optIn: 'scaling', run: () => matrixGrowth({ clients: matrixClients, counts: MATRIX_CLIENT_COUNTS.filter((n) => n <= matrixClients.length) }) },
  shards: { optIn: 'scaling', run: () => matrixShards({ clients: matrixClients, shardCounts: SHARD_COUNTS }) },
};

const chosen = values.only
  ? values.only.split(',').map((name) => name.trim())
  : Object.entries(SECTIONS)
      .filter(([, section]) => section.optIn === undefined || values[section.optIn])
      .map(([name]) => name);
const unknown = chosen.filter((name) => !(name in SECTIONS));
if (unknown.length > 0) throw new Error(`unknown section ${unknown.join(', ')}; sections: ${Object.keys(SECTIONS).join(', ')}`);

// Children (harness, vitest, matrix) run in their own process groups, which an interrupt at the terminal misses.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    killRunning();
    process.exit(130);
  });
}

const out = resolve(values.out);
const results: Record<string, unknown> = {
  node: process.version,
  cpus: cpus().length,
  cpuModel: cpus()[0]?.model,
  platform: `${platform()}-${process.arch}`,
  at: new Date().toISOString(),
  args: process.argv.slice(2),
  loadavg: { start: loadAverage() },
};
// Written after every section, so an interrupted long run keeps what it measured.
const write = () => {
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
};
const started = performance.now();
for (const name of chosen) {
  const start = loadAverage();
  console.log(`== ${name} (load average ${start.join(', ')})`);
  const begun = performance.now();
  const section = await SECTIONS[name]!.run();
  results[name] = { ...section, sectionMs: performance.now() - begun, loadavg: { start, end: loadAverage() } };
  console.log('');
  write();
}
results.loadavg = { ...(results.loadavg as object), end: loadAverage() };
results.totalMs = performance.now() - started;
write();
console.log(`written: ${out} (${seconds(performance.now() - started)})`);
