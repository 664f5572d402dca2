// What every third-party adapter's test proves on a few cases: the scenario produced a verdict, and the client's
// opening request (initialize, or server/discover when it probes) reached the reference server.
import { expect, test } from 'vitest';
import type { Revision } from '../../../protocol/revisions.ts';
import { explain } from '../../../suites/evidence.ts';
import { runCase } from '../../../suites/runner.ts';
import type { Scenario } from '../../../suites/scenario.ts';
import type { ClientAdapter } from '../../adapter.ts';

export interface SmokeCase {
  adapter: ClientAdapter;
  scenario: Scenario;
  revision: Revision;
  /** The method the client opens with (default: initialize). */
  opening?: string;
}

export function smokeCases(cases: readonly SmokeCase[]): void {
  test.for(cases.map((c) => ({ ...c, title: `${c.adapter.name}: ${c.scenario.id} @ ${c.revision}` })))('$title', async ({ adapter, scenario, revision, opening = 'initialize' }) => {
    // As the suites run it: bounds sized from the client's measured start-up, run again if time ran out.
    const result = await runCase(scenario, adapter, revision);
    expect(['pass', 'warn', 'fail'], `a verdict\n${explain(result)}`).toContain(result.verdict);
    const reached = result.evidence?.exchanges.some((exchange) => exchange.requestMessages.some((message) => message.method === opening));
    expect(reached, `the client's ${opening} reached the server\n${explain(result)}`).toBe(true);
  });
}
