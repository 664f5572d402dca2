// The reference client instance (one per test case): a dedicated undici Agent, the per-origin era cache, the
// tools' idempotency hints, and connect(): negotiation mode → probe / cache → the session of the right era.
import { Agent } from 'undici';
import { isStdioTarget, type ClientConnection, type ClientUnderTest, type ConnectOptions, type ServerTarget, type StdioTarget } from '../adapter.ts';
import { ReferenceConnection } from './connection.ts';
import { EraCache, type Era } from './era-cache.ts';
import { ConnectionClosedError, ConnectTimeoutError, HttpStatusError, JsonRpcError, ProtocolError, UnsupportedRevisionError } from './errors.ts';
import { HttpSseSession } from './http-sse-session.ts';
import type { Via } from './http.ts';
import { Authorizer } from './oauth.ts';
import { isInitializeRejection, LegacySession, type HandshakeOptions } from './legacy-session.ts';
import { ModernSession } from './modern-session.ts';
import { probe } from './probe.ts';
import { isModernErrorCode, LEGACY_REVISIONS, MODERN_REVISIONS } from './protocol.ts';
import { SPEC_RULES, type ReferenceRules } from './rules.ts';
import { DEFAULT_CONFIG, Tasks, type ClientConfig, type Session, type SessionContext } from './session.ts';
import { StdioSession, type StdioMode } from './stdio-session.ts';
import { raceSignals } from './timers.ts';

export interface ReferenceClientOptions {
  rules?: ReferenceRules;
  config?: Partial<ClientConfig>;
}

/** A modern server's answer to a legacy request: a recognised modern error. */
function isModernAnswer(error: unknown): boolean {
  if (error instanceof HttpStatusError) return isModernErrorCode(error.rpcError?.code);
  if (error instanceof JsonRpcError) return isModernErrorCode(error.code);
  return false;
}

/**
 * Whether a failed initialize POST sends the client to HTTP+SSE: 400, 404 or 405 (2025-11-25 transports ›
 * Backwards Compatibility), unless the body is a modern error or a JSON-RPC answer to that initialize (the
 * server spoke JSON-RPC at this URL: it is not an HTTP+SSE server).
 */
function fallsBackToHttpSse(error: unknown, rules: ReferenceRules): boolean {
  if (!isInitializeRejection(error)) return false;
  // An outage read as "this server speaks HTTP+SSE" (a broken variant): the URL is GET for a stream.
  if (!rules.noFallbackOnServerErrors && error.status >= 500) return true;
  if (!rules.fallbackOnlyOn400404405) return error.status >= 400 && error.status < 500;
  if (![400, 404, 405].includes(error.status)) return false;
  const rpc = error.rpcError;
  return rpc === undefined || (!isModernErrorCode(rpc.code) && (rpc.id === null || rpc.id === undefined));
}

/**
 * Over stdio a probe's silence means a legacy server: after this share of the connect's timeout, the client falls back.
 * The silence is counted from the write, so it includes the server's own start-up (a Node server on a loaded machine
 * may take a second): half the connect's time, and the other half for the handshake.
 */
const STDIO_PROBE_SHARE = 2;

export class ReferenceClient implements ClientUnderTest {
  readonly rules: ReferenceRules;
  readonly config: ClientConfig;
  private readonly agent = new Agent();
  /** The era of each origin, as the probe (or the server contradicting it) taught it. */
  private readonly eras: EraCache;
  /** Tool name → idempotentHint, per server URL. */
  private readonly idempotentTools = new Map<string, Map<string, boolean>>();
  private readonly sessionMemory: { last?: string } = {};
  /** Per server URL: the authorization with it (oauth.ts), when the client was given headless authorization. */
  private readonly authorizers = new Map<string, Authorizer>();
  private readonly connections = new Set<ReferenceConnection>();
  private readonly connecting = new Set<AbortController>();
  private readonly background = new Tasks();
  private disposed = false;

