// Baselines: the known, reasoned failures of real clients. `npm test` is green when results match them.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { ScenarioResult, Verdict } from './scenario.ts';

export interface BaselineEntry {
  scenario: string;
  revision: string;
  verdict: Exclude<Verdict, 'pass'>;
  /** Why the client behaves so, in one or two sentences. */
  reason: string;
  /** The spec section (URL) the behaviour breaks. */
  spec: string;
}

export interface Baseline {
  adapter: string;
  known: BaselineEntry[];
}

export const BASELINE_DIR = join(import.meta.dirname, 'baselines');

/** A directory of the user's own baselines (MCP_CONFORMANCE_BASELINES), looked at before the suite's. */
export const BASELINES_ENV = 'MCP_CONFORMANCE_BASELINES';

export function baselinePath(adapter: string, env: NodeJS.ProcessEnv = process.env): string {
  const own = env[BASELINES_ENV];
  if (own) {
    const path = resolve(env.INIT_CWD ?? process.cwd(), own, `${adapter}.json`);
    if (existsSync(path)) return path;
  }
  return join(BASELINE_DIR, `${adapter}.json`);
}

/** The adapter's baseline; an adapter without a file is expected to pass everything. */
export function loadBaseline(adapter: string): Baseline {
  const path = baselinePath(adapter);
  if (!existsSync(path)) return { adapter, known: [] };
  const baseline = JSON.parse(readFileSync(path, 'utf8')) as Baseline;
  if (baseline.adapter !== adapter || !Array.isArray(baseline.known)) throw new Error(`${path}: not a baseline for ${adapter}`);
  return baseline;
}

export function baselineEntry(baseline: Baseline, scenario: string, revision: string): BaselineEntry | undefined {
  return baseline.known.find((entry) => entry.scenario === scenario && entry.revision === revision);
}

/**
 * Compares a result with the baseline. Not applicable always matches (it is reported, not judged).
 * Returns undefined when it matches, or what is wrong.
 */
export function baselineMismatch(result: ScenarioResult, baseline: Baseline): string | undefined {
  if (result.verdict === 'n/a') return undefined;
  const entry = baselineEntry(baseline, result.scenarioId, result.revision);
  const expected: Verdict = entry?.verdict ?? 'pass';
  if (result.verdict === expected) return undefined;
  if (entry && result.verdict === 'pass') {
    return `baselined as ${entry.verdict} ("${entry.reason}") but now passes: remove the entry from ${baselinePath(baseline.adapter)}`;
  }
  return `expected ${expected}${entry ? ` (baselined: ${entry.reason})` : ''}, got ${result.verdict}`;
}
