// The adapter contract: what a client under test offers the suites. Version 2.
//
// An adapter is thin. It calls the client's public API the way the client's documentation shows and
// adds no lifecycle logic of its own (no retries, no caches, no session bookkeeping the client does not
// do itself), or the suite would be testing the adapter instead of the client. Everything an adapter
// reports is a claim; the suites judge from what the server received, and use claims only where the
// wire cannot show the answer (the version a client believes it negotiated, say).
//
// The guide for third parties is clients/WRITING-AN-ADAPTER.md.
//
// Version 2.4 added headless OAuth (ConnectOptions.authorization, the feature `oauth`): what a client that implements the
// spec's authorization needs to be driven with no person in the loop. Optional: a client that declares no `oauth` is
// never given it, and the authorization scenarios are not applicable to it.
//
// Version 2.3 added `wraps`: the SDK a client is built on, so reports can show which of its verdicts it shares with that
// SDK's own row. Optional, a claim like every other: an adapter that declares none wraps nothing the reports know of.
//
// Version 2.2 added `listen` (ConnectOptions.listen, the feature `listen`): a client asked to open the standalone GET
// stream of Streamable HTTP. Optional: a client that never opens one declares nothing, one that always does need not.
//
// Version 2.1 added the client's handlers for the server's requests (ConnectOptions.handlers, the features roots,
// sampling and elicitation): optional, so every version-2 adapter is a 2.1 adapter that registers none.
//
// Version 2 added the stdio transport: a client may be told to launch its server as a child process (StdioTarget)
// instead of connecting to a URL, if it declares `transports: [..., 'stdio']`. Every version-1 adapter is a version-2
// adapter: without `transports` it declares HTTP only, and is never given a stdio target.
import type { StdioTarget } from '../protocol/stdio.ts';
import type { Revision } from '../protocol/revisions.ts';
import type { TimePolicy } from '../config/time.ts';

export const ADAPTER_CONTRACT_VERSION = 2;

/**
 * How a client reaches its server. A scenario runs over one transport; an adapter that does not declare it is reported
 * "not applicable" for that scenario, with the reason.
 */
export const TRANSPORTS = {
  http: 'connects to a URL: Streamable HTTP (2025-03-26 and later), HTTP+SSE (2024-11-05)',
  stdio: 'launches the server as its own child process and speaks newline-delimited JSON-RPC on its stdin and stdout',
} as const;
export type Transport = keyof typeof TRANSPORTS;

/** What an adapter that declares no transports speaks: HTTP only (every adapter written for contract version 1). */
export const DEFAULT_TRANSPORTS: readonly Transport[] = ['http'];

export type { StdioTarget } from '../protocol/stdio.ts';

/** What `connect` is given: a URL (the `http` transport) or a command to launch (the `stdio` transport). */
export type ServerTarget = string | StdioTarget;

export function isStdioTarget(target: ServerTarget): target is StdioTarget {
  return typeof target === 'object' && target !== null && target.transport === 'stdio';
}

/** The transports an adapter declares (DEFAULT_TRANSPORTS when it declares none). */
export function transportsOf(adapter: Pick<ClientAdapter, 'transports'>): readonly Transport[] {
  return adapter.transports ?? DEFAULT_TRANSPORTS;
}

/**
 * What a client can do beyond the basics (connect, list tools, call a tool, close). A scenario that needs
 * a feature the adapter does not declare is reported "not applicable" with the reason, never passed, so
 * declare exactly what the client really supports.
 */
