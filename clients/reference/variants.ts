// The broken variants: the reference client with exactly one rule turned off, each named for what it breaks,
// with the scenarios of ../shared/docs/scenarios.md it is meant to fail. Together they break every scenario.
// This is the one proof table: suites/self-test.test.ts proves each variant fails exactly these scenarios, at
// every revision unless `only` narrows one to where its rule exists, with the reason.
import { L, M, S, type Revision } from '../../protocol/revisions.ts';
import type { RuleName } from './rules.ts';

/** Where a variant fails a scenario when that is not every revision the scenario runs at, and why. */
export interface Narrowing {
  at: readonly Revision[];
  why: string;
}

export interface VariantSpec {
  name: string;
  /** The one rule turned off. */
  rule: RuleName;
  /** One line: what this client does wrong. */
  description: string;
  /** Scenario ids (suite/name) this variant is meant to fail. */
  breaks: readonly string[];
  /** Scenarios of `breaks` it fails only at some revisions. */
  only?: Readonly<Record<string, Narrowing>>;
  /**
   * Scenarios whose rule its broken rule keeps it from ever reaching, where (the scenario's stimulus never comes): the
   * honest verdict there is inconclusive, neither pass nor fail.
   */
  unreached?: Readonly<Record<string, Narrowing>>;
  /**
   * Scenarios where what its broken rule leaves on the wire is a correct client of another shape (shapes.ts), where: the
   * scenario says n/a by shape there, as it does for that shape.
   */
  shaped?: Readonly<Record<string, Narrowing>>;
}

/**
 * Rules with no broken variant yet: a variant is proof only with scenarios it fails, and the stdio scenarios are still
 * to come (issue 13). clients/reference/variants.test.ts shows each of them flipped on the wire meanwhile.
 */
export const RULES_AWAITING_SCENARIOS: readonly RuleName[] = [];

/** The revisions from which `MCP-Protocol-Version` is required. */
const WITH_VERSION_HEADER = ['2025-06-18', '2025-11-25'] as const satisfies readonly Revision[];

/** The revisions with sessions and authorization (suites/authorization/support.ts SESSION_REVISIONS). */
const WITH_SESSIONS = ['2025-06-18', '2025-11-25'] as const satisfies readonly Revision[];

/** The authorization variants, in a block of their own. */
const AUTHORIZATION_VARIANTS: readonly VariantSpec[] = [
  {
    name: 'broken-never-authorizes',
    rule: 'authorizeOn401',
    description: 'Reference client given headless authorization that never answers a 401 challenge by authorizing: every request to a protected server is refused',
    breaks: ['authorization/token-expiry-keeps-session', 'authorization/one-renewal-in-flight', 'authorization/no-authorization-loop', 'authorization/token-only-where-it-belongs', 'authorization/probe-challenge-not-legacy', 'authorization/expiry-on-listening-stream', 'authorization/expiry-on-resumed-get', 'authorization/close-with-expired-token', 'authorization/no-token-across-redirect', 'authorization/scope-from-challenge', 'authorization/scope-from-metadata', 'authorization/scope-omitted', 'authorization/first-authorization', 'authorization/pre-registered', 'authorization/step-up', 'authorization/step-up-retry-limit', 'authorization/resource-as-published', 'authorization/token-endpoint-auth-as-registered'],
    unreached: {
      'authorization/resource-mismatch-refused': { at: ['2025-06-18', '2025-11-25', '2026-07-28'], why: 'a client that never authorizes never reads the metadata it would refuse' },
      'authorization/metadata-issuer-checked': { at: M, why: 'a client that never authorizes never reads the authorization-server metadata' },
      'authorization/iss-required-when-advertised': { at: M, why: 'a client that never authorizes never gets an authorization response' },
    },
  },
  {
    name: 'broken-new-session-on-renewal',
    rule: 'retryInSessionAfterAuthorization',
    description: 'Reference client that takes a 401 in a session for the loss of the session: after a new token it initializes a new session, where a call that is not idempotent is not sent again',
    breaks: ['authorization/token-expiry-keeps-session', 'authorization/one-renewal-in-flight', 'authorization/no-authorization-loop', 'authorization/token-only-where-it-belongs', 'authorization/expiry-on-listening-stream', 'authorization/expiry-on-resumed-get', 'authorization/step-up', 'authorization/step-up-retry-limit', 'authorization/resource-as-published', 'authorization/token-endpoint-auth-as-registered'],
    only: {
      'authorization/token-endpoint-auth-as-registered': { at: WITH_SESSIONS, why: 'only a session can be taken for lost (2026-07-28 has none)' },
      'authorization/step-up': { at: WITH_SESSIONS, why: 'only a session can be taken for lost (2026-07-28 has none)' },
      'authorization/step-up-retry-limit': { at: WITH_SESSIONS, why: 'only a session can be taken for lost (2026-07-28 has none)' },
      'authorization/resource-as-published': { at: WITH_SESSIONS, why: 'only a session can be taken for lost (2026-07-28 has none)' },
      'authorization/one-renewal-in-flight': { at: WITH_SESSIONS, why: 'only a session can be taken for lost (2026-07-28 has none)' },
      'authorization/no-authorization-loop': { at: WITH_SESSIONS, why: 'only a session can be taken for lost (2026-07-28 has none)' },
      'authorization/token-only-where-it-belongs': { at: WITH_SESSIONS, why: 'only a session can be taken for lost (2026-07-28 has none)' },
    },
  },
  {
    name: 'broken-renews-per-request',
    rule: 'oneRenewalForAll',
    description: 'Reference client that refreshes once for every request refused with the same expired token, spending a rotated refresh token more than once',
    breaks: ['authorization/one-renewal-in-flight'],
  },
  {
    name: 'broken-endless-authorization',
    rule: 'boundAuthorizationRetries',
    description: 'Reference client that renews its token and sends the request again each time it is refused 401, however often (up to 20 times)',
    breaks: ['authorization/no-authorization-loop', 'authorization/close-with-expired-token', 'authorization/step-up-retry-limit'],
  },
  {
    name: 'broken-token-in-query',
    rule: 'tokenInHeaderOnly',
    description: 'Reference client that also puts its access token in the query string (access_token=…)',
    breaks: ['authorization/token-only-where-it-belongs'],
  },
  {
    name: 'broken-token-to-authorization-server',
    rule: 'tokenOnlyToItsServer',
    description: 'Reference client that sends its access token as a Bearer token to the authorization server too (metadata, registration, token requests), where the token endpoint refuses it',
    breaks: ['authorization/token-only-where-it-belongs', 'authorization/token-expiry-keeps-session', 'authorization/one-renewal-in-flight', 'authorization/no-authorization-loop', 'authorization/expiry-on-listening-stream', 'authorization/expiry-on-resumed-get', 'authorization/close-with-expired-token', 'authorization/step-up', 'authorization/resource-as-published', 'authorization/token-endpoint-auth-as-registered'],
    unreached: {
      'authorization/step-up-retry-limit': { at: ['2025-11-25', '2026-07-28'], why: 'its step-up is refused at the token endpoint (the token it sends there), so it never reaches the second 403' },
    },
  },
  {
    name: 'broken-probe-401-is-legacy',
    rule: 'authorizeTheProbe',
    description: 'Reference client that takes a 401 to its server/discover probe for a legacy server: it falls back to initialize (pinned to 2026-07-28, it gives up)',
    // negotiation/no-fallback-on-failure probes a server that answers 401 with a Bearer challenge: this variant falls back.
    breaks: ['negotiation/no-fallback-on-failure', 'authorization/probe-challenge-not-legacy', 'authorization/one-renewal-in-flight', 'authorization/no-authorization-loop', 'authorization/token-only-where-it-belongs', 'authorization/no-token-across-redirect', 'authorization/scope-from-challenge', 'authorization/scope-from-metadata', 'authorization/scope-omitted', 'authorization/first-authorization', 'authorization/pre-registered', 'authorization/step-up', 'authorization/step-up-retry-limit', 'authorization/resource-as-published', 'authorization/token-endpoint-auth-as-registered'],
    only: {
      'authorization/scope-from-challenge': { at: M, why: 'the probe exists only at 2026-07-28' },
      'authorization/scope-from-metadata': { at: M, why: 'the probe exists only at 2026-07-28' },
      'authorization/scope-omitted': { at: M, why: 'the probe exists only at 2026-07-28' },
      'authorization/first-authorization': { at: M, why: 'the probe exists only at 2026-07-28' },
      'authorization/pre-registered': { at: M, why: 'the probe exists only at 2026-07-28' },
      'authorization/token-endpoint-auth-as-registered': { at: M, why: 'the probe exists only at 2026-07-28' },
      'authorization/step-up': { at: M, why: 'the probe exists only at 2026-07-28' },
      'authorization/step-up-retry-limit': { at: M, why: 'the probe exists only at 2026-07-28' },
      'authorization/resource-as-published': { at: M, why: 'the probe exists only at 2026-07-28' },
      'authorization/one-renewal-in-flight': { at: M, why: 'the probe exists only at 2026-07-28' },
      'authorization/no-authorization-loop': { at: M, why: 'the probe exists only at 2026-07-28' },
      'authorization/token-only-where-it-belongs': { at: M, why: 'the probe exists only at 2026-07-28' },
      'authorization/no-token-across-redirect': { at: M, why: 'the probe exists only at 2026-07-28' },
    },
    unreached: {
      'authorization/resource-mismatch-refused': { at: M, why: 'pinned to 2026-07-28, it gives up at the probe before reading any metadata' },
      'authorization/metadata-issuer-checked': { at: M, why: 'pinned to 2026-07-28, it gives up at the probe before reading any metadata' },
      'authorization/iss-required-when-advertised': { at: M, why: 'pinned to 2026-07-28, it gives up at the probe before any authorization' },
    },
  },
];

