// The programmatic API (the package's main entry): run the scenarios against a client from your own code or test
// runner, as the suites run them (suites/runner.ts runCase: the client's calibrated time bounds, an inconclusive case
// run again with larger bounds), compare the results with your baseline (suites/baselines.ts), write one from a run,
// and render the results as the matrix's results.json or as JUnit XML, or judge a saved results.json again with
// today's judges (rejudgeRun, rejudgeResults: no client run). Every call closes what it started: an adapter
// it loaded (a module, a built-in name, a line-protocol program) is shut down before it returns; an adapter object
// you pass is yours to shut down.
import { existsSync, readFileSync } from 'node:fs';
import { relative, resolve, isAbsolute } from 'node:path';
import { TRANSPORTS, type ClientAdapter, type Feature, type Transport } from '../clients/adapter.ts';
import { isModulePath, loadChosenAdapter, runnerOperationTimeoutMs } from '../clients/load.ts';
import { basePolicy, settings } from '../config/settings.ts';
import { ATTEMPT_GROWTH, MAX_ATTEMPTS } from '../config/time.ts';
import { REVISIONS, type Revision } from '../protocol/revisions.ts';
import { renderJunit } from '../results/junit.ts';
import { notRejudgeable, rejudgeCell } from '../results/rejudge.ts';
import { cellOf, parseResults, RESULTS_FORMAT, RESULTS_FORMAT_VERSION, runMachine, scenarioInfo, type ClientInfo, type MatrixResults, type ScenarioInfo } from '../results/results.ts';
import {
  baselineDifferences,
  baselineProblems,
  caseStatus,
  claimsOf,
  readBaselineJson,
  parseBaseline,
  revisionsRun,
  writeBaselineFromRun,
  type Baseline,
  type CaseStatus,
  type CompareOptions,
  type Difference,
} from '../suites/baselines.ts';
import { explain } from '../suites/evidence.ts';
import { SCENARIOS } from '../suites/index.ts';
import { plannedCases, transportOf } from '../suites/plan.ts';
import { bounded, runCase } from '../suites/runner.ts';
import type { Scenario, ScenarioResult, Verdict } from '../suites/scenario.ts';
import { EXIT_CODES, judgedSomething } from './exit-codes.ts';
import { checkWritable } from './output-paths.ts';
import { PACKAGE_VERSION } from './package.ts';

// ── the contract and the results, for your own code ──────────────────────────────────────────────────────────────
// The adapter contract, as the package's `./adapter` entry has it (one list, kept there).
export * from './adapter.ts';
export { AdapterLoadError } from '../clients/load.ts';
export { SettingsError } from '../config/settings.ts';
export { REVISIONS, type Revision } from '../protocol/revisions.ts';
export type { Attempt, Check, CheckOutcome, Level, ScenarioResult, SpecRef, Verdict } from '../suites/scenario.ts';
export type { Cell, CellCheck, CellVerdict, ClientInfo, MatrixResults, RunInfo, ScenarioInfo } from '../results/results.ts';
export { BaselineError, type Baseline, type BaselineEntry, type CaseStatus, type Difference, type DifferenceKind, type KnownVerdict } from '../suites/baselines.ts';
export { explain } from '../suites/evidence.ts';
export { judgeCase, type Judgement } from '../suites/judge.ts';
// Requirement sets per revision (run --requirements): run the revision's cases, then requirementReport(revision, results, { speaks }).
export { requirementReport, requirementRevisions, requirementSet, requirementText, RequirementsError, type RequirementLine, type RequirementReport, type RequirementSet } from '../suites/requirements.ts';
export type { CaseRecord, Ending, Evidence } from '../suites/scenario.ts';
export { decodeRecord, encodeRecord, parseResults } from '../results/results.ts';
export { rejudgeResults } from '../results/rejudge.ts';
export { PACKAGE_VERSION } from './package.ts';
export { EXIT_CODES, judgedSomething, notJudgedLine } from './exit-codes.ts';
export { OutputPathError } from './output-paths.ts';

/** A selection that selects nothing, a revision that does not exist, a concurrency that is not a count. */
export class SelectionError extends Error {
  override name = 'SelectionError';
}

// ── what to run ──────────────────────────────────────────────────────────────────────────────────────────────────

