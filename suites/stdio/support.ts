// What the stdio scenarios share: the precondition that the suite saw anything at all (the server the client launched
// reported on its side channel) and its doctored proof, and overStdio, which runs a scenario written for HTTP over
// stdio (twins.ts).
import type { Check, DoctoredProof, Evidence, Scenario, SpecRef } from '../scenario.ts';
import { isModern } from '../../protocol/revisions.ts';
import { precondition } from '../checks.ts';
import { stdio } from '../spec.ts';
import type { WireExchange } from '../../servers/wire-record.ts';
import { carrying } from '../wire.ts';
import { answerAt, stdioBackward } from '../negotiation/support.ts';

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

export const PROBE_WAITED_FOR = 'probe-waited-for';

/**
 * At 2026-07-28, a client that probes with server/discover got to the case's rules on a modern session only if it
 * waited for the answer. One that sent initialize before the server had answered gave up on the probe: a server slow
 * to start (on a busy machine the suite's own process takes a second) taken for a legacy one, which the probe
 * scenarios judge (stdio/probe-slow-start: how long a client waits out a start). Here the case never reached its
 * rules with the session a client meets on a quiet machine: inconclusive, not a fail of the rules it did not reach.
 */
export function probeWaitedFor(evidence: Evidence): Check[] {
  if (evidence.stdio === undefined || !isModern(evidence.revision)) return [];
  const probe = carrying(evidence.exchanges, 'server/discover')[0];
  if (probe === undefined) return [];
  const answered = answerAt(probe);
  // An initialize less than a reaction time after a DiscoverResult may have been decided before the client read it
  // (ai-sdk-mcp's 1 s probe timeout fired with the answer in its pipe, beside a CPU hog): no client falls back on a
  // modern server's result, and the wire cannot tell the two apart. After an error answer a fallback is the client's
  // reading of that error, which the probe scenarios judge.
  const react = isDiscoverResult(probe) ? evidence.time.ms.react : 0;
  const gaveUp = carrying(evidence.exchanges, 'initialize').find((x) => x.startedAt >= probe.startedAt && (answered === undefined || x.startedAt < answered + react));
  const rule = stdioBackward('only no answer within a reasonable timeout means a legacy server: a modern server that starts slowly is waited for', 'SHOULD');
  if (gaveUp === undefined) return [precondition(PROBE_WAITED_FOR, rule, true, 'the client waited for the answer to its server/discover', [probe])];
  const answer =
    answered === undefined
      ? 'which the server never answered'
      : gaveUp.startedAt < answered
        ? `which the server answered ${Math.round(answered - probe.startedAt)} ms after reading it`
        : `which the server answered ${Math.round(answered - probe.startedAt)} ms after reading it, only ${Math.round(gaveUp.startedAt - answered)} ms before the initialize, within a reaction time (${react} ms) of a DiscoverResult: too close to tell whether the client had read it`;
  return [
    precondition(
      PROBE_WAITED_FOR,
      rule,
      false,
      `the client sent initialize before it had the answer to its server/discover (${answer}): it took a server still starting for a legacy one, so this case's rules were not reached on a modern session; how long a client waits out a slow start is judged by stdio/probe-slow-start`,
      [probe, gaveUp],
    ),
  ];
}

/** The probe's answer is a result (a DiscoverResult), not an error. */
const isDiscoverResult = (probe: WireExchange): boolean => probe.responseMessages.some(({ message }) => message.result !== undefined);

/** The proof that probe-waited-for guards something: an unanswered probe, and an initialize after it. */
export const probeWaitedForProof: DoctoredProof = {
  check: PROBE_WAITED_FOR,
  unmet: true,
  how: 'the first line is an unanswered server/discover, an initialize read after it',
  doctor: (e) => {
    const [first, ...rest] = e.exchanges;
    if (first === undefined) return e;
    const line = (seq: number, method: string) => ({ ...first, seq, notes: [], responseMessages: [], requestMessages: [{ jsonrpc: '2.0' as const, id: 900 + seq, method, params: {} }] });
    return { ...e, exchanges: [line(first.seq - 0.6, 'server/discover'), line(first.seq - 0.3, 'initialize'), first, ...rest] };
  },
};

/** A stdio scenario that does not judge the probe itself, with probe-waited-for (and its proof) added at 2026-07-28. */
export function waitingForTheProbe(scenario: Scenario): Scenario {
  if (!scenario.revisions.some(isModern)) return scenario;
  return {
    ...scenario,
    judge: (evidence) => [...probeWaitedFor(evidence), ...scenario.judge(evidence)],
    doctored: [...(scenario.doctored ?? []), probeWaitedForProof],
  };
}
