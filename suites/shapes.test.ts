// Proof that the suite judges every correct shape of client truly: the reference client as a session per operation,
// connecting lazily, starting over after an error, keeping a session while a call holds it, and caching its tool list
// (clients/reference/shapes.ts) passes every case it applies to,
// strictly, as the reference itself does (self-test.test.ts). A case a shape cannot be driven through is n/a with its
// reason (a precondition `by: 'shape'`, read from the wire), never a verdict: a fail or a warn here is the suite
// blaming correct behaviour, an inconclusive one the suite hiding behind "could not judge".
import { describe, expect, test } from 'vitest';
import { SHAPED_ADAPTERS } from '../clients/index.ts';
import { explain } from './evidence.ts';
import { SCENARIOS } from './index.ts';
import { failOnLeakedHandles } from './leaks.ts';
import { plannedCases } from './plan.ts';
import { runCase } from './runner.ts';

failOnLeakedHandles();
const cases = plannedCases(SCENARIOS);

describe.concurrent.each(SHAPED_ADAPTERS.map((adapter) => ({ adapter, name: adapter.name })))('$name', ({ adapter }) => {
  test.for(cases.map((c) => ({ ...c, title: `${c.scenario.id} @ ${c.revision}` })))('$title', async ({ scenario, revision }, context) => {
    const result = await runCase(scenario, adapter, revision, { strict: true });
    if (result.verdict === 'n/a') {
      // n/a needs its reason: a feature the shape does not declare, or a step a correct client of this shape never takes.
      expect(result.reason, explain(result)).toBeTruthy();
      return context.skip(`not applicable: ${result.reason}`);
    }
    expect(result.verdict, explain(result)).toBe('pass');
  });
});
