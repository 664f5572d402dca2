// `npm run build` (and `prepack`): the compiled package in dist/. tsc (tsconfig.build.json) emits every module as
// JavaScript with its declarations; then the files the code reads at run time are copied beside the modules, at the
// same relative paths (config/layout.ts), so the package runs from dist/ exactly as the repository runs from its sources.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const ROOT = join(import.meta.dirname, '..');
export const DIST = join(ROOT, 'dist');

/** What the code reads from disk at run time, relative to the repository (each a file or a folder). */
export const RUNTIME_ASSETS = [
  'suites/baselines',
  'scripts/matrix/matrix.schema.json',
  'scripts/matrix/results.schema.json',
  'clients/process/line-protocol.schema.json',
  'clients/drivers/python/driver.py',
] as const;

/** The matrix file: its module paths name sources (`./clients/sdk-v1.ts`), which the package has compiled. */
const MATRIX_FILE = 'matrix.json';

/** A relative module path the sources name, as the compiled package names it: the rewrite tsc applies to imports. */
const compiledPath = (path: string) => (/^\.\.?\//.test(path) ? path.replace(/\.ts$/, '.js') : path);

export function build(): void {
  rmSync(DIST, { recursive: true, force: true });
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-p', join(ROOT, 'tsconfig.build.json')], { cwd: ROOT, stdio: 'inherit' });
  for (const asset of RUNTIME_ASSETS) {
    if (!existsSync(join(ROOT, asset))) throw new Error(`build: ${asset} is listed as a runtime asset but does not exist`);
    cpSync(join(ROOT, asset), join(DIST, asset), { recursive: true });
  }
  const matrix = JSON.parse(readFileSync(join(ROOT, MATRIX_FILE), 'utf8')) as { clients: { adapter?: string }[] };
  for (const entry of matrix.clients) if (entry.adapter !== undefined) entry.adapter = compiledPath(entry.adapter);
  mkdirSync(dirname(join(DIST, MATRIX_FILE)), { recursive: true });
  writeFileSync(join(DIST, MATRIX_FILE), `${JSON.stringify(matrix, null, 2)}\n`);
}

if (import.meta.main) {
  try {
    build();
  } catch (error) {
    // tsc has printed its errors already; the rest is one line.
    console.error(`build: ${(error as Error).message.split('\n')[0]}`);
    process.exit(1);
  }
}