/** The variants of the official suite's authorization families (suites/authorization/: step-up, resource, issuer, token endpoint authentication), in a block of their own. */
const AUTHORIZATION_FAMILY_VARIANTS: readonly VariantSpec[] = [
  {
    name: 'broken-no-step-up',
    rule: 'stepUpOnInsufficientScope',
    description: 'Reference client that passes a 403 insufficient_scope to the caller as it is: no step-up authorization, the call fails',
    breaks: ['authorization/step-up'],
    unreached: { 'authorization/step-up-retry-limit': { at: ['2025-11-25', '2026-07-28'], why: 'a client that never steps up never reaches the second 403 the retry limit is about' } },
  },
  {
    name: 'broken-step-up-drops-scope',
    rule: 'scopeUnionOnStepUp',
    description: 'Reference client whose step-up asks only the scope the challenge names, dropping the scope it held',
    breaks: ['authorization/step-up'],
    only: { 'authorization/step-up': { at: M, why: 'the scope union is a 2026-07-28 rule (2025-11-25 asks the challenge\'s scope)' } },
  },
  {
    name: 'broken-resource-from-url',
    rule: 'resourceAsPublished',
    description: 'Reference client that sends the MCP endpoint\'s URL as the RFC 8707 resource, not the resource the Protected Resource Metadata publishes',
    breaks: ['authorization/resource-as-published'],
  },
  {
    name: 'broken-accepts-other-resource',
    rule: 'refuseOtherResource',
    description: 'Reference client that asks a token for whatever resource the Protected Resource Metadata names, another server\'s included',
    breaks: ['authorization/resource-mismatch-refused'],
  },
  {
    name: 'broken-trusts-metadata-issuer',
    rule: 'checkMetadataIssuer',
    description: 'Reference client that uses authorization-server metadata naming another issuer than the one it was fetched for (RFC 8414 §3.3 not applied)',
    breaks: ['authorization/metadata-issuer-checked'],
  },
  {
    name: 'broken-accepts-missing-iss',
    rule: 'requireAdvertisedIss',
    description: 'Reference client that redeems an authorization code whose response lacks the iss the server\'s metadata promises (RFC 9207 §2.4 not applied)',
    breaks: ['authorization/iss-required-when-advertised'],
  },
  {
    name: 'broken-token-auth-basic-always',
    rule: 'tokenAuthAsRegistered',
    description: 'Reference client that authenticates at the token endpoint by HTTP Basic whenever it holds a secret, though registered with client_secret_post',
    breaks: ['authorization/token-endpoint-auth-as-registered'],
  },
];

