// The files a matrix run writes into its reports folder, assembled from the cells it has so far: results.json and
// the three reports rendered from it. The reporter writes them as the run goes and at its end (or its interruption);
// `matrix --resume` writes them again when nothing is left to run.
import { execFileSync } from 'node:child_process';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { PACKAGE_VERSION } from '../../api/package.ts';
import { COMPILED } from '../../config/layout.ts';
import { SCENARIOS } from '../../suites/index.ts';
import { readMatrixFile } from './matrix-file.ts';
import type { PlannedCell } from './plan.ts';
import { renderHtml, type HtmlOptions } from '../../results/html.ts';
import { renderJunit } from '../../results/junit.ts';
import { renderMarkdown } from '../../results/markdown.ts';
import { cellKey, forReports, RESULTS_FORMAT, RESULTS_FORMAT_VERSION, runMachine, scenarioInfo, type Cell, type ClientInfo, type MatrixResults, type Selection } from '../../results/results.ts';

const ROOT = resolve(import.meta.dirname, '..', '..');

/** The files a matrix run writes into its reports folder (besides its journal, journal.ts), each replaced atomically. */
export const REPORT_FILES = { results: 'results.json', markdown: 'summary.md', junit: 'junit.xml', html: 'report.html' } as const;

/** The suite's commit, asked once per process: only of a clone (an installed package's folder is in the user's repository). */
let commit: string | null | undefined;
function gitCommit(): string | undefined {
  if (commit === undefined && COMPILED) commit = null;
  if (commit === undefined) {
    try {
      commit = execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], { cwd: ROOT, encoding: 'utf8', timeout: 2_000, stdio: ['ignore', 'pipe', 'ignore'] }).trim() || null;
    } catch {
      commit = null;
    }
  }
  return commit ?? undefined;
}

export interface RunSoFar {
  cells: Iterable<Cell>;
  clients: Iterable<ClientInfo>;
  /** What the run plans; a planned cell without a result makes the run incomplete. */
  plan: readonly PlannedCell[];
  matrixFile: string;
  strict: boolean;
  selection: Selection;
  durationMs: number;
  /** Why the run may not have finished (a signal, a worker that died, a save while it runs); kept only if cells are missing. */
  interruption?: string;
}

/** The results of the run so far, cells and clients in matrix file order. */
export function assembleResults(run: RunSoFar): MatrixResults {
  const cells = [...run.cells];
  let order: string[] = [];
  try {
    order = readMatrixFile(run.matrixFile).clients.map((entry) => entry.name);
  } catch {
    // Merging reports somewhere without the matrix file: keep the order the cells came in.
  }
  const rank = (name: string) => (order.includes(name) ? order.indexOf(name) : order.length);
  const scenarioRank = new Map(SCENARIOS.map((scenario, index) => [scenario.id, index]));
  cells.sort((a, b) => rank(a.client) - rank(b.client) || a.client.localeCompare(b.client) || (scenarioRank.get(a.scenario) ?? 0) - (scenarioRank.get(b.scenario) ?? 0) || a.revision.localeCompare(b.revision));
  const done = new Set(cells.map(cellKey));
  const missing = run.plan.filter((cell) => !done.has(cellKey(cell))).length;
  const ran = new Set(cells.map((cell) => cell.scenario));
  const hash = gitCommit();
  return {
    format: RESULTS_FORMAT,
    formatVersion: RESULTS_FORMAT_VERSION,
    generatedAt: new Date().toISOString(),
    run: {
      suiteVersion: PACKAGE_VERSION,
      ...(hash !== undefined ? { commit: hash } : {}),
      ...runMachine(),
      durationMs: Math.round(run.durationMs),
      strict: run.strict,
      matrixFile: relative(ROOT, run.matrixFile) || run.matrixFile,
      complete: missing === 0,
      plannedCells: Math.max(run.plan.length, cells.length),
      missingCells: missing,
      ...(missing > 0 && run.interruption !== undefined ? { interruption: run.interruption } : {}),
      selection: run.selection,
    },
    scenarios: SCENARIOS.filter((scenario) => ran.has(scenario.id)).map(scenarioInfo),
    clients: [...run.clients].sort((a, b) => rank(a.name) - rank(b.name)),
    cells,
  };
}

/** Writes `text` to `path` so that a reader sees the old file or the new one, never a part: written beside, then renamed. */
export function writeAtomically(path: string, text: string): void {
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, text);
  renameSync(temporary, path);
}

export type ReportPaths = Record<keyof typeof REPORT_FILES, string>;

export function reportPaths(outDir: string): ReportPaths {
  return Object.fromEntries(Object.entries(REPORT_FILES).map(([kind, file]) => [kind, join(outDir, file)])) as ReportPaths;
}

/**
 * Writes results.json (and, unless `resultsOnly`, the three reports), each replaced atomically; returns their paths.
 * `html.history`: earlier runs, for report.html's trend across nights.
 */
export function writeReports(results: MatrixResults, outDir: string, resultsOnly = false, html: HtmlOptions = {}): ReportPaths {
  mkdirSync(outDir, { recursive: true });
  const paths = reportPaths(outDir);
  writeAtomically(paths.results, `${JSON.stringify(results, null, 1)}\n`);
  if (resultsOnly) return paths;
  // The evidence rendered as text once, for the reports that show it.
  const reported = forReports(results);
  writeAtomically(paths.markdown, renderMarkdown(reported));
  writeAtomically(paths.junit, renderJunit(reported));
  // From the results with their records: the page draws a failing case's exchange from its record.
  writeAtomically(paths.html, renderHtml(results, html));
  return paths;
}
