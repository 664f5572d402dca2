// Results of a small real matrix run for the report and comparison tests: a handful of scenarios run on the reference
// client, on broken variants (fail and warn cells), on a client that declares less (n/a cells), on one whose process
// crashed part-way (error cells, with the raw bytes a crashing program prints), on one whose process is dead
// (inconclusive cells: the suite could not judge it), on one judged only on a rerun, and on one that could not be
// loaded. The run is marked incomplete by `incomplete()` for the tests of what an interrupted run shows.
import type { ClientAdapter } from '../../../clients/adapter.ts';
import { findAdapter } from '../../../clients/index.ts';
import { referenceClient } from '../../../clients/reference/index.ts';
import { STREAMABLE_REVISIONS, type Revision } from '../../../protocol/revisions.ts';
import { SCENARIOS } from '../../../suites/index.ts';
import { plannedCases } from '../../../suites/plan.ts';
import { runScenario } from '../../../suites/runner.ts';
import type { Scenario, ScenarioResult } from '../../../suites/scenario.ts';
import { cellOf, errorCell, scenarioInfo, RESULTS_FORMAT, RESULTS_FORMAT_VERSION, type Cell, type ClientInfo, type MatrixResults, type ScenarioInfo } from '../../../results/results.ts';

/** Quick scenarios (a few ms each on the reference client) that the variants below break. */
export const FIXTURE_SCENARIOS = [
  'negotiation/handshake-order',
  'negotiation/version-per-revision',
  'negotiation/modern-envelope',
  'disposal/delete-issued-session',
  'retry/bounded-on-5xx',
] as const;

/** What a crashing client process printed: terminal colours, NUL, a lone surrogate, markup and a CDATA end. */
export const HOSTILE_TEXT = 'stderr: \u001b[31mTypeError\u001b[0m: bad \u0000byte\u0007 \ud800 <script>alert("x")</script> ]]> & </pre> \uffff end';

const CRASHING = 'crashing-client';
const UNLOADABLE = 'unloadable-client';
const DECLARES_LESS = 'reference-streamable-only';
const DEAD = 'dead-client';
const RERUN = 'slow-starting-client';

/** Why the dead client's cases could not be judged (what the process adapter says of a program it lost). */
export const DEAD_REASON = 'not running since negotiation/handshake-order@2024-11-05: the client process exited with code 1';
/** What the slow-starting client's first runs ran into. */
export const RERUN_REASON = 'initialize-reached: no initialize reached the server within the start-up bound (1000 ms)';

function variant(name: string): ClientAdapter {
  const adapter = findAdapter(name);
  if (!adapter) throw new Error(`no adapter named ${name}`);
  return adapter;
}

/** The reference client declaring only legacy Streamable HTTP and the legacy mode, as many real clients do. */
const declaresLess: ClientAdapter = { ...referenceClient, name: DECLARES_LESS, description: 'Reference client declaring 2025-03-26 … 2025-11-25 and mode-legacy only', revisions: STREAMABLE_REVISIONS, features: ['mode-legacy'] };

const RUN_CLIENTS: { adapter: ClientAdapter; info?: Partial<ClientInfo> }[] = [
  { adapter: referenceClient },
  { adapter: variant('broken-skips-initialized') },
  { adapter: variant('broken-omits-version-header') },
  { adapter: variant('broken-never-deletes') },
  { adapter: variant('broken-retries-http-errors') },
  { adapter: declaresLess, info: { kind: 'module', package: '@example/streamable-client', version: '3.2.1' } },
  // Its cells are the skips-initialized variant's until the process "crashes" (see buildFixture).
  { adapter: { ...variant('broken-skips-initialized'), name: CRASHING, description: 'A line-protocol client whose process crashes part-way' }, info: { kind: 'process', package: 'crashy-mcp', version: '0.3.1' } },
  // The runner asks every adapter whether its client could take part; this one's never could. One revision keeps it quick.
  { adapter: { ...referenceClient, name: DEAD, description: 'A line-protocol client whose process died before the run', revisions: ['2025-11-25'], interrupted: () => DEAD_REASON }, info: { kind: 'process', package: 'dead-mcp', version: '2.0.0' } },
];

