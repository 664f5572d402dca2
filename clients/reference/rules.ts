// Every rule the reference client follows, as a named switch: the spec-correct client has them all on, and
// each broken variant (variants.ts) turns exactly one off. RULES documents each one: what it does and the
// spec section (or seed) it comes from.

export interface ReferenceRules {
  // — legacy handshake —
  sendInitializedNotification: boolean;
  sendProtocolVersionHeader: boolean;
  reportAnsweredVersion: boolean;
  followReinitializedVersion: boolean;
  validateInitializeAnswer: boolean;
  onlyNegotiatedCapabilities: boolean;
  // — negotiation modes and the era probe —
  legacyModeNeverProbes: boolean;
  autoProbesFirst: boolean;
  fallBackOnAnyLegacyAnswer: boolean;
  honourModernErrors: boolean;
  surfaceProbeFailures: boolean;
  // — era cache —
  cacheEraPerOrigin: boolean;
  keepEraOnFailure: boolean;
  // — legacy sessions —
  sessionIdOnlyFromInitialize: boolean;
  scopeSessionsToConnection: boolean;
  resumeAsStored: boolean;
  recoverSessionLoss: boolean;
  reinitializeWithoutSessionId: boolean;
  treatSdk400AsSessionLoss: boolean;
  ignoreStaleSessionLoss: boolean;
  dropKeepsSession: boolean;
  retryOnlyIdempotent: boolean;
  respectSseRetry: boolean;
  resumeWithLastEventId: boolean;
  ignoreSseComments: boolean;
  noRetryOnHttpErrors: boolean;
  // — modern requests —
  modernEnvelopeComplete: boolean;
  // — pagination —
  followNextCursor: boolean;
  cursorPresenceOnly: boolean;
  followRepeatedCursors: boolean;
  pageBoundIsAnError: boolean;
  affinityKeyFromFirstRequest: boolean;
  modernRetryOnlyDrops: boolean;
  freshIdOnReissue: boolean;
  // — disposal —
  deleteSessionOnClose: boolean;
  keepSessionWhenAsked: boolean;
  deleteOnlyIssuedSessions: boolean;
  tolerateDelete405: boolean;
  boundDeleteOnClose: boolean;
  closeOnce: boolean;
  closeTearsDown: boolean;
  abortConnectOnGiveUp: boolean;
  // — cancellation and timeouts —
  cancelOnTheWire: boolean;
  neverCancelInitialize: boolean;
  settleOnCancel: boolean;
  cancelOnlyTheAbortedCall: boolean;
  enforceMaximumTimeout: boolean;
  applyRequestTimeout: boolean;
  // — HTTP+SSE (2024-11-05) fallback —
  fallbackOnlyOn400404405: boolean;
  fallbackOnlyBeforeInitialize: boolean;
  checkEndpointOrigin: boolean;
  // — stdio —
  oneLinePerMessage: boolean;
  acceptBatches: boolean;
  drainStderr: boolean;
  stderrNotAnError: boolean;
  closeStdinFirst: boolean;
  escalateToSigkill: boolean;
  killProcessTree: boolean;
  settleOnServerExit: boolean;
  restartAfterCrash: boolean;
  stayClosed: boolean;
  // — the server speaks first —
  answerPing: boolean;
  answerServerRequests: boolean;
  listenAcceptsEventStream: boolean;
  answerOnTheGetStream: boolean;
  getStream405IsNoStream: boolean;
  neverAnswerNotifications: boolean;
  declareHandledCapabilities: boolean;
  refuseUndeclaredElicitationMode: boolean;
  answerInputRequired: boolean;
  echoRequestState: boolean;
  requestStateOfTheLastRound: boolean;
  continueIdsOnResume: boolean;
  // — issue 28: bugs the suite missed —
  noFallbackOnServerErrors: boolean;
  boundSessionRecovery: boolean;
  noFallbackAfterAnsweredInitialize: boolean;
  connectGivesUpAtOnce: boolean;
  // — authorization: the scope of the first authorization (scope.ts) —
  scopeFromChallenge: boolean;
  scopeFromResourceMetadata: boolean;
  // — authorization: the requests of the first authorization (oauth.ts) —
  resourceInTokenRequest: boolean;
  usePreRegisteredCredentials: boolean;
  // — authorization (OAuth 2.1, oauth.ts) —
  authorizeOn401: boolean;
  retryInSessionAfterAuthorization: boolean;
  oneRenewalForAll: boolean;
  boundAuthorizationRetries: boolean;
  tokenInHeaderOnly: boolean;
  tokenOnlyToItsServer: boolean;
  authorizeTheProbe: boolean;
  // — authorization: the lifecycle around it (issue 29, auth-life) —
  renewForEveryMethod: boolean;
  closeSettlesOnRefusedDelete: boolean;
  noTokenAcrossOrigins: boolean;
  // — authorization: the official suite's families (oauth.ts) —
  stepUpOnInsufficientScope: boolean;
  scopeUnionOnStepUp: boolean;
  resourceAsPublished: boolean;
  refuseOtherResource: boolean;
  checkMetadataIssuer: boolean;
  requireAdvertisedIss: boolean;
  tokenAuthAsRegistered: boolean;
}

