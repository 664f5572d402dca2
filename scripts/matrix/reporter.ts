// The matrix reporter, in the main vitest process: a progress display while the matrix runs, each finished cell
// journaled the moment it is seen (journal.ts), results.json saved every few seconds, and all four files written at
// the end — or at once on SIGINT or SIGTERM, marked incomplete with what is missing counted. The same code runs on a
// live run, on a resumed one (`matrix --resume`: the earlier cells are kept, only the missing ones run) and on merged
// blob reports of sharded CI runs (`vitest --merge-reports`), so a sharded night gives the same files as one machine.
import { relative, resolve } from 'node:path';
import type { Reporter, TestCase, TestModule, TestRunEndReason, TestSpecification, Vitest } from 'vitest/node';
import type { Revision } from '../../protocol/revisions.ts';
import { readSettings } from '../../config/settings.ts';
import { appendJournal, keepClient, readSaved, startJournal, type RunStart } from './journal.ts';
import { DEFAULT_MATRIX_FILE } from './matrix-file.ts';
import { assembleResults, writeReports, type ReportPaths } from './output.ts';
import { planOf, suiteCases, SUITE_NAMES, suiteOfFile, type PlannedCell } from './plan.ts';
import { RESUME_COMMAND } from '../../results/markdown.ts';
import { cellKey, errorCell, verdictCounts, VERDICTS, type Cell, type ClientInfo, type MatrixResults, type Selection } from '../../results/results.ts';
import { DEFAULT_REPORTS_DIR, MATRIX_ENV } from './settings.ts';

const ROOT = resolve(import.meta.dirname, '..', '..');

/** How often results.json is saved while the run goes (the journal has every cell at once)... */
export const SAVE_EVERY_MS = 5_000;
/** ...and at most this share of the main process's time: a full matrix's file takes a few hundred ms to write. */
const SAVE_SHARE = 1 / 30;

/**
 * A finished test's cell. A test that failed without one (it timed out, the suite broke) becomes an error cell saying
 * so; one that never ran to its end (skipped, its worker gone) has none: it is missing, and a resume runs it.
 */
function cellOfTest(test: TestCase): Cell | undefined {
  const cell = test.meta().matrixCell;
  if (cell) return cell;
  const result = test.result();
  if (result.state !== 'failed' && result.state !== 'passed') return undefined;
  const [scenario = test.name, revision = ''] = test.name.split(' @ ');
  const why = result.state === 'failed' ? result.errors.map((error) => error.message).join('; ') : 'the test ended without one';
  return errorCell(test.parent.type === 'suite' ? test.parent.name : '?', scenario, revision as Revision, `the suite produced no verdict: ${why}`);
}

const signalNumber: Record<string, number> = { SIGINT: 2, SIGTERM: 15 };

export default class MatrixReporter implements Reporter {
  private started = performance.now();
  /** How long the earlier runs of a resumed run took. */
  private earlierMs = 0;
  private readonly cells = new Map<string, Cell>();
  private readonly clients = new Map<string, ClientInfo>();
  private plan: PlannedCell[] = [];
  private start: RunStart | undefined;
  private readonly outDir = resolve(process.env[MATRIX_ENV.out] ?? DEFAULT_REPORTS_DIR);
  /** Cells this run is to produce (a resume: the missing ones), and how many it has. */
  private toRun = 0;
  private done = 0;
  private readonly tally = Object.fromEntries(VERDICTS.map((verdict) => [verdict, 0])) as Record<Cell['verdict'], number>;
  private lastLine = 0;
  private unsaved = false;
  private saver: NodeJS.Timeout | undefined;
  private lastSave = { at: 0, tookMs: 0 };
  private ended = false;
  private readonly progress = process.env[MATRIX_ENV.progress] !== '0';
  private readonly tty = process.stderr.isTTY === true;
  private readonly onSignal = (signal: NodeJS.Signals) => this.interrupted(signal);
  /** Merging the blob reports of CI shards: a shard whose blob is missing must count as missing, not as unplanned. */
  private merging = false;