/** Not run: its cells are the reference client's, its negotiation ones as judged on a rerun (see buildFixture). */
const RERUN_CLIENT: ClientInfo = { ...clientInfo(referenceClient, { kind: 'process', package: 'slow-mcp', version: '1.4.0' }), name: RERUN, description: 'A client slow to start: some cases were judged only when run again with larger bounds' };

function clientInfo(adapter: ClientAdapter, extra: Partial<ClientInfo> = {}): ClientInfo {
  return { name: adapter.name, description: adapter.description, kind: 'built-in', revisions: [...adapter.revisions], features: [...adapter.features], ...extra };
}

/** Runs `tasks` with at most `limit` at once (the machine is shared; each scenario starts its own servers). */
async function inBatches<T>(tasks: (() => Promise<T>)[], limit: number): Promise<T[]> {
  const results: T[] = new Array(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const index = next++;
      results[index] = await tasks[index]!();
    }
  };
  await Promise.all(Array.from({ length: limit }, worker));
  return results;
}

/** Runs the fixture matrix for real: about 125 scenario runs, a second or two on a quiet machine. */
export async function buildFixture(): Promise<MatrixResults> {
  const started = performance.now();
  const scenarios = FIXTURE_SCENARIOS.map((id) => SCENARIOS.find((scenario) => scenario.id === id)!);
  const cases = plannedCases(scenarios);
  const runs = RUN_CLIENTS.flatMap(({ adapter }) => cases.map(({ scenario, revision }) => ({ adapter, scenario, revision })));
  const results = await inBatches(
    runs.map(({ adapter, scenario, revision }) => () => runScenario(scenario, adapter, revision)),
    8,
  );
  const cells = results.map((result) => (result.adapter === CRASHING ? crashed(result) : cellOf(result.adapter, result)));
  cells.push(...results.filter((result) => result.adapter === referenceClient.name).map(judgedOnRerun));
  const unloadable: ClientInfo = {
    name: UNLOADABLE,
    description: 'A module adapter whose file does not exist',
    package: '@example/missing-client',
    kind: 'module',
    revisions: [],
    features: [],
    loadError: "Cannot find module './clients/third-party/missing.ts' imported from matrix.json\n    at moduleResolve (node:internal/modules/esm/resolve:861:10)",
  };
  cells.push(...cases.map(({ scenario, revision }) => errorCell(UNLOADABLE, scenario.id, revision, `the client could not be loaded: ${unloadable.loadError!.split('\n')[0]}`)));
  return {
    format: RESULTS_FORMAT,
    formatVersion: RESULTS_FORMAT_VERSION,
    generatedAt: new Date().toISOString(),
    run: {
      suiteVersion: '0.1.0',
      commit: '4ed33d3a1b2c',
      node: process.version,
      platform: `${process.platform}-${process.arch}`,
      cpus: 2,
      durationMs: Math.round(performance.now() - started),
      strict: false,
      matrixFile: 'matrix.json',
      complete: true,
      plannedCells: cells.length,
      missingCells: 0,
      selection: { suites: ['negotiation', 'disposal', 'retry'] },
    },
    scenarios: scenarios.map(scenarioInfo),
    clients: [...RUN_CLIENTS.map(({ adapter, info }) => clientInfo(adapter, info)), RERUN_CLIENT, unloadable],
    cells,
  };
}

/**
 * The crashing client: its judged cells stand until the process dies during disposal/delete-issued-session; from
 * there every case is an error whose reason carries what the process printed. One failing cell's evidence carries
 * the same bytes as the client's error, as an echoing client would produce.
 */
function crashed(result: ScenarioResult): Cell {
  const crashPoint = FIXTURE_SCENARIOS.indexOf('disposal/delete-issued-session');
  if (FIXTURE_SCENARIOS.indexOf(result.scenarioId as (typeof FIXTURE_SCENARIOS)[number]) >= crashPoint) {
    return errorCell(CRASHING, result.scenarioId, result.revision, `the client process exited with code 1 during connect; ${HOSTILE_TEXT}`);
  }
  if (result.verdict === 'fail' && result.revision === '2025-03-26' && result.evidence) {
    const evidence = { ...result.evidence, clientError: `Error: ${HOSTILE_TEXT}` };
    return cellOf(CRASHING, { ...result, evidence, ...(result.record !== undefined ? { record: { ...result.record, evidence } } : {}) });
  }
  return cellOf(CRASHING, result);
}

