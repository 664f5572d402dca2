// The matrix interrupted and resumed, the same steps whichever way it is started (scripts/package.test.ts: from the
// sources, through the checkout's built bin, from the installed package), and what a harness that died leaves
// running: nothing, once the reaction bound of the time policy has passed (config/time.ts orphanBoundMs).
// The run is stopped mid-way without guessing at times: a client (the reference, loaded through the layout's own API)
// holds one case while a file exists, and the test acts once the journal and that case say so. Every process of a
// run is found by a marker in its environment, which everything it starts inherits.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { basePolicy, SETTINGS_ENV } from '../../../config/settings.ts';
import { orphanBoundMs } from '../../../config/time.ts';
import { cellKey, parseResults, type Cell, type MatrixResults } from '../../../results/results.ts';
import { JOURNAL_FILE } from '../journal.ts';
import { MATRIX_ENV } from '../settings.ts';

/** The environment variable that marks every process of one run (its value is the run's own). */
export const TREE_MARKER = 'MCP_CONFORMANCE_TEST_TREE';

/** One way of starting the command line: the program (a bin run by its shebang, or node) and what comes before `matrix`. */
export interface Starter {
  name: string;
  command: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** How the held client's module imports the package's main entry in this layout (a file URL, or the package name). */
  api: string;
  /** Where the held client's module is written (the installed package resolves from the project's folder). */
  moduleDir: string;
}

export interface HeldOptions {
  name: string;
  /** A case whose id contains this text is held... */
  hold: string;
  /** ...while this file exists... */
  holdFile: string;
  /** ...and says so by writing the test worker's pid here... */
  heldFile: string;
  /** ...before it starts, or once its first connection is made (its server is running then)... */
  at: 'start' | 'connect';
  /** ...having called this tool of the connection without waiting for the answer (`slow` runs for 30 s). */
  callTool?: string;
}

/**
 * The held client's module: a factory the matrix file's `options` (HeldOptions) are given to, or, for `run --adapter`
 * (which gives none), `baked` ones.
 */
export function writeHeldClient(starter: Starter, baked?: HeldOptions): string {
  const path = join(starter.moduleDir, baked === undefined ? 'held-client.mjs' : `held-client-${baked.name}.mjs`);
  mkdirSync(starter.moduleDir, { recursive: true });
  writeFileSync(
    path,
    `import { existsSync, writeFileSync } from 'node:fs';
import { loadAdapter } from ${JSON.stringify(starter.api)};

const reference = await loadAdapter('reference');
const held = (options) => {
  writeFileSync(options.heldFile, String(process.pid));
  return new Promise(() => {});
};

export default (options = ${JSON.stringify(baked ?? null)}) => ({
  ...reference,
  name: options.name,
  description: 'the reference client, holding its cases ' + JSON.stringify(options.hold) + ' while ' + options.holdFile + ' exists',
  async start(caseId, time) {
    const holding = caseId.includes(options.hold) && existsSync(options.holdFile);
    if (holding && options.at === 'start') await held(options);
    const client = await reference.start(caseId, time);
    if (!holding) return client;
    return {
      async connect(target, connectOptions) {
        const connection = await client.connect(target, connectOptions);
        if (options.callTool !== undefined) connection.callTool(options.callTool, {}).catch(() => {});
        return held(options);
      },
      dispose: () => client.dispose(),
    };
  },
});
`,
  );
  return path;
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface Run {
  child: ChildProcess;
  /** The marker's `NAME=value`, as /proc/<pid>/environ holds it. */
  marker: string;
  exited: Promise<Exit>;
  ended(): boolean;
}

/** Starts `matrix <args>` the starter's way, its process tree marked. Not waited for. */
export const startMatrix = (starter: Starter, args: readonly string[]): Run => startCommand(starter, ['matrix', ...args]);

/** Starts the command line (`<command> <args>`) the starter's way, its process tree marked. Not waited for. */
export function startCommand(starter: Starter, args: readonly string[]): Run {
  const mark = randomUUID();
  const child = spawn(starter.command, [...starter.args, ...args], { cwd: starter.cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...starter.env, [TREE_MARKER]: mark } });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  let ended = false;
  const exited = new Promise<Exit>((resolve) =>
    child.once('close', (code, signal) => {
      ended = true;
      resolve({ code, signal, stdout, stderr });
    }),
  );
  return { child, marker: `${TREE_MARKER}=${mark}`, exited, ended: () => ended };
}