export const FEATURES = {
  'mode-legacy': 'connects with the `initialize` handshake only (negotiation: "legacy")',
  'mode-auto': 'probes with `server/discover`, falls back to `initialize` for legacy servers (negotiation: "auto")',
  'mode-pin': 'speaks only a pinned revision, e.g. 2026-07-28 (negotiation: { pin })',
  resume: 'reconnects to an earlier session from exported resume state (session id and negotiated revision)',
  'keep-session': 'closes without ending the server session, so it can be resumed later (keepSessionOnClose)',
  cancellation: 'cancels an in-flight call when its AbortSignal fires',
  'request-timeout': 'applies a per-request timeout it is given (timeoutMs on an operation)',
  'transport-fallback': 'falls back from Streamable HTTP to HTTP+SSE when the server does not speak it',
  'affinity-key': 'sends a client-minted affinity key in Mcp-Session-Id (2026-07-28 routing convention)',
  roots: 'registers a roots/list handler answering with the roots it is given (ConnectOptions.handlers.roots), and declares the roots capability',
  sampling: 'registers a sampling/createMessage handler answering with the message it is given (handlers.sampling), and declares the sampling capability',
  elicitation: 'registers an elicitation/create handler answering with the answer it is given (handlers.elicitation), and declares the elicitation capability',
  listen: 'opens the standalone GET stream of Streamable HTTP after initialize when asked (ConnectOptions.listen), and answers the server there',
  oauth: 'authorizes with the server\'s OAuth 2.1 authorization server when challenged (the spec\'s Authorization section), headlessly through ConnectOptions.authorization',
} as const;
export type Feature = keyof typeof FEATURES;

/** How the client picks a protocol revision. */
export type Negotiation = 'legacy' | 'auto' | { pin: Revision };

/** The feature a negotiation mode needs. */
export function featureFor(negotiation: Negotiation): Feature {
  return negotiation === 'legacy' ? 'mode-legacy' : negotiation === 'auto' ? 'mode-auto' : 'mode-pin';
}

/** What a client can export after connecting and be given again to resume (plain JSON). */
export interface ResumeState {
  /** The revision negotiated when the session began: a resume must keep using it. */
  protocolVersion: string;
  /** The server-issued session id (legacy Streamable HTTP), if there was one. */
  sessionId?: string;
  /**
   * The first JSON-RPC id the resumed connection may use, if the client exports it: ids are never used twice within a
   * session (basic/index › Requests), and a resumed session is the same session on a new connection.
   */
  nextRequestId?: number;
}

/**
 * What the client answers the server's requests with: the scenario's canned answers, which the adapter's handlers
 * return as the client's public API registers them (contract 2.1). Each needs its feature; without one, the client
 * registers no handler and declares no capability for it.
 */
export interface ClientHandlers {
  /** roots/list: these roots. Needs `roots`. */
  roots?: { uri: string; name?: string }[];
  /** sampling/createMessage: this message. Needs `sampling`. */
  sampling?: { role: 'assistant'; content: { type: 'text'; text: string }; model: string; stopReason?: string };
  /** elicitation/create: this answer. Needs `elicitation`. */
  elicitation?: { action: 'accept' | 'decline' | 'cancel'; content?: Record<string, string | number | boolean> };
}

/** The feature each handler needs. */
export const HANDLER_FEATURES = { roots: 'roots', sampling: 'sampling', elicitation: 'elicitation' } as const satisfies Record<keyof ClientHandlers, Feature>;

import type { AuthorizationOptions } from '../protocol/authorization.ts';

export type { AuthorizationOptions };

