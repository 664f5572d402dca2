// The matrix file (matrix.json at the top of the repository): which clients, at which versions, through which
// adapters. Adding a client is one entry. Its JSON Schema is scripts/matrix/matrix.schema.json.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ENVIRONMENTS, findEnvironment, type ClientEnvironment } from '../../clients/drivers/environments.ts';

// Adapters read their own version with it too; the matrix records it per entry.
import { installedPackage } from '../../clients/installed.ts';
export { installedPackage };

/**
 * The package an entry records, with its version: an npm package as installed beside the matrix file, or, for an entry
 * run in a Python environment (`setup`), the requirement its lock pins (`name==version`), so a Python SDK's row has a
 * version that a client declaring it wraps that SDK can be matched with.
 */
export function entryPackage(entry: MatrixEntry, matrixPath: string): { package: string; version: string } | undefined {
  if (entry.package === undefined) return undefined;
  const environment = entry.setup !== undefined ? findEnvironment(entry.setup) : undefined;
  if (environment?.language === 'python') return pinnedRequirement(environment, entry.package);
  return installedPackage(entry.package, matrixPath);
}

/** PyPI's normalized name (PEP 503): `Foo_Bar` and `foo-bar` are one package. */
const pypiName = (name: string) => name.toLowerCase().replace(/[-_.]+/g, '-');

function pinnedRequirement(environment: ClientEnvironment, name: string): { package: string; version: string } | undefined {
  for (const lock of environment.inputs.filter((input) => input.endsWith('.txt'))) {
    for (const line of readFileSync(lock, 'utf8').split('\n')) {
      const pin = /^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)/.exec(line);
      if (pin !== null && pypiName(pin[1]!) === pypiName(name)) return { package: pypiName(name), version: pin[2]! };
    }
  }
  return undefined;
}

export interface MatrixFile {
  /** Where the file was read from (absolute); module paths and programs resolve against its folder. */
  path: string;
  clients: MatrixEntry[];
}

export interface MatrixEntry {
  /** Unique in the file: the row name in every report and the key when two runs are compared. */
  name: string;
  /**
   * The installed package whose version the results record (an npm alias such as `mcp-sdk-1.12` is fine); with a Python
   * `setup`, a requirement its environment's lock pins (`mcp`).
   */
  package?: string;
  /** A built-in adapter name, or a module path (relative to the matrix file) exporting an adapter or a factory. */
  adapter?: string;
  /** Given to the module's exported factory, with `name`. */
  options?: Record<string, unknown>;
  /** A line-protocol program (docs/line-protocol.md), spawned once per run. */
  command?: string;
  /** A line-protocol program run inside a container (clients/container/). */
  container?: ContainerEntry;
  /** Leave the entry out of runs, saying why (shown in the reports). */
  skip?: string;
  /**
   * The client environment the program runs in (clients/drivers/environments.ts: `python/mcp-1`, `go/go-sdk`, …),
   * made by `npm run clients:setup`; `{setup}` in `command` is its folder. Not set up: the row is skipped, saying so.
   */
  setup?: string;
}

export interface ContainerEntry {
  /** A local image (see scripts/build-python-image.sh); nothing is pulled. */
  image: string;
  /** The program and its arguments inside the container. */
  command: string[];
  /** Files or folders copied into the container before it starts: host path (relative to the matrix file) → container path. */
  copy?: Record<string, string>;
}

export const DEFAULT_MATRIX_FILE = resolve(import.meta.dirname, '..', '..', 'matrix.json');

export class MatrixFileError extends Error {
  override name = 'MatrixFileError';
}

/** Reads and checks a matrix file; every problem is named with the entry it is in. */
export function readMatrixFile(path = DEFAULT_MATRIX_FILE): MatrixFile {
  const absolute = resolve(path);
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(absolute, 'utf8'));
  } catch (error) {
    throw new MatrixFileError(`matrix file ${path}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'not found' : (error as Error).message}`);
  }
  const clients = (value as { clients?: unknown } | null)?.clients;
  if (!Array.isArray(clients)) throw new MatrixFileError(`matrix file ${path}: expected {"clients": [...]}`);
  const problems: string[] = [];
  const seen = new Set<string>();
  clients.forEach((entry: Partial<MatrixEntry>, index) => {
    const where = `clients[${index}]${typeof entry?.name === 'string' ? ` (${entry.name})` : ''}`;
    if (typeof entry !== 'object' || entry === null) return problems.push(`${where} is not an object`);
    if (typeof entry.name !== 'string' || entry.name.trim() === '') problems.push(`${where} has no name`);
    else if (seen.has(entry.name)) problems.push(`${where}: the name is used twice`);
    else seen.add(entry.name);
    const ways = [entry.adapter, entry.command, entry.container].filter((way) => way !== undefined).length;
    if (ways !== 1) problems.push(`${where} needs exactly one of "adapter", "command", "container"`);
    if (entry.container !== undefined && (typeof entry.container.image !== 'string' || !Array.isArray(entry.container.command))) problems.push(`${where}: "container" needs "image" and "command" (an array)`);
    for (const key of Object.keys(entry)) if (!['name', 'package', 'adapter', 'options', 'command', 'container', 'skip', 'setup'].includes(key)) problems.push(`${where}: unknown key "${key}"`);
    if (entry.setup !== undefined && findEnvironment(entry.setup) === undefined) problems.push(`${where}: no client environment "${entry.setup}" (environments: ${ENVIRONMENTS.map((e) => e.name).join(', ')})`);
    if (entry.setup !== undefined && entry.command === undefined) problems.push(`${where}: "setup" goes with "command"`);
    return undefined;
  });
  if (problems.length > 0) throw new MatrixFileError(`matrix file ${path}:\n  ${problems.join('\n  ')}`);
  return { path: absolute, clients: clients as MatrixEntry[] };
}