/** The variants of the first authorization's steps (suites/authorization/scope-selection.ts, first-authorization.ts), in a block of their own. */
const SCOPE_SELECTION_VARIANTS: readonly VariantSpec[] = [
  {
    name: 'broken-ignores-challenged-scope',
    rule: 'scopeFromChallenge',
    description: "Reference client that asks for every scope of the resource's metadata even when the challenge names one",
    // Holding every scope from the first authorization, it meets no 403 in step-up.
    breaks: ['authorization/scope-from-challenge'],
    unreached: {
      'authorization/step-up': { at: ['2025-11-25', '2026-07-28'], why: 'it asked for every scope of the metadata at first, the one the 403 would name included: no 403 comes' },
    },
  },
  {
    name: 'broken-scope-from-authorization-server',
    rule: 'scopeFromResourceMetadata',
    description: "Reference client that, without a challenged scope, asks for the authorization server's scopes_supported (openid, offline_access and the rest) instead of the resource's, even when the resource lists none",
    breaks: ['authorization/scope-from-metadata', 'authorization/scope-omitted'],
  },
  {
    name: 'broken-no-resource-in-token-request',
    rule: 'resourceInTokenRequest',
    description: 'Reference client that leaves resource out of the token request redeeming the authorization code (it is in the authorization request)',
    breaks: ['authorization/first-authorization', 'authorization/resource-as-published'],
  },
  {
    name: 'broken-ignores-pre-registration',
    rule: 'usePreRegisteredCredentials',
    description: 'Reference client that ignores the credentials it was given and registers dynamically, and so cannot authorize with an authorization server that offers no registration',
    breaks: ['authorization/pre-registered'],
  },
];

/** The authorization variants of the lifecycle beyond a POST (the GET streams, the close, another origin), in a block of their own. */
const AUTHORIZATION_LIFECYCLE_VARIANTS: readonly VariantSpec[] = [
  {
    name: 'broken-renews-only-posts',
    rule: 'renewForEveryMethod',
    description: 'Reference client that renews its token only for a refused POST: a 401 to its standalone GET stream, a resuming GET or its DELETE is passed on (the stream stays closed, the resumed call fails)',
    breaks: ['authorization/expiry-on-listening-stream', 'authorization/expiry-on-resumed-get'],
  },
  {
    name: 'broken-close-fails-on-refused-delete',
    rule: 'closeSettlesOnRefusedDelete',
    description: 'Reference client whose close() rejects when its DELETE is still refused 401/403 after the one renewal',
    breaks: ['authorization/close-with-expired-token'],
  },
  {
    name: 'broken-token-across-redirect',
    rule: 'noTokenAcrossOrigins',
    description: 'Reference client that keeps its Authorization header when it follows a 307/308 redirect to another origin',
    breaks: ['authorization/no-token-across-redirect'],
  },
];