/** A scenario as `list` prints it: its id, suite, title, revisions, spec reference, and the adapter features it needs. */
export interface ScenarioSummary extends ScenarioInfo {
  requires: Feature[];
}

/** Every scenario, in catalogue order. */
export function listScenarios(): ScenarioSummary[] {
  return SCENARIOS.map((scenario) => ({ ...scenarioInfo(scenario), requires: [...scenario.requires] }));
}

export interface CaseSelection {
  /** Scenario ids, or parts of ids (as `run --scenario`): a scenario runs when its id contains one. Default: all. */
  scenarios?: readonly string[];
  /** Only these revisions. Default: every revision each scenario runs at. */
  revisions?: readonly Revision[];
  /** Only the scenarios over these transports (`run --transport`). Default: both. */
  transports?: readonly Transport[];
}

/** One case: a scenario at a revision. */
export interface PlannedCase {
  scenario: string;
  revision: Revision;
}

/** The scenarios a selection keeps, and its cases in plan order; a selection that keeps nothing is a SelectionError. */
function select(selection: CaseSelection): { scenarios: Scenario[]; cases: { scenario: Scenario; revision: Revision }[] } {
  const filters = selection.scenarios ?? [];
  const unknown = (selection.revisions ?? []).filter((revision) => !(REVISIONS as readonly string[]).includes(revision));
  if (unknown.length > 0) throw new SelectionError(`unknown revision ${unknown.map((r) => `"${r}"`).join(', ')}; revisions: ${REVISIONS.join(', ')}`);
  const unknownTransports = (selection.transports ?? []).filter((transport) => !Object.hasOwn(TRANSPORTS, transport));
  if (unknownTransports.length > 0) throw new SelectionError(`unknown transport ${unknownTransports.map((t) => `"${t}"`).join(', ')}; transports: ${Object.keys(TRANSPORTS).join(', ')}`);
  const overTransport = (s: Scenario) => selection.transports === undefined || selection.transports.includes(transportOf(s));
  const scenarios = SCENARIOS.filter((s) => (filters.length === 0 || filters.some((f) => s.id.includes(f))) && overTransport(s));
  if (scenarios.length === 0) {
    const over = selection.transports === undefined ? '' : ` over ${selection.transports.join(', ')}`;
    throw new SelectionError(filters.length === 0 ? `no scenario runs${over}` : `no scenario${over} matches ${filters.map((f) => `"${f}"`).join(', ')}`);
  }
  const cases = plannedCases(scenarios).filter(({ revision }) => selection.revisions === undefined || selection.revisions.includes(revision));
  if (cases.length === 0) throw new SelectionError(`the selected scenarios run at none of ${selection.revisions!.join(', ')}`);
  return { scenarios, cases };
}

/** The cases a selection plans, in the order a run takes them (which of them apply depends on the adapter). */
export function planCases(selection: CaseSelection = {}): PlannedCase[] {
  return select(selection).cases.map(({ scenario, revision }) => ({ scenario: scenario.id, revision }));
}

// ── the client ───────────────────────────────────────────────────────────────────────────────────────────────────

/**
 * The client under test: an adapter object (yours: never shut down here), a built-in adapter's name or a module path
 * (`./my-adapter.ts`: its default export or `adapter`, or a `processAdapter` config), or `{ command }`, a program that
 * speaks the line protocol (docs/line-protocol.md), started once for the run.
 */
export type AdapterSource = ClientAdapter | string | { command: string };

export interface LoadOptions {
  /** Module paths and programs resolve against it (default: the working directory). */
  cwd?: string;
}

/** Loads an adapter as `run --adapter` / `--adapter-command` do (clients/load.ts); the caller shuts it down. */
export function loadAdapter(source: string | { command: string }, options: LoadOptions = {}): Promise<ClientAdapter> {
  const cwd = options.cwd ?? process.cwd();
  return loadChosenAdapter(typeof source === 'string' ? { adapter: source } : { command: source.command }, { cwd });
}

/** How a client is driven, in the results' words. */
function kindOf(source: AdapterSource, adapter: ClientAdapter): ClientInfo['kind'] {
  if (typeof source === 'string') return isModulePath(source) ? 'module' : 'built-in';
  if ('command' in source && !('start' in source)) return 'process';
  return typeof (adapter as { pid?: unknown }).pid === 'number' ? 'process' : 'module';
}

