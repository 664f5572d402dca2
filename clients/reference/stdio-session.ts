// stdio, every revision: the client launches the server and speaks JSON-RPC on its standard streams. Legacy
// (2024-11-05 … 2025-11-25): initialize, notifications/initialized, then requests. 2026-07-28: no handshake, the
// `_meta` envelope on every request, found by probing `server/discover` (its answer, a modern error, or anything else
// and silence meaning legacy, which falls back to initialize on the same process, or on a fresh one if the server
// exited on the probe). One process per connection, so the era lives as long as the process (no cache across
// connects); a modern server that crashed is started again for the next call. Cancellation is
// `notifications/cancelled` in both eras, never for initialize; a modern client writes no
// JSON-RPC responses, a legacy one answers ping and refuses other server requests. Closing is the process shutdown
// (stdio-process.ts).
import type { ConnectionInfo, StdioTarget } from '../adapter.ts';
import { advertisedCapabilities, capabilitiesOf, replyTo } from './server-messages.ts';
import { ConnectionClosedError, JsonRpcError, ProtocolError, RequestCancelledError, UnsupportedRevisionError } from './errors.ts';
import type { HandshakeOptions } from './legacy-session.ts';
import { invalidModernResult, modernEnvelope } from './modern-wire.ts';
import { CLIENT_INFO, isModernErrorCode, type JsonRpcMessage, type Params } from './protocol.ts';
import { progressTokenOf, type Call, type Session, type SessionContext } from './session.ts';
import { StdioProcess } from './stdio-process.ts';
import { raceSignals, untilAborted } from './timers.ts';

/** How a stdio connect picks its era (ConnectOptions.negotiation, resolved). */
export type StdioMode = { kind: 'legacy'; handshake: HandshakeOptions } | { kind: 'modern'; pin: string } | { kind: 'auto' };

export interface StdioOptions {
  target: StdioTarget;
  mode: StdioMode;
  /** Each wait of the shutdown sequence (ConnectOptions.shutdownGraceMs). */
  graceMs: number;
  /** How long a probe waits for an answer before silence means a legacy server. */
  probeTimeoutMs: number;
  /** Keeps the shutdown of a process the session no longer waits for (abandon), so dispose can wait for it. */
  track(work: Promise<unknown>): void;
}

interface Waiting {
  resolve(message: JsonRpcMessage): void;
  reject(error: unknown): void;
  call: Call | undefined;
}

type ProbeOutcome = { era: 'modern'; version: string } | { era: 'legacy'; reason: string; exited: boolean };

/** The answer to a request never came: the probe's silence. */
class Silence extends Error {}

export class StdioSession implements Session {
  private currentEra: 'legacy' | 'modern' = 'legacy';
  private version: string | undefined;
  private reported: string | undefined;
  /** The capabilities the latest InitializeResult advertised (none in the modern era). */
  private advertised: Params | undefined;
  private process!: StdioProcess;
  private readonly waiting = new Map<number, Waiting>();
  private closed = false;
  private restarting: Promise<void> | undefined;
  private readonly ctx: SessionContext;
  private readonly options: StdioOptions;

  private constructor(ctx: SessionContext, options: StdioOptions) {
    this.ctx = ctx;
    this.options = options;
  }

  /** Launches the server and opens the session in the era the mode reaches; on failure, the process is shut down. */
  static async open(ctx: SessionContext, options: StdioOptions, signal: AbortSignal): Promise<StdioSession> {
    const session = new StdioSession(ctx, options);
    try {
      await session.launch();
      await session.negotiate(signal);
      return session;
    } catch (error) {
      // A connect that waits on the exit of the server it gives up (a broken variant): as long as the server runs.
      if (!ctx.rules.connectGivesUpAtOnce && session.process !== undefined) await session.process.closeInputAndAwaitExit();
      session.abandon();
      throw error;
    }
  }

  get era(): 'legacy' | 'modern' {
    return this.currentEra;
  }

  serverCapabilities(): Params | undefined {
    return this.advertised;
  }

  info(): ConnectionInfo {
    return { ...(this.reported !== undefined ? { negotiatedVersion: this.reported } : {}), era: this.currentEra };
  }

  // — the process —

  private async launch(): Promise<void> {
    const launched = await StdioProcess.launch(this.options.target, this.ctx.rules);
    this.process = launched;
    launched.onMessage = (message) => this.onMessage(message);
    launched.onEnd((reason) => {
      for (const [id, entry] of this.waiting) {
        // The habit settleOnServerExit rules out: the caller's calls go on waiting for an answer that cannot come.
        if (entry.call !== undefined && !this.ctx.rules.settleOnServerExit) continue;
        this.waiting.delete(id);
        entry.reject(reason);
      }
    });
  }

