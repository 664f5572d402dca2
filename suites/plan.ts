// Which (scenario, revision) pairs the suites run.
import type { Revision } from '../servers/revisions.ts';
import type { Scenario } from './scenario.ts';

/**
 * The revisions the suites run at. Every revision has a reference server; 2024-11-05 and 2026-07-28
 * join when the reference client speaks them, since every scenario must first pass on it.
 */
export const SUITE_REVISIONS: readonly Revision[] = ['2025-03-26', '2025-06-18', '2025-11-25'];

export function runnableRevisions(scenario: Scenario): Revision[] {
  return scenario.revisions.filter((revision) => SUITE_REVISIONS.includes(revision));
}

export function plannedCases(scenarios: readonly Scenario[]): { scenario: Scenario; revision: Revision }[] {
  return scenarios.flatMap((scenario) => runnableRevisions(scenario).map((revision) => ({ scenario, revision })));
}
