// The reference stdio program as a client launches it, thousands of times in a run: the largest single cost of the stdio
// suites. Three steps, each cheaper to launch than the one before, each the same program (main.ts and everything it
// imports, the official SDK included, with nothing changed):
//   1. main.ts itself: Node strips the types of every module of the graph, file by file (about 260 ms of CPU a launch
//      on a 2-core machine);
//   2. the bundle, main.js and its chunks, built by rolldown (the bundler vite ships): about 130 ms;
//   3. the bundle's startup snapshot: `<node> --snapshot-blob <blob> <bundle>/main.js --era …`, the program and the
//      era's server loaded while the snapshot was built from snapshot.cjs (snapshot-entry.ts bundled as one script), so a
//      launch deserializes them instead of evaluating the SDK: about 60 ms. A blob starts only on the Node that built
//      it, so it is built on first use for each Node version, beside the bundle.
// servers/stdio/stdio.test.ts measures a launch.
//
// From the sources, the bundle is built once for each content of its inputs, into node_modules/.cache (a build is a
// fraction of a second; parallel workers that race each keep a whole bundle or blob, renamed into place); the compiled
// package carries the bundle scripts/build.ts made and builds the blob. Where a step cannot be had, the launch takes
// the one before, and says why on stderr.
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { promisify } from 'node:util';
import { CODE_ROOT, COMPILED } from '../../config/layout.ts';
import { basePolicy } from '../../config/settings.ts';
import { PROGRAM_FILE } from './main.ts';

/** Where the compiled package keeps its bundle (scripts/build.ts writes it), relative to its main.js. */
export const PACKAGED_BUNDLE = 'bundle/main.js';
/** The snapshot's entry as one script (CommonJS, which a snapshot needs), beside the bundle's main.js. */
const SNAPSHOT_ENTRY = 'snapshot.cjs';

const CACHE = join(CODE_ROOT, 'node_modules', '.cache', 'mcp-client-conformance', 'stdio-program');
/** The suite's own modules the last bundle held, by path from the repository: what a bundle's freshness is hashed from. */
const MANIFEST = join(CACHE, 'modules.json');
/** What the bundle depends on besides the suite's modules: the installed packages, as the lockfile pins them. */
const LOCKFILE = join(CODE_ROOT, 'package-lock.json');

/** How a stdio target starts the program: Node's options (a startup snapshot), then the program's file and its arguments. */
export interface StdioLaunch {
  execArgv: string[];
  program: string;
}

/**
 * Bundles `entry` (main.ts or main.js) and its imports into `outDir` (main.js and its chunks), and the snapshot's entry
 * beside it (snapshot.cjs, one script); returns the suite's own modules they hold.
 */
export async function bundleStdioProgram(entry: string, outDir: string): Promise<string[]> {
  const { build } = await import('rolldown');
  const snapshotEntry = entry.replace(/main(\.[jt]s)$/, 'snapshot-entry$1');
  const outputs = await Promise.all([
    build({ input: { main: entry }, platform: 'node', logLevel: 'silent', output: { dir: outDir, format: 'esm', entryFileNames: '[name].js' }, write: true }),
    build({ input: snapshotEntry, platform: 'node', logLevel: 'silent', output: { file: join(outDir, SNAPSHOT_ENTRY), format: 'cjs', codeSplitting: false }, write: true }),
  ]);
  const ids = outputs.flatMap((output) => output.output.flatMap((file) => (file.type === 'chunk' ? file.moduleIds : [])));
  return [...new Set(ids)].filter((id) => !id.includes('/node_modules/') && id.startsWith(CODE_ROOT));
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
  return main !== undefined && existsSync(main) && existsSync(join(CACHE, hash!, SNAPSHOT_ENTRY)) ? main : undefined;
}

/** A file made in a scratch name beside it and renamed into place, so a worker racing another never sees half of it. */
async function renamedIntoPlace(file: string, make: (scratch: string) => Promise<unknown>): Promise<void> {
  const scratch = `${file}.building-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    await make(scratch);
    renameSync(scratch, file);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
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
    await renamedIntoPlace(MANIFEST, async (file) => writeFileSync(file, JSON.stringify(modules)));
    return join(home, 'main.js');
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** The startup snapshot of the bundle whose main.js this is, for this Node: built beside it unless it is there. */
async function snapshotBlob(main: string): Promise<string> {
  const blob = join(dirname(main), `snapshot-${process.version}-${process.platform}-${process.arch}.blob`);
  if (existsSync(blob)) return blob;
  const entry = join(dirname(main), SNAPSHOT_ENTRY);
  if (!existsSync(entry)) throw new Error(`the bundle has no ${SNAPSHOT_ENTRY}`);
  // A build is Node starting a program: bounded as a program's start-up is.
  await renamedIntoPlace(blob, (scratch) => promisify(execFile)(process.execPath, ['--snapshot-blob', scratch, '--build-snapshot', entry], { timeout: basePolicy().ms.hello }));
  return blob;
}

/** Why a step could not be had, in one line. */
const firstLine = (error: unknown) => (error instanceof Error ? error.message : String(error)).split('\n')[0];

let launch: Promise<StdioLaunch> | undefined;

/** How a stdio target launches the program: the bundle's snapshot, else the bundle, else main.ts itself (with why on stderr). */
export function stdioLaunch(): Promise<StdioLaunch> {
  launch ??= (async () => {
    let main: string;
    if (COMPILED) {
      main = join(dirname(PROGRAM_FILE), PACKAGED_BUNDLE);
      if (!existsSync(main)) return { execArgv: [], program: PROGRAM_FILE };
    } else {
      const cached = cachedBundle();
      if (cached !== undefined) main = cached;
      else {
        mkdirSync(CACHE, { recursive: true });
        try {
          main = await buildCached();
        } catch (error) {
          process.stderr.write(`stdio: launching ${relative(CODE_ROOT, PROGRAM_FILE)} unbundled (slower): ${firstLine(error)}\n`);
          return { execArgv: [], program: PROGRAM_FILE };
        }
      }
    }
    try {
      return { execArgv: ['--snapshot-blob', await snapshotBlob(main)], program: main };
    } catch (error) {
      process.stderr.write(`stdio: launching the bundle without a startup snapshot (slower): ${firstLine(error)}\n`);
      return { execArgv: [], program: main };
    }
  })();
  return launch;
}
