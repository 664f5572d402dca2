// `mcp-client-conformance matrix`: runs the matrix through vitest (vitest.matrix.config.ts) so a local run and the
// sharded nightly CI run are the same tests and the same reporter; then optionally compares with an earlier run.
// `matrix --resume <reports folder>` completes a run that was interrupted or killed: it runs only the cells the folder
// does not hold yet, with the selection the run was started with, and writes complete results. What a run means for CI
// is its exit code: `--compare` gates on regressions and lost cells, `--fail-on` on the run's own verdicts.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { moduleFile } from '../../config/layout.ts';
import { readSettings } from '../../config/settings.ts';
import { EXIT_CODES } from '../../api/exit-codes.ts';
import { INCOMPLETE_EXIT, runCompare } from './compare.ts';
import { notJudgedRows } from './gate.ts';
import { JOURNAL_FILE, readSaved } from './journal.ts';
import { findEnvironment, isReady } from '../../clients/drivers/environments.ts';
import { setUp } from '../../clients/drivers/setup.ts';
import { readMatrixFile, type MatrixEntry } from './matrix-file.ts';
import { assembleResults, REPORT_FILES, writeReports } from './output.ts';
import { missingCells, planOf, suiteCases, suiteFile, SUITE_NAMES } from './plan.ts';
import { rejudgeResults } from '../../results/rejudge.ts';
import { parseResults, verdictCounts, type Cell, type CellVerdict, type MatrixResults } from '../../results/results.ts';
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
  /** An earlier results.json: list regressions and lost cells, and exit 1 when there are any. */
  compare?: string;
  /** With `compare`: lost cells to accept (client names or scenario ids, a trailing `*` for a prefix). */
  allowLost?: string[];
  /** Comma-separated verdicts (fail, warn, error): exit 1 when a cell of the run has one of them. */
  failOn?: string;
  /** A reports folder of an interrupted run: run only its missing cells. */
  resume?: string;
  /** A saved results.json: run no client, judge its cells again (results/rejudge.ts) and write the reports into `out`. */
  rejudge?: string;
  /** Earlier nights' results.json, oldest first: report.html draws the trend across them and this run (`--compare`'s file is one too). */
  history?: string[];
}

/** Exit code of a run whose results lack planned cells (a suite file did not finish): `--resume` completes it. */
export { INCOMPLETE_EXIT };

/** The verdicts `--fail-on` takes: a rule broken (fail, or warn), or a case the suite could not run (error). */
export const FAIL_ON_VERDICTS: readonly CellVerdict[] = ['fail', 'warn', 'error'];

/** `--fail-on fail,error` → its verdicts; anything else is bad usage (inconclusive and n/a judge nothing of the client). */
export function parseFailOn(text: string): CellVerdict[] {
  const verdicts = text.split(',').map((verdict) => verdict.trim()).filter(Boolean);
  const unknown = verdicts.filter((verdict) => !(FAIL_ON_VERDICTS as string[]).includes(verdict));
  if (verdicts.length === 0 || unknown.length > 0) throw new Error(`--fail-on takes verdicts among ${FAIL_ON_VERDICTS.join(', ')}, comma-separated, not "${text}"`);
  return verdicts as CellVerdict[];
}

/**
 * The cells `--fail-on` counts: those with one of its verdicts, except the error cells of an entry the matrix file
 * skips on purpose (`skip`: its reason is in every report).
 */
export function failingCells(results: MatrixResults, verdicts: readonly CellVerdict[]): Cell[] {
  const skipped = new Set(results.clients.filter((client) => client.loadError?.startsWith('skipped: ')).map((client) => client.name));
  return results.cells.filter((cell) => verdicts.includes(cell.verdict) && !(cell.verdict === 'error' && skipped.has(cell.client)));
}

