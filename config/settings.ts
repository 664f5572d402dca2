// Every setting the suite takes from its environment, parsed once, in one place, with one clear error for a bad value.
// Command-line flags (scripts/cli.ts) override these; the matrix passes its own through the environment too
// (scripts/matrix/settings.ts) so that a plain `vitest --config vitest.matrix.config.ts` takes the same ones.
import { resolve } from 'node:path';
import { timePolicy, type TimePolicy } from './time.ts';

/** The environment variables, by setting. */
export const SETTINGS_ENV = {
  /** `1`: SHOULD violations fail instead of warning. */
  strict: 'MCP_CONFORMANCE_STRICT',
  /** A factor for every time bound (default 1): 3 on a runner three times slower. */
  timeScale: 'MCP_CONFORMANCE_TIME_SCALE',
  /** A built-in adapter name or a module path, added to the adapters `npm test` runs. */
  adapter: 'MCP_CONFORMANCE_ADAPTER',
  /** A line-protocol program, e.g. "python3 clients/drivers/python/driver.py", added likewise. */
  adapterCommand: 'MCP_CONFORMANCE_ADAPTER_COMMAND',
  /** The bound on each client operation, in ms (default: the time policy's, 5000 × the scale). */
  operationTimeout: 'MCP_CONFORMANCE_OPERATION_TIMEOUT_MS',
  /** The bound on a line-protocol program's hello, in ms (default: the time policy's, 10000 × the scale). */
  helloTimeout: 'MCP_CONFORMANCE_HELLO_TIMEOUT_MS',
  /** A folder of the user's own baselines, looked at before the suite's. */
  baselines: 'MCP_CONFORMANCE_BASELINES',
  /** `1`: the self-test runs every broken variant on every scenario (`npm run test:exhaustive`). */
  exhaustive: 'MCP_CONFORMANCE_EXHAUSTIVE',
  /** `1`: the container tests fail instead of skipping when no Docker engine or image is there (CI). */
  requireContainers: 'MCP_CONFORMANCE_REQUIRE_CONTAINERS',
  /** `full`: the load tests' full size (per era: 200 sessions × 50 calls over HTTP; over stdio 50 processes × 50 calls, and 1,000 pipelined). */
  load: 'MCP_CONFORMANCE_LOAD',
} as const;

export class SettingsError extends Error {
  override name = 'SettingsError';
}

export interface Settings {
  strict: boolean;
  timeScale: number;
  adapter?: string;
  adapterCommand?: string;
  /** Bounds the user set explicitly (they are scaled like every other base). */
  operationTimeoutMs?: number;
  helloTimeoutMs?: number;
  /** Absolute, resolved against where npm was run (INIT_CWD). */
  baselinesDir?: string;
  exhaustive: boolean;
  requireContainers: boolean;
  fullLoad: boolean;
  /** Where the user typed the command: npm runs scripts from the package root and says where in INIT_CWD. */
  cwd: string;
}

function positive(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new SettingsError(`${name} must be a positive number, not "${raw}"`);
  return value;
}

const set = (env: NodeJS.ProcessEnv, name: string): string | undefined => (env[name] === undefined || env[name] === '' ? undefined : env[name]);

export function readSettings(env: NodeJS.ProcessEnv = process.env): Settings {
  const cwd = env.INIT_CWD ?? process.cwd();
  const baselines = set(env, SETTINGS_ENV.baselines);
  const optional = <K extends string, V>(key: K, value: V | undefined) => (value === undefined ? {} : ({ [key]: value } as Record<K, V>));
  return {
    strict: env[SETTINGS_ENV.strict] === '1',
    timeScale: positive(env, SETTINGS_ENV.timeScale) ?? 1,
    ...optional('adapter', set(env, SETTINGS_ENV.adapter)),
    ...optional('adapterCommand', set(env, SETTINGS_ENV.adapterCommand)),
    ...optional('operationTimeoutMs', positive(env, SETTINGS_ENV.operationTimeout)),
    ...optional('helloTimeoutMs', positive(env, SETTINGS_ENV.helloTimeout)),
    ...optional('baselinesDir', baselines === undefined ? undefined : resolve(cwd, baselines)),
    exhaustive: env[SETTINGS_ENV.exhaustive] === '1',
    requireContainers: env[SETTINGS_ENV.requireContainers] === '1',
    fullLoad: env[SETTINGS_ENV.load] === 'full',
    cwd,
  };
}

/** The settings of this process, read on first use. */
let current: Settings | undefined;
export function settings(): Settings {
  return (current ??= readSettings());
}

/**
 * The time policy the settings give: their scale and the bounds the user set explicitly, with a client's measured
 * start-up when it has been calibrated (suites/calibration.ts).
 */
export function basePolicy(from: Settings = settings(), calibratedStartupMs?: number): TimePolicy {
  return timePolicy({
    scale: from.timeScale,
    ...(calibratedStartupMs !== undefined ? { calibratedStartupMs } : {}),
    overrides: {
      ...(from.operationTimeoutMs !== undefined ? { operation: from.operationTimeoutMs } : {}),
      ...(from.helloTimeoutMs !== undefined ? { hello: from.helloTimeoutMs } : {}),
    },
  });
}
