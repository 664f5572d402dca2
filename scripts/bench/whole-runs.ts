// Sections that time whole runs as a user starts them, each a child process (scripts/bench/child.ts):
//   full     `vitest run`: the default suite, one run
//   matrix   `cli.ts matrix --clients <first n>` for growing n: how wall time grows with the number of adapters
//   shards   the same matrix with `--shard i/N`, i = 1…N, one after another: per-shard time and the max, which is what
//            N parallel runners would take
// Every matrix run writes into the reports folder of its own temporary directory, removed after it is read.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readMatrixFile } from '../matrix/matrix-file.ts';
import type { MatrixResults } from '../../results/results.ts';
import { MATRIX_ENV, selectEntries } from '../matrix/settings.ts';
import { childEnv, ROOT, runTimed, tail } from './child.ts';
import { ms, seconds } from './stats.ts';

/** Built-in and versioned SDK entries of matrix.json, in the order the growth runs add them. */
export const MATRIX_CLIENTS = [
  'reference',
  'sdk-v1@latest',
  'sdk-v2-legacy@latest',
  'sdk-v1-sse@latest',
  'sdk-v2-auto@latest',
  'sdk-v2-pinned@latest',
  'sdk-v1@1.24',
  'sdk-v2-legacy@2.3',
] as const;
export const MATRIX_CLIENT_COUNTS = [1, 2, 4, 8] as const;
export const SHARD_COUNTS = [1, 2, 3] as const;

const VITEST = join(ROOT, 'node_modules', '.bin', 'vitest');
const CLI = join(ROOT, 'scripts', 'cli.ts');
const FULL_TIMEOUT_MS = 20 * 60_000;
const MATRIX_TIMEOUT_MS = 20 * 60_000;

/** `vitest run [files]` from the repository root; the counts come from the summary reporter's closing line. */
export async function fullSuite(options: { files?: readonly string[] } = {}) {
  const args = [VITEST, 'run', ...(options.files ?? [])];
  const run = await runTimed(process.execPath, args, { timeoutMs: FULL_TIMEOUT_MS });
  const counts = /^tests: (\d+) passed, (\d+) failed, (\d+) skipped$/m.exec(run.output);
  if (!counts) throw new Error(`vitest printed no summary line (exit code ${run.code}):\n${tail(run.output)}`);
  const tests = { passed: Number(counts[1]), failed: Number(counts[2]), skipped: Number(counts[3]) };
  const files = /Test Files\s+(.*)$/m.exec(run.output)?.[1]?.trim();
  console.log(`vitest run${options.files?.length ? ` ${options.files.join(' ')}` : ''}: ${seconds(run.ms)} wall, exit code ${run.code}; tests ${tests.passed} passed, ${tests.failed} failed, ${tests.skipped} skipped${files ? `; files ${files}` : ''}`);
  if (run.code !== 0) console.log(`  the run failed; its time still counts, its last lines:\n${tail(run.output, 15)}`);
  return { command: `npx vitest run${options.files?.length ? ` ${options.files.join(' ')}` : ''}`, wallMs: run.ms, exitCode: run.code, tests, files };
}

export interface MatrixSelection {
  clients: readonly string[];
  /** Only scenarios whose id contains this text (the bench test's tiny runs). */
  scenario?: string;
}

/** The clients of the matrix file a selection names, checked before any run (a typo is one clear error). */
function checkClients(clients: readonly string[]): void {
  selectEntries(readMatrixFile(join(ROOT, 'matrix.json')).clients, clients.join(','));
}

