// What the wire record says, asked one way everywhere: which messages the client sent, which exchanges are MCP
// traffic, which session each belongs to, where each request was answered, and how a detail names an exchange.
// Judges read the record only through these (and a suite's own support.ts for what is truly that suite's).
import { HEADERS } from '../protocol/http.ts';
import { isModern, type Revision } from '../protocol/revisions.ts';
import { SSE_PATH } from '../servers/eras/http-sse.ts';
import { MCP_PATH } from '../servers/eras/streamable-http.ts';
import type { StdioExchange } from '../servers/stdio/record.ts';
import type { ExchangeRecord, JsonRpcMessage, SentMessage, ServerMessage, WireExchange } from '../servers/wire-record.ts';
import type { InTime } from './deadlines.ts';
import type { Evidence } from './scenario.ts';

/** Every JSON-RPC message the client sent, in arrival order, with its exchange. */
export function sentMessages(evidence: Evidence): SentMessage[] {
  return evidence.exchanges.flatMap((exchange) => exchange.requestMessages.map((message) => ({ message, exchange })));
}

export function isRequest(sent: SentMessage): boolean {
  return sent.message.method !== undefined && sent.message.id !== undefined;
}

/**
 * When the server wrote its result for the first `initialize` that succeeded, and the exchange that carried
 * that request. The answer may come on another exchange (HTTP+SSE answers on the GET stream), and an
 * earlier `initialize` may have been refused (a Streamable HTTP attempt before the HTTP+SSE fallback).
 */
export function initializeAnsweredAt(evidence: Evidence): { at: number; exchange: WireExchange } | undefined {
  for (const sent of sentMessages(evidence)) {
    if (sent.message.method !== 'initialize') continue;
    const answer = answerOf(evidence.exchanges, sent);
    if (answer?.message.result !== undefined) return { at: answer.at, exchange: sent.exchange };
  }
  return undefined;
}

/** Every JSON-RPC message the client sent in these exchanges, in arrival order. */
export function sent(exchanges: readonly WireExchange[]): SentMessage[] {
  return exchanges.flatMap((exchange) => exchange.requestMessages.map((message) => ({ message, exchange })));
}

/** Client requests (method and id) in arrival order, optionally of one method and, for tools/call, one tool. */
export function requests(exchanges: readonly WireExchange[], method?: string, tool?: string): SentMessage[] {
  return sent(exchanges)
    .filter(({ message }) => message.method !== undefined && message.id !== undefined && message.id !== null)
    .filter(({ message }) => method === undefined || message.method === method)
    .filter(({ message }) => tool === undefined || message.params?.['name'] === tool);
}

/** The exchanges carrying a message of `method`. */
export function carrying(exchanges: readonly WireExchange[], method: string): WireExchange[] {
  return exchanges.filter((exchange) => exchange.requestMessages.some((message) => message.method === method));
}

/** The exchange's request carries a message of `method`. */
export function carries(exchange: WireExchange, method: string): boolean {
  return exchange.requestMessages.some((message) => message.method === method);
}

/** The exchange's request carries a `tools/call` of this tool. */
export function callsTool(exchange: WireExchange, tool: string): boolean {
  return exchange.requestMessages.some((message) => message.method === 'tools/call' && message.params?.['name'] === tool);
}

/** The Mcp-Session-Id an exchange carried. */
export const sessionOf = (exchange: WireExchange): string | undefined => exchange.requestHeaders[HEADERS.session];

/** The exchanges a personality or front noted with `label`. */
export const noted = (exchanges: readonly WireExchange[], label: string): WireExchange[] => exchanges.filter((exchange) => exchange.notes.includes(label));

/** The exchanges with a seq above `afterSeq` (those that began after the moment the script recorded). */
export function after(exchanges: readonly WireExchange[], afterSeq: number | undefined): WireExchange[] {
  return afterSeq === undefined ? [] : exchanges.filter((exchange) => exchange.seq > afterSeq);
}

/** The number of exchanges the server has recorded: a marker for "what came after this moment". */
export function seqNow(record: ExchangeRecord): number {
  return record.exchanges.length;
}

/** The server's answer message to a request, on the connection that carried it (`answerOf`). */
export function answerTo(exchanges: readonly WireExchange[], request: SentMessage): JsonRpcMessage | undefined {
  return answerOf(exchanges, request)?.message;
}

