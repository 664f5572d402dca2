// The matrix results file: what one matrix run saw, for every client × scenario × revision. Versioned;
// the format is documented in docs/matrix-results.md and its JSON Schema (results/results.schema.json).
// Every report (Markdown, JUnit XML, HTML) and the comparison of two runs are rendered from this alone.
import { availableParallelism } from 'node:os';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { Transport } from '../clients/adapter.ts';
import type { Attempt, CaseRecord, Check, CheckOutcome, Level, Scenario, ScenarioResult, Verdict } from '../suites/scenario.ts';
import { explain } from '../suites/evidence.ts';
import { transportOfScenarioId } from '../suites/plan.ts';
import type { Revision } from '../protocol/revisions.ts';

export const RESULTS_FORMAT = 'mcp-client-conformance/matrix-results';
/** Bump on any change a reader of older files must know about; readers refuse versions they do not know. */
export const RESULTS_FORMAT_VERSION = 3;
/** The versions this code reads: 2 has no saved records (its cells can be compared and reported, not judged again). */
export const READABLE_FORMAT_VERSIONS: readonly number[] = [2, RESULTS_FORMAT_VERSION];

/** A scenario's verdict, or `error` when the suite could not run the case (the adapter failed to load, say). */
export type CellVerdict = Verdict | 'error';

/** Verdicts in the order every report lists them. */
export const VERDICTS: readonly CellVerdict[] = ['pass', 'fail', 'warn', 'inconclusive', 'n/a', 'error'];

export interface MatrixResults {
  format: typeof RESULTS_FORMAT;
  /** The version written is RESULTS_FORMAT_VERSION; an older one read (READABLE_FORMAT_VERSIONS) keeps its number. */
  formatVersion: number;
  /** ISO 8601 time the file was written (the run's end, or the last save of a run that did not end). */
  generatedAt: string;
  /** What ran the matrix: this suite's version and commit, Node, the machine, and whether the run is complete. */
  run: RunInfo;
  /** Every scenario in the run (also those no client could run). */
  scenarios: ScenarioInfo[];
  clients: ClientInfo[];
  /** One cell per client × scenario × revision the suite plans (n/a cells included, with their reason). */
  cells: Cell[];
}

export interface RunInfo {
  suiteVersion: string;
  commit?: string;
  node: string;
  platform: string;
  cpus: number;
  durationMs: number;
  strict: boolean;
  matrixFile: string;
  shards?: number;
  /** false: cells the run planned have no result (it was interrupted, a worker died, or it is still going). */
  complete: boolean;
  /** How many cells the run planned, and how many of them have no result (0 when complete). */
  plannedCells: number;
  missingCells: number;
  /** What cut an incomplete run short, in a few words. */
  interruption?: string;
  /** What the run covered, so it can be resumed: the matrix command's --clients and --scenario, and the suite files. */
  selection: Selection;
}

export interface Selection {
  clients?: string;
  /** Only scenarios whose id contains this text; `run` writes its repeated --scenario filters joined with commas. */
  scenario?: string;
  /** Only cases at these revisions (`run --revision`), when the run had such a filter. */
  revisions?: Revision[];
  /** Only scenarios over these transports (`run --transport`), when the run had such a filter. */
  transports?: Transport[];
  /** The suites (suite files) the run covered. */
  suites: string[];
}

export interface ScenarioInfo {
  id: string;
  /** The first part of the id: negotiation, resume, retry, disposal, cancellation, security, stdio. */
  suite: string;
  title: string;
  revisions: Revision[];
  /** What its cases run over: the client connects to a URL (http) or launches the server (stdio). Absent in results written before stdio: http. */
  transport?: Transport;
  /** The scenario of another suite it runs over stdio with the same script and judge (its id is stdio/<that one's name>). */
  twinOf?: string;
  spec: { url: string; section: string; level: Level };
  seed?: string;
}

