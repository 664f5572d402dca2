// The matrix results file: what one matrix run saw, for every client × scenario × revision. Versioned;
// the format is documented in docs/matrix-results.md and its JSON Schema (scripts/matrix/results.schema.json).
// Every report (Markdown, JUnit XML, HTML) and the comparison of two runs are rendered from this alone.
import type { Level, Scenario, ScenarioResult, Verdict } from '../../suites/scenario.ts';
import { explain } from '../../suites/evidence.ts';
import type { Revision } from '../../protocol/revisions.ts';

export const RESULTS_FORMAT = 'mcp-client-conformance/matrix-results';
/** Bump on any change a reader of older files must know about; readers refuse versions they do not know. */
export const RESULTS_FORMAT_VERSION = 1;

/** A scenario's verdict, or `error` when the suite could not run the case (the adapter failed to load, say). */
export type CellVerdict = Verdict | 'error';

export interface MatrixResults {
  format: typeof RESULTS_FORMAT;
  formatVersion: typeof RESULTS_FORMAT_VERSION;
  /** ISO 8601 time the run ended. */
  generatedAt: string;
  /** What ran the matrix: this suite's version and commit, Node, the machine. */
  run: { suiteVersion: string; commit?: string; node: string; platform: string; cpus: number; durationMs: number; strict: boolean; matrixFile: string; shards?: number };
  /** Every scenario in the run (also those no client could run). */
  scenarios: ScenarioInfo[];
  clients: ClientInfo[];
  /** One cell per client × scenario × revision the suite plans (n/a cells included, with their reason). */
  cells: Cell[];
}

export interface ScenarioInfo {
  id: string;
  /** The first part of the id: negotiation, resume, retry, disposal, cancellation, security. */
  suite: string;
  title: string;
  revisions: Revision[];
  spec: { url: string; section: string; level: Level };
  seed?: string;
}

export interface ClientInfo {
  /** The matrix entry's name, unique in the run. */
  name: string;
  description: string;
  /** The package under test as published (e.g. `@modelcontextprotocol/sdk`), when it is one. */
  package?: string;
  /** Its installed version, read from its package.json at run time. */
  version?: string;
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
  /** Why n/a or error, or the failing checks (`name: detail`, joined with `; `). */
  reason?: string;
  durationMs: number;
  /** Every check the judge made (empty for n/a and error). */
  checks: CellCheck[];
  /** The wire record as text (suites/evidence.ts `explain`), for fail and warn cells only. */
  evidence?: string;
}

export interface CellCheck {
  name: string;
  ok: boolean;
  level: Level;
  section: string;
  url: string;
  detail: string;
  exchanges: number[];
}

/** The longest wire evidence kept per cell; the rest is cut with a note (a report stays a few MB). */
export const MAX_EVIDENCE_CHARS = 20_000;

export function cellOf(client: string, result: ScenarioResult): Cell {
  const cell: Cell = {
    client,
    scenario: result.scenarioId,
    revision: result.revision,
    verdict: result.verdict,
    durationMs: Math.round(result.durationMs * 10) / 10,
    checks: result.checks.map((check) => ({
      name: check.name,
      ok: check.ok,
      level: check.spec.level,
      section: check.spec.section,
      url: check.spec.url,
      detail: check.detail,
      exchanges: check.exchanges,
    })),
  };
  if (result.reason !== undefined) cell.reason = result.reason;
  if (result.verdict === 'fail' || result.verdict === 'warn') {
    const text = explain(result);
    cell.evidence = text.length > MAX_EVIDENCE_CHARS ? `${text.slice(0, MAX_EVIDENCE_CHARS)}\n… (${text.length - MAX_EVIDENCE_CHARS} more characters cut)` : text;
  }
  return cell;
}

export function scenarioInfo(scenario: Scenario): ScenarioInfo {
  return {
    id: scenario.id,
    suite: scenario.id.split('/')[0]!,
    title: scenario.title,
    revisions: [...scenario.revisions],
    spec: { ...scenario.source.spec },
    ...(scenario.source.seed !== undefined ? { seed: scenario.source.seed } : {}),
  };
}

export function errorCell(client: string, scenario: string, revision: Revision, reason: string): Cell {
  return { client, scenario, revision, verdict: 'error', reason, durationMs: 0, checks: [] };
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
  if (results.formatVersion !== RESULTS_FORMAT_VERSION) throw new Error(`${where} has format version ${String(results.formatVersion)}; this version reads ${RESULTS_FORMAT_VERSION}`);
  if (!Array.isArray(results.clients) || !Array.isArray(results.cells) || !Array.isArray(results.scenarios)) throw new Error(`${where} lacks clients, scenarios or cells`);
  return results as MatrixResults;
}

/** pass / fail / warn / n/a / error counts, per client. */
export function verdictCounts(cells: readonly Cell[]): Record<CellVerdict, number> {
  const counts: Record<CellVerdict, number> = { pass: 0, fail: 0, warn: 0, 'n/a': 0, error: 0 };
  for (const cell of cells) counts[cell.verdict]++;
  return counts;
}