  /**
   * 2026-07-28: the server exited unexpectedly, so it is started again (and probed: the era is the process's) for the
   * next call; the calls it had in flight were lost with it. One restart for every call that finds it gone.
   */
  private restart(signal: AbortSignal): Promise<void> {
    this.restarting ??= (async () => {
      await this.relaunch();
      if (this.closed) throw new ConnectionClosedError();
      const outcome = await this.probe([this.version!], signal, { waitForAnswer: true });
      if (outcome.era === 'legacy') throw new ProtocolError(`the restarted server is a legacy server (${outcome.reason})`);
      this.becomeModern(outcome.version);
    })().finally(() => {
      this.restarting = undefined;
    });
    return this.restarting;
  }

  private restartable(): boolean {
    return this.currentEra === 'modern' && this.ctx.rules.restartAfterCrash && !this.closed && this.process.crashed;
  }

  /** A fresh process for the handshake, after the first one exited on the probe. */
  private async relaunch(): Promise<void> {
    const old = this.process;
    this.options.track(old.shutdown(this.options.graceMs));
    await this.launch();
  }

  // — negotiation —

  private async negotiate(signal: AbortSignal): Promise<void> {
    const { rules, config } = this.ctx;
    const { mode } = this.options;
    const newest: HandshakeOptions = { offer: config.legacyRevisions[0]!, pinned: false };
    if (mode.kind === 'legacy') {
      if (!rules.legacyModeNeverProbes) {
        const outcome = await this.probe(config.modernRevisions, signal).catch(() => undefined);
        if (outcome?.era === 'legacy' && outcome.exited) await this.relaunch();
      }
      return this.handshake(mode.handshake, signal);
    }
    if (mode.kind === 'modern') {
      // Pinned, there is nothing to fall back to: a slow server is waited for until the connect's own timeout.
      const outcome = await this.probe([mode.pin], signal, { waitForAnswer: true });
      if (outcome.era === 'legacy') throw new ProtocolError(`pinned to ${mode.pin}, but the server is a legacy server (${outcome.reason})`);
      return this.becomeModern(outcome.version);
    }
    if (!rules.autoProbesFirst) {
      // initialize first, probe only if that fails with a modern error: a dual-era server ends up legacy.
      try {
        return await this.handshake(newest, signal);
      } catch (error) {
        if (!(error instanceof JsonRpcError && isModernErrorCode(error.code))) throw error;
      }
    }
    const outcome = await this.probe(config.modernRevisions, signal);
    if (outcome.era === 'modern') return this.becomeModern(outcome.version);
    if (outcome.exited) await this.relaunch();
    return this.handshake(newest, signal);
  }

  private becomeModern(version: string): void {
    this.currentEra = 'modern';
    this.version = version;
    this.reported = version;
    this.advertised = undefined;
  }

  /**
   * server/discover: a DiscoverResult → modern; a recognised modern error → modern (-32022 naming a mutual version is
   * retried once with it, anything else surfaced); any other error, silence within the probe timeout, or the server
   * exiting on it → legacy (never keyed to one error code).
   */
  private async probe(versions: readonly string[], signal: AbortSignal, options: { waitForAnswer?: boolean } = {}): Promise<ProbeOutcome> {
    const { rules } = this.ctx;
    let version = versions[0]!;
    for (let retried = false; ; retried = true) {
      let answer: JsonRpcMessage;
      try {
        // Silence means legacy only to a client that may fall back; one that may not waits as long as its signal lets it.
        const silenceMs = options.waitForAnswer ? undefined : this.options.probeTimeoutMs;
        answer = await this.exchange('server/discover', { _meta: modernEnvelope(version, this.ctx) }, signal, silenceMs === undefined ? {} : { silenceMs });
      } catch (error) {
        if (signal.aborted) throw error;
        if (error instanceof Silence) {
          if (rules.fallBackOnAnyLegacyAnswer) return { era: 'legacy', reason: `no answer to server/discover within ${this.options.probeTimeoutMs} ms`, exited: false };
          throw new ProtocolError(`server/discover was not answered within ${this.options.probeTimeoutMs} ms`);
        }
        // A legacy server that dies of an unknown method: legacy, on a fresh process.
        if (this.process.ended !== undefined) return { era: 'legacy', reason: `the server ended on server/discover (${(error as Error).message})`, exited: true };
        throw error;
      }
      if (answer.error === undefined) {
        const supported = (answer.result ?? {})['supportedVersions'];
        if (!Array.isArray(supported)) {
          if (rules.fallBackOnAnyLegacyAnswer) return { era: 'legacy', reason: 'a result that is not a DiscoverResult', exited: false };
          throw new ProtocolError('server/discover was answered with a result that is not a DiscoverResult');
        }
        const chosen = supported.includes(version) ? version : versions.find((v) => supported.includes(v));
        if (chosen === undefined) throw new ProtocolError(`the server supports ${JSON.stringify(supported)}, none of ${JSON.stringify(versions)}`);
        return { era: 'modern', version: chosen };
      }
      const rpc = answer.error;
      if (isModernErrorCode(rpc.code)) {
        if (!rules.honourModernErrors) return { era: 'legacy', reason: `modern error ${rpc.code}, taken as a legacy answer`, exited: false };
        const data = rpc.data as { supported?: unknown } | undefined;
        const mutual = Array.isArray(data?.supported) ? versions.find((v) => (data.supported as unknown[]).includes(v)) : undefined;
        if (rpc.code === -32022 && mutual !== undefined && !retried) {
          version = mutual;
          continue;
        }
        throw new JsonRpcError(rpc);
      }
      if (rules.fallBackOnAnyLegacyAnswer || rpc.code === -32601) return { era: 'legacy', reason: `JSON-RPC ${rpc.code} (${rpc.message})`, exited: false };
      throw new JsonRpcError(rpc);
    }
  }

