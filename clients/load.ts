// Where the adapter under test comes from, for the command line (`run --adapter`, `run --adapter-command`) and for
// `npm test` (MCP_CONFORMANCE_ADAPTER, MCP_CONFORMANCE_ADAPTER_COMMAND): a built-in name, a module, or a program
// that speaks the line protocol (docs/line-protocol.md). Every problem is an AdapterLoadError with one line that
// says what is wrong and where.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, extname, isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { basePolicy, readSettings, SETTINGS_ENV, SettingsError } from '../config/settings.ts';
import { REVISIONS } from '../protocol/revisions.ts';
import { FEATURES, TRANSPORTS, wrapsProblems, type ClientAdapter } from './adapter.ts';
import { findAdapter } from './index.ts';
import { ClientProcessError, listProblems, processAdapter, programTimeouts, type ProcessAdapterConfig } from './process/adapter.ts';

export class AdapterLoadError extends Error {
  override name = 'AdapterLoadError';
}

export interface LoadOptions {
  /** Relative module paths and programs resolve against it (default: the working directory). */
  cwd?: string;
  /** Each operation of a line-protocol program, fixed (default: programOperationMs of each case's time policy, 4 s at scale 1). */
  operationTimeoutMs?: number;
  /** The hello of a line-protocol program, and an adapter factory's promise (default: the policy's `hello`, 30 s at scale 1). */
  helloTimeoutMs?: number;
  /** Refuse process adapters (the Node driver, which is itself the out-of-process side). */
  inProcessOnly?: boolean;
  /** What an exported adapter factory is called with (a matrix entry's name and options, say). */
  factoryOptions?: Record<string, unknown>;
}

/** True for something that names a module rather than a built-in adapter. */
export function isModulePath(spec: string): boolean {
  return /[/\\]/.test(spec) || /\.[cm]?[jt]s$/.test(spec);
}

/** `--adapter <spec>`: a built-in adapter name or a module path. */
export async function loadAdapter(spec: string, options: LoadOptions = {}): Promise<ClientAdapter> {
  if (!isModulePath(spec)) {
    const adapter = findAdapter(spec);
    if (!adapter) throw new AdapterLoadError(`no built-in adapter named "${spec}"; see \`mcp-client-conformance adapters\``);
    return adapter;
  }
  return loadModule(spec, options);
}

/** `--adapter-command "<program> [args]"`: a line-protocol program, started at load (and again if it dies, see the process adapter). */
export async function loadAdapterCommand(line: string, options: LoadOptions = {}): Promise<ClientAdapter> {
  const [command, ...args] = splitCommandLine(line);
  if (command === undefined) throw new AdapterLoadError('the adapter command is empty');
  const timeouts = { ...timeoutsFromEnv(), ...options };
  return startProgram({ command, args, cwd: options.cwd, operationTimeoutMs: timeouts.operationTimeoutMs, helloTimeoutMs: timeouts.helloTimeoutMs }, '');
}

/**
 * What the command line was given: exactly one of `--adapter` and `--adapter-command`. Timeouts come from the time
 * policy of the settings (config/settings.ts: the scale, MCP_CONFORMANCE_OPERATION_TIMEOUT_MS,
 * MCP_CONFORMANCE_HELLO_TIMEOUT_MS) unless `options` sets them.
 */
export async function loadChosenAdapter(choice: { adapter?: string; command?: string }, options: LoadOptions = {}): Promise<ClientAdapter> {
  if (choice.adapter !== undefined && choice.command !== undefined) throw new AdapterLoadError('give --adapter or --adapter-command, not both');
  const settings = { ...timeoutsFromEnv(), ...options };
  if (choice.command !== undefined) return loadAdapterCommand(choice.command, settings);
  if (choice.adapter !== undefined) return loadAdapter(choice.adapter, settings);
  throw new AdapterLoadError('run needs --adapter <name or module> or --adapter-command "<program>"; see `mcp-client-conformance adapters`');
}

/** The settings of `env` (one line naming a bad variable, as an AdapterLoadError, when one is wrong). */
function settingsOf(env: NodeJS.ProcessEnv) {
  try {
    return readSettings(env);
  } catch (error) {
    throw error instanceof SettingsError ? new AdapterLoadError(error.message) : error;
  }
}

/**
 * The runner's bound on each client operation: the time policy's `operation` (config/settings.ts basePolicy), which the
 * runner uses by default anyway; undefined when the environment sets no MCP_CONFORMANCE_OPERATION_TIMEOUT_MS. Kept for
 * the scripts that pass it on; a program's own deadline is derived from the same bound (programOperationMs).
 */
export function runnerOperationTimeoutMs(env: NodeJS.ProcessEnv = process.env): number | undefined {
  const settings = settingsOf(env);
  return settings.operationTimeoutMs === undefined ? undefined : basePolicy(settings).ms.operation;
}

