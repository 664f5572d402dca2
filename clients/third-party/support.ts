// What the third-party client adapters share: their factory options (clients/load.ts calls the factory with a matrix
// entry's name and options), the installed versions their descriptions name, and a stdio target in the shape their
// stdio configurations share.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { StdioTarget, Wraps } from '../adapter.ts';
import { installedPackage } from '../installed.ts';

/** The HTTP transports a third-party client may offer: Streamable HTTP, and HTTP+SSE (2024-11-05). */
export const TRANSPORTS = ['streamable-http', 'sse'] as const;
export type Transport = (typeof TRANSPORTS)[number];

export interface ThirdPartyOptions {
  /** The matrix entry's name: the adapter's name. */
  name: string;
  /** Which of the client's transports to drive (default: streamable-http). */
  transport?: Transport;
}

/** The factory's options, checked: a name, and one of the transports the client offers. */
export function readOptions(adapter: string, options: Partial<ThirdPartyOptions> | undefined, offered: readonly Transport[]): Required<ThirdPartyOptions> {
  const { name, transport = 'streamable-http' } = options ?? {};
  if (typeof name !== 'string' || name.trim() === '') throw new Error(`${adapter}: the factory needs a "name" (the matrix entry's name)`);
  if (!offered.includes(transport)) throw new Error(`${adapter}: the "transport" option is one of ${offered.join(', ')}, not ${JSON.stringify(transport)}`);
  return { name, transport };
}

/**
 * "<package> <version>" as installed: the package Node resolves from `dependent` (an installed package that depends
 * on it, so a nested copy wins as it does at run time), else from here.
 */
export function installedLabel(packageName: string, dependent?: string): string {
  const found = installed(packageName, dependent);
  return `${found.package} ${found.version}`;
}

/**
 * The SDK a client wraps (ClientAdapter.wraps): the package its own package.json depends on, at the version Node
 * resolves for it (a nested copy wins, as at run time).
 */
export function installedWraps(packageName: string, dependent: string): Wraps {
  return installed(packageName, dependent);
}

/**
 * The SDK a client bundles into its own build (ClientAdapter.wraps): no copy is installed for it, so the claim is the
 * range its package.json names for the build (`devDependencies`), not one version.
 */
export function bundledWraps(packageName: string, dependent: string): Wraps {
  const manifestPath = createRequire(import.meta.url).resolve(`${dependent}/package.json`);
  const { devDependencies = {} } = JSON.parse(readFileSync(manifestPath, 'utf8')) as { devDependencies?: Record<string, string> };
  const range = devDependencies[packageName];
  if (range === undefined) throw new Error(`${dependent}'s package.json names no ${packageName} among its devDependencies`);
  return { package: packageName, version: range };
}

function installed(packageName: string, dependent: string | undefined): Wraps {
  const from = dependent === undefined ? import.meta.filename : fileURLToPath(import.meta.resolve(dependent));
  const found = installedPackage(packageName, from);
  if (found === undefined) throw new Error(`package ${packageName} is not installed${dependent === undefined ? '' : ` for ${dependent}`} (npm ci)`);
  return found;
}

/** What every client's stdio configuration takes, as a host names a local server: env and cwd only when the target has them. */
export interface LocalServer {
  command: string;
  args: string[];
  env?: Record<string, string>;
  cwd?: string;
}

/**
 * A stdio target as the clients' stdio configurations take it (each merges `env` onto its own default environment).
 * Options the target leaves out stay out, so the client's defaults apply.
 */
export function localServer(target: StdioTarget): LocalServer {
  return {
    command: target.command,
    args: target.args,
    ...(target.env !== undefined ? { env: target.env } : {}),
    ...(target.cwd !== undefined ? { cwd: target.cwd } : {}),
  };
}
