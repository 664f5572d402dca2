// `npm run build` (and `prepare`, which npm runs before packing and when it installs the package from git): the compiled package in dist/. tsc (tsconfig.build.json) emits every module as
// JavaScript with its declarations; then the files the code reads at run time are copied beside the modules, at the
// same relative paths (config/layout.ts), so the package runs from dist/ exactly as the repository runs from its sources.
// A build whose inputs have not changed since the last one is skipped (tsc takes tens of seconds, and `npm test` packs
// the package every time: scripts/package.test.ts). Either way every bin of package.json ends executable: tsc writes
// its files without the exec bit, and `npx` in the checkout runs the bin as its npx cache linked it, so a bin that lost
// the bit in a rebuild is "Permission denied" there (a tarball's install sets the bit itself; a checkout has no install).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { PACKAGED_BUNDLE } from '../servers/stdio/bundle.ts';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

const ROOT = join(import.meta.dirname, '..');
export const DIST = join(ROOT, 'dist');

/** What the code reads from disk at run time, relative to the repository (each a file or a folder). */
export const RUNTIME_ASSETS = [
  'suites/baselines',
  'suites/requirements.json',
  'scripts/matrix/matrix.schema.json',
  'results/results.schema.json',
  'clients/process/line-protocol.schema.json',
  'protocol/schemas',
  'clients/drivers/python/driver.py',
  // The client environments beyond npm (clients/drivers/environments.ts): what `setup-clients` builds them from.
  'clients/drivers/python/runtime.py',
  'clients/drivers/python/mcp_sdk.py',
  'clients/drivers/python/mcp_client.py',
  'clients/drivers/python/mcp_handlers.py',
  'clients/drivers/python/mcp_oauth.py',
  'clients/drivers/python/fastmcp_client.py',
  'clients/drivers/python/openai_agents.py',
  'clients/drivers/python/uipath_mcp.py',
  'clients/drivers/python/envs',
  'clients/drivers/java',
  'clients/drivers/go',
  'clients/drivers/rust',
  // What `init` writes into a client's repository (clients/template/templates.ts; the libraries are the drivers' above).
  'clients/template/node',
  'clients/template/python',
  'clients/template/go',
  'clients/template/rust',
  'clients/template/java',
] as const;

/** The matrix file: its module paths name sources (`./clients/sdk-v1.ts`), which the package has compiled. */
const MATRIX_FILE = 'matrix.json';

/** A relative module path the sources name, as the compiled package names it: the rewrite tsc applies to imports. */
const compiledPath = (path: string) => (/^\.\.?\//.test(path) ? path.replace(/\.ts$/, '.js') : path);

/**
 * Everything a build reads from the repository: the folders of the sources (tests included: more than tsc reads, never
 * less) and the files at the top that configure it or that it copies. The lockfile stands for the installed packages'
 * type declarations.
 */
const INPUTS = ['api', 'protocol', 'config', 'servers', 'clients', 'suites', 'results', 'scripts', 'package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json', 'vitest.matrix.config.ts', MATRIX_FILE];

/** What dist/ was built from (a hash of every input file's path and content), kept in dist/ and left out of the tarball. */
export const INPUTS_STAMP = join(DIST, '.inputs-sha256');

function inputsHash(): string {
  const hash = createHash('sha256');
  const add = (path: string) => {
    const full = join(ROOT, path);
    if (!existsSync(full)) return;
    if (statSync(full).isDirectory()) for (const entry of readdirSync(full).sort()) add(join(path, entry));
    else hash.update(`${path}\0`).update(readFileSync(full)).update('\0');
  };
  for (const input of INPUTS) add(input);
  return hash.digest('hex');
}

/** The files package.json names as its bins, relative to the repository (`bin` is one path or a map of names to paths). */
export function binTargets(): string[] {
  const { bin } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { bin?: string | Record<string, string> };
  return bin === undefined ? [] : typeof bin === 'string' ? [bin] : Object.values(bin);
}

/** Gives every bin the exec bit for whoever may read it (644 becomes 755), as npm's install of a tarball does. */
function makeBinsExecutable(): void {
  for (const target of binTargets()) {
    const path = join(ROOT, target);
    if (!existsSync(path)) throw new Error(`build: package.json names ${target} as a bin but the build did not write it`);
    const { mode } = statSync(path);
    chmodSync(path, mode | ((mode & 0o444) >> 2));
  }
}

/** Builds dist/ unless it was built from these very inputs; returns whether it built. Either way its bins are executable. */
export function build(): boolean {
  const inputs = inputsHash();
  if (existsSync(INPUTS_STAMP) && readFileSync(INPUTS_STAMP, 'utf8') === inputs) {
    // A checkout built before the bins were made executable, or a bin whose bit was lost since, is mended here.
    makeBinsExecutable();
    return false;
  }
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
  // The stdio program as one file, which every stdio case launches (servers/stdio/bundle.ts says why).
  const stdio = join(DIST, 'servers', 'stdio');
  const bundler = `import { bundleStdioProgram } from ${JSON.stringify(pathToFileURL(join(ROOT, 'servers', 'stdio', 'bundle.ts')).href)};
await bundleStdioProgram(${JSON.stringify(join(stdio, 'main.js'))}, ${JSON.stringify(join(stdio, dirname(PACKAGED_BUNDLE)))});`;
  execFileSync(process.execPath, ['--input-type=module', '--eval', bundler], { cwd: ROOT, stdio: 'inherit' });
  makeBinsExecutable();
  // Last: a build that failed half-way leaves no stamp, and the next one starts afresh.
  writeFileSync(INPUTS_STAMP, inputs);
  return true;
}

if (import.meta.main) {
  try {
    if (!build()) console.error('build: dist/ is up to date with its sources');
  } catch (error) {
    // tsc has printed its errors already; the rest is one line.
    console.error(`build: ${(error as Error).message.split('\n')[0]}`);
    process.exit(1);
  }
}