/** One line per client with cells `--fail-on` counts, for the log (the reports have the details). */
export function failOnLines(cells: readonly Cell[], verdicts: readonly CellVerdict[]): string[] {
  const byClient = Map.groupBy(cells, (cell) => cell.client);
  const counts = (own: Cell[]) => Object.entries(verdictCounts(own)).filter(([, count]) => count > 0).map(([verdict, count]) => `${verdict} ${count}`).join(', ');
  return [`--fail-on ${verdicts.join(',')}: ${cells.length} ${cells.length === 1 ? 'cell' : 'cells'} of ${byClient.size} ${byClient.size === 1 ? 'client' : 'clients'}`, ...[...byClient].map(([client, own]) => `  ${client}: ${counts(own)}`)];
}

/**
 * Exit code: 0 done (nothing regressed or lost against --compare, no cell --fail-on counts), 1 a regression or a lost
 * cell against --compare, or a cell --fail-on counts, 2 bad input or a run that wrote no results, 3 a run that ended
 * incomplete (whatever else: --resume completes it, and the gates say their last word then), 4 a complete run with a
 * client that loaded but whose row judged nothing (notJudgedRows; after 1). A run interrupted by SIGINT or SIGTERM exits 130 or 143 (the
 * reporter).
 */
export async function runMatrix(options: MatrixOptions, cwd = process.env.INIT_CWD ?? process.cwd()): Promise<number> {
  if (options.compare !== undefined && !existsSync(resolve(cwd, options.compare))) throw new Error(`--compare: ${options.compare} not found`);
  for (const file of options.history ?? []) if (!existsSync(resolve(cwd, file))) throw new Error(`--history: ${file} not found`);
  if (options.allowLost !== undefined && options.allowLost.length > 0 && options.compare === undefined) throw new Error('--allow-lost accepts lost cells of a comparison: it needs --compare <earlier results.json>');
  if (options.failOn !== undefined) parseFailOn(options.failOn);
  if (options.rejudge !== undefined) return rejudge(options, resolve(cwd, options.rejudge), cwd);
  if (options.resume !== undefined) return resume(options, resolve(cwd, options.resume), cwd);
  const matrixFile = resolve(cwd, options.config ?? join(ROOT, 'matrix.json'));
  const outDir = resolve(cwd, options.out ?? DEFAULT_REPORTS_DIR);
  // Checked here so a typo is one clear line, not a failure in every test worker.
  const entries = selectEntries(readMatrixFile(matrixFile).clients, options.clients);
  await setUpEnvironments(entries);
  setEnvironment({ matrixFile, outDir, clients: options.clients, scenario: options.scenario, strict: options.strict === true || readSettings().strict });
  // Only the suite files with cases the filter keeps: each file costs a worker that loads every suite.
  const suites = SUITE_NAMES.filter((suite) => suiteCases(suite, options.scenario).length > 0);
  if (suites.length === 0) throw new Error(`no scenario matches "${options.scenario}"`);
  // A fresh run: what an earlier run left in the folder must not be resumed or read as this one's.
  for (const file of [REPORT_FILES.results, JOURNAL_FILE]) rmSync(join(outDir, file), { force: true });
  await runVitest(suites.length < SUITE_NAMES.length ? suites.map(suiteFile) : [], options.shard);
  return finished(outDir, options, cwd);
}

/** Makes the client environments the chosen entries run in and that are not set up yet, saying so (a failure skips its rows). */
async function setUpEnvironments(entries: readonly MatrixEntry[]): Promise<void> {
  const needed = [...new Set(entries.filter((entry) => entry.skip === undefined).flatMap((entry) => (entry.setup !== undefined ? [entry.setup] : [])))].map((name) => findEnvironment(name)!).filter((environment) => !isReady(environment));
  for (const environment of needed) {
    console.error(`mcp-client-conformance: setting up ${environment.name} (npm run clients:setup) …`);
    const outcome = await setUp(environment);
    console.error(`mcp-client-conformance: ${environment.name} ${outcome.state} in ${(outcome.ms / 1000).toFixed(1)} s${outcome.reason ? `: ${outcome.reason}` : ''}`);
  }
}