// ── one case at a time (the test helpers), or a whole run ─────────────────────────────────────────────────────────

export interface ConformanceOptions extends CaseSelection, LoadOptions {
  adapter: AdapterSource;
  /** SHOULD violations fail instead of warning (default: MCP_CONFORMANCE_STRICT=1). */
  strict?: boolean;
  /** Your baseline: a path (relative to `cwd`) or its content. A result must match it; without one a failure fails. */
  baseline?: string | Baseline;
}

/** How one result compares with the baseline. */
export interface CaseComparison {
  /** match; regression or stale (the gate fails); unjudged (inconclusive where the baseline expects a judgement: never the client's fault, not a failure); n/a. */
  status: CaseStatus;
  /** What differs, one line each, with its kind; empty when it matches. */
  differences: Difference[];
}

/** One finished case: its result and, with a baseline, how it compares. */
export interface CaseOutcome {
  result: ScenarioResult;
  comparison?: CaseComparison;
}

/** What a run needs to know of its client and baseline, opened once and closed once (openConformance). */
export interface ConformanceSession {
  readonly adapter: ClientAdapter;
  readonly kind: ClientInfo['kind'];
  readonly strict: boolean;
  /** The baseline and where it came from, when there is one. */
  readonly baseline?: { baseline: Baseline; path?: string };
  /** The revisions each scenario runs at for this adapter (n/a ones left out). */
  readonly runs: ReadonlyMap<string, readonly Revision[]>;
  /** Runs one case as the suites run it and compares it with the baseline. */
  runCase(scenario: string, revision: Revision): Promise<CaseOutcome>;
  /** What is wrong with the baseline itself: entries that name no scenario, revisions it does not run at, a check twice. */
  baselineProblems(): string[];
  /** Shuts down the adapter when this session loaded it. */
  close(): Promise<void>;
}

/** The baseline the options give, not yet checked against the adapter: a file that cannot be read is a BaselineError. */
function readGivenBaseline(given: string | Baseline, cwd: string): { raw: unknown; path?: string } {
  if (typeof given !== 'string') return { raw: given };
  const path = resolve(cwd, given);
  return { raw: readBaselineJson(path), path };
}

/** A path as the user reads it: relative to the working directory when below it. */
const shown = (path: string) => {
  const below = relative(process.cwd(), path);
  return below === '' || below.startsWith('..') || isAbsolute(below) ? path : below;
};

/**
 * Loads the client (unless an adapter object is given) and the baseline, for cases run one at a time. A baseline that
 * cannot be read shuts the client down again and throws. Call close() when done.
 */
export async function openConformance(options: ConformanceOptions): Promise<ConformanceSession> {
  const cwd = options.cwd ?? process.cwd();
  const strict = options.strict ?? settings().strict;
  const operationTimeoutMs = runnerOperationTimeoutMs();
  // Read before the client is loaded (a program may take seconds to start): a missing or broken file costs nothing.
  const given = options.baseline === undefined ? undefined : readGivenBaseline(options.baseline, cwd);
  const owned = typeof options.adapter === 'string' || !('start' in options.adapter);
  const adapter = owned ? await loadAdapter(options.adapter as string | { command: string }, { cwd }) : (options.adapter as ClientAdapter);
  const close = async () => {
    if (owned && adapter.shutdown) await bounded(Promise.resolve().then(() => adapter.shutdown!()), 'the adapter\'s shutdown', basePolicy().ms.operation);
  };
  let baseline: { baseline: Baseline; path?: string } | undefined;
  try {
    if (given !== undefined) baseline = { baseline: parseBaseline(given.raw, adapter.name, given.path ?? `the baseline given for ${adapter.name}`), ...(given.path !== undefined ? { path: given.path } : {}) };
  } catch (error) {
    await close();
    throw error;
  }
  const runs = revisionsRun(adapter, SCENARIOS);
  const rewrite = baseline?.path !== undefined ? `rewrite ${shown(baseline.path)} from a run with: mcp-client-conformance run … --write-baseline ${shown(baseline.path)}` : 'write the baseline again from a run';
  return {
    adapter,
    kind: kindOf(options.adapter, adapter),
    strict,
    ...(baseline !== undefined ? { baseline } : {}),
    runs,
    async runCase(id, revision) {
      const scenario = SCENARIOS.find((s) => s.id === id);
      if (scenario === undefined) throw new SelectionError(`no scenario ${id}`);
      const result = await runCase(scenario, adapter, revision, { strict, ...(operationTimeoutMs !== undefined ? { operationTimeoutMs } : {}) });
      if (baseline === undefined) return { result };
      return comparedWith(result, baseline.baseline, { strict, rewrite });
    },
    baselineProblems: () => (baseline === undefined ? [] : baselineProblems(baseline.baseline, runs)),
    close,
  };
}

