// What the server-requests scenarios read from the wire: each request the server sent the client, and the client's
// reply to it, on either transport (over HTTP the request rides a response stream and the reply is a POST of its own;
// over stdio the request is a stdout line and the reply a stdin line).
import type { ClientHandlers } from '../../clients/adapter.ts';
import type { ServerRequestMethod } from '../../servers/fixtures.ts';
import type { JsonRpcMessage, WireExchange } from '../../servers/wire-record.ts';
import type { Evidence } from '../scenario.ts';
import { HEADERS } from '../../protocol/http.ts';
import { requests, sessionKey, sessionOf } from '../wire.ts';

/** The server request each client handler answers. */
export const HANDLER_METHOD: Record<keyof ClientHandlers, ServerRequestMethod> = { roots: 'roots/list', sampling: 'sampling/createMessage', elicitation: 'elicitation/create' };

/** One request the server sent (when it was written, on which exchange) and the client's reply to it, if any. */
export interface ServerRequest {
  id: string | number;
  method: string;
  at: number;
  exchange: WireExchange;
  /** The exchange that carried the reply (a POST over HTTP, a stdin line over stdio), and the reply. */
  replyExchange?: WireExchange;
  reply?: JsonRpcMessage;
}

const isReply = (message: JsonRpcMessage): boolean => message.method === undefined && message.id !== undefined && message.id !== null && (message.result !== undefined || message.error !== undefined);

/** A request the server wrote (any method), where and when. */
interface Written {
  id: string | number;
  method: string;
  at: number;
  exchange: WireExchange;
  session: string;
}

/**
 * Each client reply with the server request it answers. The server's ids are its own per session (a client per
 * operation gets roots/list#0 in each of its sessions), so a reply answers the latest request with its id written
 * before it in its own session (wire.ts sessionKey); a reply that strayed from the session (sent without its session
 * id, say: reply-posted judges where it went) answers the latest request with its id written before it anywhere.
 */
function attributeReplies(exchanges: readonly WireExchange[]): { written: Written[]; replies: Map<Written, { exchange: WireExchange; message: JsonRpcMessage }[]> } {
  const written: Written[] = exchanges
    .flatMap((exchange) =>
      exchange.responseMessages.flatMap(({ message, at }) =>
        message.method === undefined || message.id === undefined || message.id === null ? [] : [{ id: message.id, method: message.method, at, exchange, session: sessionKey(exchanges, exchange) }],
      ),
    )
    .sort((a, b) => a.at - b.at);
  const replies = new Map<Written, { exchange: WireExchange; message: JsonRpcMessage }[]>();
  for (const exchange of exchanges) {
    for (const message of exchange.requestMessages.filter(isReply)) {
      const session = sessionKey(exchanges, exchange);
      const withId = written.filter((w) => w.id === message.id);
      const latestBefore = (candidates: Written[]) => candidates.filter((w) => w.at <= exchange.startedAt).at(-1) ?? candidates[0];
      const own = withId.filter((w) => w.session === session);
      const answered = own.length > 0 ? latestBefore(own) : withId.filter((w) => w.at <= exchange.startedAt).at(-1);
      if (answered !== undefined) replies.set(answered, [...(replies.get(answered) ?? []), { exchange, message }]);
    }
  }
  return { written, replies };
}

/** The server's requests of these methods, in the order they were written, each with the client's first reply to it (`attributeReplies`). */
export function serverRequestsOf(exchanges: readonly WireExchange[], methods: readonly string[]): ServerRequest[] {
  const { written, replies } = attributeReplies(exchanges);
  return written
    .filter((w) => methods.includes(w.method))
    .map((w) => {
      const [first] = replies.get(w) ?? [];
      return { id: w.id, method: w.method, at: w.at, exchange: w.exchange, ...(first ? { replyExchange: first.exchange, reply: first.message } : {}) };
    });
}

/** How many replies answer this request (`attributeReplies`): exactly one is the rule (JSON-RPC: one response per request). */
export function repliesTo(exchanges: readonly WireExchange[], request: ServerRequest): number {
  const { replies } = attributeReplies(exchanges);
  const written = [...replies.keys()].find((w) => w.exchange === request.exchange && w.id === request.id && w.at === request.at);
  return written === undefined ? 0 : replies.get(written)!.length;
}

/** How long after the request the client's reply went out (ms; undefined: no reply). */
export const replyDelay = (r: ServerRequest): number | undefined => (r.replyExchange === undefined ? undefined : Math.round(r.replyExchange.startedAt - r.at));

/** No reply within a reaction time: on a provisional run, "time ran out", never a fail. */
export const notAnsweredWithin = (r: ServerRequest, reactMs: number): boolean => r.reply === undefined || replyDelay(r)! > reactMs;

/** The exchanges that carried the client's replies. */
export const replyExchanges = (sent: readonly ServerRequest[]): WireExchange[] => sent.flatMap((r) => (r.replyExchange ? [r.replyExchange] : []));

/** What became of a request, in words: never answered, refused (with its error), or answered with a result after so long. */
export function describeReply(r: ServerRequest, name: string = r.method): string {
  if (r.reply === undefined) return `${name} never answered`;
  if (r.reply.error !== undefined) return `${name} refused with ${r.reply.error.code} (${r.reply.error.message})`;
  return `${name} answered with a result after ${replyDelay(r)} ms`;
}

/** What the client declared in its initialize request's capabilities (undefined: no initialize was seen). */
export function declaredCapabilities(evidence: Evidence): Record<string, unknown> | undefined {
  const initialize = requests(evidence.exchanges, 'initialize')[0];
  if (initialize === undefined) return undefined;
  const capabilities = initialize.message.params?.['capabilities'];
  return typeof capabilities === 'object' && capabilities !== null ? (capabilities as Record<string, unknown>) : {};
}

/**
 * The client's standalone GETs (Streamable HTTP, Listening for Messages from the Server): a GET in a session that
 * resumes no stream (no Last-Event-ID).
 */
export const listeningGets = (exchanges: readonly WireExchange[]): WireExchange[] =>
  exchanges.filter((x) => x.method === 'GET' && sessionOf(x) !== undefined && x.requestHeaders[HEADERS.lastEventId] === undefined);

/** The standalone GETs the server answered with a stream: where it can speak first. */
export const listeningStreams = (exchanges: readonly WireExchange[]): WireExchange[] => listeningGets(exchanges).filter((x) => x.status === 200 && x.sse);
