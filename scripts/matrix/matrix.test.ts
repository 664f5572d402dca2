// The matrix runner end to end: the matrix file's checks, `mcp-client-conformance matrix` writing all four reports,
// the nightly CI path (vitest shards with blob reports, merged) giving the same verdicts as one run, and a run
// interrupted (SIGINT), with a test worker killed, or with its main process killed keeping every finished cell,
// marked incomplete, then completed by `matrix --resume`; and a `matrix` or `run` whose process dies (SIGKILL,
// SIGINT) leaving no process of its tree behind. No test bounds a run by the clock: a run is waited for (each of its
// cases is bounded by the time policy), a child process is bounded only relative to the first run measured in this
// file or by the time policy's bounds (testdata/round-trip.ts), and what a test acts on is observed state (the
// journal, a held case's file, /proc). The same round trip from the checkout's dist/ and the installed package:
// scripts/package.test.ts › one matrix, wherever it is started.
import { spawn, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { SETTINGS_ENV } from '../../config/settings.ts';
import { JOURNAL_FILE } from './journal.ts';
import { DEFAULT_MATRIX_FILE, entryPackage, readMatrixFile } from './matrix-file.ts';
import { cellKey, evidenceText, parseResults, type Cell, type MatrixResults } from '../../results/results.ts';
import { INCOMPLETE_EXIT } from './run.ts';
import { MATRIX_ENV, selectEntries } from './settings.ts';
import { finished, heldRunEnv, leftAfterHarnessDied, markedProcesses, runBoundMs, startCommand, startMatrix, until, writeHeldClient, type HeldOptions, type Run, type Starter } from './testdata/round-trip.ts';

const ROOT = resolve(import.meta.dirname, '..', '..');
const NODE = process.execPath;
const CLI = join(ROOT, 'scripts', 'cli.ts');
const work = mkdtempSync(join(tmpdir(), 'matrix-test-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** How long the first matrix run of this file took: the only yardstick for bounding later child processes. */
let firstRunMs: number | undefined;
/** A bound on a child matrix process, relative to that run (a hang fails instead of stalling the suite). */
const childBound = () => (firstRunMs === undefined ? undefined : Math.round(20 * firstRunMs));

function writeMatrix(name: string, clients: unknown[]): string {
  const path = join(work, name);
  writeFileSync(path, JSON.stringify({ clients }));
  return path;
}

describe('the matrix file', () => {
  test('matrix.json follows its schema, names each client once, and every package it names is installed (or pinned by its Python environment)', () => {
    const schema = JSON.parse(readFileSync(join(import.meta.dirname, 'matrix.schema.json'), 'utf8'));
    const validate = new Ajv2020({ allErrors: true, strict: false }).compile(schema);
    const file = JSON.parse(readFileSync(DEFAULT_MATRIX_FILE, 'utf8'));
    expect(validate(file), JSON.stringify(validate.errors)).toBe(true);
    const matrix = readMatrixFile();
    expect(matrix.clients.length).toBeGreaterThanOrEqual(10);
    const missing = matrix.clients.filter((entry) => entry.package !== undefined && entryPackage(entry, matrix.path) === undefined);
    expect(missing.map((entry) => entry.package)).toEqual([]);
  });

  test('each problem of a broken matrix file is named with its entry', () => {
    const path = writeMatrix('broken.json', [{ name: 'a', adapter: 'reference' }, { name: 'a', adapter: 'reference' }, { name: 'b' }, { name: 'c', command: 'x', adapter: 'y' }, { name: 'd', adapter: 'reference', colour: 'red' }]);
    expect(() => readMatrixFile(path)).toThrow(/clients\[1\] \(a\): the name is used twice[\s\S]*clients\[2\] \(b\) needs exactly one of[\s\S]*clients\[3\] \(c\) needs exactly one of[\s\S]*clients\[4\] \(d\): unknown key "colour"/);
    expect(() => readMatrixFile(join(work, 'nope.json'))).toThrow(/nope.json: not found/);
    expect(() => selectEntries(readMatrixFile().clients, 'reference,sdk-v9*')).toThrow(/no matrix entry named "sdk-v9\*"/);
    expect(selectEntries(readMatrixFile().clients, 'sdk-v1@*').map((entry) => entry.name)).toEqual(['sdk-v1@1.12', 'sdk-v1@1.17', 'sdk-v1@1.24', 'sdk-v1@latest']);
  });
});

describe('a matrix run', { timeout: 0 }, () => {
  // A reference client, one that breaks a rule, one whose module is missing and one whose package is not installed.
  const clients = [
    { name: 'reference', adapter: 'reference' },
    { name: 'never-deletes', adapter: 'broken-never-deletes' },
    { name: 'missing-module', adapter: './no-such-adapter.ts' },
    { name: 'not-installed', package: 'no-such-package', adapter: 'reference' },
  ];
  const scenario = 'session';
  const verdictKey = (cell: Cell) => `${cell.client} ${cell.scenario} ${cell.revision} ${cell.verdict}`;
  const out = join(work, 'one-run');
  // One run, which the tests read (they run in any order).
  let run: SpawnSyncReturns<string>;
  // The run itself is not bounded by the clock: every case in it is (the time policy), and it is the yardstick.
  beforeAll(() => {
    const started = performance.now();
    run = spawnSync(NODE, [CLI, 'matrix', '--config', writeMatrix('small.json', clients), '--scenario', scenario, '--out', out], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, [MATRIX_ENV.progress]: '0' } });
    firstRunMs = performance.now() - started;
  }, 0);
  const oneRun = (): MatrixResults => parseResults(readFileSync(join(out, 'results.json'), 'utf8'));

  test('`matrix` writes results, Markdown, JUnit and HTML, with a verdict for every client × case, and a complete run', () => {
    expect(run.status, run.stderr + run.stdout).toBe(0);
    for (const file of ['results.json', 'summary.md', 'junit.xml', 'report.html', JOURNAL_FILE]) expect(existsSync(join(out, file)), file).toBe(true);
    const results = oneRun();
    expect(results.run).toMatchObject({ complete: true, missingCells: 0, plannedCells: results.cells.length, selection: { scenario } });
    expect(results.run.interruption).toBeUndefined();
    expect(results.clients.map((client) => client.name)).toEqual(clients.map((client) => client.name));
    expect(results.clients[2]!.loadError).toMatch(/no-such-adapter.ts not found/);
    expect(results.clients[3]!.loadError).toMatch(/no-such-package is not installed/);
    const of = (client: string) => results.cells.filter((cell) => cell.client === client);
    expect(of('reference').length).toBeGreaterThan(10);
    expect(of('reference').every((cell) => cell.verdict === 'pass' || cell.verdict === 'n/a')).toBe(true);
    // Ending the session with DELETE is a SHOULD: a warning, with the wire evidence that shows it.
    const undeleted = of('never-deletes').find((cell) => cell.scenario === 'disposal/delete-issued-session');
    expect(undeleted?.verdict).toBe('warn');
    expect(undeleted && evidenceText(undeleted)).toMatch(/wire record/);
    for (const client of ['missing-module', 'not-installed']) expect(of(client).every((cell) => cell.verdict === 'error'), client).toBe(true);
    expect(run.stdout).toMatch(/matrix: 4 clients/);
  });

  test('--resume of a complete run runs nothing and writes its reports again; with a selection of its own it is refused', () => {
    const before = parseResults(readFileSync(join(out, 'results.json'), 'utf8'));
    const again = spawnSync(NODE, [CLI, 'matrix', '--resume', out], { cwd: ROOT, encoding: 'utf8', timeout: childBound(), env: { ...process.env, [MATRIX_ENV.progress]: '0' } });
    expect(again.status, again.stderr).toBe(0);
    expect(again.stderr).toContain(`already holds all ${before.cells.length} planned cells`);
    expect(parseResults(readFileSync(join(out, 'results.json'), 'utf8')).cells).toEqual(before.cells);
    const refused = spawnSync(NODE, [CLI, 'matrix', '--resume', out, '--clients', 'reference'], { cwd: ROOT, encoding: 'utf8', timeout: childBound() });
    expect(refused.status).toBe(2);
    expect(refused.stderr).toMatch(/--resume runs what the interrupted run was asked to: drop --clients/);
  });

  test('the gates through the command: --fail-on counts the run’s own verdicts; --compare fails on a lost cell unless --allow-lost accepts it', () => {
    // --resume of a complete run runs nothing: the gates are judged on the one run above.
    const matrix = (...args: string[]) => spawnSync(NODE, [CLI, 'matrix', '--resume', out, ...args], { cwd: ROOT, encoding: 'utf8', timeout: childBound(), env: { ...process.env, [MATRIX_ENV.progress]: '0' } });
    const results = oneRun();
    const errors = results.cells.filter((cell) => cell.verdict === 'error').length;
    const errorGate = matrix('--fail-on', 'error');
    expect(errorGate.status, errorGate.stderr).toBe(1);
    expect(errorGate.stderr).toContain(`--fail-on error: ${errors} cells of 2 clients\n  missing-module: error ${errors / 2}\n  not-installed: error ${errors / 2}\n`);
    expect(matrix('--fail-on', 'warn').status).toBe(1);
    // The previous run had one more client: its cells are lost in this one.
    const gone = results.cells.filter((cell) => cell.client === 'reference').map((cell) => ({ ...cell, client: 'gone' }));
    const previous = join(work, 'previous.json');
    writeFileSync(previous, JSON.stringify({ ...results, clients: [...results.clients, { ...results.clients[0]!, name: 'gone' }], cells: [...results.cells, ...gone] }));
    const lost = matrix('--compare', previous);
    expect(lost.status, lost.stderr).toBe(1);
    expect(lost.stdout).toContain(`matrix comparison: ${gone.length} lost cells\n`);
    expect(readFileSync(join(out, 'comparison.md'), 'utf8')).toContain(`- \`gone\`: ${gone.length} cells (were `);
    const allowed = matrix('--compare', previous, '--allow-lost', 'gone');
    expect(allowed.status, allowed.stderr).toBe(0);
    expect(allowed.stdout).toContain(`matrix comparison: no regressions, ${gone.length} lost cells allowed\n`);
    for (const [args, message] of [
      [['--allow-lost', 'gone'], /--allow-lost accepts lost cells of a comparison: it needs --compare/],
      [['--fail-on', 'inconclusive'], /--fail-on takes verdicts among fail, warn, error/],
    ] as const) {
      const refused = matrix(...args);
      expect(refused.status, args.join(' ')).toBe(2);
      expect(refused.stderr).toMatch(message);
    }
  });

  test('two vitest shards with blob reports, merged, give the same cells as one run; a missing shard leaves it incomplete, and --resume completes it', () => {
    const blobs = join(work, 'blobs');
    const out = join(work, 'merged');
    const env = { ...process.env, [MATRIX_ENV.file]: join(work, 'small.json'), [MATRIX_ENV.scenario]: scenario, [MATRIX_ENV.out]: out, [MATRIX_ENV.progress]: '0' };
    const vitest = (args: string[]) => spawnSync(NODE, [join(ROOT, 'node_modules', 'vitest', 'vitest.mjs'), ...args, '--config', 'vitest.matrix.config.ts'], { cwd: ROOT, encoding: 'utf8', timeout: childBound(), env });
    for (const shard of [1, 2]) {
      const run = vitest(['run', `--shard=${shard}/2`, '--reporter=blob', `--outputFile=${join(blobs, `blob-${shard}.json`)}`]);
      expect(run.status, run.stderr + run.stdout).toBe(0);
    }
    const merge = vitest([`--merge-reports=${blobs}`]);
    expect(merge.status, merge.stderr + merge.stdout).toBe(0);
    const merged = parseResults(readFileSync(join(out, 'results.json'), 'utf8'));
    expect(merged.cells.map(verdictKey).sort()).toEqual(oneRun().cells.map(verdictKey).sort());
    expect(merged.run).toMatchObject({ complete: true, missingCells: 0 });
    // A shard whose blob never arrived (its runner was cancelled): the merged run says what is missing.
    rmSync(join(blobs, 'blob-2.json'));
    const partial = vitest([`--merge-reports=${blobs}`]);
    expect(partial.status, partial.stderr + partial.stdout).toBe(0);
    const half = parseResults(readFileSync(join(out, 'results.json'), 'utf8'));
    expect(half.run).toMatchObject({ complete: false, plannedCells: merged.cells.length, missingCells: merged.cells.length - half.cells.length });
    expect(half.cells.length).toBeGreaterThan(0);
    expect(half.cells.length).toBeLessThan(merged.cells.length);
    // The nightly job then completes it: --resume runs the missing shard's cells only.
    const resumed = spawnSync(NODE, [CLI, 'matrix', '--resume', out], { cwd: ROOT, encoding: 'utf8', timeout: childBound(), env: { ...process.env, [MATRIX_ENV.progress]: '0' } });
    expect(resumed.status, resumed.stderr + resumed.stdout).toBe(0);
    expect(resumed.stderr).toContain(`${merged.cells.length - half.cells.length} of ${merged.cells.length} planned cells are missing`);
    const completed = parseResults(readFileSync(join(out, 'results.json'), 'utf8'));
    expect(completed.run).toMatchObject({ complete: true, missingCells: 0 });
    expect(completed.cells.map(verdictKey).sort()).toEqual(merged.cells.map(verdictKey).sort());
  });
});

describe('an interrupted matrix run', { timeout: 0 }, () => {
  // One client, four cases (negotiation/handshake-order at four revisions); the one at 2025-06-18 is held (it never
  // starts while the hold file exists), so a run stops with three cells finished and one in flight. Its operation
  // bound is an hour, so the held case cannot end on its own before the test acts.
  const heldAt = '2025-06-18';
  const scenario = 'negotiation/handshake';
  const children: ReturnType<typeof spawn>[] = [];
  const pids: number[] = [];
  afterEach(() => {
    for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    for (const pid of pids.splice(0)) if (alive(pid)) process.kill(pid, 'SIGKILL');
  });

  function alive(pid: number): boolean {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  }

  interface Held {
    out: string;
    holdFile: string;
    pidFile: string;
    child: ReturnType<typeof spawn>;
    exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
  }

  /** Starts a matrix run of the held client into a fresh folder. */
  function startHeld(name: string): Held {
    const out = join(work, name);
    const holdFile = join(work, `${name}.hold`);
    const pidFile = join(work, `${name}.pid`);
    writeFileSync(holdFile, '');
    const config = writeMatrix(`${name}.json`, [{ name: 'held', adapter: join(import.meta.dirname, 'testdata', 'held-client.ts'), options: { hold: `@${heldAt}`, holdFile, pidFile } }]);
    const child = spawn(NODE, [CLI, 'matrix', '--config', config, '--scenario', scenario, '--out', out], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, [MATRIX_ENV.progress]: '0', [SETTINGS_ENV.operationTimeout]: String(3_600_000) } });
    children.push(child);
    return { out, holdFile, pidFile, child, exited: exitOf(child) };
  }

  function exitOf(child: ReturnType<typeof spawn>): Held['exited'] {
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk) => (stdout += chunk));
    child.stderr!.on('data', (chunk) => (stderr += chunk));
    return new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
  }

  /**
   * The cells the main process has journaled so far (it writes each as it sees it). Only whole lines: a read can land
   * in the middle of an append (a loaded run saw half a line).
   */
  const wholeLines = (text: string) => text.slice(0, text.lastIndexOf('\n') + 1);
  const journaled = (out: string): Cell[] =>
    existsSync(join(out, JOURNAL_FILE))
      ? wholeLines(readFileSync(join(out, JOURNAL_FILE), 'utf8'))
          .split('\n')
          .filter((line) => line.startsWith('{"cell"'))
          .map((line) => (JSON.parse(line) as { cell: Cell }).cell)
      : [];

  /** Waits until the three free cells are journaled and the held case has begun; fails if the run ends first. */
  async function untilHeld(held: Held): Promise<number> {
    let ended = false;
    void held.exited.then(() => (ended = true));
    while (journaled(held.out).length < 3 || !existsSync(held.pidFile)) {
      if (ended) throw new Error(`the run ended before its held case: ${JSON.stringify(await held.exited)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const pid = Number(readFileSync(held.pidFile, 'utf8'));
    pids.push(pid);
    return pid;
  }

  const resultsOf = (out: string) => parseResults(readFileSync(join(out, 'results.json'), 'utf8'));
  const finished = (results: MatrixResults) => results.cells.map((cell) => `${cell.revision} ${cell.verdict}`);

  /** `matrix --resume`, without the hold: runs the missing case only. */
  function resume(held: Held): SpawnSyncReturns<string> {
    rmSync(held.holdFile);
    return spawnSync(NODE, [CLI, 'matrix', '--resume', held.out], { cwd: ROOT, encoding: 'utf8', timeout: childBound(), env: { ...process.env, [MATRIX_ENV.progress]: '0' } });
  }

  test('SIGINT: the finished cells are kept in every report, marked incomplete with the missing cell counted; exit 130', async () => {
    const held = startHeld('sigint');
    await untilHeld(held);
    held.child.kill('SIGINT');
    const exit = await held.exited;
    expect(exit.code, exit.stderr).toBe(130);
    const results = resultsOf(held.out);
    expect(finished(results)).toEqual(['2024-11-05 pass', '2025-03-26 pass', '2025-11-25 pass']);
    expect(results.run).toMatchObject({ complete: false, plannedCells: 4, missingCells: 1, interruption: 'interrupted by SIGINT', selection: { scenario, suites: ['negotiation'] } });
    expect(readFileSync(join(held.out, 'summary.md'), 'utf8')).toContain('**incomplete run: 1 of 4 planned cells have no result (interrupted by SIGINT)**');
    expect(readFileSync(join(held.out, 'report.html'), 'utf8')).toContain('<p class="incomplete" id="incomplete">incomplete run: 1 of 4 planned cells have no result (interrupted by SIGINT)');
    expect(readFileSync(join(held.out, 'junit.xml'), 'utf8')).toContain('<property name="run.complete" value="false"/>');
    expect(exit.stdout).toContain(`matrix: INCOMPLETE: 1 of 4 planned cells have no result (interrupted by SIGINT); run only those with: mcp-client-conformance matrix --resume `);
  });

  test('SIGKILL of a test worker: the run goes on to its end, keeps the finished cells, incomplete; --resume runs only the missing one', async () => {
    const held = startHeld('worker-killed');
    process.kill(await untilHeld(held), 'SIGKILL');
    const exit = await held.exited;
    expect(exit.code, exit.stderr).toBe(INCOMPLETE_EXIT);
    const results = resultsOf(held.out);
    expect(finished(results)).toEqual(['2024-11-05 pass', '2025-03-26 pass', '2025-11-25 pass']);
    expect(results.run).toMatchObject({ complete: false, plannedCells: 4, missingCells: 1, interruption: expect.stringMatching(/^a suite file did not finish: /) });

    const resumed = resume(held);
    expect(resumed.status, resumed.stderr + resumed.stdout).toBe(0);
    expect(resumed.stderr).toContain('1 of 4 planned cells are missing');
    const complete = resultsOf(held.out);
    expect(finished(complete)).toEqual(['2024-11-05 pass', '2025-03-26 pass', `${heldAt} pass`, '2025-11-25 pass']);
    expect(complete.run).toMatchObject({ complete: true, plannedCells: 4, missingCells: 0 });
    // The earlier cells are the ones judged before, not judged again.
    for (const cell of results.cells) expect(complete.cells.find((c) => cellKey(c) === cellKey(cell))).toEqual(cell);
    expect(readFileSync(join(held.out, 'summary.md'), 'utf8')).not.toContain('incomplete');
  });

  test('SIGKILL of the main process: its journal keeps every cell it saw; --resume completes the run from it', async () => {
    const held = startHeld('main-killed');
    const worker = await untilHeld(held);
    const seen = journaled(held.out);
    held.child.kill('SIGKILL');
    expect((await held.exited).signal).toBe('SIGKILL');
    // The worker notices its main process is gone and exits.
    while (alive(worker)) await new Promise((resolve) => setTimeout(resolve, 50));

    const resumed = resume(held);
    expect(resumed.status, resumed.stderr + resumed.stdout).toBe(0);
    const complete = resultsOf(held.out);
    expect(finished(complete)).toEqual(['2024-11-05 pass', '2025-03-26 pass', `${heldAt} pass`, '2025-11-25 pass']);
    expect(complete.run).toMatchObject({ complete: true, missingCells: 0 });
    for (const cell of seen) expect(complete.cells.find((c) => cellKey(c) === cellKey(cell))).toEqual(cell);
  });
});

describe('a matrix whose harness dies leaves no process behind', { timeout: 0 }, () => {
  // One stdio case held once its server runs a call of the fixture's slow tool (30 s), on a server that ignores stdin's
  // EOF and SIGTERM (stdio/shutdown-sequence): only its client or the harness would end it, and both are gone. Every
  // process of the run carries a marker in its environment.
  const starter: Starter = { name: 'sources', command: NODE, args: [CLI], cwd: ROOT, env: heldRunEnv(process.env), api: pathToFileURL(join(ROOT, 'api', 'index.ts')).href, moduleDir: join(work, 'orphans') };
  const runs: Run[] = [];
  afterEach(() => {
    for (const run of runs.splice(0)) if (!run.ended()) run.child.kill('SIGKILL');
  });

  for (const signal of ['SIGKILL', 'SIGINT'] as const) {
    test(`${signal} of the command: the test workers, vitest's watchdog and the stdio servers all end within the policy's bound`, async () => {
      const dir = join(work, `orphans-${signal}`);
      const options: HeldOptions = { name: 'held', hold: '@2025-06-18', holdFile: join(dir, 'hold'), heldFile: join(dir, 'held'), at: 'connect', callTool: 'slow' };
      mkdirSync(dir, { recursive: true });
      writeFileSync(options.holdFile, '');
      const config = writeMatrix(`orphans-${signal}.json`, [{ name: 'held', adapter: writeHeldClient(starter), options }]);
      const run = startMatrix(starter, ['--config', config, '--scenario', 'stdio/shutdown-sequence', '--out', join(dir, 'reports')]);
      runs.push(run);
      const stdioServer = (line: string) => line.includes('--era 2025-06-18');
      await until('the held case with its server running', () => existsSync(options.heldFile) && markedProcesses(run.marker).some(stdioServer), run, runBoundMs());
      run.child.kill(signal);
      const exit = await finished(run, runBoundMs());
      expect(signal === 'SIGKILL' ? exit.signal : exit.code).toBe(signal === 'SIGKILL' ? 'SIGKILL' : 130);
      expect(await leftAfterHarnessDied(run), `processes of the run left after ${signal}`).toEqual([]);
    });
  }

  test('SIGKILL of `run` (no vitest: the harness is the command itself): its stdio server ends within the bound too', async () => {
    const dir = join(work, 'orphans-run');
    mkdirSync(dir, { recursive: true });
    const options: HeldOptions = { name: 'held-run', hold: '@2025-06-18', holdFile: join(dir, 'hold'), heldFile: join(dir, 'held'), at: 'connect', callTool: 'slow' };
    writeFileSync(options.holdFile, '');
    const run = startCommand(starter, ['run', '--adapter', writeHeldClient(starter, options), '--scenario', 'stdio/shutdown-sequence', '--revision', '2025-06-18']);
    runs.push(run);
    await until('the held case with its server running', () => existsSync(options.heldFile) && markedProcesses(run.marker).some((line) => line.includes('--era 2025-06-18')), run, runBoundMs());
    run.child.kill('SIGKILL');
    expect((await finished(run, runBoundMs())).signal).toBe('SIGKILL');
    expect(await leftAfterHarnessDied(run), 'processes of the run left after SIGKILL').toEqual([]);
  });
});