/** An outcome explained for a person: what differs from the baseline, the failed checks and the wire record, the earlier runs. */
export function explainOutcome(outcome: CaseOutcome): string {
  const { result, comparison } = outcome;
  const earlier = (result.attempts ?? []).map((attempt, index) => `  run ${index + 1} at scale ${attempt.scale}: ${attempt.verdict}${attempt.reason ? ` (${attempt.reason})` : ''}`);
  return [
    ...(comparison !== undefined && comparison.differences.length > 0 ? [`does not match the baseline (${comparison.status}):`, ...comparison.differences.map((d) => `  ${d.kind}: ${d.text.replaceAll('\n', '\n    ')}`), ''] : []),
    explain(result),
    ...(earlier.length > 0 ? ['earlier runs of this case, each inconclusive:', ...earlier] : []),
  ].join('\n');
}

/** Whether an outcome fails a gate: with a baseline, a regression or a stale entry; without, a fail verdict. */
export const failsGate = (outcome: CaseOutcome): boolean =>
  outcome.comparison !== undefined ? outcome.comparison.status === 'regression' || outcome.comparison.status === 'stale' : outcome.result.verdict === 'fail';

/**
 * A test's bound on one case, for test runners whose default is short: every run of it (an inconclusive case runs again
 * with bounds ×2 and ×4) a dozen client operations long at the settings' time scale, as the matrix allows.
 */
export function caseTimeoutMs(): number {
  const everyRun = Array.from({ length: MAX_ATTEMPTS }, (_, attempt) => ATTEMPT_GROWTH ** attempt).reduce((sum, factor) => sum + factor, 0);
  return basePolicy().ms.operation * everyRun * 12;
}

export interface RunOptions extends ConformanceOptions {
  /** Cases run at once (default 8, as many as `npm test` runs at once per file). */
  concurrency?: number;
  /** Called once the client and the baseline are loaded, before the first case starts. */
  onStart?: (progress: { total: number }) => void;
  /** Called as each case finishes (in the order they finish). */
  onResult?: (progress: CaseOutcome & { done: number; total: number }) => void;
  /**
   * Aborted, the run returns at once with the cases that finished (complete: false; its reason, a string or an error,
   * is the interruption): the cases in flight are dropped and end on their own bounds.
   */
  signal?: AbortSignal;
  /**
   * Write a baseline from this run to this path (relative to `cwd`) when the run completes, keeping the reasons and
   * spec URLs of the entries that file (else the `baseline` file) has; a failing check no entry names gets a new
   * entry whose reason says to replace it (NEW_ENTRY_REASON). A path that cannot be written is an OutputPathError
   * before the run; one that fails at the end (its folder gone, say) leaves the run whole and says so in `notWritten`.
   */
  writeBaseline?: string;
}

/** The reason a new entry of a written baseline carries until the user says why the client behaves so. */
export const NEW_ENTRY_REASON = 'Recorded from a run (--write-baseline): replace this with why the client behaves so.';

export const DEFAULT_CONCURRENCY = 8;

