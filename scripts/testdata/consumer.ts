// A fresh project that installs the packed package as a user's project would, offline: from the tarball and the npm
// cache only (scripts/package.test.ts). npm resolves a new dependency from the registry's full metadata, which a cache
// filled by `npm ci` does not hold; so the project gets a lockfile, with the versions this repository's own lockfile
// pins for the package's dependencies (and for the devDependencies the project asks for), each where npm placed it
// here, and `npm ci --offline` installs exactly that or fails. With a proxy that refuses every connection, an install
// that reached for the network would fail too.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { SETTINGS_ENV } from '../../config/settings.ts';

const ROOT = join(import.meta.dirname, '..', '..');

export interface Output {
  /** The exit code, or null when the child was killed (its signal is in `signal`). */
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Whether it was killed for running past its `timeoutMs` (a signal otherwise came from elsewhere). */
  timedOut: boolean;
  stdout: string;
  stderr: string;
  ms: number;
}

/**
 * What a child of the test inherits: none of the variables `npm test` and vitest set (npm's would make the project's
 * npm take the repository for its project, INIT_CWD would move the CLI's relative paths there), but npm's cache, nor
 * an adapter the environment adds to `npm test`.
 */
export function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const kept = ['npm_config_cache', 'npm_config_userconfig'];
  const dropped = [SETTINGS_ENV.adapter, SETTINGS_ENV.adapterCommand, SETTINGS_ENV.baselines, 'INIT_CWD', 'NODE_OPTIONS'];
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => kept.includes(name) || (!/^(npm_|VITEST|TINYPOOL)/i.test(name) && !dropped.includes(name))));
  // The project's `node` is the one running the tests (the pinned Node 24 under `npm test`), as a user's PATH gives it.
  return { ...env, PATH: `${dirname(process.execPath)}${delimiter}${env.PATH ?? ''}`, ...extra };
}

/** Runs a program to its end, or kills it after `timeoutMs`: its exit code and output. */
export function exec(command: string, args: readonly string[], options: { cwd: string; timeoutMs: number; env?: NodeJS.ProcessEnv }): Promise<Output> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? childEnv(), stdio: ['ignore', 'pipe', 'pipe'], timeout: options.timeoutMs, killSignal: 'SIGKILL' });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('error', reject);
    // `killed`: the spawn's own timeout sent the signal.
    child.once('close', (code, signal) => resolve({ code, signal, timedOut: child.killed, stdout, stderr, ms: performance.now() - started }));
  });
}

/** One line that says how a child ended, for an assertion's message. */
export const described = (what: string, output: Output): string =>
  `${what}: ${output.signal ? `killed (${output.signal}) after ${Math.round(output.ms)} ms` : `exit ${output.code}`}\n--- stdout\n${output.stdout}\n--- stderr\n${output.stderr}`;

export interface Tarball {
  path: string;
  filename: string;
  integrity: string;
  /** Compressed and unpacked bytes, and every file it holds. */
  size: number;
  unpackedSize: number;
  files: string[];
}

/**
 * What npm prints when npm itself failed rather than the work it ran (npm's lib/cli/exit-handler.js and
 * lib/utils/error-message.js): its exit handler never called ("Exit handler never called!", seen from npm 11 pack
 * right after it rewrote node_modules/.package-lock.json), an exit before it was set up, or an internal type error.
 */
const NPM_OWN_FAILURE = /Exit handler never called!|This is an error with npm itself|Exit prior to (?:setting npm|config file resolving)|Process exited unexpectedly with code/;

/** An npm command's output, with the debug logs it (and the npm of its lifecycle scripts) wrote. */
export interface NpmOutput extends Output {
  logs: { path: string; text: string }[];
}

/** Runs npm with its debug logs written into `logsDir` (a folder of its own), and reads them back. */
export async function npm(args: readonly string[], options: { cwd: string; timeoutMs: number; logsDir: string; env?: NodeJS.ProcessEnv }): Promise<NpmOutput> {
  mkdirSync(options.logsDir, { recursive: true });
  // As an environment variable it reaches the npm of a lifecycle script too (prepare's `npm run build`).
  const env = { ...(options.env ?? childEnv()), npm_config_logs_dir: options.logsDir };
  const output = await exec('npm', args, { cwd: options.cwd, timeoutMs: options.timeoutMs, env });
  const logs = existsSync(options.logsDir) ? readdirSync(options.logsDir).sort().map((name) => ({ path: join(options.logsDir, name), text: readFileSync(join(options.logsDir, name), 'utf8') })) : [];
  return { ...output, logs };
}

/**
 * Why an npm command that failed did, when npm itself failed: killed by a signal it was not sent by the test, or one
 * of npm's own failure lines in its stderr or its logs. undefined when it succeeded, or failed at its work (a
 * lifecycle script that exited non-zero, a package npm refused, or a run the test's bound killed).
 */
export function npmCrash(output: NpmOutput): string | undefined {
  if (output.code === 0) return undefined;
  if (output.signal !== null && !output.timedOut) return `npm was killed by ${output.signal}`;
  for (const text of [output.stderr, ...output.logs.map((log) => log.text)]) {
    const own = NPM_OWN_FAILURE.exec(text);
    if (own !== null) return `npm failed inside itself: ${own[0]}`;
  }
  return undefined;
}

/** The last lines of each of npm's logs, for a failure's message. */
const logTails = (output: NpmOutput, lines = 80): string =>
  output.logs.length === 0 ? '--- npm wrote no log' : output.logs.map((log) => `--- npm's log ${log.path} (last ${lines} lines)\n${log.text.split('\n').slice(-lines).join('\n')}`).join('\n');