/** When the server answered a request (`answerOf`); without an answer message, when the response head was written. */
export function answeredAt(exchanges: readonly WireExchange[], request: SentMessage): number | undefined {
  return answerOf(exchanges, request)?.at ?? request.exchange.headersAt;
}

/** A request of `method` was answered with a result. */
export function servedResult(exchanges: readonly WireExchange[], method: string): boolean {
  return requests(exchanges, method).some((request) => answerTo(exchanges, request)?.result !== undefined);
}

/** The result an `initialize` on this exchange got in its own response (JSON or SSE), if any. */
export function initializeResult(exchange: WireExchange): Record<string, unknown> | undefined {
  const request = exchange.requestMessages.find((message) => message.method === 'initialize' && message.id !== undefined);
  if (!request) return undefined;
  return exchange.responseMessages.find(({ message }) => message.id === request.id && message.result !== undefined)?.message.result;
}

/** The `_meta` envelope of a 2026-07-28 request (protocolVersion, clientCapabilities, clientInfo: protocol/http.ts META), if it carries one. */
export function envelopeOf(message: JsonRpcMessage): Record<string, unknown> | undefined {
  const meta = message.params?.['_meta'];
  return meta !== null && typeof meta === 'object' ? (meta as Record<string, unknown>) : undefined;
}

// — how details name exchanges: one format everywhere —

/** `#3 POST tools/call → 404` (`→ dropped` when the server dropped it, `→ no answer` while none was written). */
export function label(exchange: WireExchange): string {
  const methods = exchange.requestMessages.map((message: JsonRpcMessage) => message.method ?? 'response').join('+');
  const status = exchange.status ?? (exchange.endedBy === 'server-dropped' ? 'dropped' : 'no answer');
  return `#${exchange.seq} ${exchange.method}${methods ? ` ${methods}` : ''} → ${status}`;
}

/** Several labels: `nothing` for none, and past `limit` a count of the rest. */
export function labels(exchanges: readonly WireExchange[], limit = 6): string {
  if (exchanges.length === 0) return 'nothing';
  const shown = exchanges.slice(0, limit).map(label).join(', ');
  return exchanges.length > limit ? `${shown} and ${exchanges.length - limit} more` : shown;
}

// — which exchanges are MCP traffic, which session each belongs to, where each request is answered —

/** A request's path without its query. */
export const pathOf = (exchange: WireExchange): string => exchange.path.split('?')[0]!;

/** The path a reference server gives the client at a revision: the HTTP+SSE stream (2024-11-05), else the Streamable HTTP endpoint. */
export function entryPath(revision: Revision): string {
  return revision === '2024-11-05' ? SSE_PATH : MCP_PATH;
}

/** `/messages?sessionId=…` however the endpoint is written (relative or absolute): path and query, what a POST to it shows. */
function pathAndQuery(target: string): string | undefined {
  try {
    const url = new URL(target.trim(), 'http://endpoint.invalid');
    return `${url.pathname}${url.search}`;
  } catch {
    return undefined;
  }
}

/** HTTP+SSE: the endpoint (path and query) a GET stream named in its `endpoint` event. */
export function streamEndpoint(exchange: WireExchange): string | undefined {
  if (exchange.method !== 'GET') return undefined;
  const named = exchange.sseEvents.find((event) => event.event === 'endpoint');
  return named === undefined ? undefined : pathAndQuery(named.data);
}

/** HTTP+SSE: the GET stream that named the endpoint this exchange was POSTed to. */
function namingStream(exchanges: readonly WireExchange[], exchange: WireExchange): WireExchange | undefined {
  if (exchange.method !== 'POST') return undefined;
  const target = pathAndQuery(exchange.path);
  return exchanges.find((stream) => stream.seq < exchange.seq && streamEndpoint(stream) === target);
}

/** The exchange is a line the client wrote on a stdio server's stdin (servers/stdio/record.ts), not an HTTP request. */
export function isStdioLine(exchange: WireExchange): boolean {
  return exchange.method === 'STDIN';
}

