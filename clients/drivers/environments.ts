// The client environments beyond npm: a Python virtual environment per SDK line, a Go, Rust or Java build of a
// driver. `npm run clients:setup` (scripts/clients-setup.ts) makes them in one ignored folder, pinned by lock files
// (pip hashes, go.sum, Cargo.lock, exact Maven versions); a matrix entry names the one it runs in (`setup`). An
// environment is made again only when its inputs changed (a stamp holds their hash), so the set-up is idempotent.
//
// The Python lock files are made with uv (`uv pip compile --generate-hashes --python-version 3.11
// --python-platform x86_64-manylinux_2_28`) from the one requirement each names.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { CODE_ROOT } from '../../config/layout.ts';
import { PROGRAM_TEMPLATES, programFiles, writeProgram } from '../template/templates.ts';

/** Where the environments are made: MCP_CONFORMANCE_CLIENTS_DIR, else `.clients/` at the top of the suite (read when asked). */
export const clientsDir = (): string => resolve(process.env.MCP_CONFORMANCE_CLIENTS_DIR ?? join(CODE_ROOT, '.clients'));

const DRIVERS = join(CODE_ROOT, 'clients', 'drivers');

/** One command of a set-up, run with its working directory and environment. */
export interface SetupStep {
  command: string;
  args: string[];
  cwd?: string;
  env?: Record<string, string>;
}

export interface ClientEnvironment {
  /** `<language>/<name>`: what a matrix entry's `setup` names. */
  name: string;
  language: 'python' | 'go' | 'rust' | 'java';
  /** The tool it needs on PATH (checked first: a missing one is the reason it is skipped). */
  tool: string;
  /** The files whose content decides whether it must be made again (folders: every file below, build output aside). */
  inputs: string[];
  /** The commands that make it, in order, into `dir`. */
  steps(dir: string): SetupStep[];
  /** Writes what the steps build from into `dir` first (a template's program, as `init` writes it). */
  prepare?(dir: string): void;
}

/** A Python virtual environment with exactly the hashed requirements of its lock file, nothing else. */
function python(name: string): ClientEnvironment {
  const lock = join(DRIVERS, 'python', 'envs', `${name}.txt`);
  return {
    name: `python/${name}`,
    language: 'python',
    tool: 'python3',
    inputs: [lock],
    steps: (dir) => [
      { command: 'python3', args: ['-m', 'venv', '--clear', dir] },
      { command: join(dir, 'bin', 'python'), args: ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '--no-deps', '--require-hashes', '-r', lock] },
    ],
  };
}

/** A Go driver module built into one binary, `<dir>/driver`, with exactly its go.sum (`shared`: the glue it replaces in). */
function go(name: string, shared: string[] = []): ClientEnvironment {
  const source = join(DRIVERS, 'go');
  return {
    name: `go/${name}`,
    language: 'go',
    tool: 'go',
    inputs: [join(source, name), join(source, 'lineproto'), ...shared.map((module) => join(source, module))],
    steps: (dir) => [{ command: 'go', args: ['build', '-mod=readonly', '-trimpath', '-o', join(dir, 'driver'), '.'], cwd: join(source, name) }],
  };
}

/**
 * Where every Rust environment compiles: one target folder, so rmcp and its dependencies, the same versions in the
 * driver's and the template's lock files, compile once (about 9 minutes of a busy two-core machine each); each
 * environment copies its own binary out of it.
 */
const cargoTarget = (): string => join(clientsDir(), 'rust', '.cargo-target');

/** The Rust workspace's build, with exactly its Cargo.lock, into `<dir>/target` (the dev profile: it compiles in about
 * half the time of a release build, and the driver's speed is not what is measured). */
function rust(): ClientEnvironment {
  const source = join(DRIVERS, 'rust');
  return {
    name: 'rust/rmcp',
    language: 'rust',
    tool: 'cargo',
    inputs: [source],
    // The binary: <dir>/target/debug/rmcp-driver.
    steps: (dir) => [
      { command: 'cargo', args: ['build', '--locked'], cwd: source, env: { CARGO_TARGET_DIR: cargoTarget() } },
      { command: 'install', args: ['-D', join(cargoTarget(), 'debug', 'rmcp-driver'), join(dir, 'target', 'debug', 'rmcp-driver')] },
    ],
  };
}