export interface ClientInfo {
  /** The matrix entry's name, unique in the run. */
  name: string;
  description: string;
  /** The package under test as published (e.g. `@modelcontextprotocol/sdk`), when it is one. */
  package?: string;
  /** Its installed version, read from its package.json at run time (a Python environment's: the version its lock pins). */
  version?: string;
  /**
   * The SDK the client is built on, as its adapter declares it (ClientAdapter.wraps): a package and the version it runs
   * on (or the range its manifest names). Reports mark the verdicts it shares with that SDK's own row (results/shared.ts).
   */
  wraps?: { package: string; version: string };
  /** How it is driven: in-process module, built-in adapter, line-protocol program, or container. */
  kind: 'built-in' | 'module' | 'process' | 'container';
  revisions: Revision[];
  features: string[];
  /** Why the client could not be loaded; all its cells are then `error`. */
  loadError?: string;
}

export interface Cell {
  client: string;
  scenario: string;
  revision: Revision;
  verdict: CellVerdict;
  /** Why n/a, inconclusive or error, or the failing checks (`name: detail`, joined with `; `). */
  reason?: string;
  durationMs: number;
  /** Every check the judge made (empty for n/a and error). */
  checks: CellCheck[];
  /**
   * What the verdict was decided from (suites/scenario.ts `CaseRecord`: the evidence, what clean-up found, …) as JSON,
   * gzip-compressed and base64-encoded (`encodeRecord`, `decodeRecord`): on every judged cell (not n/a, not error), so
   * a fixed judge can judge the run again (`--rejudge`). Absent in results of format version 2.
   */
  record?: string;
  /**
   * The wire record as text (suites/evidence.ts `explain`), for fail, warn and inconclusive cells: written by format
   * version 2; version 3 renders it from `record` when a report needs it (`evidenceText`).
   */
  evidence?: string;
  /** Earlier runs of the case, each inconclusive, when it was run again with larger bounds (oldest first). */
  attempts?: Attempt[];
  /** The time scale the verdict was reached at, when the case was run again. */
  timeScale?: number;
}

export interface CellCheck {
  name: string;
  outcome: CheckOutcome;
  /** A condition the suite needed before the rules could be judged (never the client's behaviour under test). */
  precondition?: true;
  level: Level;
  section: string;
  url: string;
  detail: string;
  exchanges: number[];
}

/** The longest wire evidence kept per cell; the rest is cut with a note (a report stays a few MB). */
export const MAX_EVIDENCE_CHARS = 20_000;

/** Verdicts whose cells carry the wire evidence: the ones a reader has to look into. */
const WITH_EVIDENCE: readonly CellVerdict[] = ['fail', 'warn', 'inconclusive'];

/** A check in a cell's words (a results file, the run's table). */
export function cellCheckOf(check: Check): CellCheck {
  return {
    name: check.name,
    outcome: check.outcome,
    ...(check.precondition ? { precondition: true as const } : {}),
    level: check.spec.level,
    section: check.spec.section,
    url: check.spec.url,
    detail: check.detail,
    exchanges: check.exchanges,
  };
}

/** A result as a cell; `encoded` is its record already encoded (a saved cell judged again keeps its own). */
export function cellOf(client: string, result: ScenarioResult, encoded?: string): Cell {
  const cell: Cell = {
    client,
    scenario: result.scenarioId,
    revision: result.revision,
    verdict: result.verdict,
    durationMs: Math.round(result.durationMs * 10) / 10,
    checks: result.checks.map(cellCheckOf),
  };
  if (result.reason !== undefined) cell.reason = result.reason;
  // Every judged cell keeps its record, a pass too: a fixed judge may turn it into a fail.
  if (result.record !== undefined) cell.record = encoded ?? encodeRecord(result.record);
  else if (WITH_EVIDENCE.includes(result.verdict)) cell.evidence = cutEvidence(explain(result));
  if (result.attempts !== undefined && result.attempts.length > 0) {
    cell.attempts = result.attempts.map((attempt) => ({ ...attempt }));
    if (result.evidence !== undefined) cell.timeScale = result.evidence.time.scale;
  }
  return cell;
}

/** The wire evidence as a report shows it: cut at MAX_EVIDENCE_CHARS, with a note saying how much was cut. */
const cutEvidence = (text: string) => (text.length > MAX_EVIDENCE_CHARS ? `${text.slice(0, MAX_EVIDENCE_CHARS)}\n… (${text.length - MAX_EVIDENCE_CHARS} more characters cut)` : text);

