// One vitest test per case, from your own test file (the package's `./vitest` entry):
//
//   import { conformanceTests } from 'mcp-client-conformance/vitest';
//   conformanceTests({ adapter: './my-adapter.ts', baseline: './conformance-baseline.json' });
//
// A case not applicable to the client, or one the suite could not judge (inconclusive), is skipped with its reason,
// never passed; a result that does not match the baseline (or, without one, a failure) fails with the explanation:
// what differs, the failed checks with their rules, and the wire record. With a baseline, one more test fails on its
// stale or unknown entries. A last test fails when none of the cases that ran was judged (every one n/a or
// inconclusive: a run that proves nothing, as `run` exits 4 for it). The client is loaded by the first test that needs
// it and shut down after the last.
import { afterAll, describe, expect, test } from 'vitest';
import { caseTimeoutMs, explainOutcome, failsGate, openConformance, planCases, type ConformanceOptions, type ConformanceSession, type ScenarioResult } from './index.ts';
import { judgedSomething, notJudgedLine } from './exit-codes.ts';
import { skipReason, suiteTitle } from './test-helpers.ts';

export interface VitestConformanceOptions extends ConformanceOptions {
  /** The describe block's title (default: the adapter's name, module path or command). */
  name?: string;
  /** Cases run concurrently, as many as vitest's maxConcurrency lets (default true). */
  concurrent?: boolean;
  /** Each case's test timeout (default: room for every run of the case at the settings' time scale). */
  timeoutMs?: number;
}

/** The last test's title: the run judged the client in some case. */
export const JUDGED_TITLE = 'the client was judged: some case got a verdict of pass, fail or warn';

export function conformanceTests(options: VitestConformanceOptions): void {
  const cases = planCases(options);
  const timeout = options.timeoutMs ?? caseTimeoutMs();
  const suite = options.concurrent === false ? describe : describe.concurrent;
  suite(suiteTitle(options), () => {
    let opening: Promise<ConformanceSession> | undefined;
    const session = () => (opening ??= openConformance(options));
    afterAll(async () => {
      const opened = await opening?.catch(() => undefined);
      await opened?.close();
    }, timeout);

    const ran: ScenarioResult[] = [];
    test.for(cases.map((c) => ({ ...c, title: `${c.scenario} @ ${c.revision}` })))('$title', { timeout }, async ({ scenario, revision }, context) => {
      const outcome = await (await session()).runCase(scenario, revision);
      ran.push(outcome.result);
      if (failsGate(outcome)) expect.fail(explainOutcome(outcome));
      const skipped = skipReason(outcome);
      if (skipped !== undefined) context.skip(skipped);
      const { result } = outcome;
      if (result.verdict === 'warn') await context.annotate(`warning (SHOULD): ${result.reason ?? ''}`, 'warning');
      else if (result.verdict === 'fail') await context.annotate(`a known failure (baselined): ${result.reason ?? ''}`, 'notice');
    });

    if (options.baseline !== undefined) {
      test('the baseline has no stale or unknown entry', { timeout }, async () => {
        const problems = (await session()).baselineProblems();
        if (problems.length > 0) expect.fail(`the baseline has ${problems.length} stale or unknown ${problems.length === 1 ? 'entry' : 'entries'}:\n${problems.join('\n')}`);
      });
    }

    // Not concurrent: it runs once every case above has finished.
    test(JUDGED_TITLE, { concurrent: false, timeout }, async (context) => {
      if (ran.length === 0) context.skip('no case ran');
      if (!judgedSomething(ran.map((result) => result.verdict))) expect.fail(notJudgedLine((await session()).adapter.name, ran));
    });
  });
}