/** What a run saw. */
export interface ConformanceRun {
  adapter: { name: string; description: string; kind: ClientInfo['kind']; revisions: Revision[]; features: Feature[] };
  strict: boolean;
  /** The scenarios selected, by id. */
  scenarios: string[];
  /** The filters given (for the results file). */
  selection: CaseSelection;
  /** How many cases the selection planned; `results` has those that finished, in plan order. */
  planned: number;
  results: CaseOutcome[];
  /** false when the run was aborted before every planned case finished. */
  complete: boolean;
  interruption?: string;
  durationMs: number;
  /** pass / fail / warn / inconclusive / n/a counts. */
  counts: Record<Verdict, number>;
  /** With a baseline: where it came from, and what is wrong with it beyond one result (baselineProblems). */
  baseline?: { path?: string; problems: string[] };
  /** With writeBaseline: the file written, what changed in it, and any result that still does not match it. */
  written?: { path: string; baseline: Baseline; notes: string[]; mismatches: string[] };
  /** With writeBaseline: the file that could not be written at the end, and why (the run and its results are whole). */
  notWritten?: { path: string; reason: string };
  /** With --rejudge: the saved cells that could not be judged again (a scenario this suite no longer has), one line each. */
  notJudged?: string[];
  /**
   * What the run comes to for a gate: `incomplete` (stopped before every planned case finished); `failed` (with a
   * baseline: a result is a regression or a stale entry, or the baseline has a problem; without one: a case failed);
   * `not-judged` (no case got a verdict of pass, fail or warn: every one n/a or inconclusive, so the run proves nothing);
   * else `passed`. An inconclusive case never fails it.
   */
  gate: GateOutcome;
  /** gate === 'passed'. */
  ok: boolean;
}

/** What a run comes to for a gate (ConformanceRun.gate). */
export type GateOutcome = 'passed' | 'failed' | 'not-judged' | 'incomplete';

/**
 * The command line's exit code for a run (EXIT_CODES): 0 passed, 1 failed, 4 nothing judged, 3 incomplete (`run`
 * itself exits 130/143 when interrupted), 5 when a baseline it was asked to write could not be written. With a baseline
 * written and none given, the written one is the gate: 1 when a result still does not match it.
 */
export function exitCodeOf(run: ConformanceRun): number {
  if (run.notWritten !== undefined) return EXIT_CODES.notWritten;
  if (run.gate === 'incomplete') return EXIT_CODES.incomplete;
  const failed = run.baseline === undefined && run.written !== undefined ? run.written.mismatches.length > 0 : run.gate === 'failed';
  if (failed) return EXIT_CODES.failed;
  return run.gate === 'not-judged' ? EXIT_CODES.notJudged : EXIT_CODES.ok;
}

const VERDICTS: readonly Verdict[] = ['pass', 'fail', 'warn', 'inconclusive', 'n/a'];

/** Why a run stopped early, in a few words: the abort's reason (a string, or an error's message). */
function abortReason(signal: AbortSignal | undefined): string {
  const reason: unknown = signal?.reason;
  if (typeof reason === 'string') return reason;
  return reason instanceof Error ? reason.message : 'the run was stopped';
}

/** Runs the selected cases against the client, a few at a time, compares them with the baseline, and closes what it opened. */
export async function runConformance(options: RunOptions): Promise<ConformanceRun> {
  const started = performance.now();
  const cwd = options.cwd ?? process.cwd();
  const selection: CaseSelection = {
    ...(options.scenarios !== undefined ? { scenarios: [...options.scenarios] } : {}),
    ...(options.revisions !== undefined ? { revisions: [...options.revisions] } : {}),
    ...(options.transports !== undefined ? { transports: [...options.transports] } : {}),
  };
  const { scenarios, cases } = select(selection);
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new SelectionError(`concurrency must be a positive whole number, not ${concurrency}`);
  const target = options.writeBaseline === undefined ? undefined : resolve(cwd, options.writeBaseline);
  // Checked and read before the run, so a path that cannot be written or a broken file costs no run (OutputPathError,
  // BaselineError); checked against the adapter once it is loaded.
  if (target !== undefined) checkWritable('writeBaseline', target);
  const existing = target !== undefined && existsSync(target) ? readBaselineJson(target) : undefined;
  const session = await openConformance(options);
  try {
    const { adapter } = session;
    if (existing !== undefined) claimsOf(existing, adapter.name, target!, session.runs, []);
    const finished: { index: number; outcome: CaseOutcome }[] = [];
    let next = 0;
    let stopped = false;
    const worker = async () => {
      while (next < cases.length && !stopped) {
        const index = next++;
        const { scenario, revision } = cases[index]!;
        const outcome = await session.runCase(scenario.id, revision);
        if (stopped) return;
        finished.push({ index, outcome });
        options.onResult?.({ ...outcome, done: finished.length, total: cases.length });
      }
    };
    options.onStart?.({ total: cases.length });
    // Aborted, the run returns at once with what finished: the cases in flight end on their own bounds, unreported.
    const aborted = new Promise<void>((resolve) => {
      if (options.signal?.aborted) resolve();
      options.signal?.addEventListener('abort', () => resolve(), { once: true });
    });
    await Promise.race([Promise.all(Array.from({ length: Math.min(concurrency, cases.length) }, worker)), aborted]);
    stopped = true;
    const results = finished.sort((a, b) => a.index - b.index).map(({ outcome }) => outcome);
    const info = { name: adapter.name, description: adapter.description, kind: session.kind, revisions: [...adapter.revisions], features: [...adapter.features] };
    return concludeRun({ adapter: info, session, scenarios, selection, planned: cases.length, results, interruption: abortReason(options.signal), started, target });
  } finally {
    await session.close();
  }
}

