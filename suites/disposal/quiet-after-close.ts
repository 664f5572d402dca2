import { isStreamable, L_AND_M } from '../../protocol/revisions.ts';
import { delete405 } from '../../servers/personalities/delete-405.ts';
import type { Personality } from '../../servers/personality.ts';
import type { WireExchange } from '../../servers/wire-record.ts';
import { check, checkInTime, clientCompleted, precondition } from '../checks.ts';
import { holdsWithin, inFlightMs, ordinaryRejection, startCall } from '../outcome.ts';
import { defineScenario, type Evidence } from '../scenario.ts';
import { shutdown } from '../spec.ts';
import { after, labels, seqNow } from '../wire.ts';

/** What closing itself may send: the DELETE and the cancellation of calls in flight (judged by other scenarios). */
function closingTraffic(exchange: WireExchange): boolean {
  if (exchange.method === 'DELETE') return true;
  return exchange.method === 'POST' && exchange.requestMessages.length > 0 && exchange.requestMessages.every((m) => m.method === 'notifications/cancelled');
}

/** Exchanges that began after close() was called and are not closing traffic. */
function sentAfterClose(exchanges: readonly WireExchange[], closeFromSeq: number | undefined): WireExchange[] {
  return after(exchanges, closeFromSeq).filter((exchange) => !closingTraffic(exchange));
}

export const quietAfterClose = defineScenario({
  id: 'disposal/quiet-after-close',
  title: 'After close the server receives nothing more from that client (no reconnecting GET, no retries) and none of its connections stays open',
  revisions: L_AND_M,
  requires: [],
  source: { spec: shutdown('2025-06-18', 'over HTTP, shutdown is closing the connections', 'SHOULD') },
  setup(revision) {
    const personalities: Personality[] = [];
    // A server that keeps its sessions: the DELETE does not end the streams for the client, and a 405 must not send it elsewhere.
    if (isStreamable(revision)) personalities.push(delete405());
    return { server: { personalities }, state: undefined };
  },
  async run({ connect, bounded, server, observe, time }) {
    const client = await connect();
    await bounded(client.listTools(), 'tools/list');
    // A call in flight (its response stream open) when the client closes.
    await startCall(server.fixtures, bounded, client.callTool('slow', { ms: inFlightMs(time) }), 'slow', 'the slow call');
    const closeFromSeq = seqNow(server.record);
    observe('closeFromSeq', closeFromSeq);
    try {
      await bounded(client.close(), 'close');
    } catch (error) {
      // Whether closing may fail on a DELETE 405 is disposal/delete-issued-session's question, not this one's; a hang
      // or a broken contract is no such answer (thrown on: the client's error).
      observe('closeError', ordinaryRejection(error));
    }
    await Promise.all([
      // The quiet window is the check: it ends early only when something arrives that should not.
      holdsWithin(server.record, (record) => sentAfterClose(record.exchanges, closeFromSeq).length > 0, 'anything sent after close', time.ms.quiet),
      // Its connections ending is the client's reaction to close(): as long as a client takes to react, ending early.
      holdsWithin(server.record, (record) => record.exchanges.every((exchange) => exchange.endedBy !== undefined), 'every exchange to end', time.ms.react),
    ]);
  },
  judge(evidence) {
    const { revision } = evidence;
    const closeFromSeq = evidence.observed.closeFromSeq as number | undefined;
    const late = sentAfterClose(evidence.exchanges, closeFromSeq);
    const open = evidence.exchanges.filter((exchange) => exchange.endedBy === undefined);
    const { quiet, react } = evidence.time.ms;
    return [
      precondition(
        'close-reached',
        shutdown(revision, 'after shutdown nothing more is sent', 'SHOULD'),
        closeFromSeq !== undefined,
        closeFromSeq === undefined ? 'the script did not reach close() with the slow call running on the server' : 'the client closed with the slow call running on the server',
      ),
      clientCompleted(evidence, shutdown(revision, 'the client closes a connection with calls in flight', 'MUST')),
      check(
        'nothing-sent-after-close',
        shutdown(revision, 'after shutdown nothing more is sent (no reconnecting GET, no retry); only the DELETE and the cancellation of calls in flight belong to closing', 'SHOULD'),
        late.length === 0,
        late.length === 0 ? `nothing but closing traffic arrived from close() until ${quiet} ms after it resolved` : `sent after close(): ${labels(late)}`,
        late,
      ),
      checkInTime(
        evidence.time,
        'connections-closed',
        shutdown(revision, 'shutdown is indicated by closing the HTTP connections: none stays open', 'SHOULD'),
        open.length === 0 || 'late',
        open.length === 0 ? 'every exchange had ended after close() resolved' : `still open ${react} ms after close() resolved: ${labels(open)}`,
        open,
      ),
    ];
  },
  doctored: [
    {
      check: 'close-reached',
      unmet: true,
      how: 'the script stopped before close()',
      doctor: (e: Evidence) => ({ ...e, observed: { ...e.observed, closeFromSeq: undefined } }),
    },
  ],
});
