import type { TimePolicy } from '../../config/time.ts';
import { isHttpSse, isModern, L_AND_M } from '../../protocol/revisions.ts';
import { checkIf, clientCompleted, precondition } from '../checks.ts';
import { describeOutcome, holdsWithin, inFlightMs, outcomeOf, Watched } from '../outcome.ts';
import { checkInTime, rejectedInTime } from '../deadlines.ts';
import { defineScenario, type Evidence } from '../scenario.ts';
import { cancellation, stdio, timeouts } from '../spec.ts';
import { label, labels, toolCallExchanges, wireCancelOf } from '../wire.ts';

/** The per-request timeout the call is given: long enough that even a CPU-starved client has sent the call before it times out (a bound, scaled with the policy). */
const timeoutOf = (time: TimePolicy): number => Math.round(time.ms.quiet * 1.5);

export const timeoutCancels = defineScenario({
  id: 'cancellation/timeout-cancels',
  title: 'A request timeout cancels on the wire (legacy: notifications/cancelled; 2026-07-28: the stream closed) and stops waiting',
  revisions: L_AND_M,
  requires: ['request-timeout'],
  source: { spec: timeouts('2025-06-18', 'on a timeout the sender SHOULD issue a cancellation notification and stop waiting for a response', 'SHOULD') },
  async run({ connect, wire, observe, revision, time }) {
    const client = await connect();
    const timeoutMs = timeoutOf(time);
    const issuedAt = performance.now();
    const call = new Watched(client.callTool('slow', { ms: inFlightMs(time) }, { timeoutMs }));
    await call.within(timeoutMs + time.ms.react);
    // Measured from the moment the timeout should have fired.
    observe('call', call.since(issuedAt + timeoutMs));
    await holdsWithin(wire.record, (record) => wireCancelOf(revision, record.exchanges, 'slow').done, 'the timed-out call to be cancelled on the wire', time.ms.react);
  },
  judge(evidence) {
    const { revision } = evidence;
    const timeoutMs = timeoutOf(evidence.time);
    const call = outcomeOf(evidence, 'call');
    const wire = wireCancelOf(revision, evidence.exchanges, 'slow');
    const calls = toolCallExchanges(evidence.exchanges, 'slow');
    const slow = calls[0];
    return [
      precondition(
        'call-reached-server',
        timeouts(revision, 'on a timeout the sender cancels the request and stops waiting', 'SHOULD'),
        call !== undefined && slow !== undefined,
        call === undefined
          ? 'the script did not get to issue the call'
          : slow === undefined
            ? `the tools/call never reached the server before its ${timeoutMs} ms timeout: there was nothing on the wire to cancel`
            : `${label(slow)} reached the server before its ${timeoutMs} ms timeout`,
        slow ? [slow] : [],
      ),
      clientCompleted(evidence, timeouts(revision, 'a request with a timeout', 'MUST')),
      checkInTime(
        evidence.time,
        'stops-waiting',
        timeouts(revision, 'when the timeout passes without a response, the sender stops waiting for it', 'SHOULD'),
        rejectedInTime(call, evidence.time.ms.react),
        `${describeOutcome(call, `the call with a ${timeoutMs} ms timeout`)}${call?.state === 'pending' ? '' : ' past its timeout'} (the tool answers after ${inFlightMs(evidence.time)} ms)`,
        slow ? [slow] : [],
      ),
      checkInTime(
        evidence.time,
        'cancelled-on-the-wire',
        isHttpSse(revision)
          ? cancellation(revision, 'cancellation-flow', 'Cancellation Flow and Lifecycle › Error Handling (timeouts): on a timeout the sender SHOULD issue a cancellation notification for the request', 'SHOULD')
          : isModern(revision) && evidence.stdio !== undefined
            ? stdio(revision, 'on a timeout the sender SHOULD cancel: over stdio, a notifications/cancelled referencing the request (there is no stream to close)', 'SHOULD', 'cancellation')
            : timeouts(
                revision,
                isModern(revision) ? 'on a timeout the sender SHOULD cancel: on Streamable HTTP, close the response stream' : 'on a timeout the sender SHOULD issue a cancellation notification for the request',
                'SHOULD',
              ),
        wire.inTime,
        wire.detail,
        wire.exchanges,
      ),
      // A timeout gives up on the request; sending it again runs the tool again (real clients retry timed-out calls).
      checkIf(
        slow === undefined ? 'the call never reached the server' : undefined,
        'not-sent-again',
        timeouts(revision, 'on a timeout the sender cancels the request and stops waiting for it: it does not send it again', 'SHOULD'),
        () => calls.length === 1,
        () => (calls.length === 1 ? `${label(slow!)} was sent once and not again after its timeout` : `the timed-out call was sent ${calls.length} times: ${labels(calls)}`),
        calls,
      ),
    ];
  },
  doctored: [
    {
      check: 'call-reached-server',
      unmet: true,
      how: 'the client timed out before its tools/call reached the server',
      doctor: (e: Evidence) => ({ ...e, exchanges: e.exchanges.filter((x) => !x.requestMessages.some((m) => m.method === 'tools/call' || m.method === 'notifications/cancelled')) }),
    },
    {
      check: 'not-sent-again',
      how: 'the timed-out call sent a second time, with a new id',
      doctor: (e: Evidence) => {
        const first = toolCallExchanges(e.exchanges, 'slow')[0];
        if (first === undefined) return e;
        const seq = Math.max(...e.exchanges.map((x) => x.seq)) + 1;
        const again = { ...first, seq, requestMessages: first.requestMessages.map((m) => (m.method === 'tools/call' ? { ...m, id: `again-${String(m.id)}` } : m)) };
        return { ...e, exchanges: [...e.exchanges, again] };
      },
    },
  ],
});