  /** initialize (once more with a listed revision when the server's error form offers one), then notifications/initialized. */
  private async handshake(handshake: HandshakeOptions, signal: AbortSignal): Promise<void> {
    const retryWith = await this.initialize(handshake, handshake.offer, signal, false);
    if (retryWith !== undefined) await this.initialize(handshake, retryWith, signal, true);
    if (this.ctx.rules.sendInitializedNotification) await this.process.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  }

  private async initialize(handshake: HandshakeOptions, offer: string, signal: AbortSignal, retried: boolean): Promise<string | undefined> {
    const { rules, config } = this.ctx;
    const answer = await this.exchange('initialize', { protocolVersion: offer, capabilities: capabilitiesOf(this.ctx.handlers, this.ctx.rules), clientInfo: CLIENT_INFO }, signal, { initialize: true });
    if (answer.error) {
      // Only a result is taken as the answer: the error is ignored until the connect gives up.
      if (!rules.validateInitializeAnswer) return await untilAborted([signal]);
      const supported = (answer.error.data as { supported?: unknown } | undefined)?.supported;
      const listed = Array.isArray(supported) ? config.legacyRevisions.find((v) => v !== offer && supported.includes(v)) : undefined;
      if (answer.error.code === -32602 && listed !== undefined && !retried && !handshake.pinned) return listed;
      throw new JsonRpcError(answer.error);
    }
    const answered = (answer.result ?? {})['protocolVersion'];
    const acceptable = handshake.pinned ? answered === offer : config.legacyRevisions.includes(String(answered));
    if (!acceptable && rules.validateInitializeAnswer) throw new UnsupportedRevisionError(answered);
    this.currentEra = 'legacy';
    this.version = String(answered);
    this.reported = rules.reportAnsweredVersion ? this.version : offer;
    this.advertised = advertisedCapabilities(answer.result);
    return undefined;
  }

  // — requests —