/** `matrix --rejudge <results.json>`: the saved run's cells judged again, its four files written into `--out`, then the gates. */
async function rejudge(options: MatrixOptions, saved: string, cwd: string): Promise<number> {
  const given = (['config', 'clients', 'scenario', 'shard', 'resume'] as const).filter((option) => options[option] !== undefined);
  if (given.length > 0) throw new Error(`--rejudge judges the saved run's cells as they are: drop ${given.map((option) => `--${option}`).join(', ')}`);
  if (!existsSync(saved)) throw new Error(`--rejudge: ${options.rejudge} not found`);
  const outDir = resolve(cwd, options.out ?? DEFAULT_REPORTS_DIR);
  const { results, problems } = rejudgeResults(parseResults(readFileSync(saved, 'utf8'), options.rejudge), { ...(options.strict ? { strict: true } : {}), where: options.rejudge! });
  for (const problem of problems) console.error(`mcp-client-conformance: ${problem}`);
  // The journal of a run in that folder is not this judgement's: a --resume must not read it as one.
  rmSync(join(outDir, JOURNAL_FILE), { force: true });
  writeReports(results, outDir);
  const counts = verdictCounts(results.cells);
  console.error(`mcp-client-conformance: ${results.cells.length} cells of ${options.rejudge} judged again: ${Object.entries(counts).filter(([, n]) => n > 0).map(([verdict, n]) => `${verdict} ${n}`).join(', ')}; reports in ${outDir}`);
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
  const { startVitest } = await import('vitest/node').catch((error: NodeJS.ErrnoException) => {
    // vitest is an optional peer dependency of the package: only the matrix (and the ./vitest helper) need it.
    if (error.code === 'ERR_MODULE_NOT_FOUND' && error.message.includes("'vitest'")) throw new Error('the matrix runs on vitest, which is not installed: npm install --save-dev vitest');
    throw error;
  });
  const vitest = await startVitest('test', files, { root: ROOT, config: join(ROOT, moduleFile('vitest.matrix.config.ts')), watch: false, ...(shard !== undefined ? { shard } : {}) });
  await vitest.close();
}

async function finished(outDir: string, options: MatrixOptions, cwd: string): Promise<number> {
  const resultsPath = join(outDir, REPORT_FILES.results);
  if (!existsSync(resultsPath)) {
    console.error('mcp-client-conformance: the matrix run wrote no results (see the errors above)');
    return 2;
  }
  const results = parseResults(readFileSync(resultsPath, 'utf8'), resultsPath);
  // The trend across nights: the page is drawn again with the earlier runs given (the run itself wrote it without them).
  const earlier = [...(options.history ?? []), ...(options.compare !== undefined ? [options.compare] : [])].map((file) => resolve(cwd, file));
  if (earlier.length > 0) writeReports(results, outDir, false, { history: [...new Set(earlier)].map((file) => parseResults(readFileSync(file, 'utf8'), file)) });
  const allowLost = (options.allowLost ?? []).flatMap((pattern) => ['--allow-lost', pattern]);
  const compared = options.compare === undefined ? 0 : await runCompare([resolve(cwd, options.compare), resultsPath, '--markdown', join(outDir, 'comparison.md'), ...allowLost]);
  if (compared === 2) return 2;
  const verdicts = options.failOn !== undefined ? parseFailOn(options.failOn) : [];
  const failing = failingCells(results, verdicts);
  if (failing.length > 0) console.error(`mcp-client-conformance: ${failOnLines(failing, verdicts).join('\n')}`);
  if (!results.run.complete) return INCOMPLETE_EXIT;
  // The comparison is printed; its Markdown file could not be written (said in one line).
  if (compared === EXIT_CODES.notWritten) return compared;
  const unjudged = notJudgedRows(results);
  for (const line of unjudged) console.error(`mcp-client-conformance: ${line}`);
  if (compared !== 0 || failing.length > 0) return EXIT_CODES.failed;
  return unjudged.length > 0 ? EXIT_CODES.notJudged : EXIT_CODES.ok;
}
