import { check, clientCompleted } from '../checks.ts';
import { defineScenario, type Evidence } from '../scenario.ts';
import {
  handlerAborted,
  cancelOnTheWire,
  describeSettlement,
  holdsWithin,
  isModern,
  L_AND_M,
  PROMPTLY_MS,
  rejectedPromptly,
  runWithin,
  settlementOf,
  shutdown,
  startCall,
  toolCallExchanges,
  WIRE_EFFECT_MS,
  wireCancelOf,
  type Settlement,
} from './support.ts';

export const inFlightSettled = defineScenario({
  id: 'disposal/in-flight-settled',
  title: 'Closing with a call in flight settles that call promptly (rejects), cancels it on the wire (legacy: notification; 2026-07-28: stream closed), and the server’s handler sees the abort',
  revisions: L_AND_M,
  requires: ['cancellation'],
  source: { spec: shutdown('2025-06-18', 'closing ends every call in flight: it settles, and is cancelled on the wire', 'SHOULD') },
  async run({ connect, bounded, server, observe, revision }) {
    const client = await connect();
    const call = await startCall(server.fixtures, bounded, client.callTool('slow', { ms: 10_000 }), 'slow', 'the slow call');
    const closedAt = performance.now();
    const closing = bounded(client.close(), 'close');
    closing.catch(() => {});
    await call.within(PROMPTLY_MS);
    observe('call', call.since(closedAt));
    await closing;
    // The cancel on the wire and its effect on the handler: event-driven, bounded for a client that never cancels.
    await Promise.all([
      holdsWithin(server.record, (record) => wireCancelOf(revision, record.exchanges, 'slow').done, 'the call to be cancelled on the wire', WIRE_EFFECT_MS),
      runWithin(server.fixtures, (run) => run.tool === 'slow' && run.abortedAt !== undefined, 'the slow handler to see the abort', WIRE_EFFECT_MS),
    ]);
  },
  judge(evidence) {
    const { revision } = evidence;
    const call = settlementOf(evidence, 'call');
    const wire = wireCancelOf(revision, evidence.exchanges, 'slow');
    const slow = toolCallExchanges(evidence.exchanges, 'slow')[0];
    const run = evidence.toolRuns.find((r) => r.tool === 'slow');
    const onTheWire = cancelOnTheWire(revision);
    return [
      clientCompleted(evidence, shutdown(revision, 'the client closes a connection with a call in flight', 'MUST')),
      check(
        'call-settled',
        shutdown(revision, 'a call in flight when its connection closes can never be answered: it settles (rejects) at once', 'SHOULD'),
        rejectedPromptly(call),
        `${describeSettlement(call, 'the call in flight')}; expected a rejection within ${PROMPTLY_MS} ms of calling close()`,
        slow ? [slow] : [],
      ),
      check('cancelled-on-the-wire', onTheWire, wire.ok, wire.detail, wire.exchanges),
      handlerAborted({ ...onTheWire, section: `${onTheWire.section} (so the server’s handler sees the cancellation)` }, run, slow, `${isModern(revision) ? 'its response stream stayed open' : 'no accepted notifications/cancelled reached the server'}`),
    ];
  },
  doctored: [
    {
      check: 'call-settled',
      how: 'the call still pending after close',
      doctor: (e: Evidence) => ({ ...e, observed: { ...e.observed, call: { outcome: 'pending' } satisfies Settlement } }),
    },
  ],
});
