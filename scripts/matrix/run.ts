// `mcp-client-conformance matrix`: runs the matrix through vitest (vitest.matrix.config.ts) so a local run and the
// sharded nightly CI run are the same tests and the same reporter; then optionally compares with an earlier run.
// `matrix --resume <reports folder>` completes a run that was interrupted or killed: it runs only the cells the folder
// does not hold yet, with the selection the run was started with, and writes complete results.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { readSettings } from '../../config/settings.ts';
import { runCompare } from './compare.ts';
import { JOURNAL_FILE, readSaved } from './journal.ts';
import { readMatrixFile } from './matrix-file.ts';
import { assembleResults, REPORT_FILES, writeReports } from './output.ts';
import { missingCells, planOf, suiteCases, suiteFile, SUITE_NAMES } from './plan.ts';
import { parseResults } from './results.ts';
import { DEFAULT_REPORTS_DIR, MATRIX_ENV, selectEntries } from './settings.ts';

const ROOT = resolve(import.meta.dirname, '..', '..');

export interface MatrixOptions {
  config?: string;
  clients?: string;
  scenario?: string;
  out?: string;
  strict?: boolean;
  /** `i/n`: run only this shard of the suite files (as `vitest --shard`). */
  shard?: string;
  /** An earlier results.json: list regressions and exit 1 when there are any. */
  compare?: string;
  /** A reports folder of an interrupted run: run only its missing cells. */
  resume?: string;
}

/** Exit code of a run whose results lack planned cells (a suite file did not finish): `--resume` completes it. */
export const INCOMPLETE_EXIT = 3;

/**
 * Exit code: 0 done (and nothing regressed), 1 regressions against --compare, 2 bad input or a run that wrote no
 * results, 3 a run that ended incomplete. A run interrupted by SIGINT or SIGTERM exits 130 or 143 (the reporter).
 */
export async function runMatrix(options: MatrixOptions, cwd = process.env.INIT_CWD ?? process.cwd()): Promise<number> {
  if (options.compare !== undefined && !existsSync(resolve(cwd, options.compare))) throw new Error(`--compare: ${options.compare} not found`);
  if (options.resume !== undefined) return resume(options, resolve(cwd, options.resume), cwd);
  const matrixFile = resolve(cwd, options.config ?? join(ROOT, 'matrix.json'));
  const outDir = resolve(cwd, options.out ?? DEFAULT_REPORTS_DIR);
  // Checked here so a typo is one clear line, not a failure in every test worker.
  selectEntries(readMatrixFile(matrixFile).clients, options.clients);
  setEnvironment({ matrixFile, outDir, clients: options.clients, scenario: options.scenario, strict: options.strict === true || readSettings().strict });
  // Only the suite files with cases the filter keeps: each file costs a worker that loads every suite.
  const suites = SUITE_NAMES.filter((suite) => suiteCases(suite, options.scenario).length > 0);
  if (suites.length === 0) throw new Error(`no scenario matches "${options.scenario}"`);
  // A fresh run: what an earlier run left in the folder must not be resumed or read as this one's.
  for (const file of [REPORT_FILES.results, JOURNAL_FILE]) rmSync(join(outDir, file), { force: true });
  await runVitest(suites.length < SUITE_NAMES.length ? suites.map(suiteFile) : [], options.shard);
  return finished(outDir, options, cwd);
}

async function resume(options: MatrixOptions, outDir: string, cwd: string): Promise<number> {
  const given = [...(['config', 'clients', 'scenario', 'out', 'shard'] as const).filter((option) => options[option] !== undefined), ...(options.strict ? ['strict'] : [])];
  if (given.length > 0) throw new Error(`--resume runs what the interrupted run was asked to: drop ${given.map((option) => `--${option}`).join(', ')}`);
  const saved = readSaved(outDir, ROOT);
  if (!saved) throw new Error(`--resume: ${options.resume} holds no ${REPORT_FILES.results} or ${JOURNAL_FILE} of a matrix run`);
  const { start } = saved;
  const plan = planOf(start.matrixFile, start.selection);
  if (plan.length === 0) throw new Error(`--resume: nothing to plan from ${start.matrixFile} (is the matrix file there?)`);
  const missing = missingCells(plan, new Set(saved.cells.keys()));
  if (missing.length === 0) {
    const results = assembleResults({ cells: saved.cells.values(), clients: saved.clients.values(), plan, matrixFile: start.matrixFile, strict: start.strict, selection: start.selection, durationMs: saved.durationMs });
    writeReports(results, outDir);
    console.error(`mcp-client-conformance: ${options.resume} already holds all ${plan.length} planned cells; its reports are written again`);
    return finished(outDir, options, cwd);
  }
  console.error(`mcp-client-conformance: resuming ${options.resume}: ${missing.length} of ${plan.length} planned cells are missing`);
  setEnvironment({ matrixFile: start.matrixFile, outDir, clients: start.selection.clients, scenario: start.selection.scenario, strict: start.strict, resume: outDir });
  await runVitest([...new Set(missing.map((cell) => suiteFile(cell.suite)))], undefined);
  return finished(outDir, options, cwd);
}

/** The settings of the run, for the test workers and the reporter (scripts/matrix/settings.ts). */
function setEnvironment(run: { matrixFile: string; outDir: string; clients: string | undefined; scenario: string | undefined; strict: boolean; resume?: string }): void {
  const values: Record<string, string | undefined> = {
    [MATRIX_ENV.file]: run.matrixFile,
    [MATRIX_ENV.out]: run.outDir,
    [MATRIX_ENV.clients]: run.clients,
    [MATRIX_ENV.scenario]: run.scenario,
    [MATRIX_ENV.strict]: run.strict ? '1' : undefined,
    [MATRIX_ENV.resume]: run.resume,
  };
  for (const [name, value] of Object.entries(values)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
}

async function runVitest(files: string[], shard: string | undefined): Promise<void> {
  const { startVitest } = await import('vitest/node');
  const vitest = await startVitest('test', files, { root: ROOT, config: join(ROOT, 'vitest.matrix.config.ts'), watch: false, ...(shard !== undefined ? { shard } : {}) });
  await vitest.close();
}

async function finished(outDir: string, options: MatrixOptions, cwd: string): Promise<number> {
  const resultsPath = join(outDir, REPORT_FILES.results);
  if (!existsSync(resultsPath)) {
    console.error('mcp-client-conformance: the matrix run wrote no results (see the errors above)');
    return 2;
  }
  const complete = parseResults(readFileSync(resultsPath, 'utf8'), resultsPath).run.complete;
  const compared = options.compare === undefined ? 0 : await runCompare([resolve(cwd, options.compare), resultsPath, '--markdown', join(outDir, 'comparison.md')]);
  return compared !== 0 ? compared : complete ? 0 : INCOMPLETE_EXIT;
}
