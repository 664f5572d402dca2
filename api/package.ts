// Where this package is and which version it is, from the running file: the same from the TypeScript sources (a clone)
// and from the compiled files (dist/, an installed package), whose depths below the package root differ.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

const NAME = 'mcp-client-conformance';

function findRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === NAME) return dir;
    if (dirname(dir) === dir) throw new Error(`${NAME}: no package.json of ${NAME} above ${from}`);
  }
}

/** The package's root folder (where its package.json is). */
export const PACKAGE_ROOT = findRoot(import.meta.dirname);

const manifest = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string; engines?: { node?: string } };
/** The package's version, from its package.json. */
export const PACKAGE_VERSION = manifest.version;
/** The Node versions the package supports (package.json engines.node, e.g. ">=22.19.0"). */
export const PACKAGE_NODE_ENGINE: string | undefined = manifest.engines?.node;