  constructor(options: ReferenceClientOptions = {}) {
    this.rules = options.rules ?? SPEC_RULES;
    this.config = { legacyRevisions: LEGACY_REVISIONS, modernRevisions: MODERN_REVISIONS, ...DEFAULT_CONFIG, ...options.config };
    this.eras = new EraCache(this.rules.cacheEraPerOrigin);
  }

  /**
   * What the requests to `target` go through: with headless authorization, the instance's Authorizer for that server
   * (its tokens kept across connections), else the agent.
   */
  private via(target: ServerTarget, options: ConnectOptions): Via {
    if (options.authorization === undefined || isStdioTarget(target)) return this.agent;
    let authorizer = this.authorizers.get(target);
    if (authorizer === undefined) this.authorizers.set(target, (authorizer = new Authorizer(this.agent, this.rules, options.authorization, target)));
    return authorizer;
  }

  /** The era cached for a URL's origin (for tests and reports). */
  cachedEra(url: string): Era | undefined {
    return this.eras.get(url);
  }

  async connect(target: ServerTarget, options: ConnectOptions): Promise<ClientConnection> {
    if (this.disposed) throw new ConnectionClosedError('the client is disposed');
    const attempt = new AbortController();
    const timer = setTimeout(() => attempt.abort(new ConnectTimeoutError(`connect did not complete within ${options.timeoutMs} ms`)), options.timeoutMs);
    this.connecting.add(attempt);
    // A resumed session continues the ids its earlier connections used: an id is never used twice within a session.
    let id = this.rules.continueIdsOnResume ? Math.max(0, (options.resume?.nextRequestId ?? 1) - 1) : 0;
    const ctx: SessionContext = { agent: this.via(target, options), rules: this.rules, config: this.config, nextId: () => ++id, lastId: () => id, sessionMemory: this.sessionMemory, handlers: options.handlers ?? {}, listen: options.listen === true, timeoutMs: options.timeoutMs };
    // A client that gives up without aborting lets the handshake run on: its late requests still go out.
    const negotiationSignal = this.rules.abortConnectOnGiveUp ? attempt.signal : new AbortController().signal;
    // A session the negotiation yields after connect gave up is dropped, never leaked.
    let resolved: Session | undefined;
    let abandonLate = false;
    // A stdio server is a process of this connection's own: no era cache, nothing to renegotiate with.
    const stdio = isStdioTarget(target) ? target : undefined;
    const url = stdio === undefined ? (target as string) : undefined;
    const key = stdio === undefined ? url! : `stdio:${JSON.stringify([stdio.command, ...stdio.args])}`;
    const negotiation = stdio !== undefined ? this.openStdio(stdio, options, negotiationSignal, ctx) : this.negotiate(url!, options, negotiationSignal, ctx);
    this.background.add(
      negotiation.then((session) => {
        resolved = session;
        if (abandonLate) session.abandon();
      }),
    );
    try {
      // A stdio connect that waits for what it gave up to end first (a broken variant) settles with the negotiation only.
      const session = await (stdio !== undefined && !this.rules.connectGivesUpAtOnce ? negotiation : raceSignals(negotiation, [attempt.signal]));
      if (this.disposed) throw new ConnectionClosedError('the client was disposed during connect');
      const tools = this.idempotentTools.get(key) ?? new Map<string, boolean>();
      this.idempotentTools.set(key, tools);
      const connection: ReferenceConnection = new ReferenceConnection(session, {
        rules: this.rules,
        idempotentTools: tools,
        keepSessionOnClose: options.keepSessionOnClose === true,
        handlers: ctx.handlers,
        hooks: {
          renegotiate: (signal) => (url !== undefined ? this.renegotiate(url, options, signal, ctx) : Promise.reject(new ProtocolError('a stdio session has no era to renegotiate'))),
          // seed 002: an outage is not a reason to forget what era the server speaks.
          failed: () => {
            if (url !== undefined && !this.rules.keepEraOnFailure) this.eras.forget(url);
          },
          closed: () => this.connections.delete(connection),
        },
      });
      this.connections.add(connection);
      // The habit onlyNegotiatedCapabilities rules out (lifecycle › Operation): the server's log level set whatever the
      // server advertised. The rule is read only where logging was not advertised, the one place the habit breaks it.
      const advertised = session.serverCapabilities?.();
      if (advertised !== undefined && advertised['logging'] === undefined && !this.rules.onlyNegotiatedCapabilities) {
        await connection.setLoggingLevel('info', { signal: attempt.signal }).catch(() => {});
      }
      return connection;
    } catch (error) {
      abandonLate = true;
      resolved?.abandon();
      if (url !== undefined && !this.rules.keepEraOnFailure && !isModernAnswer(error)) this.eras.forget(url);
      throw error;
    } finally {
      clearTimeout(timer);
      this.connecting.delete(attempt);
    }
  }

