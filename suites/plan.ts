// Which (scenario, revision) pairs the suites run, and over which transport.
import type { Transport } from '../clients/adapter.ts';
import { REVISIONS, type Revision } from '../protocol/revisions.ts';
import type { Scenario } from './scenario.ts';

/** The revisions the suites run at: all of them. */
export const SUITE_REVISIONS: readonly Revision[] = REVISIONS;

/** The transport a scenario runs over: `http` unless it says `stdio`. */
export function transportOf(scenario: Scenario): Transport {
  return scenario.transport ?? 'http';
}

export function runnableRevisions(scenario: Scenario): Revision[] {
  return scenario.revisions.filter((revision) => SUITE_REVISIONS.includes(revision));
}

/** A scenario's transport from its id alone (results name cells by id): every stdio scenario is in the stdio suite, and only they are. */
export const transportOfScenarioId = (id: string): Transport => (id.startsWith('stdio/') ? 'stdio' : 'http');

/** Every case of these scenarios; with `transport`, only the scenarios over it. */
export function plannedCases(scenarios: readonly Scenario[], options: { transport?: Transport } = {}): { scenario: Scenario; revision: Revision }[] {
  return scenarios
    .filter((scenario) => options.transport === undefined || transportOf(scenario) === options.transport)
    .flatMap((scenario) => runnableRevisions(scenario).map((revision) => ({ scenario, revision })));
}
