// Every personality by name, for `serve --personality` and for scenarios: one line each.
import type { Personality } from '../personality.ts';
import { affinityGateway } from './affinity-gateway.ts';
import { authErrors } from './auth-errors.ts';
import { delayed404 } from './delayed-404.ts';
import { delete405 } from './delete-405.ts';
import { deleteHangs } from './delete-hangs.ts';
import { dropConnection } from './drop-connection.ts';
import { echoSessionHeaders } from './echo-session-headers.ts';
import { endpointOtherOrigin } from './endpoint-other-origin.ts';
import { expiringSessions } from './expiring-sessions.ts';
import { initializeAnswers } from './initialize-answers.ts';
import { jsonResponses } from './json-responses.ts';
import { noGetStream } from './no-get-stream.ts';
import { pagedTools } from './paged-tools.ts';
import { ANSWERS, probeAnswers } from './probe-answers.ts';
import { refusesReinitialize } from './refuses-reinitialize.ts';
import { serverErrors } from './server-errors.ts';
import { slowResponses } from './slow-responses.ts';
import { sseComments } from './sse-comments.ts';
import { sseRetryInterval } from './sse-retry.ts';
import { toolsOnly } from './tools-only.ts';
import { unknownSession400 } from './unknown-session-400.ts';

export interface PersonalityEntry {
  description: string;
  /** A personality with its defaults. */
  create(): Personality;
}

export const PERSONALITIES: Record<string, PersonalityEntry> = {
  'refuses-reinitialize': {
    description: 'answers an initialize carrying a live session id with 400 -32600 "Server already initialized"',
    create: refusesReinitialize,
  },
  'expiring-sessions': {
    description: 'ends each session after it served 3 requests: the 4th gets 404 -32001',
    create: () => expiringSessions({ afterRequests: 3 }),
  },
  'unknown-session-400': {
    description: 'answers an unknown or expired session id with 400 -32000 "No valid session ID provided" (SDK examples)',
    create: unknownSession400,
  },
  'delayed-404': { description: 'holds back answers for ended sessions until released (at most 10 s)', create: () => delayed404() },
  'drop-connection': {
    description: 'runs the first tools/call, then drops the connection without answering',
    create: () => dropConnection({ method: 'tools/call', when: 'after', count: 1 }),
  },
  'server-errors': { description: 'answers every request 503 with Retry-After: 1', create: () => serverErrors({ status: 503, retryAfterSeconds: 1 }) },
  'auth-errors': { description: 'answers every request 401 with a WWW-Authenticate: Bearer challenge', create: () => authErrors({ status: 401 }) },
  'forbidden': { description: 'answers every request 403 (insufficient_scope)', create: () => authErrors({ status: 403 }) },
  'json-responses': { description: 'answers every POST with one application/json body instead of an SSE stream (2025-03-26 … 2025-11-25)', create: jsonResponses },
  'no-get-stream': { description: 'answers the standalone GET (no Last-Event-ID) with 405: no stream to listen on (2025-03-26 … 2025-11-25)', create: noGetStream },
  'tools-only': {
    description: 'advertises only the tools capability in its InitializeResult and serves nothing else (resources, prompts, logging, completion: -32601) (2024-11-05 … 2025-11-25, stateless)',
    create: toolsOnly,
  },
  'paged-tools': { description: 'answers tools/list itself in 3 pages, one tool a page, with opaque cursors that differ (2025-03-26 …)', create: () => pagedTools('plain') },
  'paged-tools-empty-cursor': { description: 'answers tools/list in 2 pages, page 1 naming nextCursor "" (2025-03-26 …)', create: () => pagedTools('empty-cursor') },
  'paged-tools-repeated-cursor': { description: 'answers tools/list in 3 pages, pages 1 and 2 both naming nextCursor "more" (the position kept per session) (2025-03-26 …)', create: () => pagedTools('repeated-cursor') },
  'paged-tools-per-session': { description: 'answers tools/list in 2 pages with cursors of their session; another session’s cursor gets -32602 (2025-03-26 …)', create: () => pagedTools('per-session') },
  'paged-tools-endless': { description: 'answers tools/list in pages that never end: every page names a next one (2025-03-26 …)', create: () => pagedTools('endless') },
  'slow-responses': { description: 'delays every request by 2 s before handling it', create: () => slowResponses({ ms: 2_000 }) },
  'echo-session-headers': {
    description: 'a proxy echoing the request Mcp-Session-Id on every response but the InitializeResult; injects other ids on command',
    create: echoSessionHeaders,
  },
  'affinity-gateway': {
    description: 'a gateway over two instances routing by Mcp-Session-Id (issued ids pinned, unknown keys by hash, keyless round-robin)',
    create: affinityGateway,
  },
  'sse-retry': { description: '2025-11-25: priming events carry retry: 500 (ms) instead of 50', create: () => sseRetryInterval(500) },
  'sse-comments': {
    description: 'SSE comment lines (`:` and `: keep-alive`, CRLF and LF) before the first event, between events and after the last of every event stream; 2026-07-28 answers every request with a stream',
    create: sseComments,
  },
  'initialize-unsupported-revision': {
    description: 'answers initialize with protocolVersion 1999-01-01, which no client supports',
    create: () => initializeAnswers(),
  },
  'initialize-error-form': {
    description: 'answers initialize with -32602 "Unsupported protocol version" and data.supported',
    create: () => initializeAnswers({ error: {} }),
  },
  'probe-unsupported-version': {
    description: 'answers server/discover with 400 -32022 naming only 2099-01-01 (modern, no mutual version)',
    create: () => probeAnswers(ANSWERS.unsupportedVersion(['2099-01-01'])),
  },
  'probe-corrective-version': {
    description: 'answers the first server/discover with 400 -32022 naming 2026-07-28, then lets the era answer',
    create: () => probeAnswers({ ...ANSWERS.unsupportedVersion(['2026-07-28']), count: 1 }),
  },
  'probe-header-mismatch': { description: 'answers server/discover with 400 -32020 HeaderMismatch', create: () => probeAnswers(ANSWERS.headerMismatch()) },
  'probe-method-not-found': {
    description: 'answers server/discover with 200 -32601 Method not found, as a legacy server may',
    create: () => probeAnswers(ANSWERS.methodNotFound()),
  },
  'probe-empty-202': { description: 'answers server/discover with 202 and an empty body', create: () => probeAnswers(ANSWERS.empty(202)) },
  'delete-405': { description: 'answers DELETE with 405 Method Not Allowed', create: delete405 },
  'delete-hangs': {
    description: 'holds every DELETE unanswered until the client gives up (after twice the operation bound, 10 s at scale 1, the era answers it)',
    create: () => deleteHangs(),
  },
  'endpoint-other-origin': {
    description: 'HTTP+SSE: the endpoint event names another origin, a decoy on another loopback port that records what reaches it',
    create: () => endpointOtherOrigin(),
  },
};
