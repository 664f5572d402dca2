// One node:test test per case, from your own test file (the package's `./node-test` entry):
//
//   import { conformanceTests } from 'mcp-client-conformance/node-test';
//   conformanceTests({ adapter: './my-adapter.js', baseline: './conformance-baseline.json' });
//
// and `node --test`. The same rules as the vitest helper (api/vitest.ts): not applicable or inconclusive → skipped
// with the reason, never passed; a result that does not match the baseline (or, without one, a failure) fails with
// the explanation; with a baseline, one more test fails on its stale or unknown entries; and the suite fails (its
// after hook, once every case has finished) when none of the cases that ran was judged (every one n/a or inconclusive).
import { after, describe, test } from 'node:test';
import { caseTimeoutMs, DEFAULT_CONCURRENCY, explainOutcome, failsGate, openConformance, planCases, type ConformanceOptions, type ConformanceSession, type ScenarioResult } from './index.ts';
import { judgedSomething, notJudgedLine } from './exit-codes.ts';
import { skipReason, suiteTitle } from './test-helpers.ts';

export interface NodeTestConformanceOptions extends ConformanceOptions {
  /** The describe block's title (default: the adapter's name, module path or command). */
  name?: string;
  /** Cases run at once (default 8). */
  concurrency?: number;
  /** Each case's test timeout (default: room for every run of the case at the settings' time scale). */
  timeoutMs?: number;
}

export function conformanceTests(options: NodeTestConformanceOptions): void {
  const cases = planCases(options);
  const timeout = options.timeoutMs ?? caseTimeoutMs();
  void describe(suiteTitle(options), { concurrency: options.concurrency ?? DEFAULT_CONCURRENCY }, () => {
    let opening: Promise<ConformanceSession> | undefined;
    const session = () => (opening ??= openConformance(options));
    const ran: ScenarioResult[] = [];
    after(async () => {
      const opened = await opening?.catch(() => undefined);
      await opened?.close();
      if (opened !== undefined && ran.length > 0 && !judgedSomething(ran.map((result) => result.verdict))) throw new Error(notJudgedLine(opened.adapter.name, ran));
    });

    for (const { scenario, revision } of cases) {
      void test(`${scenario} @ ${revision}`, { timeout }, async (t) => {
        const outcome = await (await session()).runCase(scenario, revision);
        ran.push(outcome.result);
        if (failsGate(outcome)) throw new Error(explainOutcome(outcome));
        const skipped = skipReason(outcome);
        if (skipped !== undefined) return t.skip(skipped);
        const { result } = outcome;
        if (result.verdict === 'warn') t.diagnostic(`warning (SHOULD): ${result.reason ?? ''}`);
        else if (result.verdict === 'fail') t.diagnostic(`a known failure (baselined): ${result.reason ?? ''}`);
      });
    }

    if (options.baseline !== undefined) {
      void test('the baseline has no stale or unknown entry', { timeout }, async () => {
        const problems = (await session()).baselineProblems();
        if (problems.length > 0) throw new Error(`the baseline has ${problems.length} stale or unknown ${problems.length === 1 ? 'entry' : 'entries'}:\n${problems.join('\n')}`);
      });
    }
  });
}
