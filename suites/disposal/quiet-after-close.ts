import { isModern, isStreamable, L_AND_M } from '../../protocol/revisions.ts';
import { delete405 } from '../../servers/personalities/delete-405.ts';
import type { Personality } from '../../servers/personality.ts';
import { StdioRecord } from '../../servers/stdio/record.ts';
import type { ExchangeRecord, WireExchange } from '../../servers/wire-record.ts';
import { check, clientCompleted, precondition } from '../checks.ts';
import { holdsWithin, inFlightMs, ordinaryRejection, startCall } from '../outcome.ts';
import { checkInTime } from '../deadlines.ts';
import { defineScenario, type Evidence } from '../scenario.ts';
import { shutdown, shutdownFor } from '../spec.ts';
import { after, callsTool, idOf, labels, seqNow } from '../wire.ts';
import { awaitSessionKeptForCall, closeUnderCall } from './support.ts';

/** What closing itself may send: the DELETE and the cancellation of calls in flight (judged by other scenarios). */
function closingTraffic(exchange: WireExchange): boolean {
  if (exchange.method === 'DELETE') return true;
  return (exchange.method === 'POST' || exchange.method === 'STDIN') && exchange.requestMessages.length > 0 && exchange.requestMessages.every((m) => m.method === 'notifications/cancelled');
}

/** Over HTTP every exchange has ended; over stdio (no connections but the process's pipes) every process the client launched has. */
function everythingEnded(record: ExchangeRecord): boolean {
  return record instanceof StdioRecord ? record.processes.every((p) => p.exit !== undefined) : record.exchanges.every((exchange) => exchange.endedBy !== undefined);
}

/** Exchanges that began after close() was called and are not closing traffic. */
function sentAfterClose(exchanges: readonly WireExchange[], closeFromSeq: number | undefined): WireExchange[] {
  return after(exchanges, closeFromSeq).filter((exchange) => !closingTraffic(exchange));
}

/**
 * The record as a client would leave it whose close() ended nothing under the call in flight and that never ended the
 * session after the call was answered (a kept session leaked): closing traffic gone, nothing hung up, the call answered
 * just after close() (2026-07-28 over HTTP, where the call's exchange is its session: left open), stdin never closed.
 */
