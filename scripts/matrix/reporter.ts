// The matrix reporter: a progress display while the matrix runs, then the results file and the reports built
// from the tests' metas (scripts/matrix/define.ts). The same code runs on a live run and on merged blob reports
// of sharded CI runs (`vitest --merge-reports`), so a sharded night gives the same files as one machine.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { basename, join, relative, resolve } from 'node:path';
import type { Reporter, TestCase, TestModule, TestSpecification } from 'vitest/node';
import { SCENARIOS, SUITES } from '../../suites/index.ts';
import { plannedCases } from '../../suites/plan.ts';
import type { Revision } from '../../protocol/revisions.ts';
import { DEFAULT_MATRIX_FILE, readMatrixFile } from './matrix-file.ts';
import { renderHtml } from './report-html.ts';
import { renderJunit } from './report-junit.ts';
import { renderMarkdown } from './report-markdown.ts';
import { errorCell, scenarioInfo, RESULTS_FORMAT, RESULTS_FORMAT_VERSION, verdictCounts, type Cell, type ClientInfo, type MatrixResults, type ScenarioInfo } from './results.ts';
import { DEFAULT_REPORTS_DIR, MATRIX_ENV, selectEntries } from './settings.ts';

const ROOT = resolve(import.meta.dirname, '..', '..');

/** The files a matrix run writes into its reports folder. */
export const REPORT_FILES = { results: 'results.json', markdown: 'summary.md', junit: 'junit.xml', html: 'report.html' } as const;

/** A test's cell; a test that ended without one (it timed out, the suite broke) becomes an error cell saying so. */
function cellOfTest(test: TestCase): Cell {
  const cell = test.meta().matrixCell;
  if (cell) return cell;
  const [scenario = test.name, revision = ''] = test.name.split(' @ ');
  const result = test.result();
  const why = result.state === 'failed' ? result.errors.map((error) => error.message).join('; ') : `the test ended ${result.state}`;
  return errorCell(test.parent.type === 'suite' ? test.parent.name : '?', scenario, revision as Revision, `the suite produced no verdict: ${why}`);
}

function scenarioInfos(cells: readonly Cell[]): ScenarioInfo[] {
  const ran = new Set(cells.map((cell) => cell.scenario));
  return SCENARIOS.filter((scenario) => ran.has(scenario.id)).map(scenarioInfo);
}

function gitCommit(): string | undefined {
  try {
    return execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], { cwd: ROOT, encoding: 'utf8', timeout: 2_000, stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return undefined;
  }
}

/** Assembles the results from finished test modules, in matrix file order. */
export function collectResults(testModules: ReadonlyArray<TestModule>, durationMs: number, matrixFile: string): MatrixResults {
  const clients = new Map<string, ClientInfo>();
  const cells: Cell[] = [];
  for (const module of testModules) {
    for (const test of module.children.allTests()) {
      const client = test.meta().matrixClient;
      if (client) {
        // Every suite file loads the client; a load error seen by any of them is the one to report.
        if (!clients.has(client.name) || client.loadError !== undefined) clients.set(client.name, client);
      } else if (test.name !== 'client') cells.push(cellOfTest(test));
    }
  }
  let order: string[] = [];
  try {
    order = readMatrixFile(matrixFile).clients.map((entry) => entry.name);
  } catch {
    // Merging reports somewhere without the matrix file: keep the order the cells came in.
  }
  const rank = (name: string) => (order.includes(name) ? order.indexOf(name) : order.length);
  const scenarioRank = new Map(SCENARIOS.map((scenario, index) => [scenario.id, index]));
  cells.sort((a, b) => rank(a.client) - rank(b.client) || a.client.localeCompare(b.client) || (scenarioRank.get(a.scenario) ?? 0) - (scenarioRank.get(b.scenario) ?? 0) || a.revision.localeCompare(b.revision));
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
  const commit = gitCommit();
  return {
    format: RESULTS_FORMAT,
    formatVersion: RESULTS_FORMAT_VERSION,
    generatedAt: new Date().toISOString(),
    run: {
      suiteVersion: pkg.version,
      ...(commit !== undefined ? { commit } : {}),
      node: process.version,
      platform: `${process.platform}-${process.arch}`,
      cpus: availableParallelism(),
      durationMs: Math.round(durationMs),
      strict: process.env[MATRIX_ENV.strict] === '1',
      matrixFile: relative(ROOT, matrixFile) || matrixFile,
    },
    scenarios: scenarioInfos(cells),
    clients: [...clients.values()].sort((a, b) => rank(a.name) - rank(b.name)),
    cells,
  };
}

