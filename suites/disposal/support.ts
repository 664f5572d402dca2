// What a close() with a call in flight did to the session that call was using, read from the wire: the premise of the
// scenarios that close with a call in flight (in-flight-settled, quiet-after-close and their twins). A client whose
// session outlives close() while a call holds it (reference-counted, as pydantic-ai's MCPToolset; a session per call
// and no close at all, as langchain-mcp-adapters) closes nothing under the call: the session ends once the call has
// settled. The rule about closing with calls in flight does not reach that shape; a session never ended is a leak.
import { isModern, type Revision } from '../../protocol/revisions.ts';
import type { ExchangeRecord, WireExchange } from '../../servers/wire-record.ts';
import { StdioRecord } from '../../servers/stdio/record.ts';
import type { TimePolicy } from '../../config/time.ts';
import { holdsWithin, inFlightMs } from '../outcome.ts';
import type { Evidence, StdioEvidence } from '../scenario.ts';
import { answerOf, cancelNotifications, idOf, isStdioLine, label, requests, sameSession, sessionEndedAt, sessionKey, toolCallExchanges } from '../wire.ts';

/** The wire as a judge or a script sees it: the exchanges and, over stdio, the processes. */
type WireView = Pick<Evidence, 'exchanges' | 'stdio'>;

/** The live record as a `WireView` (sessionEndedAt reads only the processes of its stdio evidence). */
export function viewOf(record: ExchangeRecord): WireView {
  return { exchanges: record.exchanges, ...(record instanceof StdioRecord ? { stdio: { processes: record.processes } as unknown as StdioEvidence } : {}) };
}

export interface CloseUnderCall {
  /** The call's session (`sessionKey`), when the call reached the server. */
  session?: string;
  /** When the server answered the call, if it did. */
  answeredAt?: number;
  /** What closing did to that session while the call was in flight (before its answer), if anything. */
  closedUnder?: string;
  /** When the client ended that session, if it did (`sessionEndedAt`; 2026-07-28 HTTP: the call's own exchange ended). */
  endedAt?: number;
  /**
   * The session outlived close(): nothing of it was closed while the call was in flight, and the client ended it once the
   * call had been answered. The rule about closing with calls in flight does not reach this client.
   */
  keptForTheCall: boolean;
  /** The wire's account, for a check's detail. */
  detail: string;
}

/**
 * What the client's close() (called at `closeAt`, record time; before it was known, the call's start) did to the session
 * of the first tools/call of `tool`: a DELETE of it, a hang-up of one of its streams (HTTP+SSE: the session's stream),
 * its stdin closed, or a notifications/cancelled naming the call, before the call's answer.
 */
export function closeUnderCall(view: WireView, revision: Revision, tool: string, closeAt: number | undefined): CloseUnderCall {
  const { exchanges } = view;
  const call = toolCallExchanges(exchanges, tool)[0];
  if (call === undefined) return { keptForTheCall: false, detail: `no tools/call of ${tool} reached the server` };
  const session = sessionKey(exchanges, call);
  const request = requests([call], 'tools/call')[0];
  const answeredAt = request === undefined ? undefined : answerOf(exchanges, request)?.at;
  const from = closeAt ?? call.startedAt;
  const before = answeredAt ?? Infinity;
  // 2026-07-28 over HTTP a request is its own session: it ends with its exchange.
  const ownSession = session === `exchange #${call.seq}`;
  const endedAt = sessionEndedAt(view, session) ?? (ownSession && call.endedBy !== undefined ? call.endedAt : undefined);
  const id = idOf(call, 'tools/call');
  const modernHttp = isModern(revision) && !isStdioLine(call);
  const cancel = cancelNotifications(exchanges).find(
    (n) => n.requestId === id && n.exchange.startedAt >= from && n.exchange.startedAt < before && (modernHttp || sameSession(exchanges, n.exchange, call)),
  );
  const hungUp = exchanges.find(
    (x) => x.endedBy === 'client' && x.endedAt !== undefined && x.endedAt >= from && x.endedAt < before && sessionKey(exchanges, x) === session,
  );
  const closedUnder =
    endedAt !== undefined && endedAt < before
      ? `the client ended the call’s session (${session}) ${Math.round(endedAt)} ms into the record${answeredAt === undefined ? ', and the call was never answered' : ', before its answer'}`
      : hungUp !== undefined
        ? `the client hung up ${label(hungUp)} of the call’s session (${session}) while the call was in flight`
        : cancel !== undefined
          ? `the client cancelled the call (${label(cancel.exchange)}) while it was in flight`
          : undefined;
  if (closedUnder !== undefined) return { session, answeredAt, closedUnder, endedAt, keptForTheCall: false, detail: closedUnder };
  const keptForTheCall = answeredAt !== undefined && endedAt !== undefined;
  const detail =
    answeredAt === undefined
      ? `close() ended nothing of the call’s session (${session}), and the call was never answered`
      : endedAt === undefined
        ? `close() ended nothing of the call’s session (${session}); the call was answered ${Math.round(answeredAt)} ms into the record, and the client never ended the session`
        : `close() ended nothing of the call’s session (${session}) while the call was in flight; the client ended the session once the call was answered (${Math.round(answeredAt)} ms, ended at ${Math.round(endedAt)} ms into the record): a session kept while a call holds it (reference-counted, or a session per call), not a close with a call in flight`;
  return { session, answeredAt, endedAt, keptForTheCall, detail };
}

/**
 * After close(): when nothing of the call's session was closed under it and the call is not yet answered, waits for its
 * answer (the slow handler runs to its end: bounded by its length) and then, as long as a client takes to react, for the
 * client to end the session. The judge then tells a session kept for the call (ended once it settled) from one left
 * open; a client that closed something under the call waits no longer.
 */
export async function awaitSessionKeptForCall(record: ExchangeRecord, revision: Revision, tool: string, closeAt: number, time: TimePolicy): Promise<void> {
  const now = () => closeUnderCall(viewOf(record), revision, tool, closeAt);
  const first = now();
  if (first.session === undefined || first.closedUnder !== undefined || (first.answeredAt !== undefined && first.endedAt !== undefined)) return;
  const settled = (c: CloseUnderCall) => c.closedUnder !== undefined || c.answeredAt !== undefined;
  const answered = await holdsWithin(record, () => settled(now()), 'the call to be answered', inFlightMs(time) + time.ms.react);
  if (!answered || now().closedUnder !== undefined) return;
  await holdsWithin(record, () => now().endedAt !== undefined, 'the call’s session to end once it was answered', time.ms.react);
}
