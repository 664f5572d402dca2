// What a judge makes of a record in which nothing happened: every check it gives and every section it cites, read
// without running a client (spec.test.ts holds the citations to the spec text, traceability.test.ts the check names
// docs/traceability.md gives).
import { timePolicy } from '../config/time.ts';
import type { Revision } from '../protocol/revisions.ts';
import { SCHEMA_CHECK } from './schema.ts';
import type { Check, Evidence, Scenario } from './scenario.ts';

/** A record in which nothing happened: no exchange, nothing observed. */
export const nothingHappened = (revision: Revision): Evidence => ({ revision, time: timePolicy(), exchanges: [], otherServers: [], issuedSessions: [], clientRevisions: [], toolRuns: [], observed: {} });

/** The checks a scenario's judge gives at one revision on a record in which nothing happened. */
export const checksOnNothing = (scenario: Scenario, revision: Revision): Check[] => scenario.judge(nothingHappened(revision));

/** Every check name a scenario can give at any of its revisions, with the schema check the runner adds to each. */
export function checkNames(scenario: Scenario): Set<string> {
  return new Set([SCHEMA_CHECK, ...scenario.revisions.flatMap((revision) => checksOnNothing(scenario, revision).map((check) => check.name))]);
}
