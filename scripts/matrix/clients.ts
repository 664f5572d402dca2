// Turns a matrix entry into a running adapter and the client facts the results record. A client that cannot be
// loaded is not an exception here: it becomes a ClientInfo with loadError, and every one of its cells an error.
import { dirname, resolve } from 'node:path';
import type { ClientAdapter } from '../../clients/adapter.ts';
import { findAdapter } from '../../clients/index.ts';
import { COMPILED } from '../../config/layout.ts';
import { isModulePath, loadAdapter, loadAdapterCommand, timeoutsFromEnv } from '../../clients/load.ts';
import { environmentDir, findEnvironment, isReady } from '../../clients/drivers/environments.ts';
import { entryPackage, type MatrixEntry, type MatrixFile } from './matrix-file.ts';
import type { ClientInfo } from '../../results/results.ts';

export interface LoadedClient {
  info: ClientInfo;
  /** Undefined when the client could not be loaded (info.loadError says why). */
  adapter?: ClientAdapter;
}

function kindOf(entry: MatrixEntry): ClientInfo['kind'] {
  if (entry.container !== undefined) return 'container';
  if (entry.command !== undefined) return 'process';
  return entry.adapter !== undefined && !isModulePath(entry.adapter) ? 'built-in' : 'module';
}

async function startAdapter(entry: MatrixEntry, matrix: MatrixFile): Promise<ClientAdapter> {
  const cwd = dirname(matrix.path);
  const timeouts = timeoutsFromEnv();
  if (entry.container !== undefined) {
    // Loaded only for container entries: testcontainers is heavy and needs a Docker engine.
    const { containerAdapter } = await import('../../clients/container/adapter.ts');
    const copy = Object.fromEntries(Object.entries(entry.container.copy ?? {}).map(([host, target]) => [resolve(cwd, host), target]));
    return containerAdapter({ name: entry.name, image: entry.container.image, command: entry.container.command, copy, ...timeouts });
  }
  if (entry.command !== undefined) {
    const setup = entry.setup !== undefined ? findEnvironment(entry.setup) : undefined;
    const command = setup !== undefined ? entry.command.replaceAll('{setup}', environmentDir(setup)) : entry.command;
    const adapter = await loadAdapterCommand(command, { cwd, ...timeouts });
    // A program names itself in its hello; the matrix row keeps the entry's name.
    return Object.defineProperty(adapter, 'name', { value: entry.name });
  }
  const spec = entry.adapter!;
  if (!isModulePath(spec)) {
    const builtIn = findAdapter(spec);
    if (!builtIn) throw new Error(`no built-in adapter named "${spec}"`);
    return builtIn.name === entry.name ? builtIn : { ...builtIn, name: entry.name };
  }
  return loadAdapter(spec, { cwd, ...timeouts, factoryOptions: { name: entry.name, ...entry.options } });
}

export async function loadClient(entry: MatrixEntry, matrix: MatrixFile): Promise<LoadedClient> {
  const installed = entryPackage(entry, matrix.path);
  const base: ClientInfo = {
    name: entry.name,
    description: entry.name,
    kind: kindOf(entry),
    revisions: [],
    features: [],
    ...(installed ?? (entry.package !== undefined ? { package: entry.package } : {})),
  };
  if (entry.package !== undefined && installed === undefined) {
    if (entry.setup !== undefined && findEnvironment(entry.setup)?.language === 'python') return { info: { ...base, loadError: `package ${entry.package} is not pinned in the lock of ${entry.setup}` } };
    // The matrix's clients are the repository's devDependencies, not the installed package's dependencies.
    const how = COMPILED ? 'install it beside mcp-client-conformance to run this row' : 'npm ci';
    return { info: { ...base, loadError: `package ${entry.package} is not installed (${how})` } };
  }
  if (entry.skip !== undefined) return { info: { ...base, loadError: `skipped: ${entry.skip}` } };
  const setup = entry.setup !== undefined ? findEnvironment(entry.setup) : undefined;
  if (setup !== undefined && !isReady(setup)) return { info: { ...base, loadError: `skipped: ${setup.name} is not set up (npm run clients:setup -- ${setup.name})` } };
  try {
    const adapter = await startAdapter(entry, matrix);
    const wraps = adapter.wraps !== undefined ? { wraps: { package: adapter.wraps.package, version: adapter.wraps.version } } : {};
    return { adapter, info: { ...base, description: adapter.description, revisions: [...adapter.revisions], features: [...adapter.features], ...wraps } };
  } catch (error) {
    return { info: { ...base, loadError: error instanceof Error ? error.message : String(error) } };
  }
}