/**
 * The exchanges that went to the server's MCP endpoint: its entry path (`entryPath`) and, over HTTP+SSE, the endpoints
 * its streams named; over stdio, every line on the server's stdin. Only they carry MCP messages: OAuth discovery (`/.well-known/…`), client registration and token
 * requests go to other paths with bodies of their own.
 */
export function mcpExchanges(exchanges: readonly WireExchange[], revision: Revision): WireExchange[] {
  const paths = new Set([entryPath(revision), ...exchanges.flatMap((exchange) => streamEndpoint(exchange) ?? []).map((endpoint) => endpoint.split('?')[0]!)]);
  // stdio: every line the client wrote to the server's stdin is MCP traffic (servers/stdio/record.ts).
  return exchanges.filter((exchange) => isStdioLine(exchange) || paths.has(pathOf(exchange)));
}

/** The stdio server process (its index in `evidence.stdio.processes`) whose stdin or stdout carried an exchange. */
function stdioProcessOf(exchange: WireExchange): number | undefined {
  return (exchange as Partial<StdioExchange>).process;
}

/**
 * The session an exchange belongs to: the scope in which request ids must be unique, a request is answered and a
 * cancellation names a request. Never across sessions (a client per operation restarts its ids in each one).
 * - stdio: the server process whose stdin or stdout carried it (`process 2`): one launch, one channel.
 * - Streamable HTTP: the Mcp-Session-Id it carried (an initialize without one: the id its answer issued).
 * - HTTP+SSE: the GET stream (`stream #3`): the stream itself, and every POST to the endpoint it named.
 * - Anything else is a scope of its own (`exchange #7`): a refused initialize attempt (the Streamable HTTP try before
 *   the HTTP+SSE fallback), a request to a server that issues no session id, and every 2026-07-28 HTTP request. That
 *   revision has no sessions: each request is self-contained and answered on its own response, and its id rule (not
 *   the id of another request of the same sender still in flight) cannot be judged over HTTP, where nothing tells one
 *   client instance's requests from another's (a client per operation): so "ids unique within a session" holds
 *   trivially there, and judges of it say so rather than compare requests across connections. A re-issue of a lost
 *   request (a new id: the 2026-07-28 changelog) is judged against the request it re-issues, not by scope.
 */
export function sessionKey(exchanges: readonly WireExchange[], exchange: WireExchange): string {
  const process = stdioProcessOf(exchange);
  if (process !== undefined) return `process ${process}`;
  const carried = exchange.requestHeaders[HEADERS.session];
  if (carried !== undefined) return carried;
  const stream = streamEndpoint(exchange) !== undefined ? exchange : namingStream(exchanges, exchange);
  if (stream) return `stream #${stream.seq}`;
  const issuesSession = exchange.requestMessages.some((message) => message.method === 'initialize') && exchange.responseMessages.some(({ message }) => message.result !== undefined);
  const issued = issuesSession ? exchange.responseHeaders[HEADERS.session] : undefined;
  return issued ?? `exchange #${exchange.seq}`;
}

/** The two exchanges belong to one session (`sessionKey`). */
export function sameSession(exchanges: readonly WireExchange[], a: WireExchange, b: WireExchange): boolean {
  return sessionKey(exchanges, a) === sessionKey(exchanges, b);
}

/**
 * Client requests keyed by (session, id): for each `sessionKey` and JSON-RPC id, the requests that carried it, in
 * arrival order. Where two clients of one host (a client per operation, a set-aside session) restart their ids, each
 * session keeps its own.
 */
export function requestsBySessionAndId(exchanges: readonly WireExchange[], sent: readonly SentMessage[] = requests(exchanges)): Map<string, SentMessage[]> {
  const byKey = new Map<string, SentMessage[]>();
  for (const request of sent) {
    const key = `${sessionKey(exchanges, request.exchange)}\u0000${JSON.stringify(request.message.id)}`;
    byKey.set(key, [...(byKey.get(key) ?? []), request]);
  }
  return byKey;
}

/**
 * Requests that carry the id of an earlier request of their own session (`requestsBySessionAndId`), each after the
 * first; `clashes` narrows which earlier one counts (2026-07-28 over stdio: only one still in flight).
 */
