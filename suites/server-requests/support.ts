// What the server-requests scenarios read from the wire: each request the server sent the client, and the client's
// reply to it, on either transport (over HTTP the request rides a response stream and the reply is a POST of its own;
// over stdio the request is a stdout line and the reply a stdin line).
import type { ClientHandlers } from '../../clients/adapter.ts';
import type { ServerRequestMethod } from '../../servers/fixtures.ts';
import type { JsonRpcMessage, WireExchange } from '../../servers/wire-record.ts';
import type { Evidence } from '../scenario.ts';
import { HEADERS } from '../../protocol/http.ts';
import { requests, sessionOf } from '../wire.ts';

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

const isReply = (message: JsonRpcMessage, id: string | number) => message.method === undefined && message.id === id && (message.result !== undefined || message.error !== undefined);

/** The server's requests of these methods, in the order they were written, each with the client's first reply. */
export function serverRequestsOf(exchanges: readonly WireExchange[], methods: readonly string[]): ServerRequest[] {
  return exchanges
    .flatMap((exchange) =>
      exchange.responseMessages.flatMap(({ message, at }) => {
        if (message.method === undefined || !methods.includes(message.method) || message.id === undefined || message.id === null) return [];
        const id = message.id;
        const replyExchange = exchanges.find((x) => x.requestMessages.some((m) => isReply(m, id)));
        const reply = replyExchange?.requestMessages.find((m) => isReply(m, id));
        return [{ id, method: message.method, at, exchange, ...(replyExchange && reply ? { replyExchange, reply } : {}) }];
      }),
    )
    .sort((a, b) => a.at - b.at);
}

/** How many replies carry this request's id: exactly one is the rule (JSON-RPC: one response per request). */
export function repliesTo(exchanges: readonly WireExchange[], id: string | number): number {
  return exchanges.reduce((sum, x) => sum + x.requestMessages.filter((m) => isReply(m, id)).length, 0);
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