  /**
   * stdio: a process of its own for this connection, in the era the mode reaches (stdio-session.ts), shut down within
   * the graces the caller gives (ConnectOptions.shutdownGraceMs), its probe's silence a legacy answer after half the
   * connect's own timeout.
   */
  private openStdio(target: StdioTarget, options: ConnectOptions, signal: AbortSignal, ctx: SessionContext): Promise<Session> {
    if (options.resume !== undefined) return Promise.reject(new ProtocolError('stdio has no sessions to resume'));
    const negotiation = options.negotiation ?? 'legacy';
    const newest = { offer: this.config.legacyRevisions[0]!, pinned: false };
    let mode: StdioMode;
    if (negotiation === 'legacy') mode = { kind: 'legacy', handshake: newest };
    else if (negotiation === 'auto') mode = { kind: 'auto' };
    else if (this.config.modernRevisions.includes(negotiation.pin)) mode = { kind: 'modern', pin: negotiation.pin };
    else if (this.config.legacyRevisions.includes(negotiation.pin)) mode = { kind: 'legacy', handshake: { offer: negotiation.pin, pinned: true } };
    else return Promise.reject(new UnsupportedRevisionError(negotiation.pin));
    return StdioSession.open(
      ctx,
      {
        target,
        mode,
        graceMs: options.shutdownGraceMs ?? this.config.closeTimeoutMs,
        probeTimeoutMs: Math.max(1, Math.round(options.timeoutMs / STDIO_PROBE_SHARE)),
        track: (work) => this.background.add(work),
      },
      signal,
    );
  }

  private async negotiate(url: string, options: ConnectOptions, signal: AbortSignal, ctx: SessionContext): Promise<Session> {
    const mode = options.negotiation ?? 'legacy';
    if (options.resume !== undefined) return this.resume(url, options, signal, ctx);
    const newest: HandshakeOptions = { offer: this.config.legacyRevisions[0]!, pinned: false };
    if (mode === 'legacy') {
      // Probing in legacy mode (outcome ignored) changes the wire existing callers rely on.
      if (!this.rules.legacyModeNeverProbes) await probe(ctx, { url, versions: this.config.modernRevisions, affinityKey: undefined, signal }).catch(() => undefined);
      return this.openLegacy(url, newest, signal, ctx);
    }
    if (mode !== 'auto') {
      if (this.config.modernRevisions.includes(mode.pin)) return this.openPinnedModern(url, mode.pin, options, signal, ctx);
      if (!this.config.legacyRevisions.includes(mode.pin)) throw new UnsupportedRevisionError(mode.pin);
      return this.openLegacy(url, { offer: mode.pin, pinned: true }, signal, ctx);
    }
    return this.openAuto(url, options, signal, ctx);
  }

