// Proof that the suite judges every correct shape of client truly: the reference client as a session per operation,
// connecting lazily, starting over after an error, keeping a session while a call holds it, and caching its tool list
// (clients/reference/shapes.ts) passes every case it applies to,
// strictly, as the reference itself does (self-test.test.ts). A case a shape cannot be driven through is n/a with its
// reason (a precondition `by: 'shape'`, read from the wire), never a verdict: a fail or a warn here is the suite
// blaming correct behaviour, an inconclusive one the suite hiding behind "could not judge".
//
// `npm test` runs each shape on every scenario, at one of its revisions, the revision turning from shape to shape, so
// the shapes together cover every case of a scenario with as many revisions as there are shapes; the exhaustive run
// (MCP_CONFORMANCE_EXHAUSTIVE=1, which CI runs) runs every shape on every case.
import { describe, expect, test } from 'vitest';
import { settings } from '../config/settings.ts';
import { SHAPED_ADAPTERS } from '../clients/index.ts';
import { explain } from './evidence.ts';
import { SCENARIOS } from './index.ts';
import { failOnLeakedHandles } from './leaks.ts';
import { runnableRevisions } from './plan.ts';
import { runCase } from './runner.ts';
import type { Revision } from '../protocol/revisions.ts';
import type { Scenario } from './scenario.ts';

failOnLeakedHandles();

/** The cases the `index`-th shape runs: every one when exhaustive, else each scenario at its revision turned by `index`. */
function shapeCases(index: number, exhaustive: boolean): { scenario: Scenario; revision: Revision; title: string }[] {
  return SCENARIOS.flatMap((scenario, position) => {
    const revisions = runnableRevisions(scenario);
    const chosen = exhaustive ? revisions : revisions.length === 0 ? [] : [revisions[(index + position) % revisions.length]!];
    return chosen.map((revision) => ({ scenario, revision, title: `${scenario.id} @ ${revision}` }));
  });
}

const exhaustive = settings().exhaustive;
test('the shapes together run every case of every scenario with no more revisions than there are shapes', () => {
  const run = new Set(SHAPED_ADAPTERS.flatMap((_, index) => shapeCases(index, false).map((c) => c.title)));
  const every = shapeCases(0, true).filter((c) => runnableRevisions(c.scenario).length <= SHAPED_ADAPTERS.length);
  expect(every.filter((c) => !run.has(c.title))).toEqual([]);
});
describe.concurrent.each(SHAPED_ADAPTERS.map((adapter, index) => ({ adapter, index, name: adapter.name })))('$name', ({ adapter, index }) => {
  test.for(shapeCases(index, exhaustive))('$title', async ({ scenario, revision }, context) => {
    const result = await runCase(scenario, adapter, revision, { strict: true });
    if (result.verdict === 'n/a') {
      // n/a needs its reason: a feature the shape does not declare, or a step a correct client of this shape never takes.
      expect(result.reason, explain(result)).toBeTruthy();
      return context.skip(`not applicable: ${result.reason}`);
    }
    expect(result.verdict, explain(result)).toBe('pass');
  });
});
