// What only the retry scenarios need: the precondition of the session-loss scenarios (the session met its 404), and
// what a transport fallback looks like on the wire (a GET that opens an HTTP+SSE stream), with its doctored opening.
import type { Revision } from '../../protocol/revisions.ts';
import { SSE_PATH } from '../../servers/eras/http-sse.ts';
import type { WireExchange } from '../../servers/wire-record.ts';
import { precondition } from '../checks.ts';
import type { Check } from '../scenario.ts';
import { newSessionAfter404 } from '../spec.ts';
import { entryPath, label, pathOf, sessionOf } from '../wire.ts';

/** `session-ended`: the scenario ended the client's session under it, seen on the wire as a request carrying its id answered 404. */
export function sessionEnded(revision: Revision, dead: string | undefined, lost: WireExchange | undefined): Check {
  return precondition(
    'session-ended',
    newSessionAfter404(revision),
    lost !== undefined,
    lost === undefined
      ? `no request carrying the issued id ${dead ?? '(none issued)'} was answered 404: the scenario could not end the session under the client`
      : `${label(lost)}: the session ${dead} met its 404`,
    lost ? [lost] : [],
  );
}

/**
 * A GET that may open an HTTP+SSE stream (a transport fallback): one without a session id, to the server's MCP entry
 * path or asking for an event stream. OAuth discovery (`/.well-known/…`, asking for JSON) is no fallback.
 */
export function opensSseStream(exchange: WireExchange, revision: Revision): boolean {
  if (exchange.method !== 'GET' || sessionOf(exchange) !== undefined || exchange.path.includes('/.well-known/')) return false;
  return pathOf(exchange) === entryPath(revision) || pathOf(exchange) === SSE_PATH || (exchange.requestHeaders['accept'] ?? '').includes('text/event-stream');
}

/**
 * For doctored proofs: a server's exchanges with a GET of its URL before everything (as mcp-remote sends before its
 * initialize; refused alike) and, after the rest, OAuth discovery (no fallback) and a GET for an HTTP+SSE stream (a fallback).
 */
export function withStreamGets(exchanges: readonly WireExchange[], revision: Revision): WireExchange[] {
  const first = exchanges[0]!;
  const get = (path: string, accept: string): WireExchange => ({ ...structuredClone(first), method: 'GET', path, requestHeaders: { accept }, requestBody: '', requestMessages: [] });
  const all = [get(entryPath(revision), 'application/json, text/event-stream'), ...exchanges, get('/.well-known/oauth-protected-resource', 'application/json'), get(SSE_PATH, 'text/event-stream')];
  return all.map((exchange, index) => ({ ...exchange, seq: index + 1 }));
}
