// Which version of a client package is installed: adapters name it in their description, the matrix records it.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** The published name and installed version of an entry's package: node_modules/<package>/package.json, looked up from `from` upwards. */
export function installedPackage(packageName: string, from: string): { package: string; version: string } | undefined {
  // Not require.resolve: many packages' export maps hide package.json, or map it to a nested one.
  for (let dir = dirname(resolve(from)); ; dir = dirname(dir)) {
    const manifestPath = join(dir, 'node_modules', packageName, 'package.json');
    if (existsSync(manifestPath)) {
      const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { name: string; version: string };
      return { package: manifest.name, version: manifest.version };
    }
    if (dirname(dir) === dir) return undefined;
  }
}