  /** auto: the cached era, else the probe; a cached era the server contradicts is forgotten and probed again. */
  private async openAuto(url: string, options: ConnectOptions, signal: AbortSignal, ctx: SessionContext): Promise<Session> {
    const newest: HandshakeOptions = { offer: this.config.legacyRevisions[0]!, pinned: false };
    if (!this.rules.autoProbesFirst) {
      // initialize first, probe only if that fails with a modern error: a dual-era server ends up legacy.
      try {
        return await this.openLegacy(url, newest, signal, ctx);
      } catch (error) {
        if (!isModernAnswer(error)) throw error;
      }
    }
    const cached = this.eras.get(url);
    if (cached === 'modern') return new ModernSession(ctx, { url, version: this.config.modernRevisions[0]!, affinityKey: options.affinityKey, fromCache: true });
    if (cached === 'legacy') {
      try {
        return await this.openLegacy(url, newest, signal, ctx);
      } catch (error) {
        if (!isModernAnswer(error)) {
          if (!this.rules.keepEraOnFailure) this.eras.forget(url);
          throw error;
        }
        // A modern error to initialize: the server is not what the cache says.
        this.eras.forget(url);
      }
    }
    const outcome = await probe(ctx, { url, versions: this.config.modernRevisions, affinityKey: options.affinityKey, signal });
    if (outcome.era === 'modern') {
      this.eras.remember(url, 'modern');
      return new ModernSession(ctx, { url, version: outcome.version, affinityKey: options.affinityKey, fromCache: false });
    }
    this.eras.remember(url, 'legacy');
    return this.openLegacy(url, newest, signal, ctx);
  }

  private async openPinnedModern(url: string, pin: string, options: ConnectOptions, signal: AbortSignal, ctx: SessionContext): Promise<Session> {
    if (this.eras.get(url) === 'modern') {
      return new ModernSession(ctx, { url, version: pin, affinityKey: options.affinityKey, fromCache: true });
    }
    const outcome = await probe(ctx, { url, versions: [pin], affinityKey: options.affinityKey, signal });
    if (outcome.era === 'legacy') throw new ProtocolError(`pinned to ${pin}, but the server is a legacy server (${outcome.reason})`);
    this.eras.remember(url, 'modern');
    return new ModernSession(ctx, { url, version: outcome.version, affinityKey: options.affinityKey, fromCache: false });
  }

  /** initialize over Streamable HTTP; on 400/404/405 before it succeeded, HTTP+SSE (transport-fallback). */
  private async openLegacy(url: string, handshake: HandshakeOptions, signal: AbortSignal, ctx: SessionContext): Promise<Session> {
    const session = new LegacySession(ctx, url, handshake);
    try {
      await session.open(signal);
      return session;
    } catch (error) {
      session.abandon();
      if (signal.aborted || !fallsBackToHttpSse(error, this.rules)) throw error;
      return HttpSseSession.open(ctx, url, handshake, signal);
    }
  }

  private async resume(url: string, options: ConnectOptions, signal: AbortSignal, ctx: SessionContext): Promise<Session> {
    const state = options.resume!;
    if (this.config.modernRevisions.includes(state.protocolVersion)) {
      return new ModernSession(ctx, { url, version: state.protocolVersion, affinityKey: options.affinityKey, fromCache: false });
    }
    if (!this.config.legacyRevisions.includes(state.protocolVersion)) throw new UnsupportedRevisionError(state.protocolVersion);
    const session = new LegacySession(ctx, url, { offer: this.config.legacyRevisions[0]!, pinned: false });
    try {
      await session.resume(state, signal);
      return session;
    } catch (error) {
      session.abandon();
      throw error;
    }
  }

  /** A connection's cached era was contradicted: forget it and negotiate again (probing). */
  private async renegotiate(url: string, options: ConnectOptions, signal: AbortSignal, ctx: SessionContext): Promise<Session> {
    this.eras.forget(url);
    return this.negotiate(url, { ...options, resume: undefined }, signal, ctx);
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    for (const attempt of this.connecting) attempt.abort(new ConnectionClosedError('the client was disposed during connect'));
    for (const connection of this.connections) connection.abandon();
    this.connections.clear();
    // Destroying the agent ends every socket, whatever a broken variant left running.
    await this.agent.destroy();
    await this.background.settled();
  }
}