/**
 * A line-protocol program's deadlines from the time policy the environment gives (config/settings.ts): its hello, and,
 * only when the environment fixes the operation timeout, its own per-operation deadline below the runner's bound.
 * Otherwise each case derives that deadline from its own policy, which grows when a case is run again at a larger
 * scale: fixed at the first run's value, a rerun's program still said "hung" at ~4 s and the case's operation was left
 * unsettled. The loaders apply these themselves; kept for callers that pass them on (the matrix's container entries).
 */
export function timeoutsFromEnv(env: NodeJS.ProcessEnv = process.env): Pick<LoadOptions, 'operationTimeoutMs'> & Required<Pick<LoadOptions, 'helloTimeoutMs'>> {
  const settings = settingsOf(env);
  const program = programTimeouts(basePolicy(settings));
  return settings.operationTimeoutMs === undefined ? { helloTimeoutMs: program.helloTimeoutMs } : program;
}

/**
 * The adapters the environment adds to `npm test`: MCP_CONFORMANCE_ADAPTER (a built-in name or a module path) and
 * MCP_CONFORMANCE_ADAPTER_COMMAND (a line-protocol program). Empty when neither is set. The caller shuts them down.
 */
export async function adaptersFromEnv(env: NodeJS.ProcessEnv = process.env, options: LoadOptions = {}): Promise<ClientAdapter[]> {
  const adapters: ClientAdapter[] = [];
  const found = settingsOf(env);
  // npm runs `npm test` from the package root; its cwd (INIT_CWD) is where the user typed it, so relative paths mean what they wrote.
  const settings = { cwd: found.cwd, ...timeoutsFromEnv(env), ...options };
  try {
    if (found.adapter) adapters.push(await prefixed(SETTINGS_ENV.adapter, loadAdapter(found.adapter, settings)));
    if (found.adapterCommand) adapters.push(await prefixed(SETTINGS_ENV.adapterCommand, loadAdapterCommand(found.adapterCommand, settings)));
  } catch (error) {
    await Promise.allSettled(adapters.map((adapter) => adapter.shutdown?.()));
    throw error;
  }
  return adapters;
}

async function prefixed<T>(variable: string, loading: Promise<T>): Promise<T> {
  try {
    return await loading;
  } catch (error) {
    throw error instanceof AdapterLoadError ? new AdapterLoadError(`${variable}: ${error.message}`) : error;
  }
}

/**
 * Splits a command line into a program and its arguments the way a shell splits words: whitespace separates,
 * single quotes keep everything, double quotes keep everything but `\"` and `\\`, a backslash escapes the next
 * character. Nothing else is interpreted: no variables, globs, pipes or redirections.
 */
