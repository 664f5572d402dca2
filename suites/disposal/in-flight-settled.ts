import { isModern, L_AND_M } from '../../protocol/revisions.ts';
import { clientCompleted, precondition } from '../checks.ts';
import { describeOutcome, handlerAborted, holdsWithin, inFlightMs, outcomeOf, runWithin, startCall, type Outcome } from '../outcome.ts';
import { checkInTime, rejectedInTime } from '../deadlines.ts';
import { defineScenario, type Evidence } from '../scenario.ts';
import { cancelOnTheWire, handlerSeesCancel, shutdown, shutdownFor } from '../spec.ts';
import { toolCallExchanges, wireCancelOf } from '../wire.ts';
import { awaitSessionKeptForCall, closeUnderCall } from './support.ts';

export const inFlightSettled = defineScenario({
  id: 'disposal/in-flight-settled',
  title: 'Closing with a call in flight settles that call promptly (rejects), cancels it on the wire (legacy: notification; 2026-07-28: stream closed), and the server’s handler sees the abort',
  revisions: L_AND_M,
  requires: ['cancellation'],
  source: { spec: shutdown('2025-06-18', 'closing ends every call in flight: it settles, and is cancelled on the wire', 'SHOULD') },
  async run({ connect, bounded, wire, observe, revision, time }) {
    const client = await connect();
    const call = await startCall(wire.fixtures, bounded, client.callTool('slow', { ms: inFlightMs(time) }), 'slow', 'the slow call');
    const closedAt = performance.now();
    const closeCalledAt = wire.record.now();
    observe('closeCalledAt', closeCalledAt);
    const closing = bounded(client.close(), 'close');
    closing.catch(() => {});
    await call.within(time.ms.react);
    observe('call', call.since(closedAt));
    await closing;
    // The cancel on the wire and its effect on the handler: event-driven, bounded for a client that never cancels.
    await Promise.all([
      holdsWithin(wire.record, (record) => wireCancelOf(revision, record.exchanges, 'slow').done, 'the call to be cancelled on the wire', time.ms.react),
      runWithin(wire.fixtures, (run) => run.tool === 'slow' && run.abortedAt !== undefined, 'the slow handler to see the abort', time.ms.react),
    ]);
    // A close that closed nothing under the call (a session the call holds): the judge needs to see the session end once the call settles.
    await awaitSessionKeptForCall(wire.record, revision, 'slow', closeCalledAt, time);
  },
  judge(evidence) {
    const shutdown = shutdownFor(evidence);
    const { revision } = evidence;
    const call = outcomeOf(evidence, 'call');
    const wire = wireCancelOf(revision, evidence.exchanges, 'slow');
    const slow = toolCallExchanges(evidence.exchanges, 'slow')[0];
    const run = evidence.toolRuns.find((r) => r.tool === 'slow');
    const promptly = evidence.time.ms.react;
    // A session the call holds past close() (reference-counted, or a session per call with no close): nothing closed under the call.
    const kept = closeUnderCall(evidence, revision, 'slow', evidence.observed.closeCalledAt as number | undefined);
    return [
      precondition(
        'call-in-flight',
        shutdown(revision, 'closing ends every call in flight', 'SHOULD'),
        call !== undefined && run !== undefined && !kept.keptForTheCall,
        call === undefined
          ? 'the script did not reach close() with the slow call running on the server'
          : kept.keptForTheCall
            ? kept.detail
            : 'the slow call was running on the server when the client closed',
        slow ? [slow] : [],
        call !== undefined && kept.keptForTheCall ? { by: 'shape' } : {},
      ),
      clientCompleted(evidence, shutdown(revision, 'the client closes a connection with a call in flight', 'MUST')),
      checkInTime(
        evidence.time,
        'call-settled',
        shutdown(revision, 'a call in flight when its connection closes can never be answered: it settles (rejects) at once', 'SHOULD'),
        rejectedInTime(call, promptly),
        `${describeOutcome(call, 'the call in flight')}; expected a rejection within ${promptly} ms of calling close()`,
        slow ? [slow] : [],
      ),
      checkInTime(evidence.time, 'cancelled-on-the-wire', cancelOnTheWire(revision, 'SHOULD', evidence.stdio !== undefined), wire.inTime, wire.detail, wire.exchanges),
      // Over stdio the server's own shutdown (stdin closed) aborts what runs, cancel or not: only HTTP tells them apart.
      ...(evidence.stdio !== undefined ? [] : [handlerAborted(evidence.time, handlerSeesCancel(revision), run, slow, isModern(revision) ? 'its response stream stayed open' : 'no accepted notifications/cancelled reached the server')]),
    ];
  },
  doctored: [
    {
      check: 'call-settled',
      how: 'the call still pending after close',
      doctor: (e: Evidence) => ({ ...e, observed: { ...e.observed, call: { state: 'pending', afterMs: e.time.ms.react } satisfies Outcome } }),
    },
    {
      check: 'call-in-flight',
      unmet: true,
      how: 'the script stopped before close() (the slow call never reached its handler)',
      doctor: (e: Evidence) => ({ ...e, observed: { ...e.observed, call: undefined } }),
    },
  ],
});