export interface ConnectOptions {
  /**
   * Upper bound for the connect itself: the handshake, wherever the client does it (a lazy client's first operation
   * does it, and this bounds it there). The runner also enforces a bound from outside. It is the one timeout the contract
   * gives a connection, so disposal/close-with-hung-delete also reads it as the client's own bound on the DELETE its
   * close() sends: a client whose DELETE waits longer (or has no timeout) is judged late there.
   */
  timeoutMs: number;
  /** Default: the adapter's own default mode. Needs the matching `mode-*` feature. */
  negotiation?: Negotiation;
  /** Resume this session instead of starting a new one. Needs `resume`. */
  resume?: ResumeState;
  /** A client-minted routing key sent from the very first request. Needs `affinity-key`. */
  affinityKey?: string;
  /** `close()` must leave the server session alive for a later resume. Needs `keep-session`. */
  keepSessionOnClose?: boolean;
  /**
   * stdio only: how long `close()` may wait for the server to exit after closing its stdin, and again after SIGTERM,
   * before it escalates (the spec's "reasonable time"). The runner gives it from the case's time policy. A client whose
   * graces are its own (not configurable) ignores it: what it does is what the suite judges.
   */
  shutdownGraceMs?: number;
  /** The answers to the server's requests (roots, sampling, elicitation). Each needs its feature. */
  handlers?: ClientHandlers;
  /** Streamable HTTP: open the standalone GET stream once initialized, to hear the server between calls. Needs `listen`. */
  listen?: boolean;
  /**
   * Authorize with the server's authorization server when it challenges, headlessly (AuthorizationOptions). Needs
   * `oauth`. HTTP only: no scenario gives it to a stdio connect (an stdio implementation SHOULD NOT follow the
   * authorization spec, and takes its credentials from the environment; stdio has no challenge and no header).
   */
  authorization?: AuthorizationOptions;
}

export interface OperationOptions {
  /** Aborting it cancels the request. Needs `cancellation`. */
  signal?: AbortSignal;
  /** The client's own per-request timeout. Needs `request-timeout`. */
  timeoutMs?: number;
}

export interface ToolSummary {
  name: string;
}

export interface ToolResult {
  content: unknown[];
  isError?: boolean;
}

/** What the client says about its connection. */
export interface ConnectionInfo {
  /** The revision the client believes it negotiated. */
  negotiatedVersion?: string;
  era?: 'legacy' | 'modern';
  /** The session id the client holds (legacy Streamable HTTP), if any. */
  sessionId?: string;
  /** What the client would need to resume, if it can export it. */
  resumeState?: ResumeState;
}

export interface ClientConnection {
  info(): Promise<ConnectionInfo>;
  /**
   * Every tool the server lists, as the client's caller gets them: a client that walks pages itself walks them; one whose
   * API returns one page at a time is walked by the adapter while a nextCursor is present (the pagination scenarios judge
   * what is returned).
   */
  listTools(options?: OperationOptions): Promise<ToolSummary[]>;
  callTool(name: string, args: Record<string, unknown>, options?: OperationOptions): Promise<ToolResult>;
  /**
   * Ends the connection the way the client's documentation says to end it: the sessions it opened (a DELETE where one
   * was issued, the stdio shutdown of each process it launched). A lazy connection never used has nothing to end, and
   * its close may send nothing; a client with a session per operation has ended each already. Calling it twice is harmless.
   */
  close(): Promise<void>;
}

/**
 * One client instance, for one test case: its caches (an era cache per origin, say) live as long as it
 * does, and a scenario may connect through it more than once.
 */
export interface ClientUnderTest {
  /**
   * Connects to a server: a URL (transport `http`), or a StdioTarget to launch (transport `stdio`), which only an adapter
   * declaring `stdio` is ever given. Over stdio, `close()` ends the process the way the client does (close its stdin,
   * wait, then SIGTERM, then SIGKILL, as the spec says) and `dispose()` leaves none of the processes it started running.
   *
   * What connecting means is the client's, as it is for its users; the suite judges each shape by the wire:
   * - eager (the reference): the handshake is done, and its failure is the connect's rejection, before it resolves;
   * - lazy: it may resolve having sent nothing (over stdio, launched nothing), and the first operation does the
   *   handshake under `options.timeoutMs`. A connect that resolved with nothing on the wire is lazy, and rules about
   *   connecting (a refused version, a failed probe surfaced as an error, a connect given up at its timeout) are judged
   *   at its first operation: that operation's failure is the connect's;
   * - a session per operation: the same, each listing or call opening (and closing) a session of its own;
   * - kept or cached (a session reused across operations, a tool list cached): a listing a cache answers never reaches
   *   the wire, so a scenario whose next request must reach the server calls a tool (the fixture's echo) instead.
   */
  connect(target: ServerTarget, options: ConnectOptions): Promise<ClientConnection>;
  /** Releases everything the instance holds. Connections are closed by the runner before this. */
  dispose(): Promise<void>;
}