export function splitCommandLine(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
      else if (c === '\\' && quote === '"' && (line[i + 1] === '"' || line[i + 1] === '\\')) word += line[++i];
      else word += c;
    } else if (c === '"' || c === "'") {
      quote = c;
      inWord = true;
    } else if (c === '\\' && i + 1 < line.length) {
      word += line[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (quote) throw new AdapterLoadError(`the adapter command has an unterminated ${quote} quote: ${line}`);
  if (inWord) words.push(word);
  return words;
}

/** What keeps a value from being a ClientAdapter, one phrase per member; empty when it is one. */
export function adapterProblems(value: unknown): string[] {
  if (typeof value !== 'object' || value === null) return [`it is ${kindOf(value)}`];
  const adapter = value as Record<string, unknown>;
  const problems: string[] = [];
  if (adapter.name === undefined) problems.push('name is missing');
  else if (typeof adapter.name !== 'string' || adapter.name.trim() === '') problems.push('name is not a non-empty string');
  if (adapter.description === undefined) problems.push('description is missing');
  else if (typeof adapter.description !== 'string') problems.push('description is not a string');
  problems.push(...listProblems(adapter, 'revisions', REVISIONS, 'revision'));
  problems.push(...listProblems(adapter, 'features', Object.keys(FEATURES), 'feature'));
  if (adapter.transports !== undefined) problems.push(...listProblems(adapter, 'transports', Object.keys(TRANSPORTS), 'transport'));
  if (adapter.stdioRevisions !== undefined) problems.push(...listProblems(adapter, 'stdioRevisions', REVISIONS, 'revision'));
  if (adapter.wraps !== undefined) problems.push(...wrapsProblems(adapter.wraps));
  if (adapter.start === undefined) problems.push('start is missing');
  else if (typeof adapter.start !== 'function') problems.push('start is not a function');
  if (adapter.shutdown !== undefined && typeof adapter.shutdown !== 'function') problems.push('shutdown is not a function');
  return problems;
}

const CONFIG_MEMBERS = ['command', 'args', 'cwd', 'env', 'operationTimeoutMs', 'helloTimeoutMs', 'shutdownStepMs', 'trace'];

/** What keeps a value from being a process adapter config (operationTimeoutMs may be left out here). */
export function processConfigProblems(value: unknown): string[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [`it is ${kindOf(value)}`];
  const config = value as Record<string, unknown>;
  const problems: string[] = [];
  if (config.command === undefined) problems.push('command is missing');
  else if (typeof config.command !== 'string' || config.command === '') problems.push('command is not a non-empty string');
  if (config.args !== undefined) {
    if (!Array.isArray(config.args)) problems.push('args is not an array');
    else config.args.forEach((arg, index) => typeof arg !== 'string' && problems.push(`args[${index}] is not a string`));
  }
  if (config.cwd !== undefined && typeof config.cwd !== 'string') problems.push('cwd is not a string');
  if (config.env !== undefined) {
    if (typeof config.env !== 'object' || config.env === null || Array.isArray(config.env)) problems.push('env is not an object');
    else for (const [key, entry] of Object.entries(config.env)) if (typeof entry !== 'string') problems.push(`env.${key} is not a string`);
  }
  for (const key of ['operationTimeoutMs', 'helloTimeoutMs', 'shutdownStepMs']) {
    const entry = config[key];
    if (entry !== undefined && !(typeof entry === 'number' && entry > 0 && Number.isFinite(entry))) problems.push(`${key} is not a positive number`);
  }
  if (config.trace !== undefined && typeof config.trace !== 'function') problems.push('trace is not a function');
  for (const key of Object.keys(config)) if (!CONFIG_MEMBERS.includes(key)) problems.push(`${key} is not a config member (${CONFIG_MEMBERS.join(', ')})`);
  return problems;
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  const type = typeof value;
  return type === 'undefined' ? 'undefined' : `${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type}`;
}

function firstLine(error: unknown): string {
  if (!(error instanceof Error)) return String(error).split('\n')[0]!;
  return `${error.name}: ${error.message.split('\n')[0]}`;
}

let quieted = false;
/**
 * Node warns "Failed to load the ES module … set "type": "module" …" on stderr before the SyntaxError of a module it
 * took for CommonJS; the load error says the same with what to do (moduleKindHint), so that warning is left out and
 * the failure stays one line. Node prints warnings from a listener of its own: every other warning still reaches it.
 */
function quietModuleKindWarning(): void {
  if (quieted) return;
  quieted = true;
  const printers = process.listeners('warning');
  process.removeAllListeners('warning');
  process.on('warning', (warning) => {
    if (!warning.message.startsWith('Failed to load the ES module')) for (const print of printers) print(warning);
  });
}

/** The package.json nearest to a file (the one that decides whether Node loads a `.js` or `.ts` as CommonJS or ESM). */
function nearestManifest(file: string): { path: string; type: unknown } | undefined {
  for (let dir = dirname(file); ; dir = dirname(dir)) {
    const path = join(dir, 'package.json');
    if (existsSync(path)) {
      try {
        return { path, type: (JSON.parse(readFileSync(path, 'utf8')) as { type?: unknown }).type };
      } catch {
        return { path, type: undefined };
      }
    }
    if (dirname(dir) === dir) return undefined;
  }
}

/**
 * What to do when a module failed to load for being taken as the wrong kind: ES module syntax in a `.ts`/`.js` file
 * that Node loads as CommonJS (the package.json of an `npm init -y` project says "type": "commonjs"), or `require` in
 * one it loads as an ES module. Empty for every other failure.
 */
function moduleKindHint(spec: string, path: string, error: unknown): string {
  const message = error instanceof Error ? error.message : '';
  const extension = extname(path);
  if (extension !== '.ts' && extension !== '.js') return '';
  const base = basename(path, extension);
  const manifest = nearestManifest(path);
  const where = manifest === undefined ? 'no package.json above it' : `${manifest.path} ${manifest.type === undefined ? 'has no "type"' : `has "type": ${JSON.stringify(manifest.type)}`}`;
  if (/Cannot use import statement outside a module|Unexpected token 'export'|Cannot use 'import\.meta' outside a module/.test(message)) {
    const renamed = extension === '.ts' ? `${base}.mts` : `${base}.mjs`;
    return ` (Node loads ${spec} as CommonJS: ${where}); rename it to ${renamed}, an ES module whatever the package.json says (\`mcp-client-conformance init\` writes my-adapter.mts), or set "type": "module" in ${manifest?.path ?? 'a package.json beside it'}`;
  }
  if (/(require|module|exports) is not defined in ES module scope/.test(message)) {
    const renamed = extension === '.ts' ? `${base}.cts` : `${base}.cjs`;
    return ` (Node loads ${spec} as an ES module: ${where}); rename it to ${renamed} to keep CommonJS, or use import and export`;
  }
  return '';
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (typeof value === 'object' || typeof value === 'function') && value !== null && typeof (value as { then?: unknown }).then === 'function';
}

async function loadModule(spec: string, options: LoadOptions): Promise<ClientAdapter> {
  const path = isAbsolute(spec) ? spec : resolve(options.cwd ?? process.cwd(), spec);
  if (!existsSync(path) || !statSync(path).isFile()) throw new AdapterLoadError(`adapter module ${spec} not found (looked for ${path})`);
  let module: Record<string, unknown>;
  try {
    quietModuleKindWarning();
    module = (await import(pathToFileURL(path).href)) as Record<string, unknown>;
  } catch (error) {
    throw new AdapterLoadError(`adapter module ${spec} failed to load: ${firstLine(error)}${moduleKindHint(spec, path, error)}`);
  }
  const where = `adapter module ${spec}`;
  const exported = module.adapter !== undefined ? 'adapter' : module.default !== undefined ? 'default' : module.processAdapter !== undefined ? 'processAdapter' : undefined;
  if (exported === undefined) {
    throw new AdapterLoadError(
      `${where} exports no adapter: expected a default export or an export named "adapter" (a ClientAdapter, or a function returning one), or an export named "processAdapter" (a process adapter config)`,
    );
  }
  if (exported === 'processAdapter') {
    if (options.inProcessOnly) throw new AdapterLoadError(`${where} exports a process adapter config; only in-process adapters can be used here`);
    const config = module.processAdapter;
    const problems = processConfigProblems(config);
    if (problems.length > 0) throw new AdapterLoadError(`${where}: export "processAdapter" is not a process adapter config: ${problems.join('; ')}`);
    const given = config as Partial<ProcessAdapterConfig> & { command: string };
    const base = dirname(path);
    return startProgram(
      {
        ...given,
        // A program described next to its module runs there.
        cwd: given.cwd === undefined ? base : resolve(base, given.cwd),
        operationTimeoutMs: given.operationTimeoutMs ?? options.operationTimeoutMs ?? timeoutsFromEnv().operationTimeoutMs,
        helloTimeoutMs: given.helloTimeoutMs ?? options.helloTimeoutMs ?? timeoutsFromEnv().helloTimeoutMs,
      },
      `${where}: `,
    );
  }

  let candidate: unknown = module[exported];
  let origin = `export "${exported}"`;
  if (typeof candidate === 'function') {
    origin = `the function exported as "${exported}"`;
    try {
      candidate = (candidate as (options?: Record<string, unknown>) => unknown)(options.factoryOptions);
    } catch (error) {
      throw new AdapterLoadError(`${where}: ${origin} threw ${firstLine(error)}`);
    }
  }
  if (isThenable(candidate)) {
    const timeoutMs = options.helloTimeoutMs ?? timeoutsFromEnv().helloTimeoutMs;
    let timer: NodeJS.Timeout | undefined;
    try {
      candidate = await Promise.race([
        Promise.resolve(candidate),
        new Promise((_, reject) => (timer = setTimeout(() => reject(new AdapterLoadError(`${where}: ${origin} did not settle within ${timeoutMs} ms`)), timeoutMs))),
      ]);
    } catch (error) {
      if (error instanceof AdapterLoadError) throw error;
      const reason = error instanceof ClientProcessError ? error.message : firstLine(error);
      throw new AdapterLoadError(`${where}: ${origin} failed: ${reason}`);
    } finally {
      clearTimeout(timer);
    }
  }
  const problems = adapterProblems(candidate);
  if (problems.length > 0) {
    // A factory may have started something (a process adapter whose hello was fine but whose shape is not).
    const shutdown = (candidate as { shutdown?: unknown } | null)?.shutdown;
    if (typeof shutdown === 'function') await Promise.resolve(shutdown.call(candidate)).catch(() => {});
    const what = origin.startsWith('the function') ? `${origin} returned something that is not a ClientAdapter` : `${origin} is not a ClientAdapter`;
    throw new AdapterLoadError(`${where}: ${what}: ${problems.join('; ')}`);
  }
  const adapter = candidate as ClientAdapter;
  if (options.inProcessOnly && typeof (adapter as { pid?: unknown }).pid === 'number') {
    await adapter.shutdown?.();
    throw new AdapterLoadError(`${where}: ${origin} is a process adapter; only in-process adapters can be used here`);
  }
  return adapter;
}

async function startProgram(config: ProcessAdapterConfig, prefix: string): Promise<ClientAdapter> {
  try {
    return await processAdapter(config);
  } catch (error) {
    if (error instanceof ClientProcessError) throw new AdapterLoadError(`${prefix}${error.message}`);
    throw error;
  }
}
