// cancellation/silent-server: the server answers the handshake, then never answers the tool call at all (no response,
// no stream, no progress: a hung server or gateway). Implementations SHOULD establish timeouts for all sent requests
// (Lifecycle › Timeouts, 2025-03-26 on): a client with no timeout waits for ever, and its caller with it.
//
// The bound comes from the time policy and from what the client declares. A client that applies a per-request timeout
// it is given (feature `request-timeout`) is given a short one and judged on it: cheap, whatever its own default. One
// that declares none is called with no timeout and judged on the contract's own bound on an operation
// (time.ms.operation) and a reaction time: a call still unsettled past that is the client's failure (no timeout it
// could have that the harness would wait out), never "could not judge". Its lateness, measured, is judged at once when
// no load explains it (deadlines.ts).
import type { TimePolicy } from '../../config/time.ts';
import { L_AND_M } from '../../protocol/revisions.ts';
import { slowResponses } from '../../servers/personalities/slow-responses.ts';
import type { WireExchange } from '../../servers/wire-record.ts';
import { clientCompleted, precondition } from '../checks.ts';
import { checkInTime, rejectedInTime } from '../deadlines.ts';
import { describeOutcome, inFlightMs, outcomeOf, Watched } from '../outcome.ts';
import { defineScenario, type Evidence } from '../scenario.ts';
import { timeouts } from '../spec.ts';
import { carrying, label } from '../wire.ts';

const TOOL = 'echo';

/** The per-request timeout a client that takes one is given: short, yet long enough that a starved client has sent the call. */
const givenTimeoutMs = (time: TimePolicy): number => Math.round(time.ms.quiet * 1.5);

/**
 * The bound the call is judged on: the timeout given and a reaction time; with none given, the contract's bound on an
 * operation and a reaction time. The script watches a further two reaction times, so lateness past it is measured.
 */
export function silentBounds(time: TimePolicy, given: boolean) {
  const timeoutMs = given ? givenTimeoutMs(time) : undefined;
  const settleMs = (timeoutMs ?? time.ms.operation) + time.ms.react;
  return { timeoutMs, settleMs, watchMs: settleMs + 2 * time.ms.react };
}

/** The tool call the server held unanswered. */
const heldCall = (evidence: Evidence): WireExchange | undefined => carrying(evidence.exchanges, 'tools/call').find((x) => x.notes.includes('slowed') || (evidence.stdio !== undefined && x.responseMessages.length === 0));

export const silentServer = defineScenario({
  id: 'cancellation/silent-server',
  title: 'A server that never answers a call: the client’s request timeout (the one it is given, or with none its own) settles the call',
  revisions: L_AND_M,
  requires: [],
  optional: ['request-timeout'],
  source: {
    spec: timeouts('2025-11-25', 'implementations SHOULD establish timeouts for all sent requests, to prevent hung connections and resource exhaustion', 'SHOULD'),
    seed: 'issue 28 (a client with no request timeout waited for ever on a silent server)',
  },
  setup(_revision, time) {
    // Held past every bound of the case: within it the server never answers (the server's close ends the hold).
    return { server: { personalities: [slowResponses({ method: 'tools/call', ms: inFlightMs(time) })] }, state: undefined };
  },
  async run({ connect, features, observe, time }) {
    const client = await connect();
    const given = features.includes('request-timeout');
    const { timeoutMs, watchMs } = silentBounds(time, given);
    observe('timeoutGiven', given);
    const issuedAt = performance.now();
    const call = new Watched(client.callTool(TOOL, { text: 'hello' }, timeoutMs === undefined ? undefined : { timeoutMs }));
    await call.within(watchMs);
    observe('call', call.since(issuedAt));
  },
  judge(evidence) {
    const { revision, time } = evidence;
    const given = evidence.observed.timeoutGiven === true;
    const { timeoutMs, settleMs } = silentBounds(time, given);
    const call = outcomeOf(evidence, 'call');
    const held = heldCall(evidence);
    const rule = timeouts(revision, 'implementations SHOULD establish timeouts for all sent requests: a call a server never answers is given up (it rejects), so no caller hangs', 'SHOULD');
    const bound = timeoutMs !== undefined ? `the ${timeoutMs} ms timeout it was given and a reaction time` : `the contract's ${time.ms.operation} ms bound on an operation and a reaction time (the client takes no timeout, feature request-timeout, so its own is judged)`;
    const held_ = rejectedInTime(call, settleMs);
    const lateByMs = call !== undefined && held_ === 'late' ? call.afterMs - settleMs : undefined;
    return [
      precondition(
        'call-held',
        rule,
        call !== undefined && held !== undefined,
        call === undefined ? 'the script did not get to call the tool' : held === undefined ? 'the tool call never reached the server (nothing was held unanswered)' : `the server held ${label(held)} unanswered`,
        held ? [held] : [],
      ),
      clientCompleted(evidence, rule),
      checkInTime(
        time,
        'call-gives-up',
        rule,
        held_,
        `${describeOutcome(call, 'the call the server never answered')}; expected it to reject within ${settleMs} ms (${bound})`,
        held ? [held] : [],
        lateByMs,
      ),
    ];
  },
  doctored: [
    {
      check: 'call-held',
      unmet: true,
      how: 'the tool call never reached the server',
      doctor: (e: Evidence) => ({ ...e, exchanges: e.exchanges.filter((x) => !x.requestMessages.some((m) => m.method === 'tools/call')) }),
    },
  ],
});