export function idsReusedInSession(
  exchanges: readonly WireExchange[],
  sent: readonly SentMessage[] = requests(exchanges),
  clashes: (earlier: SentMessage, later: SentMessage) => boolean = () => true,
): SentMessage[] {
  return [...requestsBySessionAndId(exchanges, sent).values()]
    .flatMap((same) => same.filter((later, i) => same.slice(0, i).some((earlier) => clashes(earlier, later))))
    .sort((a, b) => a.exchange.seq - b.exchange.seq);
}

/**
 * When the client ended a session (`sessionKey`), if it did: Streamable HTTP, its first DELETE; HTTP+SSE, when it hung
 * up on the stream; stdio, when it closed the process's stdin. A client that ends a session and opens another (a client
 * per operation) has not lost the first.
 */
export function sessionEndedAt(evidence: Pick<Evidence, 'exchanges' | 'stdio'>, session: string): number | undefined {
  const process = /^process (\d+)$/.exec(session);
  if (process) return evidence.stdio?.processes.find((p) => p.index === Number(process[1]))?.stdinEofAt;
  const stream = /^stream #(\d+)$/.exec(session);
  if (stream) {
    const get = evidence.exchanges.find((exchange) => exchange.seq === Number(stream[1]));
    return get?.endedBy === 'client' ? get.endedAt : undefined;
  }
  return evidence.exchanges.find((exchange) => exchange.method === 'DELETE' && exchange.requestHeaders[HEADERS.session] === session)?.startedAt;
}

/**
 * The server's answer to a request, on the transport connection that carried it: its own response (JSON or SSE);
 * over HTTP+SSE, the stream that named the endpoint it was POSTed to; over Streamable HTTP, a GET of the same session
 * resuming a stream (Last-Event-ID), the only GET a response may travel on. Never an answer with the same id on
 * another connection: a refused Streamable HTTP initialize and the HTTP+SSE initialize after it both have id 0.
 */
export function answerOf(exchanges: readonly WireExchange[], sent: SentMessage): ServerMessage | undefined {
  const { message, exchange } = sent;
  if (message.method === undefined || message.id === undefined || message.id === null) return undefined;
  const answers = (on: WireExchange) => on.responseMessages.find((answer) => answer.message.method === undefined && answer.message.id === message.id && answer.at >= exchange.startedAt);
  const own = answers(exchange);
  if (own) return own;
  const stream = namingStream(exchanges, exchange);
  if (stream) return answers(stream);
  const session = exchange.requestHeaders['mcp-session-id'];
  for (const resumed of exchanges) {
    if (resumed.method !== 'GET' || resumed.seq <= exchange.seq || resumed.requestHeaders['last-event-id'] === undefined || resumed.requestHeaders['mcp-session-id'] !== session) continue;
    const found = answers(resumed);
    if (found) return found;
  }
  return undefined;
}

// — the client's own session —

/** Requests that are no operation of the client's: the handshake and liveness checks. */
const NOT_OPERATIONS = new Set(['initialize', 'ping', 'server/discover']);

/** The exchange carries a request the scenario drove (tools/list, tools/call …), not a handshake or a ping. */
export function carriesOperation(exchange: WireExchange): boolean {
  return exchange.requestMessages.some((message) => message.method !== undefined && message.id !== undefined && !NOT_OPERATIONS.has(message.method));
}

/**
 * The session the client's operations ran on: the first session the server issued that carried one, else the
 * first it issued. A client may open a session it never uses first: mcp-remote runs a throwaway "connection test"
 * (initialize, initialized, a GET stream, never deleted) before the session it forwards the host's requests on; that
 * one is not "the client's session" (what a disposal scenario makes of it is its own business).
 */
export function operatingSession(evidence: Pick<Evidence, 'exchanges' | 'issuedSessions'>): string | undefined {
  const used = new Set(evidence.exchanges.filter(carriesOperation).map((exchange) => exchange.requestHeaders['mcp-session-id']));
  return evidence.issuedSessions.find((id) => used.has(id)) ?? evidence.issuedSessions[0];
}

/** Sessions the server issued before the operating one: set aside by the client, their own traffic is no request of the operating session's. */
export function setAsideSessions(evidence: Pick<Evidence, 'exchanges' | 'issuedSessions'>): Set<string> {
  const operating = operatingSession(evidence);
  const index = operating === undefined ? -1 : evidence.issuedSessions.indexOf(operating);
  return new Set(evidence.issuedSessions.slice(0, Math.max(index, 0)));
}

