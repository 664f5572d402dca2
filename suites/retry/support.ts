// What the retry scenarios share: the spec sections they cite (per revision), outcomes of operations that are
// expected to fail, and small readers of the wire record.
import { SSE_PATH } from '../../servers/eras/http-sse.ts';
import { LEGACY_REVISIONS, specUrl, type Revision } from '../../protocol/revisions.ts';
import type { JsonRpcMessage, SentMessage, WireExchange } from '../../servers/wire-record.ts';
import { answerOf, entryPath, pathOf } from '../wire.ts';
import type { Level, SpecRef } from '../scenario.ts';

export const MODERN_REVISION = '2026-07-28' as const;

/** L and M: every legacy revision and 2026-07-28. */
export const LEGACY_AND_MODERN = [...LEGACY_REVISIONS, MODERN_REVISION] as const satisfies readonly Revision[];

export const isModern = (revision: Revision): boolean => revision === MODERN_REVISION;

const ref = (url: string, section: string, level: Level): SpecRef => ({ url, section, level });

/** Streamable HTTP › Session Management (2025-03-26 … 2025-11-25). */
export function sessionManagement(revision: Revision, section: string, level: Level): SpecRef {
  return ref(specUrl(revision, 'basic/transports', 'session-management'), `Transports › Session Management: ${section}`, level);
}

/** How a client sends its messages, at the revision's transport. */
/** The rule both session-loss scenarios of this suite judge first: a 404 for the session id means a new session. */
export const newSessionAfter404 = (revision: Revision): SpecRef =>
  sessionManagement(revision, 'on HTTP 404 to a request containing the session id the client MUST start a new session with an InitializeRequest without a session ID', 'MUST');

/** Why a session-loss scenario could not judge: no request with the issued id met the 404. */
export const sessionNotEnded = (dead: string | undefined): string =>
  `no request carrying the issued id ${dead ?? '(none issued)'} was answered 404: the scenario could not end the session under the client`;

export function sendingMessages(revision: Revision, section: string, level: Level): SpecRef {
  if (revision === '2024-11-05') return ref(specUrl(revision, 'basic/transports', 'http-with-sse'), `Transports › HTTP with SSE: ${section}`, level);
  if (isModern(revision)) return ref(specUrl(revision, 'basic/transports/streamable-http', 'sending-messages'), `Streamable HTTP › Sending Messages: ${section}`, level);
  return ref(specUrl(revision, 'basic/transports', 'sending-messages-to-the-server'), `Transports › Sending Messages to the Server: ${section}`, level);
}

/** Streamable HTTP › Resumability and Redelivery (2025-03-26 … 2025-11-25). */
export function resumability(revision: Revision, section: string, level: Level): SpecRef {
  return ref(specUrl(revision, 'basic/transports', 'resumability-and-redelivery'), `Transports › Resumability and Redelivery: ${section}`, level);
}

/** Request timeouts: lifecycle (legacy) or the cancellation pattern (2026-07-28). */
export function timeouts(revision: Revision, section: string, level: Level): SpecRef {
  if (revision === '2024-11-05') return ref(specUrl(revision, 'basic/lifecycle', 'error-handling'), `Lifecycle › Error Handling: ${section}`, level);
  if (isModern(revision)) return ref(specUrl(revision, 'basic/patterns/cancellation', 'timeouts'), `Cancellation › Timeouts: ${section}`, level);
  return ref(specUrl(revision, 'basic/lifecycle', 'timeouts'), `Lifecycle › Timeouts: ${section}`, level);
}

/** Request ids: never reused within a session (legacy); a re-issued request carries a new id (2026-07-28 changelog). */
export function requestIds(revision: Revision): SpecRef {
  if (revision === '2024-11-05') {
    return ref(specUrl(revision, 'basic/messages', 'requests'), 'Messages › Requests: the request ID MUST NOT have been previously used by the requestor within the same session', 'MUST');
  }
  if (isModern(revision)) {
    return ref(
      specUrl(revision, 'changelog', 'major-changes'),
      'Changelog › Major changes #9: a broken response stream loses the in-flight request; clients MUST re-issue it as a new request with a new request ID',
      'MUST',
    );
  }
  return ref(specUrl(revision, 'basic', 'requests'), 'Messages › Requests: the request ID MUST NOT have been previously used by the requestor within the same session', 'MUST');
}

/**
 * What a non-idempotent call may not do: run twice. The spec's only signal is the `idempotentHint` tool
 * annotation (default false); legacy revisions recover a cut stream with GET + Last-Event-ID, not a re-POST.
 */
export function doubleExecutionRule(revision: Revision): SpecRef {
  const why = 'a tool without idempotentHint (default false) runs at most once per call; catalogue retry/no-double-execution (seed 003)';
  if (revision === '2024-11-05') return ref(specUrl(revision, 'basic/transports', 'http-with-sse'), `Transports › HTTP with SSE: ${why}`, 'MUST');
  if (isModern(revision)) return ref(specUrl(revision, 'changelog', 'major-changes'), `Changelog › Major changes #9 (re-issue after a broken stream): ${why}`, 'MUST');
  return ref(
    specUrl(revision, 'basic/transports', 'resumability-and-redelivery'),
    `Transports › Resumability and Redelivery (a cut stream is resumed with GET + Last-Event-ID): ${why}`,
    'MUST',
  );
}