  onInit(vitest: Vitest): void {
    this.merging = Boolean(vitest.config.mergeReports);
  }

  onTestRunStart(specifications: ReadonlyArray<TestSpecification>): void {
    this.started = performance.now();
    const resumed = process.env[MATRIX_ENV.resume] !== undefined ? readSaved(this.outDir, ROOT) : undefined;
    const scenario = process.env[MATRIX_ENV.scenario] || undefined;
    const suites = this.merging
      ? SUITE_NAMES.filter((suite) => suiteCases(suite, scenario).length > 0)
      : [...new Set(specifications.map((specification) => suiteOfFile(specification.moduleId)).filter((suite) => suite !== undefined))];
    const selection: Selection = resumed?.start.selection ?? {
      ...(process.env[MATRIX_ENV.clients] ? { clients: process.env[MATRIX_ENV.clients] } : {}),
      ...(scenario !== undefined ? { scenario } : {}),
      suites: SUITE_NAMES.filter((suite) => suites.includes(suite)),
    };
    this.start = resumed?.start ?? { startedAt: new Date().toISOString(), matrixFile: resolve(process.env[MATRIX_ENV.file] ?? DEFAULT_MATRIX_FILE), strict: readSettings().strict, selection };
    if (resumed) {
      for (const [key, cell] of resumed.cells) this.cells.set(key, cell);
      for (const client of resumed.clients.values()) this.clients.set(client.name, client);
      this.earlierMs = resumed.durationMs;
    }
    this.plan = planOf(this.start.matrixFile, this.start.selection);
    this.toRun = this.plan.filter((cell) => !this.cells.has(cellKey(cell))).length;
    startJournal(this.outDir, this.start, resumed !== undefined);
    // At once: a stale results.json of an earlier run in this folder must not stand for this one.
    this.save();
    this.saver = setInterval(() => {
      if (this.unsaved && performance.now() - this.lastSave.at >= this.lastSave.tookMs / SAVE_SHARE) this.save();
    }, SAVE_EVERY_MS).unref();
    process.once('SIGINT', this.onSignal);
    process.once('SIGTERM', this.onSignal);
  }

  onTestCaseResult(test: TestCase): void {
    const client = test.meta().matrixClient;
    if (client) return this.record({ client });
    if (test.name === 'client') return;
    const cell = cellOfTest(test);
    if (!cell) return;
    this.record({ cell });
    this.done++;
    this.tally[cell.verdict]++;
    this.showProgress(false);
  }

  private record(line: { client: ClientInfo } | { cell: Cell }): void {
    if ('client' in line) keepClient(this.clients, line.client);
    else this.cells.set(cellKey(line.cell), line.cell);
    appendJournal(this.outDir, line);
    this.unsaved = true;
  }

  private results(interruption: string | undefined): MatrixResults {
    const start = this.start!;
    return assembleResults({
      cells: this.cells.values(),
      clients: this.clients.values(),
      plan: this.plan,
      matrixFile: start.matrixFile,
      strict: start.strict,
      selection: start.selection,
      durationMs: this.earlierMs + performance.now() - this.started,
      ...(interruption !== undefined ? { interruption } : {}),
    });
  }

  /** results.json as the run stands; a run killed after this keeps it (and its journal has the later cells). */
  private save(): void {
    const started = performance.now();
    this.unsaved = false;
    writeReports(this.results('saved while the run was still going; cells.jsonl in the same folder may hold later ones'), this.outDir, true);
    this.lastSave = { at: performance.now(), tookMs: performance.now() - started };
  }

  /** SIGINT or SIGTERM: every report at once, synchronously (vitest exits right after its own handler). */
  private interrupted(signal: NodeJS.Signals): void {
    if (this.ended) return;
    this.finish(`interrupted by ${signal}`);
    process.exitCode = 128 + (signalNumber[signal] ?? 0);
    // vitest's own handler exits the process; should there be none, exit here.
    setTimeout(() => process.exit(), 100).unref();
  }

