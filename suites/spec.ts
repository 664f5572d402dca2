// The citation book: every spec section a check cites, revision-aware, in one place. A builder takes the revision
// under test and returns the URL of that revision's page (each revision moved sections between pages), the section's
// human name with the rule in a few words, and the level. Judges cite through these, never by writing URLs.
import { isHttpSse, isModern, MODERN_REVISION, requiresProtocolVersionHeader, specUrl, type Revision } from '../protocol/revisions.ts';
import type { Level, SpecRef } from './scenario.ts';

export function spec(url: string, section: string, level: Level): SpecRef {
  return { url, section, level };
}

// — lifecycle —

/** A section of the legacy lifecycle page at the revision under test. */
export function lifecycle(revision: Revision, anchor: string, section: string, level: Level): SpecRef {
  return spec(specUrl(revision, 'basic/lifecycle', anchor), `Lifecycle › ${section}`, level);
}

/**
 * Lifecycle › Operation: both parties only use capabilities that were successfully negotiated (and respect the negotiated
 * version): SHOULD at 2024-11-05 and 2025-03-26, MUST from 2025-06-18. Legacy revisions only: 2026-07-28 has no
 * lifecycle page.
 */
export function negotiatedCapabilities(revision: Revision, section: string): SpecRef {
  const level: Level = revision === '2024-11-05' || revision === '2025-03-26' ? 'SHOULD' : 'MUST';
  return lifecycle(revision, 'operation', `Operation: only use capabilities that were successfully negotiated: ${section}`, level);
}

/** basic/lifecycle › Shutdown: over HTTP, shutdown is closing the connections. */
export function shutdown(revision: Revision, section: string, level: Level): SpecRef {
  // 2026-07-28 has no lifecycle page: its transport says what closing a stream means.
  if (isModern(revision)) return spec(specUrl(revision, 'basic/transports/streamable-http', 'cancellation'), `Streamable HTTP › Cancellation: ${section}`, level);
  return spec(specUrl(revision, 'basic/lifecycle', 'shutdown'), `Lifecycle › Shutdown: ${section}`, level);
}

/** The shutdown rule of the case's transport: over stdio the stdio shutdown sequence, else `shutdown` (closing the HTTP connections). */
export function shutdownFor(evidence: { stdio?: unknown }): typeof shutdown {
  return evidence.stdio !== undefined ? stdioShutdown : shutdown;
}

/** The request timeout rule: lifecycle › Timeouts (2025-03-26 … 2025-11-25), Error Handling (2024-11-05), cancellation › Timeouts (2026-07-28). */
export function timeouts(revision: Revision, section: string, level: Level): SpecRef {
  if (isModern(revision)) return cancellation(revision, 'timeouts', `Timeouts: ${section}`, level);
  if (isHttpSse(revision)) return spec(specUrl(revision, 'basic/lifecycle', 'error-handling'), `Lifecycle › Error Handling (timeouts for all requests): ${section}`, level);
  return spec(specUrl(revision, 'basic/lifecycle', 'timeouts'), `Lifecycle › Timeouts: ${section}`, level);
}

// — versioning (2026-07-28) —

/**
 * The 2026-07-28 versioning page. Dual-era rules (probe, fallback, era cache) exist only from 2026-07-28 on, so
 * they are cited there even when the server under test speaks a legacy revision.
 */
export function versioning(anchor: 'protocol-version-negotiation' | 'backward-compatibility-with-initialization-based-versions', section: string, level: Level): SpecRef {
  return spec(specUrl(MODERN_REVISION, 'basic/versioning', anchor), `Versioning › ${section}`, level);
}

/** The 2026-07-28 Streamable HTTP page. */
export function streamableHttp(anchor: string, section: string, level: Level): SpecRef {
  return spec(specUrl(MODERN_REVISION, 'basic/transports/streamable-http', anchor), `Streamable HTTP (2026-07-28) › ${section}`, level);
}

/** The 2026-07-28 statelessness rules (Basic › Statelessness: what a connection or a stdio process is not). */
export function statelessness(section: string, level: Level): SpecRef {
  return spec(specUrl(MODERN_REVISION, 'basic/index', 'statelessness'), `Basic › Statelessness: ${section}`, level);
}