/** What a run (or a saved one judged again) comes to: its counts, the gate, and the baseline written from it. */
function concludeRun(args: {
  adapter: ConformanceRun['adapter'];
  session: Pick<ConformanceSession, 'strict' | 'baseline' | 'runs' | 'baselineProblems'>;
  scenarios: readonly Scenario[];
  selection: CaseSelection;
  planned: number;
  results: CaseOutcome[];
  /** Why the run did not finish, should it not have. */
  interruption: string;
  started: number;
  target: string | undefined;
  notJudged?: string[];
}): ConformanceRun {
  const { session, results, target } = args;
  const complete = results.length === args.planned;
  const counts = Object.fromEntries(VERDICTS.map((verdict) => [verdict, results.filter((o) => o.result.verdict === verdict).length])) as Record<Verdict, number>;
  const problems = session.baselineProblems();
  const failed = session.baseline !== undefined ? problems.length > 0 || results.some(failsGate) : counts.fail > 0;
  const gate: GateOutcome = !complete ? 'incomplete' : failed ? 'failed' : !judgedSomething(results.map((o) => o.result.verdict)) ? 'not-judged' : 'passed';
  const run: ConformanceRun = {
    adapter: args.adapter,
    strict: session.strict,
    scenarios: args.scenarios.map((s) => s.id),
    selection: args.selection,
    planned: args.planned,
    results,
    complete,
    ...(complete ? {} : { interruption: args.interruption }),
    durationMs: performance.now() - args.started,
    counts,
    ...(session.baseline !== undefined ? { baseline: { ...(session.baseline.path !== undefined ? { path: session.baseline.path } : {}), problems } } : {}),
    ...(args.notJudged !== undefined && args.notJudged.length > 0 ? { notJudged: args.notJudged } : {}),
    gate,
    ok: gate === 'passed',
  };
  if (target !== undefined && complete) {
    const from = existsSync(target) || session.baseline?.path === undefined ? target : session.baseline.path;
    let written: ReturnType<typeof writeBaselineFromRun>;
    try {
      written = writeBaselineFromRun({ adapter: args.adapter.name, to: target, from, results: results.map((o) => o.result), runs: session.runs, options: { newReason: NEW_ENTRY_REASON } });
    } catch (error) {
      // The folder went away or turned read-only during the run, say: the run is whole, and says what it could not write.
      if (!isFileSystemError(error)) throw error;
      run.notWritten = { path: target, reason: error.message };
      return run;
    }
    const { baseline, notes } = written;
    const mismatches = results.flatMap(({ result }) => {
      const left = baselineDifferences(result, baseline, { strict: session.strict }).filter((d) => d.kind !== 'unjudged');
      return left.length > 0 ? [`${result.scenarioId} @ ${result.revision}: ${left.map((d) => d.text).join('; ')}`] : [];
    });
    run.written = { path: target, baseline, notes, mismatches };
  }
  return run;
}

/** An error of the file system (it has an errno code: EACCES, ENOTDIR, ENOSPC, EROFS …), not of the baseline's content. */
const isFileSystemError = (error: unknown): error is NodeJS.ErrnoException => error instanceof Error && typeof (error as NodeJS.ErrnoException).code === 'string' && (error as NodeJS.ErrnoException).syscall !== undefined;