/** A bound on a matrix run of a handful of cases getting somewhere: loading the suite, then cases each within its own bounds. */
export const runBoundMs = (): number => 12 * basePolicy().ms.operation;

/** The run's end, killing it (SIGKILL) should it not come within `boundMs`. */
export async function finished(run: Run, boundMs: number): Promise<Exit> {
  const timer = setTimeout(() => run.child.kill('SIGKILL'), boundMs);
  const exit = await run.exited;
  clearTimeout(timer);
  return exit;
}

/** Polls `condition` until it holds; fails if the run ends first, or when `boundMs` has passed. */
export async function until(what: string, condition: () => boolean, run: Run, boundMs: number): Promise<void> {
  const deadline = performance.now() + boundMs;
  while (!condition()) {
    if (run.ended()) throw new Error(`the run ended before ${what}: ${JSON.stringify(await run.exited)}`);
    if (performance.now() > deadline) throw new Error(`no ${what} within ${boundMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** The live processes (not zombies) whose environment holds `marker`, each with its command line. Linux /proc. */
export function markedProcesses(marker: string): string[] {
  const needle = Buffer.from(`${marker}\0`);
  const found: string[] = [];
  for (const name of readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))) {
    try {
      const environ = readFileSync(`/proc/${name}/environ`);
      if (!(environ.indexOf(needle) === 0 || environ.includes(Buffer.concat([Buffer.from([0]), needle])))) continue;
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      if (/^[ZX]$/.test(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0] ?? '')) continue;
      found.push(`${name} ${readFileSync(`/proc/${name}/cmdline`, 'utf8').replaceAll('\0', ' ').trim()}`);
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return found;
}

/** Waits, at most the policy's reaction bound for a dead harness, until no process of the run is left; returns those left. */
export async function leftAfterHarnessDied(run: Run): Promise<string[]> {
  const deadline = performance.now() + orphanBoundMs(basePolicy());
  let left = markedProcesses(run.marker);
  while (left.length > 0 && performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    left = markedProcesses(run.marker);
  }
  return left;
}

/** The cells the reporter has journaled: whole lines only (a read may land in the middle of an append). */
export function journaled(out: string): Cell[] {
  if (!existsSync(join(out, JOURNAL_FILE))) return [];
  const text = readFileSync(join(out, JOURNAL_FILE), 'utf8');
  return text
    .slice(0, text.lastIndexOf('\n') + 1)
    .split('\n')
    .filter((line) => line.startsWith('{"cell"'))
    .map((line) => (JSON.parse(line) as { cell: Cell }).cell);
}

const described = (what: string, exit: Exit) => `${what}: ${exit.signal ?? `exit ${exit.code}`}\n--- stdout\n${exit.stdout}\n--- stderr\n${exit.stderr}`;

/**
 * The round trip, for one starter: a run of one cheap client over one scenario (four cases), one case held;
 * SIGINT once the other three are journaled: exit 130, every report incomplete, the banner with its `--resume` line,
 * nothing left running; `--resume` (the case held again) SIGKILLed: nothing left running; `--resume` again, without
 * the hold: exit 0, complete, the earlier cells as they were. `boundMs` bounds each wait for the run to get somewhere.
 */
export async function interruptAndResume(starter: Starter, work: string, boundMs: number): Promise<void> {
  const scenario = 'negotiation/handshake-order';
  const heldAt = '2025-06-18';
  const dir = join(work, starter.name);
  mkdirSync(dir, { recursive: true });
  const out = join(dir, 'reports');
  const holdFile = join(dir, 'hold');
  const heldFile = join(dir, 'held');
  writeFileSync(holdFile, '');
  const config = join(dir, 'matrix.json');
  const options: HeldOptions = { name: 'held', hold: `@${heldAt}`, holdFile, heldFile, at: 'start' };
  writeFileSync(config, JSON.stringify({ clients: [{ name: 'held', adapter: writeHeldClient(starter), options }] }));
  const results = (): MatrixResults => parseResults(readFileSync(join(out, 'results.json'), 'utf8'));
  const verdicts = (of: MatrixResults) => of.cells.map((cell) => `${cell.revision} ${cell.verdict}`);
  const free = ['2024-11-05 pass', '2025-03-26 pass', '2025-11-25 pass'];

  // SIGINT once three cells are journaled and the fourth is held.
  const first = startMatrix(starter, ['--config', config, '--scenario', scenario, '--out', out]);
  await until('three cells journaled and the fourth held', () => journaled(out).length >= 3 && existsSync(heldFile), first, boundMs);
  first.child.kill('SIGINT');
  const interrupted = await finished(first, boundMs);
  expect(interrupted.code, described(`${starter.name}: matrix, SIGINT`, interrupted)).toBe(130);
  expect(interrupted.stdout).toContain(`matrix: INCOMPLETE: 1 of 4 planned cells have no result (interrupted by SIGINT); run only those with: mcp-client-conformance matrix --resume `);
  const partial = results();
  expect(verdicts(partial)).toEqual(free);
  expect(partial.run).toMatchObject({ complete: false, plannedCells: 4, missingCells: 1, interruption: 'interrupted by SIGINT', selection: { scenario, suites: ['negotiation'] } });
  expect(readFileSync(join(out, 'summary.md'), 'utf8')).toContain('**incomplete run: 1 of 4 planned cells have no result (interrupted by SIGINT)**');
  expect(await leftAfterHarnessDied(first), `${starter.name}: processes left after SIGINT`).toEqual([]);

  // --resume, the case held again, killed outright: the journal keeps the run, and nothing of it lives on.
  rmSync(heldFile);
  const second = startMatrix(starter, ['--resume', out]);
  await until('the missing case held again', () => existsSync(heldFile), second, boundMs);
  second.child.kill('SIGKILL');
  expect((await finished(second, boundMs)).signal).toBe('SIGKILL');
  expect(await leftAfterHarnessDied(second), `${starter.name}: processes left after SIGKILL`).toEqual([]);

  // --resume without the hold: only the missing cell runs.
  rmSync(holdFile);
  const third = startMatrix(starter, ['--resume', out]);
  const resumed = await finished(third, boundMs);
  expect(resumed.code, described(`${starter.name}: matrix --resume`, resumed)).toBe(0);
  expect(resumed.stderr).toContain(`resuming ${out}: 1 of 4 planned cells are missing`);
  const complete = results();
  expect(verdicts(complete)).toEqual(['2024-11-05 pass', '2025-03-26 pass', `${heldAt} pass`, '2025-11-25 pass']);
  expect(complete.run).toMatchObject({ complete: true, plannedCells: 4, missingCells: 0, selection: { scenario, suites: ['negotiation'] } });
  for (const cell of partial.cells) expect(complete.cells.find((c) => cellKey(c) === cellKey(cell))).toEqual(cell);
}

/** The environment a started run needs besides the marker: no progress lines, and an operation bound the held case cannot reach. */
export const heldRunEnv = (env: NodeJS.ProcessEnv): NodeJS.ProcessEnv => ({ ...env, [MATRIX_ENV.progress]: '0', [SETTINGS_ENV.operationTimeout]: String(3_600_000) });