/** One `cli.ts matrix` run into a temporary reports folder: wall time, vitest's own duration and the cells it wrote. */
async function matrixRun(selection: MatrixSelection, shard?: string) {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-bench-matrix-'));
  const out = join(dir, 'reports');
  const args = [CLI, 'matrix', '--clients', selection.clients.join(','), '--out', out, ...(selection.scenario ? ['--scenario', selection.scenario] : []), ...(shard ? ['--shard', shard] : [])];
  try {
    const run = await runTimed(process.execPath, args, { timeoutMs: MATRIX_TIMEOUT_MS, env: childEnv({ [MATRIX_ENV.progress]: '0' }) });
    if (run.code !== 0) throw new Error(`matrix ${args.slice(2).join(' ')}: exit code ${run.code}\n${tail(run.output)}`);
    const results = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as MatrixResults;
    const verdicts: Record<string, number> = {};
    for (const cell of results.cells) verdicts[cell.verdict] = (verdicts[cell.verdict] ?? 0) + 1;
    // Why each cell that did not pass came out as it did, so a caller can say.
    const notPassed = results.cells.filter((cell) => cell.verdict !== 'pass').map((cell) => `${cell.client} ${cell.scenario} @ ${cell.revision}: ${cell.verdict}${cell.reason ? ` (${cell.reason})` : ''}`);
    return { wallMs: run.ms, vitestMs: results.run.durationMs, cells: results.cells.length, verdicts, notPassed };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const command = (selection: MatrixSelection, shard?: string) =>
  `node scripts/cli.ts matrix --clients ${selection.clients.join(',')}${selection.scenario ? ` --scenario ${selection.scenario}` : ''}${shard ? ` --shard ${shard}` : ''} --out <tmp>/reports`;

/** The matrix with the first n clients, for each n. */
export async function matrixGrowth(options: { clients: readonly string[]; counts: readonly number[]; scenario?: string }) {
  checkClients(options.clients);
  const rows = [];
  for (const count of options.counts) {
    if (count > options.clients.length) throw new Error(`${count} clients asked for, ${options.clients.length} named`);
    const selection = { clients: options.clients.slice(0, count), ...(options.scenario ? { scenario: options.scenario } : {}) };
    const run = await matrixRun(selection);
    const row = { clients: count, names: selection.clients, command: command(selection), ...run, msPerCell: run.cells > 0 ? run.wallMs / run.cells : null };
    rows.push(row);
    const first = rows[0]!;
    console.log(
      `${String(count).padStart(2)} client${count === 1 ? ' ' : 's'}: ${seconds(row.wallMs).padStart(7)} wall (vitest ${seconds(row.vitestMs)}), ${String(row.cells).padStart(4)} cells, ${row.msPerCell === null ? '-' : ms(row.msPerCell).trim()}/cell; ×${(row.wallMs / first.wallMs).toFixed(2)} the time of ${first.clients} for ×${(row.cells / first.cells).toFixed(2)} the cells`,
    );
  }
  return { rows };
}

/** The same selection in N shards, run one after another. */
export async function matrixShards(options: { clients: readonly string[]; shardCounts: readonly number[]; scenario?: string }) {
  checkClients(options.clients);
  const selection = { clients: options.clients, ...(options.scenario ? { scenario: options.scenario } : {}) };
  const rows = [];
  for (const count of options.shardCounts) {
    const shards = [];
    for (let index = 1; index <= count; index++) {
      const shard = `${index}/${count}`;
      shards.push({ shard, command: command(selection, shard), ...(await matrixRun(selection, shard)) });
    }
    const row = {
      shards: count,
      perShard: shards,
      maxMs: Math.max(...shards.map((s) => s.wallMs)),
      sumMs: shards.reduce((sum, s) => sum + s.wallMs, 0),
      cells: shards.reduce((sum, s) => sum + s.cells, 0),
    };
    rows.push(row);
    console.log(
      `${count} shard${count === 1 ? ' ' : 's'}: max ${seconds(row.maxMs)} (what ${count} parallel runner${count === 1 ? '' : 's'} would take), sum ${seconds(row.sumMs)}, ${row.cells} cells; per shard ${shards.map((s) => `${s.shard} ${seconds(s.wallMs)} (${s.cells} cells)`).join(', ')}`,
    );
  }
  return { clients: options.clients, rows };
}