/**
 * A case's record as a cell keeps it: its JSON, gzip-compressed, base64. A record is some 16 KB of JSON (every
 * exchange with its messages, headers and SSE events); compressed, some 3 KB, so a full matrix's results stay tens of MB.
 */
export function encodeRecord(record: CaseRecord): string {
  return gzipSync(JSON.stringify(record)).toString('base64');
}

export function decodeRecord(text: string): CaseRecord {
  return JSON.parse(gunzipSync(Buffer.from(text, 'base64')).toString('utf8')) as CaseRecord;
}

/** A cell's checks as the judge made them (for re-rendering; the `unmetBy` and `lasting` marks are not kept in a cell). */
export const checkOfCell = (check: CellCheck): Check => ({
  name: check.name,
  spec: { url: check.url, section: check.section, level: check.level },
  outcome: check.outcome,
  ...(check.precondition ? { precondition: true as const } : {}),
  detail: check.detail,
  exchanges: check.exchanges,
});

/**
 * The wire evidence of a cell a reader has to look into (fail, warn, inconclusive) as text: the text an older file
 * kept, else rendered from its record. Undefined for other verdicts, or when there is neither.
 */
export function evidenceText(cell: Cell): string | undefined {
  if (cell.evidence !== undefined) return cell.evidence;
  if (!WITH_EVIDENCE.includes(cell.verdict) || cell.record === undefined || cell.verdict === 'error') return undefined;
  const { evidence } = decodeRecord(cell.record);
  const result: ScenarioResult = { scenarioId: cell.scenario, adapter: cell.client, revision: cell.revision, verdict: cell.verdict, ...(cell.reason !== undefined ? { reason: cell.reason } : {}), checks: cell.checks.map(checkOfCell), evidence, durationMs: cell.durationMs };
  return cutEvidence(explain(result));
}

/** The results as the reports read them: each cell's evidence as text (rendered from its record), no record. */
export function forReports(results: MatrixResults): MatrixResults {
  return {
    ...results,
    cells: results.cells.map(({ record: _record, ...cell }) => {
      const text = evidenceText({ ...cell, ...(_record !== undefined ? { record: _record } : {}) });
      return text !== undefined ? { ...cell, evidence: text } : cell;
    }),
  };
}

/** An unmet precondition: the suite could not set the case up. */
export const unmet = (check: CellCheck): boolean => check.precondition === true && check.outcome !== 'pass';

/**
 * The checks that decided a cell's verdict: for fail and warn the failed MUST and SHOULD checks; for inconclusive the
 * unmet preconditions, else the MUST and SHOULD rules never exercised. Empty for pass, n/a and error.
 */
export function decidingChecks(cell: Pick<Cell, 'verdict' | 'checks'>): CellCheck[] {
  const judged = cell.checks.filter((check) => check.level !== 'MAY');
  if (cell.verdict === 'fail' || cell.verdict === 'warn') return judged.filter((check) => check.outcome === 'fail');
  if (cell.verdict !== 'inconclusive') return [];
  const preconditions = cell.checks.filter(unmet);
  return preconditions.length > 0 ? preconditions : judged.filter((check) => check.outcome === 'inconclusive');
}

/**
 * What the reruns of a case say, for every report: "judged at time scale 2 after 1 inconclusive run: <why it was
 * inconclusive>", or "still inconclusive at time scale 4 after 2 inconclusive runs: …". Undefined without reruns.
 */
export function attemptsNote(cell: Pick<Cell, 'verdict' | 'attempts' | 'timeScale'>): string | undefined {
  const attempts = cell.attempts ?? [];
  if (attempts.length === 0) return undefined;
  const runs = `${attempts.length} inconclusive run${attempts.length === 1 ? '' : 's'}`;
  const scale = cell.timeScale !== undefined ? ` at time scale ${cell.timeScale}` : '';
  const reasons = [...new Set(attempts.map((attempt) => attempt.reason).filter((reason) => reason !== undefined))];
  return `${cell.verdict === 'inconclusive' ? 'still inconclusive' : 'judged'}${scale} after ${runs}${reasons.length > 0 ? `: ${reasons.join(' · ')}` : ''}`;
}