export interface RejudgeOptions extends LoadOptions {
  /** The saved run: a results.json (a path, relative to `cwd`: `run --json`'s or a matrix's) or its content. */
  results: string | MatrixResults;
  /** The client whose cells to judge, when the file has several (a matrix's); default: its only one. */
  client?: string;
  /** Default: as strictly as the run was (`run.strict`). */
  strict?: boolean;
  /** As for a run: your baseline, a path or its content. */
  baseline?: string | Baseline;
  /** As for a run: write a baseline from the judgement. */
  writeBaseline?: string;
}

/**
 * A saved run judged again with today's judges (results/rejudge.ts), no client run: the same ConformanceRun a run
 * gives, compared with the baseline and written as a baseline alike. A cell whose scenario this suite no longer has is
 * left out, saying so in `notJudged`; a file that saves no records (format version 2) is a SelectionError.
 */
export function rejudgeRun(options: RejudgeOptions): ConformanceRun {
  const started = performance.now();
  const cwd = options.cwd ?? process.cwd();
  const path = typeof options.results === 'string' ? resolve(cwd, options.results) : undefined;
  let saved: MatrixResults;
  try {
    saved = path !== undefined ? parseResults(readFileSync(path, 'utf8'), shown(path)) : (options.results as MatrixResults);
  } catch (error) {
    throw new SelectionError((error as NodeJS.ErrnoException).code === 'ENOENT' ? `${shown(path!)} not found` : (error as Error).message);
  }
  const refused = notRejudgeable(saved, path !== undefined ? shown(path) : 'the results given');
  if (refused !== undefined) throw new SelectionError(refused);
  const names = saved.clients.map((client) => client.name);
  const name = options.client ?? (names.length === 1 ? names[0] : undefined);
  const client = saved.clients.find((c) => c.name === name);
  if (client === undefined) throw new SelectionError(options.client !== undefined ? `the results have no client ${options.client}; they have ${names.join(', ')}` : `the results have ${names.length} clients (${names.join(', ')}): name one (run --rejudge: --adapter <client>)`);
  const strict = options.strict ?? saved.run.strict;
  const notJudged: string[] = [];
  const results: CaseOutcome[] = [];
  const cells = saved.cells.filter((cell) => cell.client === client.name);
  for (const cell of cells) {
    if (cell.verdict === 'n/a') {
      results.push({ result: { scenarioId: cell.scenario, adapter: cell.client, revision: cell.revision, verdict: 'n/a', ...(cell.reason !== undefined ? { reason: cell.reason } : {}), checks: [], durationMs: 0 } });
      continue;
    }
    const judged = rejudgeCell(cell, strict);
    if (judged.result !== undefined) results.push({ result: judged.result });
    else notJudged.push(judged.problem ?? `${cell.scenario} @ ${cell.revision} on ${cell.client} not re-judged: ${cell.verdict}${cell.reason !== undefined ? ` (${cell.reason})` : ''}`);
  }
  // Where each scenario runs for this client: where the saved run judged it; elsewhere, from what the client declares.
  const declared = { name: client.name, description: client.description, revisions: client.revisions, features: client.features } as unknown as ClientAdapter;
  const runs = revisionsRun(declared, SCENARIOS);
  for (const [scenario, own] of Map.groupBy(cells, (cell) => cell.scenario)) if (runs.has(scenario)) runs.set(scenario, own.filter((cell) => cell.verdict !== 'n/a').map((cell) => cell.revision));
  const given = options.baseline === undefined ? undefined : readGivenBaseline(options.baseline, cwd);
  const baseline = given === undefined ? undefined : { baseline: parseBaseline(given.raw, client.name, given.path ?? `the baseline given for ${client.name}`), ...(given.path !== undefined ? { path: given.path } : {}) };
  const rewrite = baseline?.path !== undefined ? `rewrite ${shown(baseline.path)} from a run with: mcp-client-conformance run … --write-baseline ${shown(baseline.path)}` : 'write the baseline again from a run';
  if (baseline !== undefined) {
    for (const outcome of results) {
      const differences = baselineDifferences(outcome.result, baseline.baseline, { strict, rewrite });
      outcome.comparison = { status: caseStatus(outcome.result, differences), differences };
    }
  }
  const target = options.writeBaseline === undefined ? undefined : resolve(cwd, options.writeBaseline);
  if (target !== undefined && existsSync(target)) claimsOf(readBaselineJson(target), client.name, target, runs, []);
  const ids = new Set(results.map((o) => o.result.scenarioId));
  const selection: CaseSelection = {
    ...(saved.run.selection.scenario !== undefined ? { scenarios: saved.run.selection.scenario.split(',') } : {}),
    ...(saved.run.selection.revisions !== undefined ? { revisions: [...saved.run.selection.revisions] } : {}),
    ...(saved.run.selection.transports !== undefined ? { transports: [...saved.run.selection.transports] } : {}),
  };
  return concludeRun({
    adapter: { name: client.name, description: client.description, kind: client.kind, revisions: [...client.revisions], features: [...client.features] as Feature[] },
    session: { strict, ...(baseline !== undefined ? { baseline } : {}), runs, baselineProblems: () => (baseline === undefined ? [] : baselineProblems(baseline.baseline, runs)) },
    scenarios: SCENARIOS.filter((s) => ids.has(s.id)),
    selection,
    planned: results.length + (saved.run.missingCells > 0 && names.length === 1 ? saved.run.missingCells : 0),
    results,
    interruption: saved.run.interruption ?? 'the saved run was incomplete',
    started,
    target,
    notJudged,
  });
}

