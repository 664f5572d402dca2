// What the test-runner helpers (api/vitest.ts, api/node-test.ts) and `npm test` (suites/conformance.test.ts) say alike:
// the suite's title and why a case is skipped (a result compared with a baseline is index.ts comparedWith).
import type { CaseOutcome, ConformanceOptions } from './index.ts';

/** `mcp-client-conformance: <the adapter's name, module path or command>`, or the name given. */
export function suiteTitle(options: ConformanceOptions & { name?: string }): string {
  const { adapter } = options;
  const what = options.name ?? (typeof adapter === 'string' ? adapter : 'start' in adapter ? adapter.name : adapter.command);
  return `mcp-client-conformance: ${what}`;
}

/**
 * Why a case is skipped, or undefined when it is judged: not applicable, or inconclusive (the suite could not judge it,
 * or a check the baseline names: never a pass, and never the client's failure).
 */
export function skipReason({ result, comparison }: CaseOutcome): string | undefined {
  if (result.verdict === 'n/a') return `not applicable: ${result.reason ?? ''}`;
  if (result.verdict === 'inconclusive') return `inconclusive: ${result.reason ?? 'no reason given'}${comparison?.status === 'match' ? ' (as the baseline expects)' : ''}`;
  if (comparison?.status === 'unjudged') return `could not judge what the baseline expects: ${comparison.differences.map((d) => d.text).join('; ')}`;
  return undefined;
}