/** The 2026-07-28 `_meta` per-request fields. */
export function requestMeta(section: string, level: Level): SpecRef {
  return spec(specUrl(MODERN_REVISION, 'basic/index', 'meta'), `Basic › _meta: ${section}`, level);
}

// — utilities —

/** basic/utilities/ping › Behavior Requirements (2024-11-05 … 2025-11-25; 2026-07-28 has no ping). */
export function ping(revision: Revision, section: string, level: Level): SpecRef {
  return spec(specUrl(revision, 'basic/utilities/ping', 'behavior-requirements'), `Ping › Behavior Requirements: ${section}`, level);
}

/** The base protocol's message rules: basic/index (2025-03-26 on), basic/messages (2024-11-05). */
export function messages(revision: Revision, anchor: 'responses' | 'notifications', section: string, level: Level): SpecRef {
  const page = revision === '2024-11-05' ? 'basic/messages' : 'basic/index';
  return spec(specUrl(revision, page, anchor), `Base Protocol › ${section}`, level);
}

/**
 * basic/index › Batching: MCP implementations MAY send JSON-RPC batches and MUST support receiving them. Only 2025-03-26
 * has it (2024-11-05 says nothing of batches; 2025-06-18 removed them), so it is cited there.
 */
export function batching(section: string, level: Level): SpecRef {
  return spec(specUrl('2025-03-26', 'basic/index', 'batching'), `Base Protocol › Batching: ${section}`, level);
}

/** The 2026-07-28 multi round-trip pattern (basic/patterns/mrtr). */
export function mrtr(revision: Revision, anchor: 'client-requirements-basic-workflow' | 'basic-workflow', section: string, level: Level): SpecRef {
  return spec(specUrl(revision, 'basic/patterns/mrtr', anchor), `Multi Round-Trip Requests › ${section}`, level);
}

/** A client feature's page (client/roots, client/sampling, client/elicitation). */
export function clientFeature(revision: Revision, feature: 'roots' | 'sampling' | 'elicitation', anchor: 'error-handling' | 'capabilities', section: string, level: Level): SpecRef {
  return spec(specUrl(revision, `client/${feature}`, anchor), `Client Features › ${feature[0]!.toUpperCase()}${feature.slice(1)}: ${section}`, level);
}

// — transports —

/** A section of the transports page at the revision under test (2026-07-28 has a page per transport). */
export function transports(revision: Revision, anchor: string, section: string, level: Level): SpecRef {
  const page = isModern(revision) ? 'basic/transports/streamable-http' : 'basic/transports';
  return spec(specUrl(revision, page, anchor), `Transports › ${section}`, level);
}

/**
 * Transports › Protocol Version Header: the negotiated version on every request after initialize. The section exists
 * from 2025-06-18 on; an earlier revision is cited there (a check at 2025-03-26 can only be informational).
 */
export function protocolVersionHeader(revision: Revision, section: string, level: Level): SpecRef {
  const defined = requiresProtocolVersionHeader(revision) ? revision : '2025-06-18';
  return spec(specUrl(defined, 'basic/transports', 'protocol-version-header'), `Transports › Protocol Version Header: ${section}`, level);
}

/**
 * The stdio transport's rules at the revision under test: Transports › stdio (2024-11-05 … 2025-11-25), or the
 * 2026-07-28 stdio page (its top section holds the framing and stderr rules; `anchor` names a later one).
 */
export function stdio(revision: Revision, section: string, level: Level, anchor?: 'sending-messages' | 'cancellation' | 'shutdown' | 'unexpected-termination' | 'backward-compatibility'): SpecRef {
  if (isModern(revision)) return spec(specUrl(revision, 'basic/transports/stdio', anchor ?? ''), `Transports › stdio: ${section}`, level);
  return spec(specUrl(revision, 'basic/transports', 'stdio'), `Transports › stdio: ${section}`, level);
}

/** The stdio shutdown sequence: Lifecycle › Shutdown › stdio (2024-11-05 … 2025-11-25), stdio › Shutdown (2026-07-28). */
export function stdioShutdown(revision: Revision, section: string, level: Level): SpecRef {
  if (isModern(revision)) return spec(specUrl(revision, 'basic/transports/stdio', 'shutdown'), `Transports › stdio › Shutdown: ${section}`, level);
  return spec(specUrl(revision, 'basic/lifecycle', 'stdio'), `Lifecycle › Shutdown › stdio: ${section}`, level);
}