/**
 * The SDK a client is built on (contract 2.3): a package as its registry names it (`@modelcontextprotocol/sdk` on npm,
 * `mcp` on PyPI) and the version the client runs on, or the range its manifest names when no single version is known
 * (a bundled copy). A claim the adapter makes from the client's public dependency (its package.json, its requirements
 * or lock), never inferred by the suite; reports use it to mark the verdicts the client shares with that SDK's own row.
 */
export interface Wraps {
  package: string;
  version: string;
}

/** What is wrong with a declared `wraps`, one phrase each; empty when it is valid (a hello's member is checked with it). */
export function wrapsProblems(value: unknown, member = 'wraps'): string[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [`${member} is not an object { package, version }`];
  const wraps = value as Record<string, unknown>;
  const problems: string[] = [];
  for (const key of ['package', 'version'] as const) {
    if (!(key in wraps)) problems.push(`${member}.${key} is missing`);
    else if (typeof wraps[key] !== 'string' || (wraps[key] as string).trim() === '') problems.push(`${member}.${key} is not a non-empty string`);
  }
  for (const key of Object.keys(wraps)) if (key !== 'package' && key !== 'version') problems.push(`${member}.${key} is not a known member (package, version)`);
  return problems;
}

export interface ClientAdapter {
  /** Stable name, used in test titles, baselines and `--adapter`. */
  readonly name: string;
  /** One line: which client, which version, which mode. */
  readonly description: string;
  /** The revisions the client can speak; scenarios at other revisions are not applicable. */
  readonly revisions: readonly Revision[];
  readonly features: readonly Feature[];
  /** How the client reaches servers (TRANSPORTS). Default: `['http']`, so a scenario over stdio is not applicable. */
  readonly transports?: readonly Transport[];
  /**
   * The revisions it speaks over stdio, when they are not `revisions`: fewer, or others besides (an HTTP client of
   * Streamable HTTP only whose stdio transport also speaks 2024-11-05, say: `revisions` without it, this with it). A
   * stdio case runs at these alone, an HTTP case at `revisions` alone. Default: `revisions`.
   */
  readonly stdioRevisions?: readonly Revision[];
  /**
   * The SDK the client is built on (Wraps), as the client's own dependency names it: e.g.
   * `{ package: '@modelcontextprotocol/sdk', version: '1.24.3' }`. Leave it out for an SDK itself, or a client with its own
   * implementation of the protocol.
   */
  readonly wraps?: Wraps;
  /**
   * A fresh client instance for one test case; `caseId` names the case (for logs and out-of-process clients). `time` is
   * the case's time policy: a client in another process sizes its own deadlines from it, so they grow with the case's
   * bounds when it is run again with larger ones. An in-process client ignores it.
   */
  start(caseId: string, time?: TimePolicy): Promise<ClientUnderTest>;
  /** Ends whatever the adapter keeps for the whole run (a child process, say). */
  shutdown?(): Promise<void>;
  /**
   * Asked after each case: why the client could not take part in it for a reason outside its behaviour under test
   * (its process died or was killed during the case, or has not been running since an earlier one), else undefined.
   * Such a case is inconclusive, never judged. An adapter whose client lives in the runner's process leaves it out.
   */
  interrupted?(caseId: string): string | undefined;
}

/**
 * For adapters whose client keeps no state across connections: each connect stands alone. The connect function takes
 * a URL unless its parameter says more (an adapter declaring `stdio` takes `ServerTarget`): the runner gives a StdioTarget
 * only to an adapter that declares the transport.
 */
export function stateless<Target extends ServerTarget = string>(connect: (target: Target, options: ConnectOptions) => Promise<ClientConnection>): ClientAdapter['start'] {
  return async () => ({ connect: connect as ClientUnderTest['connect'], dispose: async () => {} });
}