/** The Java driver's jar with its dependencies, built by Maven with exact versions, copied to `<dir>/driver.jar`. */
function java(): ClientEnvironment {
  const source = join(DRIVERS, 'java');
  return {
    name: 'java/java-sdk',
    language: 'java',
    tool: 'mvn',
    inputs: [source],
    steps: (dir) => [{ command: 'mvn', args: ['-q', '-B', 'package', '-DskipTests', `-Ddriver.dir=${dir}`], cwd: source }],
  };
}

/**
 * A template's program (clients/template/templates.ts) written into `<dir>/program` exactly as `init` writes it into a
 * client's repository, and built there by the command the template documents: what `npm test` runs through the suite
 * (clients/template/templates.test.ts). Its dependencies come from the language's own registry and cache, as the
 * drivers' do.
 */
function template(language: 'go' | 'rust' | 'java', tool: string, build: SetupStep['args']): ClientEnvironment {
  return {
    name: `template/${language}`,
    language,
    tool,
    inputs: programFiles(language).map((file) => file.from),
    prepare: (dir) => void writeProgram(language, join(dir, 'program')),
    steps: (dir) =>
      language === 'rust'
        ? [
            { command: tool, args: build, cwd: join(dir, 'program'), env: { CARGO_TARGET_DIR: cargoTarget() } },
            { command: 'install', args: ['-D', join(cargoTarget(), 'debug', 'my-client-conformance'), join(dir, 'program', 'target', 'debug', 'my-client-conformance')] },
          ]
        : [{ command: tool, args: build, cwd: join(dir, 'program') }],
  };
}

/** The command line that runs a template environment's program (`run --adapter-command`). */
export const templateCommand = (environment: ClientEnvironment): string => PROGRAM_TEMPLATES[environment.language].run(join(environmentDir(environment), 'program'));

export const ENVIRONMENTS: readonly ClientEnvironment[] = [
  python('mcp-1'),
  python('mcp-2'),
  python('fastmcp-4'),
  python('openai-agents'),
  python('uipath-0.16'),
  python('uipath-latest'),
  go('go-sdk'),
  go('mcp-go-1', ['mcpgo']),
  go('mcp-go-0', ['mcpgo']),
  rust(),
  java(),
  template('go', 'go', ['build', '-mod=readonly', '-trimpath', '-o', 'my-client', '.']),
  template('rust', 'cargo', ['build', '--locked']),
  template('java', 'mvn', ['-q', '-B', 'package', '-DskipTests']),
];

export function findEnvironment(name: string): ClientEnvironment | undefined {
  return ENVIRONMENTS.find((environment) => environment.name === name);
}

/** Where an environment is made. */
export const environmentDir = (environment: ClientEnvironment): string => join(clientsDir(), environment.name);

const STAMP = '.ready';
/** Build output inside a source folder is not an input. */
const NOT_INPUT = new Set(['target', 'node_modules', '__pycache__', '.gradle']);

function filesOf(path: string): string[] {
  if (!existsSync(path)) return [];
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path, { withFileTypes: true })
    .filter((entry) => !NOT_INPUT.has(entry.name) && !entry.name.startsWith('.'))
    .flatMap((entry) => filesOf(join(path, entry.name)))
    .sort();
}

/** The hash of an environment's inputs: its name, its steps, each input file's path and content. */
export function inputsHash(environment: ClientEnvironment): string {
  const hash = createHash('sha256').update(environment.name).update(JSON.stringify(environment.steps('')));
  for (const file of environment.inputs.flatMap(filesOf)) hash.update(relative(CODE_ROOT, file)).update('\0').update(readFileSync(file)).update('\0');
  return hash.digest('hex');
}

/** Whether the environment is made from its current inputs (its stamp holds their hash). */
export function isReady(environment: ClientEnvironment): boolean {
  const stamp = join(environmentDir(environment), STAMP);
  return existsSync(stamp) && readFileSync(stamp, 'utf8').trim() === inputsHash(environment);
}

export const stampFile = (environment: ClientEnvironment): string => join(environmentDir(environment), STAMP);