/** Authorization errors: what a 401/403 means, and (2025-11-25 on) the retry limits of the step-up flow. */
export function authorizationErrors(revision: Revision, section: string, level: Level): SpecRef {
  const why = `${section} (seed 003: authentication errors are not retried)`;
  if (revision === '2024-11-05') return ref(specUrl(revision, 'basic/transports', 'http-with-sse'), `Transports › HTTP with SSE (no authorization defined): ${why}`, level);
  if (revision === '2025-03-26' || revision === '2025-06-18') return ref(specUrl(revision, 'basic/authorization', 'error-handling'), `Authorization › Error Handling: ${why}`, level);
  return ref(
    specUrl(revision, 'basic/authorization', 'step-up-authorization-flow'),
    `Authorization › Step-Up Authorization Flow (retry only with a new authorization, and SHOULD implement retry limits): ${why}`,
    level,
  );
}

/**
 * The HTTP+SSE fallback: only on 400/404/405 (2025-11-25 on; 2025-03-26 and 2025-06-18 said any 4xx, but a client
 * decides before it knows the server's revision and applies the rule of the newest one it speaks), and only to
 * discover the transport (seed 003).
 */
export function fallbackRule(revision: Revision, section: string, level: Level): SpecRef {
  if (isModern(revision)) {
    return ref(specUrl(revision, 'basic/transports/streamable-http', 'backward-compatibility'), `Streamable HTTP › Backward Compatibility › HTTP+SSE Transport: ${section}`, level);
  }
  return ref(specUrl('2025-11-25', 'basic/transports', 'backwards-compatibility'), `2025-11-25 Transports › Backwards Compatibility: ${section}`, level);
}

// — outcomes of operations the scenario expects to fail —

/** What an operation came to: a result, an error the client raised, or no settlement within the bound. */
export type Outcome = { ok: true } | { ok: false; error: string; hung: boolean };

/** Awaits a (bounded) operation and records its outcome instead of throwing. */
export async function settle(operation: Promise<unknown>): Promise<Outcome> {
  try {
    await operation;
    return { ok: true };
  } catch (error) {
    const name = error instanceof Error ? error.constructor.name : 'Error';
    return { ok: false, error: error instanceof Error ? `${name}: ${error.message}` : String(error), hung: name === 'ClientHung' };
  }
}

export function isOutcome(value: unknown): value is Outcome {
  return typeof value === 'object' && value !== null && typeof (value as { ok?: unknown }).ok === 'boolean';
}

export function describeOutcome(value: unknown): string {
  if (!isOutcome(value)) return 'the operation was not run';
  if (value.ok) return 'it succeeded';
  return value.hung ? `it did not settle (${value.error})` : `it failed (${value.error})`;
}

// — the wire record —

/** Client requests (method and id) in arrival order, optionally of one method and, for tools/call, one tool. */
export function requests(exchanges: readonly WireExchange[], method?: string, tool?: string): SentMessage[] {
  return exchanges.flatMap((exchange) =>
    exchange.requestMessages
      .filter((message) => message.method !== undefined && message.id !== undefined && message.id !== null)
      .filter((message) => method === undefined || message.method === method)
      .filter((message) => tool === undefined || message.params?.['name'] === tool)
      .map((message) => ({ message, exchange })),
  );
}

/** The server's answer to a request on the connection that carried it: its own exchange, the HTTP+SSE stream, or a resumed stream. */
export function answerTo(exchanges: readonly WireExchange[], sent: SentMessage): JsonRpcMessage | undefined {
  return answerOf(exchanges, sent)?.message;
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

export const sessionOf = (exchange: WireExchange): string | undefined => exchange.requestHeaders['mcp-session-id'];

export const noted = (exchanges: readonly WireExchange[], label: string): WireExchange[] => exchanges.filter((exchange) => exchange.notes.includes(label));

/** `#3 POST tools/list → 404` for details. */
export function brief(exchange: WireExchange): string {
  const methods = exchange.requestMessages.map((message) => message.method ?? 'response').join('+');
  return `#${exchange.seq} ${exchange.method}${methods ? ` ${methods}` : ''} → ${exchange.status ?? (exchange.endedBy === 'server-dropped' ? 'dropped' : 'no answer')}`;
}

export function list(exchanges: readonly WireExchange[]): string {
  return exchanges.map(brief).join(', ');
}

/**
 * How the evidence report names a server the script started (`otherServers[index]`): a check's `exchanges` hold
 * sequence numbers of the scenario's own server only, so exchanges of the others are named in the detail.
 */
export const serverName = (otherIndex: number): string => `server ${otherIndex + 2}`;