// ── the results as files ─────────────────────────────────────────────────────────────────────────────────────────

/** `run.matrixFile` of a results file written by `run` (one client, no matrix file). */
export const RUN_MATRIX_FILE = '-';

/**
 * A run as the matrix's results file (docs/matrix-results.md, results/results.schema.json): one client, one
 * cell per finished case; `run.complete` false and the missing cells counted when it was stopped. `compare` reads it.
 */
export function resultsFile(run: ConformanceRun): MatrixResults {
  const filters = run.selection.scenarios ?? [];
  const ids = new Set(run.scenarios);
  return {
    format: RESULTS_FORMAT,
    formatVersion: RESULTS_FORMAT_VERSION,
    generatedAt: new Date().toISOString(),
    run: {
      suiteVersion: PACKAGE_VERSION,
      ...runMachine(),
      durationMs: Math.round(run.durationMs),
      strict: run.strict,
      matrixFile: RUN_MATRIX_FILE,
      complete: run.complete,
      plannedCells: run.planned,
      missingCells: run.planned - run.results.length,
      ...(run.interruption !== undefined && !run.complete ? { interruption: run.interruption } : {}),
      selection: {
        ...(filters.length > 0 ? { scenario: filters.join(',') } : {}),
        // So that a comparison does not count the revisions this run was not asked for as lost cells.
        ...(run.selection.revisions !== undefined ? { revisions: [...run.selection.revisions] } : {}),
        ...(run.selection.transports !== undefined ? { transports: [...run.selection.transports] } : {}),
        suites: [...new Set(run.scenarios.map((id) => id.split('/')[0]!))],
      },
    },
    scenarios: SCENARIOS.filter((scenario) => ids.has(scenario.id)).map(scenarioInfo),
    clients: [{ name: run.adapter.name, description: run.adapter.description, kind: run.adapter.kind, revisions: run.adapter.revisions, features: run.adapter.features }],
    cells: run.results.map(({ result }) => cellOf(run.adapter.name, result)),
  };
}

/**
 * A run as JUnit XML (results/junit.ts): fail → failure, n/a and inconclusive → skipped with the reason;
 * with a baseline, a failure that matches it is a known failure (skipped, saying so), so a CI test view is red only
 * when the gate is.
 */
export function junitReport(run: ConformanceRun): string {
  const known = new Set(run.results.filter(({ comparison }) => comparison?.status === 'match').map(({ result }) => `${result.scenarioId}@${result.revision}`));
  return renderJunit(resultsFile(run), (cell) => known.has(`${cell.scenario}@${cell.revision}`));
}

/** A result with how it compares with the baseline (its differences and what they come to for a gate). */
export function comparedWith(result: ScenarioResult, baseline: Baseline, options: CompareOptions = {}): CaseOutcome {
  const differences = baselineDifferences(result, baseline, options);
  return { result, comparison: { status: caseStatus(result, differences), differences } };
}
