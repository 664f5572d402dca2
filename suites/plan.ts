// Which (scenario, revision) pairs the suites run.
import { REVISIONS, type Revision } from '../protocol/revisions.ts';
import type { Scenario } from './scenario.ts';

/** The revisions the suites run at: all of them. */
export const SUITE_REVISIONS: readonly Revision[] = REVISIONS;

export function runnableRevisions(scenario: Scenario): Revision[] {
  return scenario.revisions.filter((revision) => SUITE_REVISIONS.includes(revision));
}

export function plannedCases(scenarios: readonly Scenario[]): { scenario: Scenario; revision: Revision }[] {
  return scenarios.flatMap((scenario) => runnableRevisions(scenario).map((revision) => ({ scenario, revision })));
}