export type RuleName = keyof ReferenceRules;

export interface RuleDoc {
  /** What the client does when the rule is on. */
  does: string;
  /** Where the rule comes from: a spec file and section with its level, or a seed. */
  source: string;
}

const T = 'basic/transports.mdx';
const STDIO = `${T} › stdio; 2026-07-28 basic/transports/stdio.mdx`;
const STDIO_SHUTDOWN = 'basic/lifecycle.mdx › Shutdown › stdio; 2026-07-28 basic/transports/stdio.mdx › Shutdown';
const T26 = '2026-07-28 basic/transports/streamable-http.mdx';
const PAGINATION = 'server/utilities/pagination.mdx';
const AUTH = 'basic/authorization.mdx (2025-06-18, 2025-11-25); 2026-07-28 basic/authorization/index.mdx';

export const RULES: Record<RuleName, RuleDoc> = {
  sendInitializedNotification: {
    does: 'after the initialize result, POSTs notifications/initialized before any other request',
    source: 'basic/lifecycle.mdx › Initialization (MUST)',
  },
  sendProtocolVersionHeader: {
    does: 'from 2025-06-18, sends MCP-Protocol-Version: <negotiated> on every request after initialize (notifications, GET and DELETE included)',
    source: `2025-06-18 ${T} › Protocol Version Header (MUST)`,
  },
  reportAnsweredVersion: {
    does: 'adopts the revision the server answered (reported by info(), exported in resumeState, sent in headers), never the one it offered',
    source: 'basic/lifecycle.mdx › Version Negotiation (MUST)',
  },
  followReinitializedVersion: {
    does: 'after re-initializing a lost session, reports the revision of the new handshake, not the earlier one',
    source: 'basic/lifecycle.mdx › Version Negotiation; seed 002 (getNegotiatedVersion stale after session expiry)',
  },
  validateInitializeAnswer: {
    does: 'an initialize answer naming a revision it does not support fails the connect with nothing more sent; an error answer (-32602 with data.supported) settles the connect at once: one retry offering a listed revision it supports, else an error',
    source: 'basic/lifecycle.mdx › Version Negotiation (SHOULD disconnect) and its error example',
  },
  onlyNegotiatedCapabilities: {
    does: 'sends no request needing a server capability the InitializeResult did not advertise (it never asks for resources, prompts, logging or completion at all)',
    source: 'basic/lifecycle.mdx › Operation (SHOULD at 2024-11-05 and 2025-03-26, MUST from 2025-06-18: only use capabilities that were successfully negotiated)',
  },
  legacyModeNeverProbes: {
    does: "negotiation 'legacy' sends initialize first and never server/discover",
    source: 'seed 000 (wire unchanged for existing callers)',
  },
  autoProbesFirst: {
    does: "negotiation 'auto' probes with server/discover before any initialize, so a dual-era server is spoken to in the modern era",
    source: '2026-07-28 basic/versioning.mdx › Backward Compatibility',
  },
  fallBackOnAnyLegacyAnswer: {
    does: 'falls back to initialize on every legacy answer to the probe (a JSON-RPC error that is not a recognised modern error, an empty body, 400/404/405 without a modern error body), not on one error code',
    source: `${T26} › Backward Compatibility; 2026-07-28 basic/versioning.mdx (fallback MUST NOT hinge on one code)`,
  },
  honourModernErrors: {
    does: 'a recognised modern error to the probe keeps the client modern: -32022 naming a mutually supported version is retried once with it, -32020/-32021 (and -32022 without a mutual version) are surfaced; never a fallback to initialize',
    source: '2026-07-28 basic/versioning.mdx › Protocol Version Negotiation (SHOULD retry) and Backward Compatibility',
  },
  surfaceProbeFailures: {
    does: 'a probe answered 5xx, 401/403, cut off (connection reset) or timed out is surfaced as an error: no initialize',
    source: 'seeds 002 and 003 (no fallback on outages and auth errors)',
  },
  cacheEraPerOrigin: {
    does: 'remembers the era of each origin in the client instance: a later connect to the same origin does not probe again',
    source: '2026-07-28 basic/versioning.mdx › Backward Compatibility (SHOULD cache per origin)',
  },
  keepEraOnFailure: {
    does: 'keeps the cached era when a request fails with 5xx, a timeout or a dropped connection; only a server that contradicts the era (a legacy answer to a modern request, a modern error to initialize) makes it re-probe',
    source: '2026-07-28 basic/versioning.mdx (re-probe if the cached assumption fails); seed 002',
  },
  sessionIdOnlyFromInitialize: {
    does: 'takes Mcp-Session-Id only from the response carrying the InitializeResult; any other Mcp-Session-Id on a response (an echo, an id injected by a proxy) is ignored, and a client-minted affinity key is never replaced',
    source: `${T} › Session Management (server assigns the id on the InitializeResult response); seed 000`,
  },
  scopeSessionsToConnection: {
    does: "a session id belongs to the connection (and the server) that issued it: it is never sent to another connection's server",
    source: `2025-11-25 ${T} › Session Management (handle session ids securely); security_best_practices › Session Hijacking`,
  },
  resumeAsStored: {
    does: 'resuming sends no initialize: the stored session id and the stored protocolVersion go on every request, never a downgrade, never missing',
    source: 'seed 000 (resume must keep the originally negotiated version and not re-handshake)',
  },
  recoverSessionLoss: {
    does: 'a 404 to a request that carried the session id ends the session: a new initialize, the new id adopted, the failed request retried once when idempotent',
    source: `${T} › Session Management (MUST start a new session on 404)`,
  },
  reinitializeWithoutSessionId: {
    does: 'the initialize that replaces a lost session carries no session id, and the dead id is never sent again',
    source: `${T} › Session Management (a new InitializeRequest without a session ID attached, MUST)`,
  },
  treatSdk400AsSessionLoss: {
    does: "the SDK-example answer 400 -32000 \"...No valid session ID provided\" to a request that carried the session id is read as a lost session too",
    source: 'interoperability with the TypeScript SDK examples (revisions.md tension 5)',
  },
  ignoreStaleSessionLoss: {
    does: 'a 404 for an id that is no longer the current session (a request in flight with the old id) does not tear down the replacement session',
    source: 'seed 002 (a delayed 404 must not invalidate the valid replacement)',
  },
  dropKeepsSession: {
    does: "a dropped connection (no HTTP answer) is not the server's verdict: the session is kept, no new initialize",
    source: 'seed 000; 2025-03-26 basic/transports.mdx (a disconnect is not a cancellation)',
  },
  retryOnlyIdempotent: {
    does: 'after a dropped connection only an idempotent request (tools/list, a tools/call of a tool annotated idempotentHint: true) is sent again, once; a non-idempotent tools/call never is',
    source: '2026-07-28 changelog (retries re-issue requests) and the idempotentHint tool annotation; seed 003 (no double execution)',
  },
  respectSseRetry: {
    does: "waits at least the server's SSE retry interval before reconnecting a cut stream",
    source: `2025-11-25 ${T} › Sending Messages to the Server (client MUST respect retry)`,
  },
  resumeWithLastEventId: {
    does: 'a POST stream that ends after an event id without the answer is resumed with GET + Last-Event-ID (session and version headers), never re-POSTed',
    source: `${T} › Resumability and Redelivery`,
  },
  ignoreSseComments: {
    does: 'ignores SSE comment lines (a line beginning with a colon: a keep-alive, alone or followed by a blank line) on every stream it reads: never an event, an error or a reason to reconnect',
    source: `${T26} › Receiving Messages (Note: clients must ignore such lines and must not treat them as malformed input); earlier revisions: the SSE standard their streams follow (WHATWG HTML › Server-sent events, a convention)`,
  },
  noRetryOnHttpErrors: {
    does: '401/403 and 5xx answers are surfaced at once: no retry loop',
    source: 'seed 003 (no retry of auth errors); retry/bounded-on-5xx',
  },
  modernEnvelopeComplete: {
    does: 'every 2026-07-28 request carries the full _meta envelope: protocolVersion, clientCapabilities and clientInfo',
    source: '2026-07-28 basic/index.mdx › _meta (clientInfo SHOULD)',
  },
  followNextCursor: {
    does: 'listTools() follows nextCursor page after page until a page without one, and hands the caller every page (a server that never stops paging is an error after 50 pages, not a short list)',
    source: `${PAGINATION} › Implementation Guidelines (clients SHOULD treat a missing nextCursor as the end, support paginated flows)`,
  },
  cursorPresenceOnly: {
    does: 'a nextCursor that is the empty string is a cursor like any other: the next page is asked for with it',
    source: `${PAGINATION} › Implementation Guidelines (cursors opaque, MUST; 2026-07-28: an empty string MUST NOT be treated as the end)`,
  },
  followRepeatedCursors: {
    does: 'a nextCursor equal to one already followed is followed again: the server may keep the position itself',
    source: `${PAGINATION} › Implementation Guidelines (cursors opaque: no determination from their value, MUST)`,
  },
  pageBoundIsAnError: {
    does: 'a server that still names a nextCursor after 50 pages makes listTools() fail with an error, never return the pages so far as the whole list',
    source: 'convention (a listing bounded like every request, lifecycle › Timeouts; a missing nextCursor, not a count, is the end: server/utilities/pagination)',
  },
  affinityKeyFromFirstRequest: {
    does: 'a client-minted affinity key goes in Mcp-Session-Id on every 2026-07-28 request from the very first one, server/discover included',
    source: 'seed 000 (routing key on the first request; a convention)',
  },
  modernRetryOnlyDrops: {
    does: 'in 2026-07-28 only a dropped connection may be retried; a protocol error (a JSON-RPC error answer) never is',
    source: 'seed 000 (retries scoped per era)',
  },
  freshIdOnReissue: {
    does: 'a 2026-07-28 request re-issued after a dropped connection carries a new JSON-RPC id',
    source: '2026-07-28 changelog (MUST re-issue as a new request with a new request ID)',
  },
  deleteSessionOnClose: {
    does: 'close() sends DELETE with the issued session id (with MCP-Protocol-Version from 2025-06-18)',
    source: `${T} › Session Management (SHOULD DELETE)`,
  },
  keepSessionWhenAsked: {
    does: 'close() with keepSessionOnClose sends no DELETE, so the session can be resumed',
    source: 'adapter contract (keep-session); seed 000',
  },
  deleteOnlyIssuedSessions: {
    does: 'DELETE only for a session the server issued: never in 2026-07-28, never for a client-minted affinity key',
    source: `${T26} › Earlier Streamable HTTP Revisions (no sessions); seed 000 (DELETE for an id the server never issued)`,
  },
  tolerateDelete405: {
    does: 'a 405 answer to DELETE is not an error (the server keeps sessions)',
    source: `${T} › Session Management (server MAY answer 405)`,
  },
  boundDeleteOnClose: {
    does: "close() gives up the DELETE it sends (aborts the exchange) at its close bound, never later than the connection's own timeout (ConnectOptions.timeoutMs): a server or proxy that never answers it cannot hang close()",
    source: 'basic/lifecycle.mdx › Timeouts (SHOULD establish timeouts for all sent requests and stop waiting); 2024-11-05 basic/lifecycle.mdx › Error Handling (Shutdown timeout)',
  },
  closeOnce: {
    does: 'close() twice is harmless: at most one DELETE',
    source: 'disposal/idempotent-close',
  },
  closeTearsDown: {
    does: 'close() settles every call in flight at once (rejects), cancels it on the wire, and ends every stream and timer: nothing is sent afterwards (no reconnecting GET, no retry)',
    source: 'basic/lifecycle.mdx › Shutdown; 2024-11-05 (closing the connection ends the SSE stream)',
  },
  abortConnectOnGiveUp: {
    does: 'when connect gives up (its timeout, or dispose) the handshake or probe in flight is aborted: nothing is sent later',
    source: 'disposal/close-during-connect',
  },
  cancelOnTheWire: {
    does: 'an aborted or timed-out call is cancelled on the wire: legacy POSTs notifications/cancelled with its id (same session and headers), 2026-07-28 closes its response stream (no notification)',
    source: 'basic/utilities/cancellation.mdx (SHOULD send); 2026-07-28 basic/patterns/cancellation.mdx › Transport-Specific Cancellation',
  },
  neverCancelInitialize: {
    does: 'a connect abandoned during initialize sends no notifications/cancelled for it',
    source: 'basic/utilities/cancellation.mdx (the initialize request MUST NOT be cancelled)',
  },
  settleOnCancel: {
    does: 'a cancelled call rejects at once and its late answer is ignored',
    source: 'basic/utilities/cancellation.mdx › Behavior Requirements (SHOULD ignore a late response)',
  },
  cancelOnlyTheAbortedCall: {
    does: 'aborting one call cancels that call only; the others run on',
    source: 'cancellation/concurrent-independent',
  },
  enforceMaximumTimeout: {
    does: 'timeoutMs bounds the whole request: progress notifications never extend it',
    source: 'basic/utilities/cancellation.mdx › Timeouts (SHOULD enforce a maximum timeout regardless of progress)',
  },
  applyRequestTimeout: {
    does: 'a request given a timeout (timeoutMs) is given up at it, whatever the server sends or never sends: a silent server never holds a call',
    source: 'basic/lifecycle.mdx › Timeouts (SHOULD establish timeouts for all sent requests); issue 28',
  },
  fallbackOnlyOn400404405: {
    does: 'falls back to HTTP+SSE only when the initialize POST is answered 400, 404 or 405 (never 401/403), and not when that answer is a modern error or a JSON-RPC answer to the initialize',
    source: `2025-11-25 ${T} › Backwards Compatibility; seed 003`,
  },
  fallbackOnlyBeforeInitialize: {
    does: 'never falls back after a successful initialize: a 404/405 to the DELETE at close is not a reason to GET an SSE stream',
    source: 'seed 003 (a 404/405 on DELETE at exit triggered the SSE fallback)',
  },
  checkEndpointOrigin: {
    does: 'HTTP+SSE: refuses an endpoint event naming another origin than the URL, and POSTs nothing',
    source: '2024-11-05 basic/transports.mdx › HTTP with SSE; security (the endpoint steers every POST)',
  },
  oneLinePerMessage: {
    does: 'stdio: writes each message as one line of JSON: a newline inside a string escaped (\\n), never written raw, so no message spreads over several lines',
    source: `${STDIO} (messages are delimited by newlines and MUST NOT contain embedded newlines)`,
  },
  acceptBatches: {
    does: 'stdio: a line holding a JSON-RPC batch (an array) is read member by member, each as if it had come on a line of its own: every answer in it reaches its call',
    source: `2025-03-26 basic/index.mdx › Batching (MUST support receiving JSON-RPC batches); 2025-03-26 ${T} › stdio (a message may be a batch)`,
  },
  drainStderr: {
    does: "stdio: reads the server's stderr as it comes, so a chatty server never blocks on a full pipe",
    source: `${STDIO} (the client MAY capture, forward or ignore stderr: ignoring it still means reading it)`,
  },
  stderrNotAnError: {
    does: "stdio: the server's stderr is logs: output there never fails a connect or a call",
    source: `${STDIO} (SHOULD NOT assume stderr output indicates error conditions)`,
  },
  closeStdinFirst: {
    does: "stdio: close() closes the server's stdin first and signals only a server that has not exited within the grace",
    source: `${STDIO_SHUTDOWN} (SHOULD: close stdin, wait, then SIGTERM)`,
  },
  escalateToSigkill: {
    does: 'stdio: a server still running a grace after SIGTERM gets SIGKILL, and so does what is left of its process tree',
    source: `${STDIO_SHUTDOWN} (SHOULD: SIGKILL if the server does not exit within a reasonable time after SIGTERM)`,
  },
  killProcessTree: {
    does: "stdio: the server runs in its own process group; signals go to the whole group, and whatever is left of it after the server exited (a wrapper's real server) gets the same escalation",
    source: `${STDIO_SHUTDOWN} (terminate the subprocess); the npx/uvx wrapper servers left running by real hosts (../shared/docs/stdio-notes.md)`,
  },
  settleOnServerExit: {
    does: 'stdio: when the server process ends (it exits, or closes its stdout), every call waiting for an answer is rejected at once, and a later call is refused at once',
    source: `${STDIO_SHUTDOWN} (the server MAY close its output stream and exit); basic/lifecycle.mdx › Timeouts (prevent hung connections); 2026-07-28 basic/transports/stdio.mdx › Unexpected Termination (in-flight requests are lost)`,
  },
  restartAfterCrash: {
    does: 'stdio, 2026-07-28: a server that exited unexpectedly (an error exit or a signal the client did not cause) is launched again, and probed, for the next call; a server that shut down itself (exit 0) is not',
    source: '2026-07-28 basic/transports/stdio.mdx › Unexpected Termination (SHOULD restart it)',
  },
  answerPing: {
    does: 'a ping from the server (during a call too) is answered at once with an empty result; any other server request is refused with -32601 (the client declares no capability)',
    source: 'basic/utilities/ping.mdx › Behavior Requirements (MUST respond promptly with an empty response)',
  },
  answerServerRequests: {
    does: 'every request from the server gets exactly one response: one the client declared no capability for (roots, sampling, elicitation) is refused with -32601',
    source: 'basic/index.mdx › Responses (MUST, JSON-RPC 2.0); client/roots.mdx › Error Handling (SHOULD -32601)',
  },
  listenAcceptsEventStream: {
    does: 'the standalone GET stream it opens when asked to listen lists text/event-stream in Accept',
    source: `${T} › Listening for Messages from the Server (MUST include an Accept header listing text/event-stream)`,
  },
  answerOnTheGetStream: {
    does: 'a request from the server on the standalone GET stream is answered as one on a POST stream: a POST each, in the session',
    source: `${T} › Listening for Messages from the Server (the server MAY send requests on it); basic/index.mdx › Responses (MUST)`,
  },
  getStream405IsNoStream: {
    does: 'a 405 to the standalone GET means the server offers no stream there: nothing to listen to, and the connection goes on',
    source: `${T} › Listening for Messages from the Server (the server MUST return text/event-stream or else 405)`,
  },
  neverAnswerNotifications: {
    does: 'a notification from the server (list changed, a log message, one it does not know) gets no response, whatever it is',
    source: 'basic/index.mdx › Notifications (the receiver MUST NOT send a response)',
  },
  declareHandledCapabilities: {
    does: 'the client declares roots, sampling and elicitation in initialize exactly when it has a handler for them (and answers their requests with it)',
    source: 'client/roots.mdx, client/sampling.mdx, client/elicitation.mdx › Capabilities (MUST declare the capability)',
  },
  refuseUndeclaredElicitationMode: {
    does: 'an elicitation/create in a mode the client did not declare (URL mode: it declares elicitation as {}, form only) is refused with -32602, never handed to its form handler',
    source: '2025-11-25 client/elicitation.mdx › Error Handling (MUST return -32602 for a mode not declared in client capabilities)',
  },
  answerInputRequired: {
    does: '2026-07-28: an InputRequiredResult is answered by its handlers and the request retried with inputResponses (a new id), not surfaced as an error',
    source: 'basic/patterns/mrtr.mdx › Client Requirements (Basic Workflow) (MUST construct the requested inputs before retrying)',
  },
  echoRequestState: {
    does: '2026-07-28: the retry of a request answered with a requestState carries that exact value',
    source: 'basic/patterns/mrtr.mdx › Client Requirements (Basic Workflow) (MUST echo back the exact value)',
  },
  requestStateOfTheLastRound: {
    does: '2026-07-28: a retry carries only the requestState of the result it answers: none when that result had none, never one from an earlier round',
    source: 'basic/patterns/mrtr.mdx › Client Requirements (Basic Workflow) (MUST NOT include one in the retry)',
  },
  stayClosed: {
    does: 'stdio: the exit close() caused is no crash: a closed connection launches no server again',
    source: `${STDIO_SHUTDOWN} (the client closes the input stream and waits for the server to exit); basic/lifecycle.mdx › Shutdown`,
  },
  continueIdsOnResume: {
    does: 'a resumed session continues its JSON-RPC ids after the last one used (exported as resumeState.nextRequestId): no id is used twice within a session, across the connections that carry it',
    source: 'basic/index.mdx › Requests (the request ID MUST NOT have been previously used by the requestor within the same session)',
  },
  noFallbackOnServerErrors: {
    does: 'a 5xx to the initialize POST is surfaced as the error it is: never a reason to GET the URL for an HTTP+SSE stream',
    source: `2025-11-25 ${T} › Backwards Compatibility (fall back on 400, 404 or 405 only); seed 003 (no fallback on outages)`,
  },
  boundSessionRecovery: {
    does: 'a call re-initializes and retries once for a lost session: a 404 to that retry (the replacement session lost too) rejects the call, never another re-initialize and retry in a loop',
    source: `${T} › Session Management (start a new session on 404); basic/lifecycle.mdx › Timeouts (prevent hung connections and resource exhaustion)`,
  },
  noFallbackAfterAnsweredInitialize: {
    does: 'an initialize POST answered 200 with an InitializeResult (even one naming a revision it does not support) means the server speaks Streamable HTTP: the failed connect never falls back to HTTP+SSE, whatever its DELETE of the issued session is answered',
    source: `2025-11-25 ${T} › Backwards Compatibility (fall back only when the initialize POST fails with 400, 404 or 405); seed 003`,
  },
  connectGivesUpAtOnce: {
    does: 'stdio: a connect that gives up (its timeout) rejects then and there; the server it launched is shut down in the background with the graces of close() (stdin, SIGTERM, SIGKILL), never waited for first',
    source: `basic/lifecycle.mdx › Timeouts (stop waiting; prevent hung connections); ${STDIO_SHUTDOWN} (SIGTERM when the server does not exit after its stdin closed)`,
  },
  scopeFromChallenge: {
    does: 'the first authorization asks for the scope the 401 challenge names, when it names one (not the metadata\'s scopes_supported)',
    source: `2025-11-25 ${AUTH} › Scope Selection Strategy (SHOULD, priority 1); Protected Resource Metadata Discovery Requirements (challenged scopes are authoritative)`,
  },
  scopeFromResourceMetadata: {
    does: 'without a challenged scope, the first authorization asks for every scope of the Protected Resource Metadata\'s scopes_supported, and for none (no scope parameter) when it lists none: never the authorization server\'s scopes_supported',
    source: `2025-11-25 ${AUTH} › Scope Selection Strategy (SHOULD, priority 2)`,
  },
  resourceInTokenRequest: {
    does: 'the token request that redeems the authorization code carries `resource`, the same canonical server URI as the authorization request',
    source: `${AUTH} › Resource Parameter Implementation (MUST include resource in both the authorization and the token request)`,
  },
  usePreRegisteredCredentials: {
    does: 'given credentials registered beforehand (ConnectOptions.authorization clientId, clientSecret), uses them rather than registering: the authorization request names that client, the token request authenticates as it',
    source: `2025-11-25 ${AUTH} › Client Registration Approaches (SHOULD: pre-registered client information first); Preregistration`,
  },
  authorizeOn401: {
    does: 'given headless authorization (ConnectOptions.authorization), a 401 with a Bearer challenge is answered by getting a token — a refresh when it holds a refresh token, else the authorization: Protected Resource Metadata from the challenge\'s resource_metadata, else the well-known paths (path-based, then root); authorization-server metadata (RFC 8414, then OpenID discovery); PKCE S256 refused unless advertised; registration (given credentials, a Client ID Metadata Document, dynamic registration); `resource` in the authorization and the token request — and by sending the request again',
    source: `${AUTH} › Authorization Server Discovery, Authorization Flow Steps, Resource Parameter Implementation (MUST); Error Handling (401: authorization required or token invalid)`,
  },
  retryInSessionAfterAuthorization: {
    does: 'the request refused 401 is sent again as it was, in the session it belonged to (its Mcp-Session-Id, its negotiated version): a new token is no new session, and no new initialize',
    source: `${AUTH} › Access Token Usage (authorization in every request of the same logical session); ${T} › Session Management (a new session only on 404)`,
  },
  oneRenewalForAll: {
    does: 'the requests refused with the same token share one renewal (one refresh): a request sent with a token already replaced takes the new one, and a rotated refresh token is used once',
    source: `${AUTH} › Security Considerations › Token Theft (authorization servers rotate refresh tokens for public clients; OAuth 2.1 §4.3.1: a used refresh token is invalid)`,
  },
  boundAuthorizationRetries: {
    does: 'a request refused 401 again with the token just obtained is not renewed again: the 401 reaches the caller as an error (no authorization loop)',
    source: `2025-11-25 ${AUTH} › Step-Up Authorization Flow (clients SHOULD implement retry limits); seed 003`,
  },
  tokenInHeaderOnly: {
    does: 'the access token travels in the Authorization header of every request, never in the query string',
    source: `${AUTH} › Access Token Usage › Token Requirements (MUST use the Authorization header; MUST NOT put tokens in the URI query string)`,
  },
  tokenOnlyToItsServer: {
    does: 'the access token goes only to the MCP server it was issued for: never to the authorization server (metadata, registration, token requests) or another origin',
    source: `${AUTH} › Access Token Usage › Token Handling and Security Considerations › Token Audience Binding (tokens are for their resource alone; token theft)`,
  },
  authorizeTheProbe: {
    does: '2026-07-28: a 401 to the server/discover probe is a challenge like any other: the client authorizes and probes again, never taking the server for a legacy one',
    source: `2026-07-28 basic/versioning.mdx and ${T26} › Backward Compatibility (a 401 says nothing of the era); ${AUTH} › Error Handling`,
  },
  renewForEveryMethod: {
    does: 'a 401 to any request of the session is renewed like a POST\'s: the standalone GET stream, a resuming GET (Last-Event-ID) and the DELETE are sent again with the new token, in the same session',
    source: `${AUTH} › Access Token Usage (authorization in every HTTP request, even within the same logical session); Error Handling (401); ${T} › Listening for Messages from the Server, Resumability and Redelivery`,
  },
  closeSettlesOnRefusedDelete: {
    does: 'close() ends the session on the client\'s side whatever answers its DELETE: a DELETE still refused 401/403 after the one renewal is given up, and close() resolves',
    source: `${T} › Session Management (the client SHOULD send a DELETE; the server MAY refuse it); ${AUTH} › Step-Up Authorization Flow (retry limits)`,
  },
  noTokenAcrossOrigins: {
    does: 'a 307/308 redirect is followed with the method and body, and the Authorization header is dropped when it leads to another origin (the Fetch standard\'s HTTP-redirect fetch); a request sent to another origin (an HTTP+SSE endpoint there, taken by a client that does not refuse it) carries no token either: the token never reaches another origin',
    source: `${AUTH} › Access Token Usage › Token Handling, Security Considerations › Token Theft, Token Audience Binding (tokens are for their resource alone); Fetch § HTTP-redirect fetch`,
  },
  stepUpOnInsufficientScope: {
    does: 'a 403 with a Bearer challenge `error="insufficient_scope"` is answered by a new authorization (never a refresh, which keeps the scope it had) asking the scope the challenge names, and the request is sent again once; refused again, the 403 reaches the caller',
    source: `2025-11-25 ${AUTH} › Scope Challenge Handling › Runtime Insufficient Scope Errors, Step-Up Authorization Flow (SHOULD; retry limits SHOULD)`,
  },
  scopeUnionOnStepUp: {
    does: 'a step-up asks the union of the scope the client asked before and the scope the challenge names, so that what was granted stays granted',
    source: `2026-07-28 ${AUTH} › Step-Up Authorization Flow 2 (the union of the previously requested scope set and the challenge's)`,
  },
  resourceAsPublished: {
    does: 'the RFC 8707 `resource` of the authorization and the token request is the `resource` the Protected Resource Metadata publishes, exactly (the server URL only when the metadata names none)',
    source: `${AUTH} › Resource Parameter Implementation (MUST, both requests); RFC 9728 §3 (the resource identifier); RFC 8707 §2`,
  },
  refuseOtherResource: {
    does: 'Protected Resource Metadata whose `resource` is not this server (another origin, or a path that is neither the server\'s nor a parent of it) is refused: no authorization is asked for another resource',
    source: `RFC 9728 §3.3 and §7.3 (the resource MUST be identical to the one the metadata was fetched for; impersonation); 2026-07-28 ${AUTH} › Authorization Server Discovery`,
  },
  checkMetadataIssuer: {
    does: 'authorization-server metadata whose `issuer` is not the issuer its well-known URL was built from is not used: no registration, authorization or token request follows',
    source: `2026-07-28 basic/authorization/authorization-server-discovery.mdx › Authorization Server Metadata Discovery (MUST validate per RFC 8414 §3.3; MUST NOT use it)`,
  },
  requireAdvertisedIss: {
    does: 'an authorization response without `iss` from a server whose metadata says `authorization_response_iss_parameter_supported` is refused before its code is redeemed (a present `iss` is compared with the issuer in any case)',
    source: `2026-07-28 ${AUTH} › Authorization Flow Steps › Authorization Response Validation (MUST apply RFC 9207 §2.4 before the code goes to any token endpoint)`,
  },
  tokenAuthAsRegistered: {
    does: 'a client with a secret authenticates at the token endpoint by the method it is registered with (the registration answer\'s `token_endpoint_auth_method`), else one the metadata supports (`client_secret_basic` by default): `client_secret_post` puts the secret in the form, not in a Basic header',
    source: 'RFC 7591 §2 and §3.2.1 (token_endpoint_auth_method); RFC 8414 §2 (token_endpoint_auth_methods_supported, default client_secret_basic); OAuth 2.1 §2.4.1',
  },
};

/** The spec-correct client: every rule on. */
export const SPEC_RULES: ReferenceRules = Object.fromEntries(Object.keys(RULES).map((name) => [name, true])) as unknown as ReferenceRules;

/** The reference client with exactly one rule turned off. */
export function withRuleBroken(rule: RuleName): ReferenceRules {
  return { ...SPEC_RULES, [rule]: false };
}