/**
 * The slow-starting client's case as run by runCase when its first run was inconclusive for lack of time: the earlier
 * run in `attempts`, the verdict judged at twice the scale.
 */
function judgedOnRerun(result: ScenarioResult): Cell {
  const cell = cellOf(RERUN, result);
  return result.scenarioId.startsWith('negotiation/') && result.revision !== '2026-07-28' ? { ...cell, attempts: [{ verdict: 'inconclusive', reason: RERUN_REASON, scale: 1 }], timeScale: 2 } : cell;
}

/** The fixture as an interrupted run would leave it: the last `missing` cells of the crashing client gone. */
export function incomplete(results: MatrixResults, missing = 5, interruption = 'interrupted by SIGINT'): MatrixResults {
  const copy = structuredClone(results);
  const gone = new Set(copy.cells.filter((cell) => cell.client === CRASHING).slice(-missing));
  copy.cells = copy.cells.filter((cell) => !gone.has(cell));
  copy.run = { ...copy.run, complete: false, plannedCells: results.cells.length, missingCells: missing, interruption };
  return copy;
}

/** A copy of `results` with every cell and client of `from` renamed `to` (and its client info amended), for comparisons. */
export function asClient(results: MatrixResults, from: string, to: string, info: Partial<ClientInfo> = {}): { client: ClientInfo; cells: Cell[] } {
  const client = results.clients.find((c) => c.name === from);
  if (!client) throw new Error(`no client ${from} in the fixture`);
  return { client: { ...structuredClone(client), name: to, ...info }, cells: results.cells.filter((cell) => cell.client === from).map((cell) => ({ ...structuredClone(cell), client: to })) };
}

/** Assembles a run from client parts taken out of the fixture with `asClient`. */
export function runOf(base: MatrixResults, parts: { client: ClientInfo; cells: Cell[] }[], run: Partial<MatrixResults['run']> = {}): MatrixResults {
  return { ...structuredClone(base), run: { ...base.run, ...run }, clients: parts.map((part) => part.client), cells: parts.flatMap((part) => part.cells) };
}

/**
 * A matrix of realistic size for the HTML report: `clientCount` clients × every planned case of the suite (148), each
 * cell a copy of a fixture cell of the same verdict, the verdicts spread the way real runs spread them.
 */
export function fullSizeResults(fixture: MatrixResults, clientCount = 30): MatrixResults {
  const samples = {
    pass: fixture.cells.find((cell) => cell.verdict === 'pass')!,
    fail: fixture.cells.find((cell) => cell.verdict === 'fail' && cell.record)!,
    warn: fixture.cells.find((cell) => cell.verdict === 'warn')!,
    inconclusive: fixture.cells.find((cell) => cell.verdict === 'inconclusive')!,
    'n/a': fixture.cells.find((cell) => cell.verdict === 'n/a')!,
    error: fixture.cells.find((cell) => cell.verdict === 'error')!,
  };
  const cases = plannedCases(SCENARIOS);
  const clients: ClientInfo[] = Array.from({ length: clientCount }, (_, index) => ({
    name: `client-${String(index + 1).padStart(2, '0')}`,
    description: `Synthetic client ${index + 1}`,
    package: `@example/client-${index + 1}`,
    version: `1.${index}.0`,
    kind: 'module',
    revisions: ['2025-03-26', '2025-06-18', '2025-11-25'],
    features: ['mode-legacy'],
  }));
  const cells: Cell[] = [];
  clients.forEach((client, c) => {
    cases.forEach(({ scenario, revision }, s) => {
      // A fixed pattern (no randomness): mostly passes, some n/a, fails, warns, inconclusive and a rare error.
      const k = (c * 7 + s * 13) % 31;
      const verdict = k < 17 ? 'pass' : k < 22 ? 'n/a' : k < 25 ? 'fail' : k < 28 ? 'warn' : k < 30 ? 'inconclusive' : 'error';
      cells.push({ ...structuredClone(samples[verdict]), client: client.name, scenario: scenario.id, revision: revision as Revision });
    });
  });
  return { ...structuredClone(fixture), scenarios: SCENARIOS.map(scenarioInfo), clients, cells };
}
