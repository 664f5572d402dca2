// `npm test`: every scenario, for every built-in adapter, run as the suites run it (runCase: calibrated, inconclusive
// cases again with larger bounds) and judged against that adapter's baseline, check by check (suites/baselines.ts),
// as the package's own test entries judge a client's cases (api/vitest.ts): a case the suite could not judge
// (inconclusive: the machine was busy, say) is skipped with its reason, never a failure against a baseline that
// expects a verdict; a regression or a stale entry fails with the explanation.
// The reference client is not among them: self-test.test.ts runs its every case and proves it passes, strictly, which
// its empty baseline here would only repeat.
import { afterAll, describe, expect, test } from 'vitest';
import { BUILT_IN_ADAPTERS } from '../clients/index.ts';
import { referenceClient } from '../clients/reference/index.ts';
import { adaptersFromEnv } from '../clients/load.ts';
import { settings } from '../config/settings.ts';
import { failsGate } from '../api/index.ts';
import { comparedWith } from '../api/index.ts';
import { skipReason } from '../api/test-helpers.ts';
import { BaselineError, baselineProblems, loadBaseline, revisionsRun, type Baseline } from './baselines.ts';
import { failOnLeakedHandles } from './leaks.ts';
import { explain } from './evidence.ts';
import { SCENARIOS } from './index.ts';
import { plannedCases } from './plan.ts';
import { runCase } from './runner.ts';
import type { ScenarioResult } from './scenario.ts';

const { strict } = settings();
const cases = plannedCases(SCENARIOS);

// MCP_CONFORMANCE_ADAPTER (a built-in name or ./my-adapter.ts) and MCP_CONFORMANCE_ADAPTER_COMMAND (a line-protocol
// program, docs/line-protocol.md) add an adapter to the list (clients/load.ts); a program is spawned once per run.
const extra = await adaptersFromEnv();
afterAll(async () => {
  await Promise.all(extra.map((adapter) => adapter.shutdown?.()));
});

failOnLeakedHandles();

/** The adapter's baseline, or the one line that says why it cannot be read (each test that needs it fails with it). */
function readBaseline(adapter: string): () => Baseline {
  try {
    const baseline = loadBaseline(adapter);
    return () => baseline;
  } catch (error) {
    if (!(error instanceof BaselineError)) throw error;
    return () => expect.fail(error.message);
  }
}

/** The earlier runs of a case that was run again, for the explanation. */
const earlierRuns = (result: ScenarioResult) =>
  (result.attempts ?? []).map((attempt, index) => `  run ${index + 1} at scale ${attempt.scale}: ${attempt.verdict}${attempt.reason ? ` (${attempt.reason})` : ''}`).join('\n');

const judged = [...BUILT_IN_ADAPTERS.filter((adapter) => adapter !== referenceClient), ...extra];

describe.concurrent.each(judged.map((adapter) => ({ adapter, name: adapter.name })))('$name', ({ adapter }) => {
  const baseline = readBaseline(adapter.name);

  test.for(cases.map((c) => ({ ...c, title: `${c.scenario.id} @ ${c.revision}` })))('$title', async ({ scenario, revision }, context) => {
    const known = baseline();
    const result = await runCase(scenario, adapter, revision, { strict });
    const outcome = comparedWith(result, known, { strict });
    if (failsGate(outcome)) expect.fail([...outcome.comparison!.differences.map((d) => d.text), explain(result), earlierRuns(result)].filter(Boolean).join('\n'));
    const skipped = skipReason(outcome);
    if (skipped !== undefined) context.skip(skipped);
  });

  // That each named check exists, and still fails at each revision it covers, is seen by the cases above.
  test('every baseline entry names a scenario that runs at each revision it covers, each check once per cell', () => {
    expect(baselineProblems(baseline(), revisionsRun(adapter, SCENARIOS))).toEqual([]);
  });
});
