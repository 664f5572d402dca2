// What the stdio scenarios share: the precondition that the suite saw anything at all (the server the client launched
// reported on its side channel) and its doctored proof, and overStdio, which runs a scenario written for HTTP over
// stdio (twins.ts).
import type { Check, DoctoredProof, Evidence, Scenario, SpecRef } from '../scenario.ts';
import { precondition } from '../checks.ts';
import { stdio } from '../spec.ts';

export const SERVER_RECORDED = 'server-recorded';

/**
 * The record came back: a server the client launched reported on its side channel (else the suite saw nothing). A
 * client that failed without launching one is judged (client-completed and the scenario's checks): only a silent record
 * with a client that says it connected is the suite's failure. `spec`: the rule the scenario is about (default: the
 * stdio transport itself).
 */
export function serverRecorded(evidence: Evidence, spec?: SpecRef): Check {
  const reported = (evidence.stdio?.processes ?? []).some((p) => p.role === 'server');
  const met = reported || evidence.clientError !== undefined;
  return precondition(
    SERVER_RECORDED,
    spec ?? stdio(evidence.revision, 'the client launches the server as a subprocess and talks to it on its stdin and stdout', 'MUST'),
    met,
    met ? 'the launched server reported on its side channel' : 'the client completed, but no server process reported on the side channel: the suite could not see the wire',
  );
}

/** The proof that server-recorded guards something: no process reported, and no exchange recorded. */
export const serverRecordedProof: DoctoredProof = {
  check: SERVER_RECORDED,
  unmet: true,
  how: 'no process reported on the side channel, and no exchange recorded',
  doctor: (e) => ({ ...e, exchanges: [], stdio: { ...e.stdio!, processes: [] } }),
};

/**
 * A scenario written for HTTP, run over stdio: the same script (it reads its server through `context.wire`) and judge,
 * the client launching the suite's stdio server; its id `stdio/<its name>`, its doctored proofs plus server-recorded's.
 */
export function overStdio(scenario: Scenario, overrides: { setup?: Scenario['setup']; doctored?: readonly DoctoredProof[]; revisions?: Scenario['revisions'] } = {}): Scenario {
  const { setup, ...rest } = scenario;
  const stdioSetup = overrides.setup;
  return {
    ...rest,
    // stdio/<its name>: negotiation/handshake-order → stdio/handshake-order, so a --scenario naming the HTTP one selects only it.
    id: `stdio/${scenario.id.slice(scenario.id.indexOf('/') + 1)}`,
    twinOf: scenario.id,
    transport: 'stdio',
    ...(overrides.revisions !== undefined ? { revisions: overrides.revisions } : {}),
    ...(stdioSetup !== undefined ? { setup: stdioSetup } : setup !== undefined ? { setup: (revision, time) => ({ state: setup(revision, time).state }) } : {}),
    judge: (evidence) => [serverRecorded(evidence), ...scenario.judge(evidence)],
    doctored: [...(overrides.doctored ?? scenario.doctored ?? []), serverRecordedProof],
  };
}