  /**
   * Writes one request and waits for its answer. The connect's signal ends the wait (an initialize is never cancelled
   * on the wire, any other request is); `silenceMs` ends it with Silence.
   */
  private async exchange(method: string, params: Params, signal: AbortSignal, options: { silenceMs?: number; initialize?: boolean } = {}): Promise<JsonRpcMessage> {
    const id = this.ctx.nextId();
    const answer = this.await(id, undefined);
    let timer: NodeJS.Timeout | undefined;
    const silence =
      options.silenceMs === undefined
        ? undefined
        : new Promise<never>((_, reject) => {
            timer = setTimeout(() => {
              // A late answer is ignored.
              this.waiting.delete(id);
              reject(new Silence());
            }, options.silenceMs);
          });
    try {
      await this.process.send({ jsonrpc: '2.0', id, method, params }).catch(() => {});
      return await raceSignals(silence ? Promise.race([answer, silence]) : answer, [signal]);
    } catch (error) {
      if (signal.aborted && this.waiting.delete(id) && this.process.ended === undefined) {
        // The connect gave up. initialize MUST NOT be cancelled; anything else is.
        if (!options.initialize || !this.ctx.rules.neverCancelInitialize) {
          await this.process.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: 'connect gave up' } }).catch(() => {});
        }
      }
      throw error;
    } finally {
      clearTimeout(timer);
      void answer.catch(() => {});
    }
  }

  private await(id: number, call: Call | undefined): Promise<JsonRpcMessage> {
    return new Promise((resolve, reject) => {
      if (this.process.ended !== undefined) return reject(this.process.ended);
      this.waiting.set(id, { resolve, reject, call });
    });
  }

  async request(call: Call): Promise<Params> {
    if (this.closed) throw new ConnectionClosedError();
    if (this.process.ended !== undefined) {
      // Its stdout may end a moment before it exits: how it exited decides.
      if (this.currentEra === 'modern' && this.ctx.rules.restartAfterCrash && !this.closed) await this.process.exitedWithin(this.options.graceMs);
      if (!this.restartable()) throw this.process.ended;
      await this.restart(call.signal);
    }
    const id = this.ctx.nextId();
    call.wireId = id;
    let params = call.params;
    if (this.currentEra === 'modern') {
      const existing = params['_meta'];
      params = { ...params, _meta: { ...(existing && typeof existing === 'object' ? (existing as Params) : {}), ...modernEnvelope(this.version!, this.ctx) } };
    }
    const answer = this.await(id, call);
    // A write that fails means the server is gone, and the answer's wait fails with the reason.
    await this.process.send({ jsonrpc: '2.0', id, method: call.method, params }).catch(() => {});
    const message = await answer;
    call.answered = true;
    if (message.error) throw new JsonRpcError(message.error);
    const result = message.result ?? {};
    const invalid = this.currentEra === 'modern' ? invalidModernResult(call.method, result) : undefined;
    if (invalid !== undefined) throw invalid;
    return result;
  }

  private onMessage(message: JsonRpcMessage): void {
    if (message.method === undefined) {
      // An answer: to a request still waiting, else late (cancelled, timed out) and ignored.
      if (typeof message.id !== 'number') return;
      const entry = this.waiting.get(message.id);
      if (entry === undefined) return;
      this.waiting.delete(message.id);
      entry.resolve(message);
      return;
    }
    if (message.method === 'notifications/progress') {
      const token = message.params?.['progressToken'];
      if (token === undefined) return;
      for (const { call } of this.waiting.values()) if (call !== undefined && progressTokenOf(call.params) === token) call.onProgress?.();
      return;
    }
    // 2026-07-28: the client writes no JSON-RPC responses on stdio.
    if (this.currentEra === 'modern' || this.closed) return;
    const reply = replyTo(message, this.ctx.rules, this.ctx.handlers);
    if (reply !== undefined) void this.process.send(reply).catch(() => {});
  }

  // — cancellation and closing —

  async cancel(call: Call, options: { closeStream: boolean; reason: string }): Promise<void> {
    const id = call.wireId;
    if (id === undefined || call.answered) return;
    const entry = this.waiting.get(id);
    if (entry === undefined || entry.call !== call) return;
    // The call settles at once and its late answer is ignored (settleOnCancel); else the answer is still awaited.
    if (options.closeStream) {
      this.waiting.delete(id);
      entry.reject(call.signal.reason ?? new RequestCancelledError(options.reason));
    }
    if (this.ctx.rules.cancelOnTheWire && this.process.ended === undefined) {
      await this.process.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: options.reason } }).catch(() => {});
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.process.shutdown(this.options.graceMs);
    // The habit stayClosed rules out: a supervisor that launches its server again whenever it exits, close() included.
    if (!this.ctx.rules.stayClosed) void this.reopen().catch(() => {});
  }

  /** The broken supervisor's relaunch: a fresh process, opened in the era the connection had (nothing ever closes it). */
  private async reopen(): Promise<void> {
    await this.launch();
    const signal = new AbortController().signal;
    if (this.currentEra === 'modern') await this.probe([this.version!], signal, { waitForAnswer: true });
    else await this.handshake({ offer: this.version ?? this.ctx.config.legacyRevisions[0]!, pinned: false }, signal);
  }

  abandon(): void {
    this.closed = true;
    const reason = new ConnectionClosedError('the connection was abandoned');
    for (const [id, entry] of this.waiting) {
      this.waiting.delete(id);
      entry.reject(reason);
    }
    // An abandoned process is still shut down as the spec says, in the background (dispose waits for it).
    if (this.process !== undefined) this.options.track(this.process.shutdown(this.options.graceMs));
  }
}