export const VARIANT_SPECS: readonly VariantSpec[] = [
  // — handshake —
  {
    name: 'broken-skips-initialized',
    rule: 'sendInitializedNotification',
    description: 'Reference client that never sends notifications/initialized',
    breaks: ['negotiation/handshake-order', 'stdio/handshake-order', 'json-responses/handshake-order'],
  },
  {
    name: 'broken-omits-version-header',
    rule: 'sendProtocolVersionHeader',
    description: 'Reference client that never sends MCP-Protocol-Version',
    breaks: ['negotiation/version-per-revision', 'disposal/delete-issued-session', 'resume/no-rehandshake', 'resume/negotiated-version-after-expiry', 'resume/sse-last-event-id', 'json-responses/version-per-revision', 'json-responses/delete-issued-session', 'authorization/expiry-on-resumed-get'],
    only: {
      'negotiation/version-per-revision': { at: WITH_VERSION_HEADER, why: 'the header is required from 2025-06-18 on' },
      'disposal/delete-issued-session': { at: WITH_VERSION_HEADER, why: 'the header is required from 2025-06-18 on' },
      'json-responses/version-per-revision': { at: WITH_VERSION_HEADER, why: 'the header is required from 2025-06-18 on' },
      'json-responses/delete-issued-session': { at: WITH_VERSION_HEADER, why: 'the header is required from 2025-06-18 on' },
      'resume/no-rehandshake': { at: WITH_VERSION_HEADER, why: 'the header is required from 2025-06-18 on' },
      'resume/sse-last-event-id': { at: ['2025-11-25'], why: 'without the header the server serves the POST as 2025-03-26: no priming event, no stream to cut' },
      'authorization/expiry-on-resumed-get': { at: ['2025-11-25'], why: 'without the header the server serves the POST as 2025-03-26: no priming event, no stream to cut' },
    },
  },
  {
    name: 'broken-reports-offered-version',
    rule: 'reportAnsweredVersion',
    description: 'Reference client that reports (and exports for resume) the revision it offered, not the one the server answered',
    breaks: ['negotiation/version-per-revision', 'negotiation/downgrade', 'resume/no-rehandshake', 'resume/negotiated-version-after-expiry', 'disposal/keep-persisted-session', 'stdio/version-per-revision', 'json-responses/version-per-revision'],
    only: {
      'negotiation/version-per-revision': { at: ['2024-11-05', '2025-03-26', '2025-06-18'], why: 'at 2025-11-25 the version it offers is the one the server answers' },
      'json-responses/version-per-revision': { at: ['2025-03-26', '2025-06-18'], why: 'at 2025-11-25 the version it offers is the one the server answers' },
      'stdio/version-per-revision': { at: ['2024-11-05', '2025-03-26', '2025-06-18'], why: 'at 2025-11-25 the version it offers is the one the server answers' },
      'negotiation/downgrade': { at: ['2025-03-26', '2025-06-18'], why: 'at 2025-11-25 every client offers what the server answers: nothing to downgrade' },
      'resume/no-rehandshake': { at: ['2025-03-26', '2025-06-18'], why: 'at 2025-11-25 the version it offers is the one the server answers' },
      'resume/negotiated-version-after-expiry': { at: ['2025-11-25'], why: 'only where the replacement session is offered its newest revision and answered an older one' },
      'disposal/keep-persisted-session': { at: ['2025-06-18'], why: 'it resumes with MCP-Protocol-Version: 2025-11-25 and gets a 400' },
    },
  },
  {
    name: 'broken-stale-version-after-expiry',
    rule: 'followReinitializedVersion',
    description: 'Reference client that keeps reporting the earlier revision after re-initializing a lost session (seed 002)',
    breaks: ['resume/negotiated-version-after-expiry'],
  },
  {
    name: 'broken-accepts-any-initialize-answer',
    rule: 'validateInitializeAnswer',
    description: 'Reference client that adopts whatever revision initialize names and ignores an error answer, waiting for a result until its connect times out',
    breaks: ['negotiation/unsupported-answer', 'negotiation/error-form'],
  },
  {
    name: 'broken-ignores-capabilities',
    rule: 'onlyNegotiatedCapabilities',
    description: 'Reference client that sets the server\'s log level (logging/setLevel) right after the handshake though the server did not advertise logging, and shrugs off the -32601',
    breaks: ['negotiation/capabilities-respected', 'stdio/capabilities-respected'],
  },
  // — negotiation modes, probe, era cache —
  {
    name: 'broken-probes-in-legacy-mode',
    rule: 'legacyModeNeverProbes',
    description: "Reference client that sends server/discover before initialize even in negotiation 'legacy' (seed 000)",
    breaks: ['negotiation/legacy-mode-no-probe', 'stdio/legacy-mode-no-probe'],
  },
  {
    name: 'broken-auto-tries-initialize-first',
    rule: 'autoProbesFirst',
    description: "Reference client whose 'auto' mode sends initialize first and probes only after a modern error, so a dual-era server ends up legacy",
    breaks: [
      'negotiation/dual-era-prefers-modern',
      'negotiation/auto-stays-modern',
      'negotiation/era-cached',
      'negotiation/no-fallback-on-failure',
      // Over stdio its first line is initialize, not the probe (probe-first).
      'stdio/probe-fallback-32601',
      'stdio/probe-fallback-32602',
      'stdio/probe-fallback-silence',
      'stdio/probe-fallback-exit',
      'stdio/probe-mutual-version',
      'stdio/probe-no-mutual-version',
      'stdio/probe-slow-start',
      'stdio/era-per-process',
    ],
    only: {
      'negotiation/era-cached': { at: M, why: 'sending initialize to a 2026-07-28 server breaks that revision’s message schemas' },
      'negotiation/no-fallback-on-failure': { at: M, why: 'sending initialize to a 2026-07-28 server breaks that revision’s message schemas' },
      'stdio/era-per-process': { at: M, why: 'the dual-era server serves its opening initialize legacy: the calls are no modern ones (at 2025-11-25 the legacy era it opens is the right one)' },
    },
    unreached: {
      'negotiation/auto-falls-back': { at: L, why: 'a legacy server answers its opening initialize: it never probes, so no probe gets a legacy answer' },
      'negotiation/era-cached': { at: L, why: 'it never probes a legacy server: no era is learned by a probe, none cached' },
      'negotiation/no-fallback-on-failure': { at: L, why: 'it never probes a legacy server: the failing probe never happens' },
      'authorization/probe-challenge-not-legacy': { at: M, why: 'it opens with initialize, not the probe: no probe is ever challenged' },
    },
  },
  {
    name: 'broken-falls-back-only-on-method-not-found',
    rule: 'fallBackOnAnyLegacyAnswer',
    description: 'Reference client whose fallback to initialize hinges on one error code (-32601): other legacy answers to the probe fail the connect',
    breaks: ['negotiation/auto-falls-back', 'negotiation/era-cached', 'stdio/probe-fallback-32602', 'stdio/probe-fallback-silence'],
    only: {
      'negotiation/era-cached': { at: L, why: 'at 2026-07-28 its probe gets a discover result, so it caches the era correctly' },
    },
  },
  {
    name: 'broken-falls-back-on-modern-error',
    rule: 'honourModernErrors',
    description: 'Reference client that falls back to initialize on -32020/-32021/-32022 instead of retrying a mutual version or surfacing the error',
    breaks: ['negotiation/auto-stays-modern', 'stdio/probe-mutual-version', 'stdio/probe-no-mutual-version'],
  },
  {
    name: 'broken-falls-back-on-probe-failure',
    rule: 'surfaceProbeFailures',
    description: 'Reference client that reads a 5xx, 401/403, reset or timed-out probe as a legacy server and sends initialize (seeds 002, 003)',
    breaks: ['negotiation/no-fallback-on-failure'],
  },
  {
    name: 'broken-forgets-era',
    rule: 'cacheEraPerOrigin',
    description: 'Reference client that caches no era: every connect probes again',
    breaks: ['negotiation/era-cached'],
  },
  {
    name: 'broken-reprobes-after-failure',
    rule: 'keepEraOnFailure',
    description: 'Reference client that forgets the cached era after a 5xx, timeout or dropped connection, and probes again on the next connect (seed 002)',
    breaks: ['negotiation/era-cached'],
  },
  // — legacy sessions —
  {
    name: 'broken-adopts-any-session-header',
    rule: 'sessionIdOnlyFromInitialize',
    description: 'Reference client that adopts the Mcp-Session-Id of any response (an echo or a proxy-injected id), replacing its session id or affinity key (seed 000)',
    breaks: ['resume/echoed-session-header', 'disposal/no-delete-unissued'],
    only: {
      'disposal/no-delete-unissued': { at: S, why: 'a modern close never DELETEs' },
    },
  },
  {
    name: 'broken-shares-session-id',
    rule: 'scopeSessionsToConnection',
    description: "Reference client that keeps one session id per client instance and offers it on the next connection's initialize, whatever the server",
    breaks: ['security/no-session-leak'],
  },
  {
    name: 'broken-rehandshakes-on-resume',
    rule: 'resumeAsStored',
    description: 'Reference client that re-runs initialize inside a resumed session instead of continuing it (seed 000)',
    breaks: ['resume/no-rehandshake', 'disposal/keep-persisted-session'],
  },
  {
    name: 'broken-ignores-session-loss',
    rule: 'recoverSessionLoss',
    description: 'Reference client that surfaces a 404 for its session and keeps sending the dead id: no new session',
    breaks: [
      'resume/expired-404',
      'resume/expired-400-session-message',
      'resume/negotiated-version-after-expiry',
      'retry/session-reestablished',
      'retry/stale-404-after-replacement',
      // It starts no replacement session, so none can be lost: it never reaches the rule by its own doing (replacement-started).
      'retry/replacement-session-lost',
    ],
  },
  {
    name: 'broken-reinitializes-with-dead-id',
    rule: 'reinitializeWithoutSessionId',
    description: 'Reference client whose replacement initialize still carries the dead session id',
    // Its replacement initialize carries the dead id and is refused: no replacement session starts, so none can be lost
    // (replacement-session-lost fails replacement-started).
    breaks: ['resume/expired-404', 'resume/expired-400-session-message', 'resume/negotiated-version-after-expiry', 'retry/session-reestablished', 'retry/stale-404-after-replacement', 'retry/replacement-session-lost'],
  },
  {
    name: 'broken-ignores-400-session-loss',
    rule: 'treatSdk400AsSessionLoss',
    description: 'Reference client that reads only 404 as a lost session, not the SDK-example 400 -32000 "No valid session ID provided"',
    breaks: ['resume/expired-400-session-message'],
  },
  {
    name: 'broken-stale-404-tears-down',
    rule: 'ignoreStaleSessionLoss',
    description: 'Reference client that lets a delayed 404 for the old session id tear down its replacement session (seed 002)',
    breaks: ['retry/stale-404-after-replacement'],
  },
  {
    name: 'broken-reinitializes-on-drop',
    rule: 'dropKeepsSession',
    description: 'Reference client that treats a dropped connection as a lost session and re-initializes (seed 000)',
    breaks: ['retry/connection-drop-keeps-session'],
  },
  {
    name: 'broken-retries-non-idempotent',
    rule: 'retryOnlyIdempotent',
    description: 'Reference client that re-sends any request after a dropped connection, a non-idempotent tools/call included',
    breaks: ['retry/no-double-execution'],
  },
  {
    name: 'broken-ignores-sse-retry',
    rule: 'respectSseRetry',
    description: "Reference client that resumes a cut SSE stream at once, without waiting the server's retry interval",
    breaks: ['resume/sse-last-event-id'],
    only: {
      'resume/sse-last-event-id': { at: ['2025-11-25'], why: '`retry` exists only at 2025-11-25' },
    },
  },
  {
    name: 'broken-reposts-instead-of-resuming',
    rule: 'resumeWithLastEventId',
    description: 'Reference client that POSTs the request again when its SSE stream is cut, instead of GET with Last-Event-ID',
    breaks: ['resume/sse-last-event-id', 'retry/no-double-execution', 'authorization/expiry-on-resumed-get'],
    only: {
      'retry/no-double-execution': { at: ['2025-11-25'], why: 'the Last-Event-ID path exists only at 2025-11-25 for a tool call' },
    },
  },
  {
    name: 'broken-fails-on-sse-comment',
    rule: 'ignoreSseComments',
    description: 'Reference client that takes an SSE comment line (a keep-alive) for malformed input: it aborts the stream and the request fails',
    breaks: ['resume/sse-comments-ignored'],
  },
  {
    name: 'broken-retries-http-errors',
    rule: 'noRetryOnHttpErrors',
    description: 'Reference client that retries a request answered 401, 403 or 5xx up to three times, at once (seed 003)',
    // A 401 with a new token refused again is sent again three more times: the loop authorization/no-authorization-loop bounds.
    breaks: ['retry/no-retry-on-auth', 'retry/bounded-on-5xx', 'authorization/no-authorization-loop', 'authorization/step-up-retry-limit'],
  },
  // — 2026-07-28 —
  {
    name: 'broken-omits-client-info',
    rule: 'modernEnvelopeComplete',
    description: 'Reference client whose 2026-07-28 _meta envelope lacks io.modelcontextprotocol/clientInfo',
    breaks: ['negotiation/modern-envelope'],
  },
  // — pagination —
  {
    name: 'broken-first-page-only',
    rule: 'followNextCursor',
    description: 'Reference client whose listTools() returns the first page and ignores nextCursor',
    // An endless server's first page, returned as the whole list, is the short list pagination/endless refuses.
    breaks: ['pagination/pages', 'pagination/empty-cursor', 'pagination/repeated-cursor', 'pagination/cursor-per-session', 'pagination/endless'],
  },
  {
    name: 'broken-empty-cursor-ends-list',
    rule: 'cursorPresenceOnly',
    description: 'Reference client that takes a nextCursor of "" for the end of the list',
    breaks: ['pagination/empty-cursor'],
  },
  {
    name: 'broken-stops-on-repeated-cursor',
    rule: 'followRepeatedCursors',
    description: 'Reference client that stops listing when a nextCursor repeats one it followed, returning the pages so far as the whole list (typescript-sdk #2735)',
    breaks: ['pagination/repeated-cursor'],
  },
  {
    name: 'broken-silent-page-cap',
    rule: 'pageBoundIsAnError',
    description: 'Reference client that stops a listing at 50 pages and returns them as the whole list while the server still names a nextCursor',
    breaks: ['pagination/endless'],
  },
  {
    name: 'broken-late-affinity-key',
    rule: 'affinityKeyFromFirstRequest',
    description: 'Reference client that sends its affinity key only after server/discover, not on the very first request (seed 000)',
    breaks: ['resume/affinity-first-request', 'resume/echoed-session-header'],
    only: {
      'resume/echoed-session-header': { at: M, why: 'its own key must also survive a proxy that echoes and injects ids (2026-07-28 only)' },
    },
  },
  {
    name: 'broken-retries-modern-errors',
    rule: 'modernRetryOnlyDrops',
    description: 'Reference client that re-issues a 2026-07-28 request answered with a protocol error (seed 000)',
    breaks: ['retry/modern-only-transport-errors'],
  },
  {
    name: 'broken-reissues-same-id',
    rule: 'freshIdOnReissue',
    description: 'Reference client that re-issues a 2026-07-28 request after a dropped connection with the same JSON-RPC id',
    breaks: ['retry/modern-only-transport-errors', 'retry/no-double-execution'],
    only: {
      'retry/no-double-execution': { at: M, why: 'fresh ids on re-issue are a modern-session rule' },
    },
  },
  // — disposal —
  {
    name: 'broken-never-deletes',
    rule: 'deleteSessionOnClose',
    description: 'Reference client that never DELETEs its session',
    breaks: ['disposal/delete-issued-session', 'json-responses/delete-issued-session'],
    unreached: {
      'disposal/close-with-hung-delete': { at: S, why: 'it sends no DELETE at close: none is held, so the shutdown timeout never comes (disposal/delete-issued-session judges the missing DELETE)' },
    },
    shaped: {
      'authorization/close-with-expired-token': { at: WITH_SESSIONS, why: 'it sends no DELETE at close: the wire of a client with no session to end, which never meets the refused DELETE' },
    },
  },
  {
    name: 'broken-deletes-kept-session',
    rule: 'keepSessionWhenAsked',
    description: 'Reference client that DELETEs its session at close even when told to keep it for a resume',
    breaks: ['disposal/keep-persisted-session'],
  },
  {
    name: 'broken-deletes-affinity-key',
    rule: 'deleteOnlyIssuedSessions',
    description: 'Reference client that sends DELETE for its client-minted 2026-07-28 affinity key at close (seed 000)',
    breaks: ['disposal/no-delete-unissued'],
    only: {
      'disposal/no-delete-unissued': { at: M, why: 'only modern sessions have an affinity key' },
    },
  },
  {
    name: 'broken-fails-on-delete-405',
    rule: 'tolerateDelete405',
    description: 'Reference client whose close() fails when the server answers DELETE with 405',
    breaks: ['disposal/delete-issued-session', 'json-responses/delete-issued-session'],
  },
  {
    name: 'broken-waits-for-delete',
    rule: 'boundDeleteOnClose',
    description: "Reference client whose close() waits for the DELETE's answer with no timeout of its own: a server or proxy that never answers it hangs close()",
    breaks: ['disposal/close-with-hung-delete'],
  },
  {
    name: 'broken-deletes-twice',
    rule: 'closeOnce',
    description: 'Reference client that sends DELETE again on every close() call',
    breaks: ['disposal/idempotent-close'],
    only: {
      'disposal/idempotent-close': { at: S, why: 'there is no DELETE at 2024-11-05 or 2026-07-28' },
    },
  },
  {
    name: 'broken-close-leaves-streams',
    rule: 'closeTearsDown',
    description: 'Reference client whose close() only DELETEs: calls in flight, response streams, the HTTP+SSE stream and resumption timers run on',
    // Over stdio its close() still ends the process (closing stdin): only the call in flight is left unsettled.
    breaks: ['disposal/in-flight-settled', 'disposal/quiet-after-close', 'disposal/sse-stream-closed', 'stdio/in-flight-settled', 'json-responses/in-flight-settled'],
    only: {
      'disposal/in-flight-settled': { at: L, why: 'at 2026-07-28 over HTTP its close() sends nothing and the call runs to its answer' },
      'disposal/quiet-after-close': { at: L, why: 'at 2026-07-28 over HTTP its close() sends nothing and the call runs to its answer' },
    },
    // 2026-07-28 over HTTP has no session beyond each request: a close that leaves the call to its answer, nothing else
    // open, is on the wire a session the call holds (shape ref-counted), not a close under the call.
    shaped: {
      'disposal/in-flight-settled': { at: M, why: 'on the wire a session kept for the call in flight (shape ref-counted)' },
      'disposal/quiet-after-close': { at: M, why: 'on the wire a session kept for the call in flight (shape ref-counted)' },
    },
  },
  {
    name: 'broken-connect-outlives-timeout',
    rule: 'abortConnectOnGiveUp',
    description: 'Reference client whose connect gives up without aborting the handshake: the probe or initialize runs on and its requests arrive late',
    breaks: ['disposal/close-during-connect'],
  },
  // — cancellation —
  {
    name: 'broken-cancels-locally',
    rule: 'cancelOnTheWire',
    description: 'Reference client that cancels only locally: legacy sends no notifications/cancelled, 2026-07-28 POSTs one and leaves the stream open',
    breaks: ['cancellation/legacy-notification', 'cancellation/modern-closes-stream', 'cancellation/timeout-cancels', 'disposal/in-flight-settled', 'stdio/legacy-notification', 'stdio/timeout-cancels', 'stdio/in-flight-settled', 'json-responses/timeout-cancels', 'json-responses/in-flight-settled'],
  },
  {
    name: 'broken-cancels-initialize',
    rule: 'neverCancelInitialize',
    description: 'Reference client that sends notifications/cancelled for an initialize its connect gave up on',
    breaks: ['cancellation/never-initialize', 'disposal/close-during-connect', 'stdio/never-initialize'],
    only: {
      'disposal/close-during-connect': { at: L, why: 'at 2026-07-28 the held request is the probe, not initialize' },
    },
  },
  {
    name: 'broken-waits-after-cancel',
    rule: 'settleOnCancel',
    description: 'Reference client whose cancelled call keeps waiting and returns the late answer',
    // Over stdio there is no stream to close: at 2026-07-28 too, the cancelled call waits.
    breaks: ['cancellation/late-response-ignored', 'cancellation/legacy-notification', 'cancellation/timeout-cancels', 'stdio/late-response-ignored', 'stdio/legacy-notification', 'stdio/timeout-cancels', 'json-responses/timeout-cancels', 'cancellation/silent-server'],
    only: {
      'cancellation/timeout-cancels': { at: L, why: 'at 2026-07-28 the closed stream settles the call anyway' },
      'cancellation/silent-server': { at: L, why: 'at 2026-07-28 the closed stream settles the call anyway' },
    },
  },
  {
    name: 'broken-cancels-all-calls',
    rule: 'cancelOnlyTheAbortedCall',
    description: 'Reference client for which aborting one call cancels every call in flight',
    breaks: ['cancellation/concurrent-independent', 'stdio/concurrent-independent'],
  },
  {
    name: 'broken-progress-extends-timeout',
    rule: 'enforceMaximumTimeout',
    description: 'Reference client whose request timeout restarts on every progress notification, with no maximum',
    breaks: ['cancellation/progress-resets-timeout', 'stdio/progress-resets-timeout'],
  },
  // — HTTP+SSE fallback —
  {
    name: 'broken-falls-back-on-auth',
    rule: 'fallbackOnlyOn400404405',
    description: 'Reference client that falls back to HTTP+SSE on any 4xx to initialize, 401 and 403 included (seed 003)',
    breaks: ['retry/no-retry-on-auth', 'retry/http-sse-fallback', 'negotiation/era-cached'],
    only: {
      'retry/no-retry-on-auth': { at: L, why: 'pinned to 2026-07-28, a 401 to the probe never reaches the HTTP+SSE fallback' },
      'negotiation/era-cached': { at: L, why: 'it takes a 400 -32022 to initialize as a sign of HTTP+SSE and never re-probes (legacy revisions)' },
    },
  },
  {
    name: 'broken-falls-back-after-initialize',
    rule: 'fallbackOnlyBeforeInitialize',
    description: 'Reference client that GETs an SSE stream when the DELETE at close is answered 404/405 (seed 003)',
    breaks: ['retry/http-sse-fallback', 'disposal/quiet-after-close'],
    only: {
      'disposal/quiet-after-close': { at: S, why: 'its stray GET needs a DELETE answered 405' },
    },
  },
  {
    name: 'broken-follows-foreign-endpoint',
    rule: 'checkEndpointOrigin',
    description: 'Reference client that POSTs to an HTTP+SSE endpoint on another origin',
    breaks: ['security/endpoint-origin'],
  },
  // — stdio: framing, and a server that goes away —
  {
    name: 'broken-raw-newlines',
    rule: 'oneLinePerMessage',
    description: 'Reference client that writes the newlines inside its strings raw, so a message carrying one spreads over several stdin lines',
    // Each of these echoes a text with a newline: the call never reaches the server as a message.
    breaks: ['stdio/framing', 'stdio/split-writes', 'stdio/merged-writes', 'stdio/utf8-split'],
  },
  {
    name: 'broken-drops-batches',
    rule: 'acceptBatches',
    description: "Reference client that drops a stdio line holding a JSON-RPC batch (an array), as the SDKs' stdio transports do: the answers in it never reach their calls",
    breaks: ['stdio/batch-answers'],
  },
  {
    name: 'broken-leaves-calls-pending-on-exit',
    rule: 'settleOnServerExit',
    description: 'Reference client whose calls in flight go on waiting for an answer when the server process ends',
    breaks: ['stdio/crash-mid-call', 'stdio/close-stdout-and-exit'],
  },
  {
    name: 'broken-no-restart-after-crash',
    rule: 'restartAfterCrash',
    description: 'Reference client that never launches a 2026-07-28 server again after it crashed: every later call fails',
    breaks: ['stdio/crash-mid-call'],
    only: { 'stdio/crash-mid-call': { at: M, why: 'the restart is a 2026-07-28 rule (stdio › Unexpected Termination); the legacy revisions say nothing of it' } },
  },
  {
    name: 'broken-relaunches-after-close',
    rule: 'stayClosed',
    description: 'Reference client whose supervisor launches the stdio server again whenever it exits, the exit close() caused included: the new process is opened and left running',
    // Every scenario that ends with the launched processes gone sees the relaunched one survive.
    breaks: ['stdio/quiet-after-close', 'stdio/shutdown-sequence', 'stdio/process-tree'],
  },
  // — the server speaks first —
  {
    name: 'broken-refuses-ping',
    rule: 'answerPing',
    description: "Reference client that answers the server's ping with -32601 (Method not found), as clients without a ping handler do",
    breaks: ['server-requests/ping-answered', 'stdio/ping-answered', 'stdio/ping-while-idle', 'stdio/ping-at-initialize', 'server-requests/get-stream-requests'],
  },
  {
    name: 'broken-leaves-requests-unanswered',
    rule: 'answerServerRequests',
    description: 'Reference client that never answers a server request it has no handler for (roots/list, sampling, elicitation): the server waits until its own timeout',
    breaks: ['server-requests/requests-answered', 'stdio/requests-answered', 'server-requests/get-stream-requests'],
  },
  {
    name: 'broken-listens-without-accept',
    rule: 'listenAcceptsEventStream',
    description: 'Reference client whose standalone GET stream is asked for with Accept: application/json only (the server answers 406: nothing to listen on)',
    breaks: ['server-requests/get-stream-requests', 'server-requests/get-stream-405'],
  },
  {
    name: 'broken-deaf-get-stream',
    rule: 'answerOnTheGetStream',
    description: 'Reference client that opens the standalone GET stream but answers nothing the server sends on it (pings, roots/list…): the server waits until its own timeout',
    breaks: ['server-requests/get-stream-requests'],
  },
  {
    name: 'broken-get-405-fatal',
    rule: 'getStream405IsNoStream',
    description: 'Reference client that takes a 405 to its standalone GET for a broken connection: every later request fails',
    breaks: ['server-requests/get-stream-405'],
  },
  {
    name: 'broken-any-elicitation-mode',
    rule: 'refuseUndeclaredElicitationMode',
    description: 'Reference client that hands a URL mode elicitation to its form handler and accepts it, though it declared elicitation as {} (form only)',
    breaks: ['server-requests/elicitation-url-undeclared', 'stdio/elicitation-url-undeclared'],
  },
  {
    name: 'broken-undeclared-handlers',
    rule: 'declareHandledCapabilities',
    description: 'Reference client that answers roots/list, sampling and elicitation with its handlers but declares none of those capabilities in initialize',
    // At 2026-07-28 the server may not ask for what was not declared: it refuses the call (-32021).
    breaks: [
      'server-requests/roots-answered',
      'server-requests/sampling-answered',
      'server-requests/elicitation-answered',
      'stdio/roots-answered',
      'stdio/sampling-answered',
      'stdio/elicitation-answered',
      'server-requests/roots-input-required',
      'server-requests/sampling-input-required',
      'server-requests/elicitation-input-required',
      'stdio/roots-input-required',
      'stdio/sampling-input-required',
      'stdio/elicitation-input-required',
    ],
    unreached: {
      'server-requests/elicitation-url-undeclared': { at: ['2025-11-25'], why: 'it declares no elicitation at all, so no form-only declaration is there to keep a URL mode request out' },
      'stdio/elicitation-url-undeclared': { at: ['2025-11-25'], why: 'it declares no elicitation at all, so no form-only declaration is there to keep a URL mode request out' },
    },
  },
  {
    name: 'broken-answers-notifications',
    rule: 'neverAnswerNotifications',
    description: 'Reference client that answers each notification it has no handler for with -32601 (id null), as a naive JSON-RPC peer does',
    // Wherever else the server sends a notification, the answer is an invalid message (messages-match-schema).
    breaks: ['server-requests/notifications-interleaved', 'stdio/notifications-interleaved', 'stdio/merged-writes', 'resume/sse-last-event-id', 'resume/sse-comments-ignored', 'server-requests/server-cancels', 'stdio/server-cancels', 'authorization/expiry-on-resumed-get'],
    only: {
      'resume/sse-last-event-id': { at: ['2025-03-26', '2025-06-18'], why: 'there the tool logs on its stream before the cut; each log message is answered with an id-null error' },
      'authorization/expiry-on-resumed-get': { at: ['2025-06-18'], why: 'there the tool logs on its stream before the cut; each log message is answered with an id-null error' },
      'resume/sse-comments-ignored': { at: L, why: 'the logging tool logs before it answers, each log message answered with an id-null error; at 2026-07-28 the server logs only to a request naming a log level' },
    },
  },
  {
    name: 'broken-ignores-input-required',
    rule: 'answerInputRequired',
    description: 'Reference client that surfaces a 2026-07-28 InputRequiredResult as an error and never retries, though it has the handler',
    breaks: ['server-requests/roots-input-required', 'server-requests/sampling-input-required', 'server-requests/elicitation-input-required', 'stdio/roots-input-required', 'stdio/sampling-input-required', 'stdio/elicitation-input-required'],
  },
  {
    name: 'broken-drops-request-state',
    rule: 'echoRequestState',
    description: 'Reference client that retries a multi-round-trip request with the inputs but without the requestState it was given',
    breaks: ['server-requests/roots-input-required', 'server-requests/sampling-input-required', 'server-requests/elicitation-input-required', 'stdio/roots-input-required', 'stdio/sampling-input-required', 'stdio/elicitation-input-required'],
  },
  {
    name: 'broken-keeps-stale-request-state',
    rule: 'requestStateOfTheLastRound',
    description: 'Reference client that carries the requestState of an earlier round into a retry whose result gave none',
    breaks: ['server-requests/roots-input-required', 'server-requests/sampling-input-required', 'server-requests/elicitation-input-required', 'stdio/roots-input-required', 'stdio/sampling-input-required', 'stdio/elicitation-input-required'],
  },
  // — stdio: the shutdown sequence, the process tree, stderr —
  {
    name: 'broken-signals-before-stdin',
    rule: 'closeStdinFirst',
    description: "Reference client whose close() sends SIGTERM first and closes the server's stdin only a grace later",
    breaks: ['stdio/shutdown-sequence'],
  },
  {
    name: 'broken-never-sigkills',
    rule: 'escalateToSigkill',
    description: 'Reference client that stops at SIGTERM: a server that ignores it is left running',
    breaks: ['stdio/shutdown-sequence'],
  },
  {
    name: 'broken-kills-only-its-child',
    rule: 'killProcessTree',
    description: 'Reference client that signals only the process it spawned: the real server behind an npx-like launcher is left running',
    breaks: ['stdio/process-tree'],
  },
  {
    name: 'broken-leaves-stderr-unread',
    rule: 'drainStderr',
    description: "Reference client that never reads the server's stderr pipe: a server that logs more than the pipe holds blocks before it answers",
    breaks: ['stdio/stderr'],
  },
  {
    name: 'broken-stderr-is-an-error',
    rule: 'stderrNotAnError',
    description: 'Reference client that fails the connection on any output on stderr',
    breaks: ['stdio/stderr'],
  },
  // — request ids across the connections of one session —
  {
    name: 'broken-reuses-ids-on-resume',
    rule: 'continueIdsOnResume',
    description: 'Reference client that starts its JSON-RPC ids at 1 again when it resumes a session on a new connection, reusing ids of that session',
    breaks: ['resume/no-rehandshake'],
  },
  // — issue 28: bugs the suite missed —
  {
    name: 'broken-falls-back-on-5xx',
    rule: 'noFallbackOnServerErrors',
    description: 'Reference client that reads a 5xx to its initialize POST as an HTTP+SSE server: it GETs the URL for a stream and works there',
    breaks: ['retry/no-fallback-on-5xx'],
  },
  {
    name: 'broken-endless-session-recovery',
    rule: 'boundSessionRecovery',
    description: 'Reference client whose call re-initializes and retries again each time the replacement session is lost too: against a server that keeps answering 404 the call never settles',
    breaks: ['retry/replacement-session-lost'],
  },
  {
    name: 'broken-falls-back-after-unsupported-answer',
    rule: 'noFallbackAfterAnsweredInitialize',
    description: 'Reference client that DELETEs the session an initialize answer naming an unsupported revision issued, and on a 404/405 to that DELETE falls back to HTTP+SSE (a GET of the URL)',
    breaks: ['retry/no-fallback-after-unsupported-answer'],
  },
  {
    name: 'broken-no-request-timeout',
    rule: 'applyRequestTimeout',
    description: 'Reference client with no request timeout at all: it ignores the timeout an operation is given, so a server that never answers holds the call for ever',
    breaks: ['cancellation/silent-server', 'cancellation/timeout-cancels', 'cancellation/progress-resets-timeout', 'json-responses/timeout-cancels', 'stdio/timeout-cancels', 'stdio/progress-resets-timeout'],
  },
  {
    name: 'broken-connect-waits-on-exit',
    rule: 'connectGivesUpAtOnce',
    description: "Reference client whose stdio connect, giving up, closes the server's stdin and waits for it to exit before it rejects, with no signal: a server that ignores EOF holds the connect (and dispose) for as long as it runs",
    breaks: ['stdio/never-initialize'],
  },
  // — issue 29: the lifecycle around authorization (suites/authorization/) —
  ...AUTHORIZATION_VARIANTS,
  ...SCOPE_SELECTION_VARIANTS,
  ...AUTHORIZATION_LIFECYCLE_VARIANTS,
  // — issue 29: the official suite's authorization families (suites/authorization/) —
  ...AUTHORIZATION_FAMILY_VARIANTS,
];
