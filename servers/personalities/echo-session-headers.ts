// A proxy that echoes `Mcp-Session-Id` back on every response, and on command injects a different one
// (seed 000: "a proxy echoing mcp-session-id back could overwrite the client-minted routing key
// mid-connection"; scenarios resume/echoed-session-header and disposal/no-delete-unissued).
//
// When the echo applies — every response, except the one carrying the InitializeResult:
// - The response that carries the InitializeResult (a 2xx answer to a request containing
//   `initialize`) goes through untouched: the backend's issued id is the only way a client learns it.
//   Neither echo nor injection touches it; an armed injection waits for the next response.
// - Any other response to a request that carried `Mcp-Session-Id`, whatever its status (202 and
//   error responses included), gets `Mcp-Session-Id: <the request's value>`, replacing any id the
//   backend sent. Noted `echoed-session-id`.
// - A request without the header has nothing to echo: the backend's headers go through as they are.
// - Injection replaces the echo (or adds the header) on exactly one response, noted
//   `injected-session-id:<id>`. `injectOnError(id)`: the next response with HTTP status >= 400.
//   `injectOnNextResponse(id, { method })`: the next response (any status) to a request containing a
//   message of that method (any method when omitted). When both are armed and the response is an
//   error, the error injection is used and the other stays armed.
// Works with every era; against 2026-07-28 it echoes the client-minted affinity key.
import { containsMethod, type HttpContext } from '../http.ts';
import type { Personality } from '../personality.ts';
import { startProxy, type ResponseHead } from './proxy.ts';

export const SESSION_HEADER = 'mcp-session-id';

export interface EchoSessionHeaders extends Personality {
  /** The next error response (HTTP status >= 400) carries `Mcp-Session-Id: <id>`. */
  injectOnError(id: string): void;
  /** The next response that does not carry the InitializeResult (to a request of `method`, if given) carries `Mcp-Session-Id: <id>`. */
  injectOnNextResponse(id: string, options?: { method?: string }): void;
}

/** True for the response that carries the InitializeResult, the one where a legacy server issues its id. */
export function carriesInitializeResult(context: HttpContext, status: number): boolean {
  return status >= 200 && status < 300 && containsMethod(context.body, 'initialize');
}

export function echoSessionHeaders(): EchoSessionHeaders {
  let onError: string | undefined;
  let onNext: { id: string; method?: string } | undefined;

  const rewriteHead = (context: HttpContext, head: ResponseHead) => {
    if (carriesInitializeResult(context, head.status)) return;
    const { exchange, record } = context;
    const inject = (id: string) => {
      head.headers[SESSION_HEADER] = id;
      record.note(exchange, `injected-session-id:${id}`);
    };
    if (onError !== undefined && head.status >= 400) {
      inject(onError);
      onError = undefined;
      return;
    }
    if (onNext !== undefined && (onNext.method === undefined || containsMethod(context.body, onNext.method))) {
      inject(onNext.id);
      onNext = undefined;
      return;
    }
    const requested = exchange.requestHeaders[SESSION_HEADER];
    if (requested === undefined) return;
    head.headers[SESSION_HEADER] = requested;
    record.note(exchange, 'echoed-session-id');
  };

  return {
    name: 'echo-session-headers',
    injectOnError(id) {
      onError = id;
    },
    injectOnNextResponse(id, options = {}) {
      onNext = { id, ...(options.method === undefined ? {} : { method: options.method }) };
    },
    front: ({ backendUrl, recording }) => startProxy({ backendUrl, recording, rewriteHead }),
  };
}
