// The request pipeline every reference server shares: recording, then personality middleware, then the era.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { BodyLimits, BodyProblem, WireExchange, WireRecord } from './wire-record.ts';

export interface HttpContext {
  req: IncomingMessage;
  res: ServerResponse;
  /** The exchange being recorded; personalities may `record.note()` on it. */
  exchange: WireExchange;
  /** The request body parsed as JSON, or undefined (already read: never read `req` again). */
  body: unknown;
  record: WireRecord;
}

export type Handler = (context: HttpContext) => Promise<void>;

/** Koa-style: do something, call `next()` to pass on (or don't, to answer here), do something after. */
export type Middleware = (context: HttpContext, next: () => Promise<void>) => Promise<void>;

export function compose(middlewares: readonly Middleware[], last: Handler): Handler {
  return (context) => {
    const dispatch = (index: number): Promise<void> => {
      const middleware = middlewares[index];
      return middleware ? middleware(context, () => dispatch(index + 1)) : last(context);
    };
    return dispatch(0);
  };
}

/** A JSON-RPC error with a null id, as transports send when they cannot tie it to a request. */
export function sendJsonRpcError(res: ServerResponse, status: number, code: number, message: string, headers: Record<string, string> = {}): void {
  const body = JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null });
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(body);
}

/**
 * The answer to a request whose body was not read to its end (WireRecord.begin), before any era sees it:
 * 413 for a body over the limit (the SDK's own answer and message, `toNodeHandler`), 408 for one that did not
 * arrive in time (RFC 9110 §15.5.9), both closing the connection since the rest of the body was never read;
 * nothing for a client that hung up mid-body, as there is no one left to answer.
 */
export function answerBodyProblem(res: ServerResponse, problem: BodyProblem, limits: BodyLimits): void {
  const close = { connection: 'close' };
  if (problem === 'too-large') sendJsonRpcError(res, 413, -32000, `Payload Too Large: Request body must not exceed ${limits.maxBytes} bytes`, close);
  else if (problem === 'timed-out') sendJsonRpcError(res, 408, -32000, `Request Timeout: the request body did not arrive within ${limits.timeoutMs} ms`, close);
}

/** The JSON-RPC messages of a parsed body (a batch is flattened). */
export function messagesOf(body: unknown): { id?: unknown; method?: unknown; params?: unknown }[] {
  const items = Array.isArray(body) ? body : body === undefined ? [] : [body];
  return items.filter((item): item is Record<string, unknown> => typeof item === 'object' && item !== null);
}

export function containsMethod(body: unknown, method: string): boolean {
  return messagesOf(body).some((message) => message.method === method);
}
