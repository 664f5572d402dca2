// Which (scenario, revision) pairs can run: the scenario's revisions that have a reference server.
import { SERVED_REVISIONS } from '../servers/index.ts';
import type { Revision } from '../servers/revisions.ts';
import type { Scenario } from './scenario.ts';

export function runnableRevisions(scenario: Scenario): Revision[] {
  return scenario.revisions.filter((revision) => SERVED_REVISIONS.includes(revision));
}

export function plannedCases(scenarios: readonly Scenario[]): { scenario: Scenario; revision: Revision }[] {
  return scenarios.flatMap((scenario) => runnableRevisions(scenario).map((revision) => ({ scenario, revision })));
}
