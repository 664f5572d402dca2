import { check, clientCompleted } from '../checks.ts';
import { defineScenario } from '../scenario.ts';
import {
  cancelOnTheWire,
  describeSettlement,
  holdsWithin,
  isModern,
  L_AND_M,
  PROMPTLY_MS,
  settlementOf,
  timeouts,
  toolCallExchanges,
  Watched,
  WIRE_EFFECT_MS,
  wireCancelOf,
} from './support.ts';

/** The per-request timeout the call is given. */
// Long enough that even a CPU-starved client has sent the call before it times out.
const TIMEOUT_MS = 300;

export const timeoutCancels = defineScenario({
  id: 'cancellation/timeout-cancels',
  title: 'A request timeout cancels on the wire (legacy: notifications/cancelled; 2026-07-28: the stream closed) and stops waiting',
  revisions: L_AND_M,
  requires: ['request-timeout'],
  source: { spec: timeouts('2025-06-18', 'on a timeout the sender SHOULD issue a cancellation notification and stop waiting for a response', 'SHOULD') },
  async run({ connect, server, observe, revision }) {
    const client = await connect();
    const issuedAt = performance.now();
    const call = new Watched(client.callTool('slow', { ms: 10_000 }, { timeoutMs: TIMEOUT_MS }));
    await call.within(TIMEOUT_MS + PROMPTLY_MS);
    // Measured from the moment the timeout should have fired.
    observe('call', call.since(issuedAt + TIMEOUT_MS));
    await holdsWithin(server.record, (record) => wireCancelOf(revision, record.exchanges, 'slow').done, 'the timed-out call to be cancelled on the wire', WIRE_EFFECT_MS);
  },
  judge(evidence) {
    const { revision } = evidence;
    const call = settlementOf(evidence, 'call');
    const wire = wireCancelOf(revision, evidence.exchanges, 'slow');
    const slow = toolCallExchanges(evidence.exchanges, 'slow')[0];
    return [
      clientCompleted(evidence, timeouts(revision, 'a request with a timeout', 'MUST')),
      check(
        'stops-waiting',
        timeouts(revision, 'when the timeout passes without a response, the sender stops waiting for it', 'SHOULD'),
        call?.outcome === 'rejected' && (call.afterMs ?? Infinity) <= PROMPTLY_MS,
        `${describeSettlement(call, `the call with a ${TIMEOUT_MS} ms timeout`)} past its timeout (the tool answers after 10 s)`,
        slow ? [slow] : [],
      ),
      check(
        'cancelled-on-the-wire',
        {
          ...timeouts(
            revision,
            isModern(revision) ? 'on a timeout the sender SHOULD cancel: on Streamable HTTP, close the response stream' : 'on a timeout the sender SHOULD issue a cancellation notification for the request',
            'SHOULD',
          ),
          ...(revision === '2024-11-05' ? { url: cancelOnTheWire(revision).url, section: `Lifecycle › Error Handling (timeouts) and ${cancelOnTheWire(revision).section}` } : {}),
        },
        wire.ok,
        wire.detail,
        wire.exchanges,
      ),
    ];
  },
});