/**
 * What the client sent its MCP endpoint, outside the sessions it set aside before its own (their traffic is theirs):
 * what rules about "every later request" read.
 */
export function operatingTraffic(evidence: Pick<Evidence, 'exchanges' | 'issuedSessions' | 'revision'>): WireExchange[] {
  const setAside = setAsideSessions(evidence);
  return mcpExchanges(evidence.exchanges, evidence.revision).filter((exchange) => !setAside.has(exchange.requestHeaders['mcp-session-id'] ?? ''));
}

// — legitimate but unusual openings, for doctored proofs: a judge must see through them and still fail the defect —

/** The session id `withThrowawaySession` issues. */
export const THROWAWAY_SESSION = 'throwaway-connection-test';

/**
 * The record as a client that first runs a throwaway session would leave it (mcp-remote's connection test): before
 * everything else, an initialize with the same JSON-RPC id as the client's own, answered with a session issued first,
 * and its notifications/initialized; the session is never used again. Unchanged where no initialize issued a session.
 */
export function withThrowawaySession(evidence: Evidence): Evidence {
  const init = evidence.exchanges.find((exchange) => exchange.requestMessages.some((m) => m.method === 'initialize') && exchange.responseHeaders['mcp-session-id'] !== undefined);
  if (!init) return evidence;
  const initialized = evidence.exchanges.find((exchange) => exchange.requestMessages.some((m) => m.method === 'notifications/initialized'));
  const opening = [
    { ...structuredClone(init), responseHeaders: { ...init.responseHeaders, 'mcp-session-id': THROWAWAY_SESSION } },
    ...(initialized ? [{ ...structuredClone(initialized), requestHeaders: { ...initialized.requestHeaders, 'mcp-session-id': THROWAWAY_SESSION } }] : []),
  ].map((exchange, index) => ({ ...exchange, seq: index + 1 }));
  return {
    ...evidence,
    exchanges: [...opening, ...evidence.exchanges.map((exchange) => ({ ...exchange, seq: exchange.seq + opening.length }))],
    issuedSessions: [THROWAWAY_SESSION, ...evidence.issuedSessions],
  };
}

/**
 * The exchanges as a client whose request ids restart with each transport would leave them (LangChain, mcp-remote):
 * the initialize POSTed to the URL and refused (400/404/405) before the HTTP+SSE fallback carries the same id as the
 * initialize POSTed to the endpoint afterwards. Unchanged where there is no such refused attempt.
 */
export function withRefusedAttemptSharingId(exchanges: readonly WireExchange[]): WireExchange[] {
  const initializeOf = (exchange: WireExchange) => exchange.requestMessages.find((m) => m.method === 'initialize' && m.id !== undefined);
  const refused = exchanges.find((exchange) => exchange.method === 'POST' && initializeOf(exchange) && [400, 404, 405].includes(exchange.status ?? 0));
  const fallback = refused && exchanges.find((exchange) => exchange.seq > refused.seq && initializeOf(exchange) && namingStream(exchanges, exchange) !== undefined);
  if (!refused || !fallback) return [...exchanges];
  const id = initializeOf(fallback)!.id;
  return exchanges.map((exchange) =>
    exchange === refused ? { ...exchange, requestMessages: exchange.requestMessages.map((m) => (m.method === 'initialize' ? { ...m, id } : m)) } : exchange,
  );
}

// — other servers a script started —

/**
 * How details name the server the script started `otherIndex`-th (`evidence.otherServers[otherIndex]`): `server 2`,
 * `server 3` … (the scenario's own is server 1). A check's `exchanges` hold seq numbers of the scenario's own server
 * only, so exchanges of the others are named in the detail.
 */
export const serverName = (otherIndex: number): string => `server ${otherIndex + 2}`;

// — calls and their cancellation —

/** The exchanges carrying a `tools/call` of this tool, in arrival order. */
export function toolCallExchanges(exchanges: readonly WireExchange[], tool: string): WireExchange[] {
  return exchanges.filter((exchange) => callsTool(exchange, tool));
}

/** The JSON-RPC id of the message of `method` in the exchange. */
export function idOf(exchange: WireExchange | undefined, method: string): string | number | null | undefined {
  return exchange?.requestMessages.find((message) => message.method === method)?.id;
}