/**
 * Whether a citation is of an HTTP transport's section: Streamable HTTP (its page, or a section of the legacy transports
 * page other than stdio's), HTTP with SSE. The transports page's opening (no section: JSON-RPC messages are UTF-8) is
 * every transport's.
 */
export function citesHttpTransport(ref: SpecRef): boolean {
  const page = ref.url.replace(/^https:\/\/modelcontextprotocol\.io\/specification\/[^/]+\//, '');
  return page.startsWith('basic/transports/streamable-http') || (/^basic\/transports#/.test(page) && page !== 'basic/transports#stdio') || /Streamable HTTP|HTTP with SSE/.test(ref.section);
}

/**
 * The citation of a rule in a stdio case: one written for HTTP (`citesHttpTransport`: a judge shared with the HTTP
 * scenario, a shutdown rule that at 2026-07-28 is Streamable HTTP's) is the stdio transport's, in the same words and
 * at the same level; any other section is the transport's own already.
 */
export function onStdio(ref: SpecRef, revision: Revision): SpecRef {
  if (!citesHttpTransport(ref)) return ref;
  const colon = ref.section.indexOf(': ');
  return stdio(revision, colon === -1 ? ref.section : ref.section.slice(colon + 2), ref.level);
}

/** Streamable HTTP › Session Management (2025-03-26 … 2025-11-25). */
export function sessionManagement(revision: Revision, section: string, level: Level): SpecRef {
  return spec(specUrl(revision, 'basic/transports', 'session-management'), `Transports › Session Management: ${section}`, level);
}

/** The rule every session-loss scenario judges first: a 404 for the session id means a new session. */
export const newSessionAfter404 = (revision: Revision): SpecRef =>
  sessionManagement(revision, 'on HTTP 404 to a request containing the session id the client MUST start a new session with an InitializeRequest without a session ID', 'MUST');

/** How a client sends its messages, at the revision's transport. */
export function sendingMessages(revision: Revision, section: string, level: Level): SpecRef {
  if (isHttpSse(revision)) return spec(specUrl(revision, 'basic/transports', 'http-with-sse'), `Transports › HTTP with SSE: ${section}`, level);
  if (isModern(revision)) return spec(specUrl(revision, 'basic/transports/streamable-http', 'sending-messages'), `Streamable HTTP › Sending Messages: ${section}`, level);
  return spec(specUrl(revision, 'basic/transports', 'sending-messages-to-the-server'), `Transports › Sending Messages to the Server: ${section}`, level);
}

/**
 * SSE comment lines (a line beginning with a colon: keep-alives). 2026-07-28 states the client's rule in a Note of
 * Streamable HTTP › Receiving Messages, with a lower-case "must" (cited at MUST, as the traceability table's lower-case
 * rules are). Earlier revisions stream with Server-Sent Events by reference, and the SSE standard (WHATWG HTML ›
 * Server-sent events, event stream interpretation) ignores such a line: a tested convention there, cited at the
 * transport's own section and saying so.
 */
export function sseCommentLines(revision: Revision, section: string, level: Level = 'MUST'): SpecRef {
  if (isModern(revision)) {
    return streamableHttp('receiving-messages', `Receiving Messages (Note: clients must ignore SSE comment lines, a line beginning with a colon, and must not treat them as malformed input): ${section}`, level);
  }
  const convention = 'convention: the SSE standard, WHATWG HTML › Server-sent events, ignores a line beginning with a colon, as 2026-07-28 Streamable HTTP › Receiving Messages spells out';
  if (isHttpSse(revision)) return spec(specUrl(revision, 'basic/transports', 'http-with-sse'), `Transports › HTTP with SSE (${convention}): ${section}`, level);
  return spec(specUrl(revision, 'basic/transports', 'streamable-http'), `Transports › Streamable HTTP (the server may stream with Server-Sent Events; ${convention}): ${section}`, level);
}

/** Streamable HTTP › Resumability and Redelivery (2025-03-26 … 2025-11-25). */
export function resumability(revision: Revision, section: string, level: Level): SpecRef {
  return spec(specUrl(revision, 'basic/transports', 'resumability-and-redelivery'), `Transports › Resumability and Redelivery: ${section}`, level);
}

/**
 * The HTTP+SSE fallback: only on 400/404/405 (2025-11-25 on; 2025-03-26 and 2025-06-18 said any 4xx, but a client
 * decides before it knows the server's revision and applies the rule of the newest one it speaks), and only to
 * discover the transport (seed 003).
 */
export function fallbackRule(revision: Revision, section: string, level: Level): SpecRef {
  if (isModern(revision)) {
    return spec(specUrl(revision, 'basic/transports/streamable-http', 'backward-compatibility'), `Streamable HTTP › Backward Compatibility › HTTP+SSE Transport: ${section}`, level);
  }
  return spec(specUrl('2025-11-25', 'basic/transports', 'backwards-compatibility'), `2025-11-25 Transports › Backwards Compatibility: ${section}`, level);
}

// — authorization —

/** Authorization errors: what a 401/403 means, and (2025-11-25 on) the retry limits of the step-up flow. */
export function authorizationErrors(revision: Revision, section: string, level: Level): SpecRef {
  const why = `${section} (seed 003: authentication errors are not retried)`;
  if (isHttpSse(revision)) return spec(specUrl(revision, 'basic/transports', 'http-with-sse'), `Transports › HTTP with SSE (no authorization defined): ${why}`, level);
  if (revision === '2025-03-26' || revision === '2025-06-18') return spec(specUrl(revision, 'basic/authorization', 'error-handling'), `Authorization › Error Handling: ${why}`, level);
  return spec(
    specUrl(revision, 'basic/authorization', 'step-up-authorization-flow'),
    `Authorization › Step-Up Authorization Flow (retry only with a new authorization, and SHOULD implement retry limits): ${why}`,
    level,
  );
}

/**
 * A section of the authorization page: basic/authorization (2025-06-18, 2025-11-25), basic/authorization/index at
 * 2026-07-28. The anchors the lifecycle scenarios cite exist at all three.
 */
export function authorization(revision: Revision, anchor: 'token-requirements' | 'error-handling' | 'token-handling' | 'scope-selection-strategy' | 'resource-parameter-implementation' | 'authorization-flow-steps' | 'authorization-server-discovery', section: string, level: Level): SpecRef {
  return spec(specUrl(revision, isModern(revision) ? 'basic/authorization/index' : 'basic/authorization', anchor), `Authorization › ${section}`, level);
}

/**
 * The authorization sections 2026-07-28 moved off the main page: PKCE (Security Considerations › Authorization Code
 * Protection), dynamic registration (Client Registration) and the authorization server's metadata (Authorization Server
 * Discovery); the earlier revisions keep them on basic/authorization.
 */
export function authorizationStep(revision: Revision, step: 'pkce' | 'registration' | 'server-metadata', section: string, level: Level): SpecRef {
  const modern = isModern(revision);
  const [page, anchor] =
    step === 'pkce'
      ? [modern ? 'basic/authorization/security-considerations' : 'basic/authorization', 'authorization-code-protection']
      : step === 'registration'
        ? [modern ? 'basic/authorization/client-registration' : 'basic/authorization', 'dynamic-client-registration']
        : [modern ? 'basic/authorization/authorization-server-discovery' : 'basic/authorization', revision === '2025-06-18' ? 'server-metadata-discovery' : 'authorization-server-metadata-discovery'];
  return spec(specUrl(revision, page, anchor), `Authorization › ${section}`, level);
}

// — cancellation and request ids —

/** The cancellation page of the revision (basic/utilities/cancellation, or 2026-07-28 basic/patterns/cancellation). */
export function cancellation(revision: Revision, anchor: string, section: string, level: Level): SpecRef {
  const page = isModern(revision) ? 'basic/patterns/cancellation' : 'basic/utilities/cancellation';
  return spec(specUrl(revision, page, anchor), `Cancellation › ${section}`, level);
}

/**
 * How a client cancels a request on the wire at this revision: legacy POSTs `notifications/cancelled` (the 2025
 * transports: "to cancel, the client SHOULD explicitly send" it; a disconnect is not a cancel), 2026-07-28 closes
 * the request's response stream (Transport-Specific Cancellation); over stdio, the notification at every revision.
 */
export function cancelOnTheWire(revision: Revision, level: Level = 'SHOULD', overStdio = false): SpecRef {
  // stdio has one channel and no per-request streams: the notification is the cancel at every revision.
  if (overStdio && isModern(revision)) return stdio(revision, 'to cancel an in-flight request the client MUST send notifications/cancelled referencing its id', level, 'cancellation');
  if (overStdio) return cancellation(revision, 'cancellation-flow', 'Cancellation Flow: a party cancels a request by sending notifications/cancelled with its id', level);
  if (isModern(revision)) {
    return cancellation(revision, 'transport-specific-cancellation', 'Transport-Specific Cancellation: on Streamable HTTP, closing the response stream is the cancellation', level);
  }
  if (isHttpSse(revision)) return cancellation(revision, 'cancellation-flow', 'Cancellation Flow: a party cancels a request by sending notifications/cancelled with its id', level);
  return spec(
    specUrl(revision, 'basic/transports', 'sending-messages-to-the-server'),
    'Transports › Sending Messages to the Server: a disconnect is not a cancellation; to cancel, the client SHOULD send notifications/cancelled',
    level,
  );
}

/** What a cancel on the wire is for: the server's handler sees it (cited where `cancelOnTheWire` is). */
export function handlerSeesCancel(revision: Revision, level: Level = 'SHOULD', overStdio = false): SpecRef {
  const onTheWire = cancelOnTheWire(revision, level, overStdio);
  return spec(onTheWire.url, `${onTheWire.section} (so the server’s handler sees the cancellation)`, level);
}

/** basic/index › Requests (basic/messages in 2024-11-05): request ids. */
export function requestIds(revision: Revision, level: Level): SpecRef {
  if (isHttpSse(revision)) {
    return spec(specUrl(revision, 'basic/messages', 'requests'), 'Messages › Requests: the request ID MUST NOT have been previously used by the requestor within the same session', level);
  }
  if (isModern(revision)) {
    return spec(specUrl(revision, 'basic/index', 'requests'), 'Messages › Requests: the request ID MUST NOT match the ID of any other request the sender has issued and not yet received a response for', level);
  }
  return spec(specUrl(revision, 'basic/index', 'requests'), 'Messages › Requests: the request ID MUST NOT have been previously used by the requestor within the same session', level);
}

/** A re-issued request carries a new id: never reused within a session (legacy); the 2026-07-28 changelog's re-issue rule. */
export function reissuedIds(revision: Revision): SpecRef {
  if (isModern(revision)) {
    return spec(
      specUrl(revision, 'changelog', 'major-changes'),
      'Changelog › Major changes #9: a broken response stream loses the in-flight request; clients MUST re-issue it as a new request with a new request ID',
      'MUST',
    );
  }
  return requestIds(revision, 'MUST');
}

/**
 * What a non-idempotent call may not do: run twice. The spec's only signal is the `idempotentHint` tool
 * annotation (default false); legacy revisions recover a cut stream with GET + Last-Event-ID, not a re-POST.
 */
export function doubleExecutionRule(revision: Revision): SpecRef {
  const why = 'a tool without idempotentHint (default false) runs at most once per call; catalogue retry/no-double-execution (seed 003)';
  if (isHttpSse(revision)) return spec(specUrl(revision, 'basic/transports', 'http-with-sse'), `Transports › HTTP with SSE: ${why}`, 'MUST');
  if (isModern(revision)) return spec(specUrl(revision, 'changelog', 'major-changes'), `Changelog › Major changes #9 (re-issue after a broken stream): ${why}`, 'MUST');
  return spec(
    specUrl(revision, 'basic/transports', 'resumability-and-redelivery'),
    `Transports › Resumability and Redelivery (a cut stream is resumed with GET + Last-Event-ID): ${why}`,
    'MUST',
  );
}

// — pagination —

/**
 * server/utilities/pagination › Implementation Guidelines (every revision): clients SHOULD treat a missing nextCursor as
 * the end and support paginated flows; MUST treat cursors as opaque (no assumptions about the format, no parsing or
 * modifying; until 2025-11-25 not persisted across sessions; from 2026-07-28 no determination from the value but its
 * presence: an empty string is a cursor, not the end).
 */
export function pagination(revision: Revision, section: string, level: Level): SpecRef {
  return spec(specUrl(revision, 'server/utilities/pagination', 'implementation-guidelines'), `Pagination › Implementation Guidelines: ${section}`, level);
}