/**
 * `npm pack` of this repository into `dest` (its prepare script builds dist/). An npm that crashed inside itself says
 * nothing of the package: it is run once more, and a second crash fails as npm's, with its logs; any other failure is
 * the package's.
 */
export async function pack(dest: string, timeoutMs: number): Promise<Tarball> {
  const attempt = (n: number) => npm(['pack', '--json', '--pack-destination', dest], { cwd: ROOT, timeoutMs, logsDir: join(dest, `npm-pack-logs-${n}`) });
  let output = await attempt(1);
  const crash = npmCrash(output);
  if (crash !== undefined) {
    console.warn(`npm pack: ${crash}; running it once more (npm's own failure, not the package's)\n${logTails(output, 20)}`);
    output = await attempt(2);
    const again = npmCrash(output);
    if (again !== undefined) throw new Error(`npm pack crashed twice inside npm (${crash}; then ${again}): npm failed, not the package\n${described('npm pack', output)}\n${logTails(output)}`);
  }
  if (output.code !== 0) throw new Error(`${described('npm pack', output)}\n${logTails(output)}`);
  // The JSON is the last thing on stdout (the lifecycle scripts' banners come before it).
  const [info] = JSON.parse(output.stdout.slice(output.stdout.indexOf('\n[') + 1)) as { filename: string; integrity: string; size: number; unpackedSize: number; files: { path: string }[] }[];
  return { path: join(dest, info!.filename), filename: info!.filename, integrity: info!.integrity, size: info!.size, unpackedSize: info!.unpackedSize, files: info!.files.map((file) => file.path) };
}

interface LockEntry {
  version?: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  [key: string]: unknown;
}

/**
 * The lockfile of a project depending on the tarball and on `devDependencies` (names this repository has installed):
 * every package they need, copied from this repository's lockfile at the place Node's resolution finds it from its
 * dependent, without the repository's dev flags.
 */
export function consumerLock(tarball: Tarball, devDependencies: readonly string[]): { manifest: object; lock: object } {
  const repoLock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };
  const self = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as LockEntry & { name: string; version: string };
  const { packages } = repoLock;
  const placed: Record<string, LockEntry> = {};
  // From a package at `from` ('' for the top), the folder Node finds `name` in: its own node_modules, then each parent's.
  const locate = (from: string, name: string): string | undefined => {
    for (let dir = from; ; dir = dir.includes('/node_modules/') ? dir.slice(0, dir.lastIndexOf('/node_modules/')) : '') {
      const path = `${dir === '' ? '' : `${dir}/`}node_modules/${name}`;
      if (packages[path] !== undefined) return path;
      if (dir === '') return undefined;
    }
  };
  const visit = (from: string, names: readonly string[], optional: boolean) => {
    for (const name of names) {
      const path = locate(from, name);
      if (path === undefined) {
        if (optional) continue;
        throw new Error(`the repository's lockfile has no ${name} for ${from || 'the project'}: run npm ci`);
      }
      if (placed[path] !== undefined) continue;
      const { dev: _dev, devOptional: _devOptional, peer: _peer, ...entry } = packages[path]!;
      placed[path] = entry;
      const peers = Object.keys(entry.peerDependencies ?? {}).filter((peer) => entry.peerDependenciesMeta?.[peer]?.optional !== true);
      visit(path, [...Object.keys(entry.dependencies ?? {}), ...peers], false);
      visit(path, Object.keys(entry.optionalDependencies ?? {}), true);
    }
  };
  visit('', Object.keys(self.dependencies ?? {}), false);
  visit('', devDependencies, false);
  const spec = `file:../${tarball.filename}`;
  const dev = Object.fromEntries(devDependencies.map((name) => [name, packages[`node_modules/${name}`]!.version!]));
  const manifest = { name: 'consumer', version: '1.0.0', private: true, type: 'module', dependencies: { [self.name]: spec }, devDependencies: dev };
  const { name: _name, scripts: _scripts, devDependencies: _devDependencies, files: _files, exports: _exports, allowScripts: _allowScripts, description: _description, type: _type, ...meta } = self;
  const lock = {
    name: manifest.name,
    version: manifest.version,
    lockfileVersion: 3,
    requires: true,
    packages: {
      '': { name: manifest.name, version: manifest.version, dependencies: manifest.dependencies, devDependencies: dev },
      [`node_modules/${self.name}`]: { ...meta, resolved: spec, integrity: tarball.integrity },
      ...placed,
    },
  };
  return { manifest, lock };
}

/** Writes the project's package.json and lockfile into `dir` (beside the tarball) and installs it offline. */
export async function installConsumer(dir: string, tarball: Tarball, devDependencies: readonly string[], timeoutMs: number): Promise<Output> {
  const { manifest, lock } = consumerLock(tarball, devDependencies);
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  writeFileSync(join(dir, 'package-lock.json'), `${JSON.stringify(lock, null, 2)}\n`);
  // A proxy on a port nothing listens on: whatever --offline would let through fails.
  const noNetwork = { npm_config_proxy: 'http://127.0.0.1:9', npm_config_https_proxy: 'http://127.0.0.1:9' };
  const output = await exec('npm', ['ci', '--offline', '--no-audit', '--no-fund'], { cwd: dir, timeoutMs, env: childEnv(noNetwork) });
  if (output.code !== 0) throw new Error(described('npm ci --offline in the consumer project', output));
  return output;
}
