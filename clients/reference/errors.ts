// What the reference client throws. Errors surfaced to callers say what happened on the wire; the internal
// ones (SessionLost, StreamCut, EraContradiction) never leave the client.
import type { JsonRpcErrorBody } from './protocol.ts';

/** The server answered the request with a JSON-RPC error. */
export class JsonRpcError extends Error {
  readonly code: number;
  readonly data: unknown;
  /** The HTTP status that carried it. */
  readonly status: number | undefined;
  constructor(error: JsonRpcErrorBody, status?: number) {
    super(`JSON-RPC error ${error.code}: ${error.message}${status !== undefined && status !== 200 ? ` (HTTP ${status})` : ''}`);
    this.code = error.code;
    this.data = error.data;
    this.status = status;
  }
}

/** The server answered with an HTTP error status. */
export class HttpStatusError extends Error {
  /** What was being sent (`initialize`, `POST tools/list`, `DELETE`…). */
  readonly what: string;
  readonly status: number;
  readonly body: string;
  /** The JSON-RPC error in the body, if there was one. */
  readonly rpcError: (JsonRpcErrorBody & { id?: unknown }) | undefined;
  constructor(what: string, status: number, body: string, rpcError: (JsonRpcErrorBody & { id?: unknown }) | undefined) {
    super(`${what}: HTTP ${status}${rpcError ? ` (JSON-RPC ${rpcError.code}: ${rpcError.message})` : body ? `: ${body.slice(0, 200)}` : ''}`);
    this.what = what;
    this.status = status;
    this.body = body;
    this.rpcError = rpcError;
  }
}

/** The connection broke before an answer: no HTTP response, or a response stream cut before any event id. */
export class ConnectionDropped extends Error {}

/** A protocol violation by the server (an answer the client cannot use). */
export class ProtocolError extends Error {}

/**
 * An SSE stream the client took for malformed input and aborted: only the broken variant that does not ignore comment
 * lines (rules.ts `ignoreSseComments`) throws it.
 */
export class MalformedStream extends Error {}

/** The server answered `initialize` with a revision the client does not speak. */
export class UnsupportedRevisionError extends Error {
  readonly revision: unknown;
  constructor(revision: unknown) {
    super(`the server answered initialize with protocol revision ${JSON.stringify(revision)}, which this client does not support`);
    this.revision = revision;
  }
}

/** The session ended on the server and the failed request could not be retried (not idempotent, or retried once already). */
export class SessionExpiredError extends Error {}

/** HTTP+SSE: the endpoint event named another origin. */
export class EndpointOriginError extends Error {}

export class ConnectionClosedError extends Error {
  constructor(message = 'the connection is closed') {
    super(message);
  }
}

export class RequestCancelledError extends Error {
  override readonly name = 'AbortError';
}

export class RequestTimeoutError extends Error {
  override readonly name = 'TimeoutError';
}

export class ConnectTimeoutError extends Error {
  override readonly name = 'TimeoutError';
}

// — internal —

/** A request that carried `sessionId` was answered "session gone" (404, or the SDK-example 400). */
export class SessionLost extends Error {
  readonly sessionId: string;
  constructor(sessionId: string, detail: string) {
    super(`session ${sessionId} is gone: ${detail}`);
    this.sessionId = sessionId;
  }
}

/** An SSE stream ended without the answer. With an event id it can be resumed; without, it is a drop. */
export class StreamCut extends Error {
  readonly lastEventId: string | undefined;
  readonly retryMs: number | undefined;
  constructor(lastEventId: string | undefined, retryMs: number | undefined) {
    super(`the response stream ended without the answer${lastEventId === undefined ? '' : ` (last event id ${lastEventId})`}`);
    this.lastEventId = lastEventId;
    this.retryMs = retryMs;
  }
}

/** A connection whose era came from the cache got an answer only the other era gives. */
export class EraContradiction extends Error {}

/** True for failures a client must surface at once: auth and server errors. */
export function isAuthOrServerFailure(error: unknown): error is HttpStatusError {
  return error instanceof HttpStatusError && (error.status === 401 || error.status === 403 || error.status >= 500);
}
