// What every transport session of the reference client offers the connection above it, and what they share.
import type { ClientHandlers, ConnectionInfo } from '../adapter.ts';
import { RequestTimeoutError } from './errors.ts';
import type { Via } from './http.ts';
import type { Params } from './protocol.ts';
import type { ReferenceRules } from './rules.ts';
import { Deadline } from './timers.ts';

export interface ClientConfig {
  /** Handshake revisions the client speaks, newest first (initialize offers the first). */
  legacyRevisions: readonly string[];
  /** Per-request-metadata revisions it speaks, newest first (the probe offers the first). */
  modernRevisions: readonly string[];
  /** Bound on each request close() makes (notifications/cancelled, DELETE). */
  closeTimeoutMs: number;
  /** Bound on the initialize that replaces a lost session. */
  reinitializeTimeoutMs: number;
  /** Most SSE resumptions (GET + Last-Event-ID) for one request. */
  maxResumes: number;
}

export const DEFAULT_CONFIG: Omit<ClientConfig, 'legacyRevisions' | 'modernRevisions'> = {
  closeTimeoutMs: 2_000,
  reinitializeTimeoutMs: 5_000,
  maxResumes: 3,
};

/** What a session gets from the client instance and the connection it belongs to. */
export interface SessionContext {
  /** What the session's HTTP requests go through: the client's agent, or its authorizer for the server (oauth.ts). */
  readonly agent: Via;
  readonly rules: ReferenceRules;
  readonly config: ClientConfig;
  /** The connection's JSON-RPC ids: unique across the connection, whatever session or transport it uses. */
  nextId(): number;
  /** The last id `nextId` gave (0: none yet): where a resumed session's ids continue (ResumeState.nextRequestId). */
  lastId(): number;
  /** Instance-wide memory of the last issued session id (used only when scopeSessionsToConnection is off). */
  readonly sessionMemory: { last?: string };
  /** The connection's answers to the server's requests (its capabilities follow from them). */
  readonly handlers: ClientHandlers;
  /** Streamable HTTP: open the standalone GET stream once initialized (ConnectOptions.listen). */
  readonly listen: boolean;
  /**
   * The connection's own timeout (ConnectOptions.timeoutMs): it bounds the connect, and the DELETE at close never waits
   * longer than it (nor than `closeTimeoutMs`).
   */
  readonly timeoutMs: number;
}

/** One operation of the caller (tools/list, tools/call), as it goes on the wire, maybe more than once. */
export class Call {
  readonly method: string;
  /** What goes on the wire: the caller's params, and on a multi-round-trip retry its inputResponses and requestState. */
  params: Params;
  readonly idempotent: boolean;
  /** Aborted when the caller gives up: its signal, its timeout, or close(). */
  readonly signal: AbortSignal;
  /** The JSON-RPC id of the request on the wire now. */
  wireId: number | undefined;
  /** The HTTP exchange on the wire now: aborting it closes its response stream. */
  exchange: AbortController | undefined;
  /** True once the answer arrived (a cancel then has nothing to cancel). */
  answered = false;
  /** Called on each progress notification for this call. */
  onProgress: (() => void) | undefined;

  constructor(method: string, params: Params, idempotent: boolean, signal: AbortSignal) {
    this.method = method;
    this.params = params;
    this.idempotent = idempotent;
    this.signal = signal;
  }
}

export interface Session {
  readonly era: 'legacy' | 'modern';
  info(): ConnectionInfo;
  /** Sends the call (retrying as the rules allow) and resolves with its result. */
  request(call: Call): Promise<Params>;
  /** Cancels the call on the wire (the caller has already been answered). `closeStream`: also end its response stream. */
  cancel(call: Call, options: { closeStream: boolean; reason: string }): Promise<void>;
  /** Ends the session the way the spec says (DELETE where it applies); never throws unless a rule says so. */
  close(options: { keepSession: boolean }): Promise<void>;
  /** Drops everything at once, sending nothing (a failed connect, dispose). */
  abandon(): void;
  /** The capabilities the server's InitializeResult advertised: a legacy session that ran a handshake (none resumed, none modern). */
  serverCapabilities?(): Params | undefined;
}

/** Background work a session or connection started (drains, notifications): awaited, bounded, on close. */
export class Tasks {
  private readonly running = new Set<Promise<unknown>>();

  add(task: Promise<unknown>): void {
    const tracked = task.catch(() => {});
    this.running.add(tracked);
    void tracked.finally(() => this.running.delete(tracked));
  }

  /** Resolves when every task has settled. */
  async settled(): Promise<void> {
    while (this.running.size > 0) await Promise.all([...this.running]);
  }
}

/** A call's progress notification: `notifications/progress` naming the call's progress token. */
export function progressTokenOf(params: Params): unknown {
  const meta = params['_meta'];
  return meta && typeof meta === 'object' ? (meta as Record<string, unknown>)['progressToken'] : undefined;
}

/** Runs one background request (a cancel, a DELETE, a reply) under the close bound, so close() never waits forever. */
export function boundedByClose(config: Pick<ClientConfig, 'closeTimeoutMs'>, work: (signal: AbortSignal) => Promise<void>): Promise<void> {
  const { closeTimeoutMs } = config;
  const deadline = new Deadline(closeTimeoutMs, () => new RequestTimeoutError(`no answer within ${closeTimeoutMs} ms`));
  return work(deadline.signal).finally(() => deadline.clear());
}