/** The `notifications/cancelled` the client sent, each with its exchange and the request id it names. */
export function cancelNotifications(exchanges: readonly WireExchange[]): { exchange: WireExchange; requestId: unknown }[] {
  return exchanges.flatMap((exchange) =>
    exchange.requestMessages.filter((message) => message.method === 'notifications/cancelled').map((message) => ({ exchange, requestId: message.params?.['requestId'] })),
  );
}

/** Whether a call was cancelled on the wire as its revision says (`wireCancelOf`). */
export interface WireCancel {
  /** The call was cancelled the way the revision says. */
  ok: boolean;
  /** The same as a deadline: cancelled; cancelled wrongly (`false`); or nothing decisive yet when the script stopped looking (`late`). */
  inTime: InTime;
  /** Something decisive happened (a notification naming the call was answered, or its exchange ended): a script may stop waiting. */
  done: boolean;
  detail: string;
  exchanges: WireExchange[];
}

/**
 * Whether a call (the `nth` tools/call of `tool`) was cancelled on the wire as the revision says: legacy, a
 * `notifications/cancelled` naming its id in its session that the server accepted (2xx: a notification reaching an ended session
 * cancels nothing); 2026-07-28, its response stream closed by the client and no `notifications/cancelled` POSTed (that
 * revision defines no client notification over Streamable HTTP: closing the stream is the cancel). Over stdio, at every
 * revision, a `notifications/cancelled` naming its id, written whole on the server's stdin (one channel, no streams).
 */
export function wireCancelOf(revision: Revision, exchanges: readonly WireExchange[], tool: string, nth = 0): WireCancel {
  const call = toolCallExchanges(exchanges, tool)[nth];
  if (call === undefined) return { ok: false, inTime: false, done: false, detail: `no tools/call of ${tool} reached the server`, exchanges: [] };
  const id = idOf(call, 'tools/call');
  const notifications = cancelNotifications(exchanges);
  const stdio = isStdioLine(call);
  if (isModern(revision) && !stdio) {
    const closed = call.endedBy === 'client';
    const posted = notifications.map((n) => n.exchange);
    return {
      ok: closed && posted.length === 0,
      inTime: posted.length > 0 ? false : closed || (call.endedBy === undefined && 'late'),
      done: call.endedBy !== undefined,
      detail: [
        closed
          ? `the client closed the response stream of ${label(call)}`
          : call.endedBy === undefined
            ? `the response stream of ${label(call)} was still open`
            : `the client never closed the response stream of ${label(call)} (it ended by ${call.endedBy})`,
        posted.length > 0 ? `notifications/cancelled was POSTed (${labels(posted)}), which 2026-07-28 Streamable HTTP does not define` : '',
      ]
        .filter(Boolean)
        .join('; '),
      exchanges: [call, ...posted],
    };
  }
  // A notification names the call only in the call's session: the same id in another session is another request.
  const naming = notifications.filter((n) => n.requestId === id && sameSession(exchanges, n.exchange, call));
  // A line on stdin is received whole or not recorded at all; over HTTP the server has to accept the POST.
  const accepted = naming.filter((n) => isStdioLine(n.exchange) || (n.exchange.status !== undefined && n.exchange.status < 300));
  const others = notifications.filter((n) => !naming.includes(n));
  const decided = naming.some((n) => isStdioLine(n.exchange) || n.exchange.status !== undefined || n.exchange.endedBy !== undefined);
  return {
    ok: accepted.length > 0,
    inTime: accepted.length > 0 || (!decided && 'late'),
    // Decided once a notification naming the call has been answered (accepted or not).
    done: decided,
    detail:
      naming.length === 0
        ? `no notifications/cancelled named the call’s id ${JSON.stringify(id)}${others.length > 0 ? ` (notifications named ${others.map((n) => JSON.stringify(n.requestId)).join(', ')})` : ''}`
        : accepted.length > 0
          ? `notifications/cancelled named ${JSON.stringify(id)} (${labels(accepted.map((n) => n.exchange))})`
          : `notifications/cancelled named ${JSON.stringify(id)} but was not accepted (${labels(naming.map((n) => n.exchange))})`,
    exchanges: [call, ...naming.map((n) => n.exchange)],
  };
}