export function scenarioInfo(scenario: Scenario): ScenarioInfo {
  return {
    id: scenario.id,
    suite: scenario.id.split('/')[0]!,
    title: scenario.title,
    revisions: [...scenario.revisions],
    transport: scenario.transport ?? 'http',
    ...(scenario.twinOf !== undefined ? { twinOf: scenario.twinOf } : {}),
    spec: { ...scenario.source.spec },
    ...(scenario.source.seed !== undefined ? { seed: scenario.source.seed } : {}),
  };
}

export function errorCell(client: string, scenario: string, revision: Revision, reason: string): Cell {
  return { client, scenario, revision, verdict: 'error', reason, durationMs: 0, checks: [] };
}

/** The identity of a cell in a run: client, scenario and revision. */
export const cellKey = (cell: Pick<Cell, 'client' | 'scenario' | 'revision'>): string => `${cell.client}\u0000${cell.scenario}\u0000${cell.revision}`;

/** A `--clients` or `--allow-lost` pattern: a name, or a prefix ending in `*` (`*` alone matches every name). */
export const namePatternMatches = (pattern: string, name: string): boolean => (pattern.endsWith('*') ? name.startsWith(pattern.slice(0, -1)) : name === pattern);

/** A comma-separated selection as its parts. */
const parts = (text: string | undefined) => text?.split(',').map((part) => part.trim()).filter(Boolean) ?? [];

/** Whether a run's client selection (`--clients`) covers a client. */
export function selectsClient(selection: Pick<Selection, 'clients'>, client: string): boolean {
  const clients = parts(selection.clients);
  return clients.length === 0 || clients.some((pattern) => namePatternMatches(pattern, client));
}

/**
 * Whether a run's selection (its clients, scenario filters and revisions: the user's own choices) covers a cell: a
 * comparison does not count as lost the cells of an earlier run that this one was not asked to run.
 */
export function selects(selection: Pick<Selection, 'clients' | 'scenario' | 'revisions' | 'transports'>, cell: Pick<Cell, 'client' | 'scenario' | 'revision'>): boolean {
  const scenarios = parts(selection.scenario);
  return (
    selectsClient(selection, cell.client) &&
    (scenarios.length === 0 || scenarios.some((text) => cell.scenario.includes(text))) &&
    (selection.revisions === undefined || selection.revisions.includes(cell.revision)) &&
    (selection.transports === undefined || selection.transports.includes(transportOfScenarioId(cell.scenario)))
  );
}

/** Reads a results file, refusing what is not one or is of a version this code does not know. */
export function parseResults(text: string, where = 'results file'): MatrixResults {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Error(`${where} is not JSON: ${(error as Error).message}`);
  }
  const results = value as Partial<MatrixResults> | null;
  if (results?.format !== RESULTS_FORMAT) throw new Error(`${where} is not a matrix results file (format is not "${RESULTS_FORMAT}")`);
  if (!READABLE_FORMAT_VERSIONS.includes(results.formatVersion as number)) throw new Error(`${where} has format version ${String(results.formatVersion)}; this version reads ${READABLE_FORMAT_VERSIONS.join(' and ')}`);
  if (!Array.isArray(results.clients) || !Array.isArray(results.cells) || !Array.isArray(results.scenarios) || typeof results.run?.complete !== 'boolean') throw new Error(`${where} lacks run, clients, scenarios or cells`);
  return results as MatrixResults;
}

/** pass / fail / warn / inconclusive / n/a / error counts, per client. */
export function verdictCounts(cells: readonly Cell[]): Record<CellVerdict, number> {
  const counts = Object.fromEntries(VERDICTS.map((verdict) => [verdict, 0])) as Record<CellVerdict, number>;
  for (const cell of cells) counts[cell.verdict]++;
  return counts;
}

/** The machine a run is on, as every results file records it (run.node, run.platform, run.cpus). */
export function runMachine(): { node: string; platform: string; cpus: number } {
  return { node: process.version, platform: `${process.platform}-${process.arch}`, cpus: availableParallelism() };
}