/** Writes the results file and the three reports; returns their paths. */
export function writeReports(results: MatrixResults, outDir: string): Record<keyof typeof REPORT_FILES, string> {
  mkdirSync(outDir, { recursive: true });
  const paths = Object.fromEntries(Object.entries(REPORT_FILES).map(([kind, file]) => [kind, join(outDir, file)])) as Record<keyof typeof REPORT_FILES, string>;
  writeFileSync(paths.results, `${JSON.stringify(results, null, 1)}\n`);
  writeFileSync(paths.markdown, renderMarkdown(results));
  writeFileSync(paths.junit, renderJunit(results));
  writeFileSync(paths.html, renderHtml(results));
  return paths;
}

/** How many cases the suite files about to run hold for the selected clients (so progress has a fixed total). */
function plannedTotal(moduleIds: readonly string[]): number {
  try {
    const entries = selectEntries(readMatrixFile(process.env[MATRIX_ENV.file] ?? DEFAULT_MATRIX_FILE).clients, process.env[MATRIX_ENV.clients]);
    const filter = process.env[MATRIX_ENV.scenario];
    const suites = moduleIds.map((id) => basename(id, '.matrix.ts')).filter((suite): suite is keyof typeof SUITES => suite in SUITES);
    const cases = suites.flatMap((suite) => plannedCases(SUITES[suite])).filter(({ scenario }) => filter === undefined || scenario.id.includes(filter));
    return entries.length * cases.length;
  } catch {
    return 0;
  }
}

export default class MatrixReporter implements Reporter {
  private started = performance.now();
  private total = 0;
  private done = 0;
  private readonly tally = { pass: 0, fail: 0, warn: 0, 'n/a': 0, error: 0 };
  private lastLine = 0;
  private readonly progress = process.env[MATRIX_ENV.progress] !== '0';
  private readonly tty = process.stderr.isTTY === true;

  onTestRunStart(specifications: ReadonlyArray<TestSpecification>): void {
    this.started = performance.now();
    this.total = plannedTotal(specifications.map((specification) => specification.moduleId));
  }

  onTestCaseResult(test: TestCase): void {
    if (test.name === 'client') return;
    this.done++;
    this.tally[cellOfTest(test).verdict]++;
    this.showProgress(false);
  }

  private showProgress(final: boolean): void {
    if (!this.progress) return;
    const now = performance.now();
    // On a terminal the line is redrawn; in a CI log, a line every few seconds.
    if (!final && now - this.lastLine < (this.tty ? 100 : 5_000)) return;
    this.lastLine = now;
    const { pass, fail, warn, error } = this.tally;
    const line = `matrix: ${this.done}${this.total > 0 ? `/${this.total}` : ""} cases · pass ${pass} · fail ${fail} · warn ${warn} · n/a ${this.tally['n/a']} · error ${error} · ${((now - this.started) / 1000).toFixed(0)} s`;
    process.stderr.write(this.tty ? `\r${line}\x1b[K${final ? '\n' : ''}` : `${line}\n`);
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<{ message?: string }>): void {
    this.showProgress(true);
    const matrixFile = resolve(process.env[MATRIX_ENV.file] ?? DEFAULT_MATRIX_FILE);
    const results = collectResults(testModules, performance.now() - this.started, matrixFile);
    const outDir = resolve(process.env[MATRIX_ENV.out] ?? DEFAULT_REPORTS_DIR);
    const paths = writeReports(results, outDir);
    for (const error of unhandledErrors) process.stderr.write(`matrix: unhandled error: ${error.message ?? String(error)}\n`);
    const lines = results.clients.map((client) => {
      const counts = verdictCounts(results.cells.filter((cell) => cell.client === client.name));
      const version = client.version !== undefined ? ` ${client.package}@${client.version}` : '';
      return `  ${client.name}${version}: pass ${counts.pass}, fail ${counts.fail}, warn ${counts.warn}, n/a ${counts['n/a']}, error ${counts.error}${client.loadError ? ` — not loaded: ${client.loadError.split('\n')[0]}` : ''}`;
    });
    process.stdout.write(`\nmatrix: ${results.clients.length} clients, ${results.cells.length} cells in ${(results.run.durationMs / 1000).toFixed(1)} s\n${lines.join('\n')}\nreports: ${Object.values(paths).map((path) => relative(process.cwd(), path)).join(', ')}\n`);
  }
}
