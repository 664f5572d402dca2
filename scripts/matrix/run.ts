// `mcp-client-conformance matrix`: runs the matrix through vitest (vitest.matrix.config.ts) so a local run and the
// sharded nightly CI run are the same tests and the same reporter; then optionally compares with an earlier run.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { runCompare } from './compare.ts';
import { readMatrixFile } from './matrix-file.ts';
import { REPORT_FILES } from './reporter.ts';
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
}

/** Exit code: 0 done (and nothing regressed), 1 regressions against --compare, 2 bad input or a run that wrote no results. */
export async function runMatrix(options: MatrixOptions, cwd = process.env.INIT_CWD ?? process.cwd()): Promise<number> {
  const matrixFile = resolve(cwd, options.config ?? join(ROOT, 'matrix.json'));
  const outDir = resolve(cwd, options.out ?? DEFAULT_REPORTS_DIR);
  // Checked here so a typo is one clear line, not a failure in every test worker.
  selectEntries(readMatrixFile(matrixFile).clients, options.clients);
  if (options.compare !== undefined && !existsSync(resolve(cwd, options.compare))) throw new Error(`--compare: ${options.compare} not found`);

  Object.assign(process.env, {
    [MATRIX_ENV.file]: matrixFile,
    [MATRIX_ENV.out]: outDir,
    ...(options.clients !== undefined ? { [MATRIX_ENV.clients]: options.clients } : {}),
    ...(options.scenario !== undefined ? { [MATRIX_ENV.scenario]: options.scenario } : {}),
    ...(options.strict ? { [MATRIX_ENV.strict]: '1' } : {}),
  });
  const resultsPath = join(outDir, REPORT_FILES.results);
  const { rmSync } = await import('node:fs');
  rmSync(resultsPath, { force: true });
  const { startVitest } = await import('vitest/node');
  const vitest = await startVitest('test', [], { root: ROOT, config: join(ROOT, 'vitest.matrix.config.ts'), watch: false, ...(options.shard !== undefined ? { shard: options.shard } : {}) });
  await vitest.close();
  if (!existsSync(resultsPath)) {
    console.error('mcp-client-conformance: the matrix run wrote no results (see the errors above)');
    return 2;
  }
  if (options.compare === undefined) return 0;
  return runCompare([resolve(cwd, options.compare), resultsPath, '--markdown', join(outDir, 'comparison.md')]);
}
