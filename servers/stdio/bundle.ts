// The reference stdio program as one bundled file: what a client launches in every stdio case, thousands of times in
// a run. Node starts the bundle in about 60% of the CPU of the sources' module graph stripped of its types file by
// file (about 150 against 260 ms of CPU a launch on a 2-core machine, servers/stdio/stdio.test.ts measures the
// launch): the largest single cost of the stdio suites. It is the same program: main.ts and everything it imports,
// the official SDK included, bundled by rolldown (the bundler vite ships) with nothing changed.
//
// From the sources, the bundle is built once for each content of its inputs, into node_modules/.cache (a build is a
// fraction of a second; parallel workers that race each keep a whole bundle, renamed into place); the compiled
// package carries the one scripts/build.ts made. Where no bundle can be had, main.ts itself is launched.
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { CODE_ROOT, COMPILED } from '../../config/layout.ts';
import { PROGRAM_FILE } from './main.ts';

/** Where the compiled package keeps its bundle (scripts/build.ts writes it), relative to its main.js. */
export const PACKAGED_BUNDLE = 'bundle/main.js';

const CACHE = join(CODE_ROOT, 'node_modules', '.cache', 'mcp-client-conformance', 'stdio-program');
/** The suite's own modules the last bundle held, by path from the repository: what a bundle's freshness is hashed from. */
const MANIFEST = join(CACHE, 'modules.json');
/** What the bundle depends on besides the suite's modules: the installed packages, as the lockfile pins them. */
const LOCKFILE = join(CODE_ROOT, 'package-lock.json');

/** Bundles `entry` (main.ts or main.js) and its imports into `outDir` (main.js and its chunks); returns the suite's own modules it holds. */
export async function bundleStdioProgram(entry: string, outDir: string): Promise<string[]> {
  const { build } = await import('rolldown');
  const output = await build({ input: { main: entry }, platform: 'node', logLevel: 'silent', output: { dir: outDir, format: 'esm', entryFileNames: '[name].js' }, write: true });
  return [...new Set(output.output.flatMap((file) => (file.type === 'chunk' ? file.moduleIds : [])))].filter((id) => !id.includes('/node_modules/') && id.startsWith(CODE_ROOT));
}

function contentHash(modules: readonly string[]): string | undefined {
  const hash = createHash('sha256');
  for (const path of [...modules, relative(CODE_ROOT, LOCKFILE)]) {
    const file = resolve(CODE_ROOT, path);
    if (!existsSync(file)) return undefined;
    hash.update(`${path}\0`).update(readFileSync(file)).update('\0');
  }
  return hash.digest('hex').slice(0, 16);
}

/** The bundle of these sources, if one was built: its main.js. */
function cachedBundle(): string | undefined {
  if (!existsSync(MANIFEST)) return undefined;
  const hash = contentHash(JSON.parse(readFileSync(MANIFEST, 'utf8')) as string[]);
  const main = hash === undefined ? undefined : join(CACHE, hash, 'main.js');
  return main !== undefined && existsSync(main) ? main : undefined;
}

async function buildCached(): Promise<string> {
  const scratch = join(CACHE, `building-${process.pid}-${randomBytes(4).toString('hex')}`);
  try {
    const modules = (await bundleStdioProgram(PROGRAM_FILE, scratch)).map((id) => relative(CODE_ROOT, id)).sort();
    const hash = contentHash(modules);
    if (hash === undefined) throw new Error('a module of the bundle vanished while it was built');
    const home = join(CACHE, hash);
    try {
      renameSync(scratch, home);
    } catch {
      // Another worker put the same bundle in place first.
      if (!existsSync(join(home, 'main.js'))) throw new Error(`could not move the bundle into ${home}`);
    }
    const manifest = `${MANIFEST}.${randomBytes(4).toString('hex')}`;
    writeFileSync(manifest, JSON.stringify(modules));
    renameSync(manifest, MANIFEST);
    return join(home, 'main.js');
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

let program: Promise<string> | undefined;

/** The program file a stdio target launches: the bundle (cached, or built now), else main.ts itself, with why on stderr. */
export function stdioProgram(): Promise<string> {
  program ??= (async () => {
    if (COMPILED) {
      const packaged = join(dirname(PROGRAM_FILE), PACKAGED_BUNDLE);
      return existsSync(packaged) ? packaged : PROGRAM_FILE;
    }
    const cached = cachedBundle();
    if (cached !== undefined) return cached;
    mkdirSync(CACHE, { recursive: true });
    return buildCached().catch((error: Error) => {
      process.stderr.write(`stdio: launching ${relative(CODE_ROOT, PROGRAM_FILE)} unbundled (slower): ${error.message.split('\n')[0]}\n`);
      return PROGRAM_FILE;
    });
  })();
  return program;
}