export function sessionLeftOpenForGood(e: Evidence): Evidence {
  const closeCalledAt = e.observed.closeCalledAt as number;
  const modernHttp = isModern(e.revision) && e.stdio === undefined;
  const exchanges = e.exchanges
    .filter((x) => x.startedAt < closeCalledAt || !closingTraffic(x))
    .map((x): WireExchange => {
      if (!callsTool(x, 'slow')) return x.endedBy === 'client' && (x.endedAt ?? 0) >= closeCalledAt ? { ...x, endedBy: undefined, endedAt: undefined } : x;
      const id = idOf(x, 'tools/call')!;
      if (modernHttp) return { ...x, endedBy: undefined, endedAt: undefined, responseMessages: [] };
      const answer = { message: { jsonrpc: '2.0' as const, id, result: { content: [{ type: 'text' as const, text: 'done' }] } }, at: closeCalledAt + 1 };
      return { ...x, endedBy: 'server', endedAt: closeCalledAt + 1, responseMessages: [...x.responseMessages.filter((m) => m.message.id !== id), answer] };
    });
  const stdio = e.stdio && { ...e.stdio, processes: e.stdio.processes.map(({ stdinEofAt: _eof, exit: _exit, ...p }) => ({ ...p, alive: true })) };
  return { ...e, exchanges, ...(stdio ? { stdio } : {}) };
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
  async run(context) {
    // context.stdio is read only over stdio (over HTTP reading it throws).
    const { connect, bounded, wire, observe, time, revision } = context;
    const client = await connect();
    await bounded(client.listTools(), 'tools/list');
    // A call in flight (its response stream open) when the client closes.
    await startCall(wire.fixtures, bounded, client.callTool('slow', { ms: inFlightMs(time) }), 'slow', 'the slow call');
    const closeFromSeq = seqNow(wire.record);
    observe('closeFromSeq', closeFromSeq);
    const closeCalledAt = wire.record.now();
    observe('closeCalledAt', closeCalledAt);
    // Over stdio, the client's processes running as close() is called (found by their environment): one found later
    // that was not among them was launched after close, even if it was too slow to start to report itself.
    if (wire.record instanceof StdioRecord) observe('runningAtClose', context.stdio.survivors());
    try {
      await bounded(client.close(), 'close');
    } catch (error) {
      // Whether closing may fail on a DELETE 405 is disposal/delete-issued-session's question, not this one's; a hang
      // or a broken contract is no such answer (thrown on: the client's error).
      observe('closeError', ordinaryRejection(error));
    }
    await Promise.all([
      // The quiet window is the check: it ends early only when something arrives that should not.
      holdsWithin(wire.record, (record) => sentAfterClose(record.exchanges, closeFromSeq).length > 0, 'anything sent after close', time.ms.quiet),
      // Its connections ending is the client's reaction to close(): as long as a client takes to react, ending early.
      holdsWithin(wire.record, everythingEnded, 'every exchange to end', time.ms.react),
    ]);
    // A close that closed nothing under the call (a session the call holds): the judge needs to see the session end once the call settles.
    await awaitSessionKeptForCall(wire.record, revision, 'slow', closeCalledAt, time);
    if (!everythingEnded(wire.record)) await holdsWithin(wire.record, everythingEnded, 'every exchange to end', time.ms.react);
  },
  judge(evidence) {
    const { revision } = evidence;
    const closeFromSeq = evidence.observed.closeFromSeq as number | undefined;
    const late = sentAfterClose(evidence.exchanges, closeFromSeq);
    const overStdio = evidence.stdio !== undefined;
    const open = overStdio ? [] : evidence.exchanges.filter((exchange) => exchange.endedBy === undefined);
    // Over stdio, also the processes: one launched after close() is traffic of its own, and one still running (known
    // to the record, or found by its environment before it said hello) is a connection left open.
    const closeCalledAt = evidence.observed.closeCalledAt as number | undefined;
    const processes = evidence.stdio?.processes ?? [];
    const runningAtClose = new Set((evidence.observed.runningAtClose as number[] | undefined) ?? []);
    const known = new Set(processes.map((p) => p.pid));
    const reported = closeCalledAt === undefined ? [] : processes.filter((p) => p.connectedAt >= closeCalledAt && !runningAtClose.has(p.pid!));
    // A survivor unknown to the record may be a reported process that has not said its pid yet: only those beyond them count.
    const unreported = (evidence.stdio?.survivors ?? []).filter((pid) => !known.has(pid) && !runningAtClose.has(pid)).slice(reported.filter((p) => p.pid === undefined).length);
    const relaunched = closeCalledAt === undefined ? [] : [...reported.map((p) => `process ${p.index}`), ...unreported.map((pid) => `pid ${pid} (not yet reported)`)];
    const running = [
      ...processes.filter((p) => p.exit === undefined).map((p) => `process ${p.index} (pid ${p.pid ?? '?'})`),
      ...(evidence.stdio?.survivors ?? []).filter((pid) => !known.has(pid)).map((pid) => `pid ${pid} (not yet reported)`),
    ];
    const { quiet, react } = evidence.time.ms;
    // A session the call holds past close() (reference-counted, or a session per call with no close): nothing closed
    // under the call, and the session ended once it settled. One never ended is a connection left open for good.
    const kept = closeUnderCall(evidence, revision, 'slow', closeCalledAt);
    // (Over stdio a process left running says so itself; 2026-07-28 HTTP has no session beyond the call's own exchange.)
    const neverEnded = !overStdio && !isModern(revision) && kept.closedUnder === undefined && kept.answeredAt !== undefined && kept.endedAt === undefined ? kept.session : undefined;
    return [
      precondition(
        'close-reached',
        shutdownFor(evidence)(revision, 'after shutdown nothing more is sent', 'SHOULD'),
        closeFromSeq !== undefined && !kept.keptForTheCall,
        closeFromSeq === undefined
          ? 'the script did not reach close() with the slow call running on the server'
          : kept.keptForTheCall
            ? kept.detail
            : 'the client closed with the slow call running on the server',
        [],
        closeFromSeq !== undefined && kept.keptForTheCall ? { by: 'shape' } : {},
      ),
      clientCompleted(evidence, shutdown(revision, 'the client closes a connection with calls in flight', 'MUST')),
      check(
        'nothing-sent-after-close',
        overStdio
          ? shutdownFor(evidence)(revision, 'the client ends the connection by closing the server’s stdin: nothing more is sent (no server launched again, no retry); only the cancellation of calls in flight belongs to closing', 'SHOULD')
          : shutdown(revision, 'after shutdown nothing more is sent (no reconnecting GET, no retry); only the DELETE and the cancellation of calls in flight belong to closing', 'SHOULD'),
        late.length === 0 && relaunched.length === 0,
        late.length === 0 && relaunched.length === 0
          ? `nothing but closing traffic arrived from close() until ${quiet} ms after it resolved`
          : [late.length > 0 ? `sent after close(): ${labels(late)}` : '', relaunched.length > 0 ? `launched after close(): ${relaunched.join(', ')}` : ''].filter(Boolean).join('; '),
        late,
      ),
      overStdio
        ? checkInTime(
            evidence.time,
            'connections-closed',
            shutdownFor(evidence)(revision, 'the client closes the server’s stdin and waits for it to exit: no process it launched runs on', 'SHOULD'),
            running.length === 0 || 'late',
            running.length === 0
              ? 'every process the client launched had exited after close() resolved'
              : `still running ${react} ms after close() resolved: ${running.join(', ')}`,
          )
        : checkInTime(
            evidence.time,
            'connections-closed',
            shutdown(revision, 'shutdown is indicated by closing the HTTP connections: none stays open', 'SHOULD'),
            // A session never ended is open for good: waiting longer would not end it.
            neverEnded !== undefined ? false : open.length === 0 || 'late',
            [
              open.length === 0 ? 'every exchange had ended after close() resolved' : `still open ${react} ms after close() resolved: ${labels(open)}`,
              neverEnded === undefined ? '' : `the session the call in flight held (${neverEnded}) was never ended: ${kept.detail}`,
            ]
              .filter(Boolean)
              .join('; '),
            open,
          ),
    ];
  },
  doctored: [
    {
      check: 'connections-closed',
      how: 'close() closed nothing under the call (no DELETE, no hang-up, no cancel, stdin left open), and once the call was answered the session was never ended (2026-07-28 over HTTP: the call’s stream left open)',
      doctor: sessionLeftOpenForGood,
    },
    {
      check: 'close-reached',
      unmet: true,
      how: 'the script stopped before close()',
      doctor: (e: Evidence) => ({ ...e, observed: { ...e.observed, closeFromSeq: undefined } }),
    },
  ],
});