  private showProgress(final: boolean): void {
    if (!this.progress) return;
    const now = performance.now();
    // On a terminal the line is redrawn; in a CI log, a line every few seconds.
    if (!final && now - this.lastLine < (this.tty ? 100 : 5_000)) return;
    this.lastLine = now;
    const counts = VERDICTS.map((verdict) => `${verdict} ${this.tally[verdict]}`).join(' · ');
    const line = `matrix: ${this.done}${this.toRun > 0 ? `/${this.toRun}` : ''} cases · ${counts} · ${((now - this.started) / 1000).toFixed(0)} s`;
    process.stderr.write(this.tty ? `\r${line}\x1b[K${final ? '\n' : ''}` : `${line}\n`);
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<{ message?: string }>, reason: TestRunEndReason): void {
    if (this.ended) return;
    // What no test result reported (merged blob reports may replay none) is read from the modules here.
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const client = test.meta().matrixClient;
        if (client) keepClient(this.clients, client);
        else if (test.name !== 'client' && !this.cells.has(cellKeyOfTest(test))) {
          const cell = cellOfTest(test);
          if (cell) this.record({ cell });
        }
      }
    }
    // A suite file whose worker died (killed, out of memory) fails as a module; its unfinished cells are missing.
    const broken = testModules.flatMap((module) => module.errors().map((error) => `${relative(ROOT, module.moduleId)}: ${error.message.split('\n')[0]}`));
    const why = [...broken, ...unhandledErrors.map((error) => error.message ?? String(error))];
    for (const error of unhandledErrors) process.stderr.write(`matrix: unhandled error: ${error.message ?? String(error)}\n`);
    this.finish(reason === 'interrupted' ? 'the run was interrupted' : why.length > 0 ? `a suite file did not finish: ${why.join('; ')}` : undefined);
  }

  /** Writes every report and prints the summary, once. */
  private finish(interruption: string | undefined): void {
    this.ended = true;
    clearInterval(this.saver);
    process.off('SIGINT', this.onSignal);
    process.off('SIGTERM', this.onSignal);
    this.showProgress(true);
    const results = this.results(interruption);
    const paths = writeReports(results, this.outDir);
    process.stdout.write(summaryText(results, paths, this.outDir));
  }
}

/** The key of the cell a test stands for (`client` describe, `scenario @ revision` test). */
function cellKeyOfTest(test: TestCase): string {
  const [scenario = test.name, revision = ''] = test.name.split(' @ ');
  return cellKey({ client: test.parent.type === 'suite' ? test.parent.name : '?', scenario, revision: revision as Revision });
}

function summaryText(results: MatrixResults, paths: ReportPaths, outDir: string): string {
  const lines = results.clients.map((client) => {
    const counts = verdictCounts(results.cells.filter((cell) => cell.client === client.name));
    const version = client.version !== undefined ? ` ${client.package}@${client.version}` : '';
    return `  ${client.name}${version}: ${VERDICTS.map((verdict) => `${verdict} ${counts[verdict]}`).join(', ')}${client.loadError ? ` — not loaded: ${client.loadError.split('\n')[0]}` : ''}`;
  });
  const { run } = results;
  const incomplete = run.complete
    ? ''
    : `matrix: INCOMPLETE: ${run.missingCells} of ${run.plannedCells} planned cells have no result${run.interruption !== undefined ? ` (${run.interruption})` : ''}; run only those with: ${RESUME_COMMAND.replace('<reports folder>', relative(process.cwd(), outDir) || '.')}\n`;
  return `\nmatrix: ${results.clients.length} clients, ${results.cells.length} cells in ${(run.durationMs / 1000).toFixed(1)} s\n${lines.join('\n')}\n${incomplete}reports: ${Object.values(paths).map((path) => relative(process.cwd(), path)).join(', ')}\n`;
}
