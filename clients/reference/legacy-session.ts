// Legacy Streamable HTTP (2025-03-26 … 2025-11-25): the initialize handshake, the server-issued session,
// session loss and re-initialization, resumable SSE (GET + Last-Event-ID after the server's retry interval),
// cancellation by notification, and DELETE at close.
import type { ConnectionInfo, ResumeState } from '../adapter.ts';
import { requiresProtocolVersionHeader, type Revision } from '../../protocol/revisions.ts';
import {
  ConnectionClosedError,
  ConnectionDropped,
  HttpStatusError,
  isAuthOrServerFailure,
  JsonRpcError,
  ProtocolError,
  RequestCancelledError,
  RequestTimeoutError,
  SessionExpiredError,
  SessionLost,
  StreamCut,
  UnsupportedRevisionError,
} from './errors.ts';
import { discard, isOk, isSse, readAnswer, readSseAnswer, readText, send, SseReader, statusError, type Answered, type HttpAnswer } from './http.ts';
import { advertisedCapabilities, capabilitiesOf, replyTo } from './server-messages.ts';
import { ACCEPT_BOTH, CLIENT_INFO, H, isModernErrorCode, JSON_CONTENT, namesLostSession, type JsonRpcMessage, type Params } from './protocol.ts';
import { boundedByClose, progressTokenOf, Tasks, type Call, type Session, type SessionContext } from './session.ts';
import { Deadline, delay, linkSignals, raceSignals, untilAborted } from './timers.ts';

export interface HandshakeOptions {
  /** The revision initialize offers: the newest the client speaks, or the pinned one. */
  offer: string;
  /** negotiation { pin }: only the offered revision is acceptable. */
  pinned: boolean;
}

export class LegacySession implements Session {
  readonly era = 'legacy' as const;
  /** The revision on the wire (MCP-Protocol-Version). */
  private version: string | undefined;
  /** The revision info() reports. */
  private reported: string | undefined;
  /** The session id the server issued with the InitializeResult (or that a resume restored). */
  private sessionId: string | undefined;
  /** The capabilities the latest InitializeResult advertised (none known after a resume). */
  private advertised: Params | undefined;
  /** Ids the server ended: never sent again. */
  /** Calls already cancelled on the wire. */
  private readonly cancelled = new WeakSet<Call>();
  private readonly dead = new Set<string>();
  private reinitializing: Promise<void> | undefined;
  /** Set when replacing a lost session failed: every later request fails with it. */
  private broken: Error | undefined;
  private closed = false;
  /** Aborted when the session is torn down: stops re-initialization, resumption waits and background work. */
  private readonly lifetime = new AbortController();
  private readonly exchanges = new Set<AbortController>();
  private readonly readers = new Set<SseReader>();
  private readonly tasks = new Tasks();
  private readonly ctx: SessionContext;
  private readonly url: string;
  private readonly handshakeOptions: HandshakeOptions;

  constructor(ctx: SessionContext, url: string, handshake: HandshakeOptions) {
    this.ctx = ctx;
    this.url = url;
    this.handshakeOptions = handshake;
  }

  serverCapabilities(): Params | undefined {
    return this.advertised;
  }

  info(): ConnectionInfo {
    const resumeState: ResumeState | undefined =
      this.reported === undefined
        ? undefined
        : { protocolVersion: this.reported, ...(this.sessionId === undefined ? {} : { sessionId: this.sessionId, nextRequestId: this.ctx.lastId() + 1 }) };
    return { negotiatedVersion: this.reported, era: 'legacy', sessionId: this.sessionId, resumeState };
  }

  // — opening —

  /** A new session: initialize, then notifications/initialized. */
  async open(signal: AbortSignal): Promise<void> {
    const { rules, sessionMemory } = this.ctx;
    // A client that keeps one session id for the whole instance offers it to whatever server comes next.
    const leaked = rules.scopeSessionsToConnection ? undefined : sessionMemory.last;
    try {
      await this.handshake(signal, { sessionHeader: leaked, reinit: false });
    } catch (error) {
      if (leaked === undefined || !(error instanceof HttpStatusError) || error.what !== 'initialize' || error.status >= 500) throw error;
      await this.handshake(signal, { sessionHeader: undefined, reinit: false });
    }
  }

  /** Continues a persisted session: the stored id and revision, no initialize. */
  async resume(state: ResumeState, signal: AbortSignal): Promise<void> {
    this.version = state.protocolVersion;
    this.reported = state.protocolVersion;
    this.sessionId = state.sessionId;
    // The flawed alternative (seed 000): run initialize again inside the restored session.
    if (!this.ctx.rules.resumeAsStored) await this.handshake(signal, { sessionHeader: state.sessionId, reinit: false });
    else if (this.ctx.listen) this.listen();
  }

  private async handshake(signal: AbortSignal, options: { sessionHeader: string | undefined; reinit: boolean }): Promise<void> {
    const retryWith = await this.initialize(this.handshakeOptions.offer, signal, { ...options, retried: false });
    if (retryWith !== undefined) await this.initialize(retryWith, signal, { ...options, retried: true });
    if (this.ctx.rules.sendInitializedNotification) await this.notify('notifications/initialized', undefined, signal);
    if (this.ctx.listen) this.listen();
  }

  /**
   * Opens the standalone GET stream (Listening for Messages from the Server) in the background and answers what the
   * server sends on it, until the server ends it or the session is torn down. A 405: the server offers none.
   */
  private listen(): void {
    const { rules } = this.ctx;
    const listening = async () => {
      const headers = this.headers({ [H.accept]: rules.listenAcceptsEventStream ? 'text/event-stream' : JSON_CONTENT });
      delete headers[H.contentType];
      const http = await send(this.ctx.agent, { method: 'GET', url: this.url, headers, signal: this.lifetime.signal });
      if (!isOk(http) || !isSse(http)) {
        discard(http.body);
        if (http.status === 405 && !rules.getStream405IsNoStream) this.broken = new HttpStatusError('GET (listening stream)', 405, '', undefined);
        return;
      }
      const reader = new SseReader(http.body, rules);
      this.readers.add(reader);
      try {
        await reader.drain((message) => {
          if (rules.answerOnTheGetStream) this.onServerMessage(message, undefined);
        });
      } finally {
        this.readers.delete(reader);
      }
    };
    // Nothing to listen to on a network failure either: the calls report their own.
    this.tasks.add(listening().catch(() => {}));
  }

  /** One initialize exchange. Returns a revision to offer instead when the server's error form lists one. */
  private async initialize(
    offer: string,
    signal: AbortSignal,
    options: { sessionHeader: string | undefined; reinit: boolean; retried: boolean },
  ): Promise<string | undefined> {
    const { rules, config } = this.ctx;
    const id = this.ctx.nextId();
    const headers: Record<string, string> = { [H.contentType]: JSON_CONTENT, [H.accept]: ACCEPT_BOTH };
    if (options.sessionHeader !== undefined) headers[H.session] = options.sessionHeader;
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'initialize',
      params: { protocolVersion: offer, capabilities: capabilitiesOf(this.ctx.handlers, this.ctx.rules), clientInfo: CLIENT_INFO },
    });
    const link = linkSignals([signal, this.lifetime.signal]);
    try {
      const http = await send(this.ctx.agent, { method: 'POST', url: this.url, headers, body, signal: link.signal });
      let message: JsonRpcMessage;
      if (isOk(http)) {
        const answered = await readAnswer(http, id, link.signal, (m) => this.onServerMessage(m, undefined), rules);
        this.drain(answered);
        message = answered.message;
      } else {
        const error = await statusError('initialize', http, link.signal);
        // An HTTP error status carrying the JSON-RPC answer to this initialize (its error form, sent with 400) is that answer.
        if (error.rpcError === undefined || error.rpcError.id !== id || isModernErrorCode(error.rpcError.code)) throw error;
        message = { jsonrpc: '2.0', id, error: error.rpcError };
      }
      if (message.error) {
        // Only a result is taken as the answer: the error is ignored until the connect gives up.
        if (!rules.validateInitializeAnswer) return await untilAborted([link.signal]);
        const supported = (message.error.data as { supported?: unknown } | undefined)?.supported;
        const listed = Array.isArray(supported) ? config.legacyRevisions.find((v) => v !== offer && supported.includes(v)) : undefined;
        if (message.error.code === -32602 && listed !== undefined && !options.retried && !this.handshakeOptions.pinned) return listed;
        throw new JsonRpcError({ code: message.error.code, message: message.error.message, data: message.error.data }, http.status);
      }
      const answeredVersion = (message.result ?? {})['protocolVersion'];
      const acceptable = this.handshakeOptions.pinned ? answeredVersion === offer : config.legacyRevisions.includes(String(answeredVersion));
      if (!acceptable && rules.validateInitializeAnswer) {
        if (!rules.noFallbackAfterAnsweredInitialize) await this.fallBackIfDeleteRefused(http.headers[H.session], link.signal);
        throw new UnsupportedRevisionError(answeredVersion);
      }
      const earlier = this.reported;
      this.advertised = advertisedCapabilities(message.result);
      this.version = String(answeredVersion);
      this.reported = !rules.reportAnsweredVersion
        ? offer
        : options.reinit && !rules.followReinitializedVersion && earlier !== undefined
          ? earlier
          : this.version;
      // The id is taken from this response only: the one that carries the InitializeResult.
      this.sessionId = http.headers[H.session] || undefined;
      if (this.sessionId !== undefined) this.ctx.sessionMemory.last = this.sessionId;
      return undefined;
    } catch (error) {
      // A client that cancels initialize (MUST NOT): the connect gave up, and the notification still goes out.
      if (link.signal.aborted && !rules.neverCancelInitialize && !this.lifetime.signal.aborted) {
        const cancel = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: 'connect gave up' } };
        this.tasks.add(boundedByClose(this.ctx.config, (bound) => this.post(cancel, 'POST notifications/cancelled', bound, { outlivesSession: true })));
      }
      throw error;
    } finally {
      link.dispose();
    }
  }

  // — requests —

  async request(call: Call): Promise<Params> {
    const { rules } = this.ctx;
    let retried = false;
    let httpRetries = 0;
    for (;;) {
      await this.ready(call);
      if (this.closed) throw new ConnectionClosedError();
      const sent = this.sessionId;
      const id = this.ctx.nextId();
      call.wireId = id;
      try {
        return await this.attempt(call, id, sent);
      } catch (error) {
        if (call.signal.aborted && rules.settleOnCancel) throw call.signal.reason;
        if (this.closed) throw error instanceof ConnectionClosedError ? error : new ConnectionClosedError();
        if (error instanceof SessionLost) {
          await this.recover(error.sessionId, call);
          // Without the bound, every replacement session lost under the call starts another: a server that keeps
          // answering 404 keeps the call going for ever.
          if ((!retried || !rules.boundSessionRecovery) && call.idempotent) {
            retried = true;
            continue;
          }
          throw new SessionExpiredError(
            `${error.message}; a new session was started, and ${call.idempotent ? `${call.method} was already retried once` : `${call.method} is not idempotent, so it was not sent again`}`,
          );
        }
        if (error instanceof StreamCut) {
          // Only reached when resuming is off: the request is POSTed again, idempotent or not.
          if (!retried) {
            retried = true;
            continue;
          }
          throw new ConnectionDropped(error.message);
        }
        if (error instanceof ConnectionDropped) {
          if (!rules.dropKeepsSession && sent !== undefined) await this.recover(sent, call);
          if (!retried && (call.idempotent || !rules.retryOnlyIdempotent)) {
            retried = true;
            continue;
          }
          throw error;
        }
        if (!rules.noRetryOnHttpErrors && isAuthOrServerFailure(error) && httpRetries < 3) {
          httpRetries++;
          continue;
        }
        throw error;
      }
    }
  }

  /** One POST of the call (and its resumptions), on the session current when it was sent. */
  private async attempt(call: Call, id: number, sent: string | undefined): Promise<Params> {
    const exchange = new AbortController();
    call.exchange = exchange;
    this.exchanges.add(exchange);
    const { signal } = exchange;
    try {
      const body = JSON.stringify({ jsonrpc: '2.0', id, method: call.method, params: call.params });
      const http = await send(this.ctx.agent, { method: 'POST', url: this.url, headers: this.headers(), body, signal });
      this.observeSessionHeader(http);
      if (!isOk(http)) throw await this.failure(`POST ${call.method}`, http, sent, signal);
      let answered: Answered;
      try {
        answered = await readAnswer(http, id, signal, (message) => this.onServerMessage(message, call), this.ctx.rules);
      } catch (error) {
        if (!(error instanceof StreamCut)) throw error;
        answered = await this.resumeStream(call, id, error, signal);
      }
      this.drain(answered);
      call.answered = true;
      const { message } = answered;
      if (message.error) throw new JsonRpcError(message.error, http.status);
      return message.result ?? {};
    } finally {
      this.exchanges.delete(exchange);
      if (call.exchange === exchange) call.exchange = undefined;
    }
  }

  /**
   * A response stream ended after an event id without the answer: wait the server's retry interval, then
   * GET with Last-Event-ID and read the answer there (as many times as the stream is cut, within a bound).
   */
  private async resumeStream(call: Call, id: number, cut: StreamCut, signal: AbortSignal): Promise<Answered> {
    const { rules, config } = this.ctx;
    let current = cut;
    for (let resumes = 0; ; resumes++) {
      if (current.lastEventId === undefined) throw new ConnectionDropped(current.message);
      if (!rules.resumeWithLastEventId) throw current;
      if (resumes >= config.maxResumes) throw new ConnectionDropped(`${current.message}; gave up after ${resumes} resumptions`);
      await delay(rules.respectSseRetry ? (current.retryMs ?? 0) : 0, [signal, this.lifetime.signal]);
      const headers = this.headers({ [H.accept]: 'text/event-stream', [H.lastEventId]: current.lastEventId });
      delete headers[H.contentType];
      const http = await send(this.ctx.agent, { method: 'GET', url: this.url, headers, signal });
      if (!isOk(http)) throw await this.failure('GET (resume)', http, headers[H.session], signal);
      if (!isSse(http)) {
        await http.body.dump().catch(() => {});
        throw new ProtocolError(`the resumption GET was answered with content type "${http.headers['content-type'] ?? ''}"`);
      }
      const reader = new SseReader(http.body, rules);
      try {
        return await readSseAnswer(reader, id, signal, (message) => this.onServerMessage(message, call));
      } catch (error) {
        if (!(error instanceof StreamCut)) throw error;
        current = new StreamCut(error.lastEventId ?? current.lastEventId, error.retryMs ?? current.retryMs);
      }
    }
  }

  /**
   * Mcp-Session-Id on any response but the InitializeResult's is ignored (an echo, or an id a proxy injected);
   * a client without that rule adopts it.
   */
  private observeSessionHeader(http: HttpAnswer): void {
    const header = http.headers[H.session];
    if (!this.ctx.rules.sessionIdOnlyFromInitialize && header && header !== this.sessionId) this.sessionId = header;
  }

  /** An error answer: a lost session when it names the id we sent, otherwise the HTTP error. */
  private async failure(what: string, http: HttpAnswer, sent: string | undefined, signal: AbortSignal): Promise<Error> {
    const error = await statusError(what, http, signal);
    if (sent === undefined) return error;
    if (http.status === 404) return new SessionLost(sent, error.message);
    if (http.status === 400 && this.ctx.rules.treatSdk400AsSessionLoss && namesLostSession(error.rpcError)) return new SessionLost(sent, error.message);
    return error;
  }

  /** The session `deadId` is gone: start a new one (once for all the requests that learn it), unless it was already replaced. */
  private async recover(deadId: string, call: Call): Promise<void> {
    const { rules } = this.ctx;
    if (!rules.recoverSessionLoss) throw new SessionExpiredError(`session ${deadId} ended on the server`);
    const stale = deadId !== this.sessionId;
    if (!(stale && rules.ignoreStaleSessionLoss) && this.reinitializing === undefined) {
      if (this.sessionId !== undefined) this.dead.add(this.sessionId);
      this.dead.add(deadId);
      this.sessionId = undefined;
      this.reinitializing = this.reinitialize(deadId).finally(() => {
        this.reinitializing = undefined;
      });
    }
    await this.ready(call);
  }

  private async reinitialize(deadId: string): Promise<void> {
    const { rules, config } = this.ctx;
    const deadline = new Deadline(config.reinitializeTimeoutMs, () => new RequestTimeoutError(`re-initializing took longer than ${config.reinitializeTimeoutMs} ms`));
    const link = linkSignals([deadline.signal, this.lifetime.signal]);
    try {
      await this.handshake(link.signal, { sessionHeader: rules.reinitializeWithoutSessionId ? undefined : deadId, reinit: true });
    } catch (error) {
      this.broken = error instanceof Error ? error : new Error(String(error));
      throw error;
    } finally {
      deadline.clear();
      link.dispose();
    }
  }

  /** Waits for a session replacement in progress; fails if it failed. */
  private async ready(call: Call): Promise<void> {
    if (this.reinitializing !== undefined) await raceSignals(this.reinitializing.catch(() => {}), [call.signal, this.lifetime.signal]);
    if (this.broken !== undefined) throw this.broken;
  }

  // — notifications, server messages —

  private headers(extra: Record<string, string> = {}): Record<string, string> {
    const headers: Record<string, string> = { [H.contentType]: JSON_CONTENT, [H.accept]: ACCEPT_BOTH, ...extra };
    // A session the server ended is never named again.
    if (this.sessionId !== undefined && !this.dead.has(this.sessionId)) headers[H.session] = this.sessionId;
    if (this.version !== undefined && this.ctx.rules.sendProtocolVersionHeader && requiresProtocolVersionHeader(this.version as Revision)) {
      headers[H.version] = this.version;
    }
    return headers;
  }

  private async notify(method: string, params: Params | undefined, signal: AbortSignal): Promise<void> {
    await this.post({ jsonrpc: '2.0', method, ...(params ? { params } : {}) }, `POST ${method}`, signal);
  }

  /** POSTs a notification or a response: the server accepts it with 202. */
  private async post(message: JsonRpcMessage, what: string, signal: AbortSignal, options: { outlivesSession?: boolean } = {}): Promise<void> {
    const link = linkSignals(options.outlivesSession ? [signal] : [signal, this.lifetime.signal]);
    try {
      const http = await send(this.ctx.agent, { method: 'POST', url: this.url, headers: this.headers(), body: JSON.stringify(message), signal: link.signal });
      this.observeSessionHeader(http);
      if (!isOk(http)) throw await statusError(what, http, link.signal);
      await readText(http, link.signal);
    } finally {
      link.dispose();
    }
  }


  private onServerMessage(message: JsonRpcMessage, call: Call | undefined): void {
    if (message.method === 'notifications/progress') {
      if (call !== undefined && message.params?.['progressToken'] === progressTokenOf(call.params) && message.params?.['progressToken'] !== undefined) call.onProgress?.();
      return;
    }
    const reply = replyTo(message, this.ctx.rules, this.ctx.handlers);
    if (reply === undefined || this.closed) return;
    this.tasks.add(boundedByClose(this.ctx.config, (bound) => this.post(reply, `POST response to ${message.method}`, bound)));
  }

  /** Reads the rest of an SSE stream after its answer, in the background, so the server ends it (never us). */
  private drain(answered: Answered): void {
    const reader = answered.rest;
    if (reader === undefined) return;
    this.readers.add(reader);
    this.tasks.add(reader.drain().finally(() => this.readers.delete(reader)));
  }

  // — cancellation and closing —

  async cancel(call: Call, options: { closeStream: boolean; reason: string }): Promise<void> {
    const { rules } = this.ctx;
    const onTheWire = call.exchange !== undefined && call.wireId !== undefined && !call.answered;
    const exchange = call.exchange;
    // A call is cancelled once: a timeout and a close that follows it must not notify twice.
    const first = !this.cancelled.has(call);
    this.cancelled.add(call);
    if (rules.cancelOnTheWire && onTheWire && first && !this.lifetime.signal.aborted) {
      await boundedByClose(this.ctx.config, (bound) => this.notify('notifications/cancelled', { requestId: call.wireId, reason: options.reason }, bound)).catch(() => {});
    }
    if (options.closeStream) exchange?.abort(call.signal.reason ?? new RequestCancelledError(options.reason));
  }

  async close(options: { keepSession: boolean }): Promise<void> {
    const { rules } = this.ctx;
    this.closed = true;
    if (rules.closeTearsDown) this.tearDown(new ConnectionClosedError());
    const sessionId = this.sessionId;
    try {
      if (sessionId !== undefined && rules.deleteSessionOnClose && !(options.keepSession && rules.keepSessionWhenAsked)) await this.deleteSession();
    } finally {
      if (rules.closeTearsDown) await this.tasks.settled();
    }
  }

  private async deleteSession(): Promise<void> {
    const { rules } = this.ctx;
    const headers = this.headers();
    delete headers[H.contentType];
    delete headers[H.accept];
    let status = 0;
    const deleting = async (signal: AbortSignal) => {
      const http = await send(this.ctx.agent, { method: 'DELETE', url: this.url, headers, signal });
      await readText(http, signal);
      status = http.status;
    };
    try {
      // A server or proxy that never answers the DELETE: given up (the exchange aborted) at the close bound, never later
      // than the connection's own timeout. Without the bound, close() waits for whatever answer comes, if one ever does.
      if (rules.boundDeleteOnClose) await boundedByClose({ closeTimeoutMs: Math.min(this.ctx.config.closeTimeoutMs, this.ctx.timeoutMs) }, deleting);
      else await deleting(new AbortController().signal);
    } catch {
      // Closing cannot fail on the network: the session ends on our side either way.
      return;
    }
    if (status === 405 && !rules.tolerateDelete405) throw new HttpStatusError('DELETE', 405, '', undefined);
    // A DELETE refused for its token (after the one renewal): the session ends on this side all the same.
    if ((status === 401 || status === 403) && !rules.closeSettlesOnRefusedDelete) throw new HttpStatusError('DELETE', status, '', undefined);
    // seed 003: a 404/405 at exit read as "this server speaks HTTP+SSE".
    if ((status === 404 || status === 405) && !rules.fallbackOnlyBeforeInitialize) {
      await boundedByClose(this.ctx.config, async (signal) => {
        const http = await send(this.ctx.agent, { method: 'GET', url: this.url, headers: { [H.accept]: 'text/event-stream' }, signal });
        discard(http.body);
      }).catch(() => {});
    }
  }

  /**
   * The broken variant's disconnect from an initialize answer naming an unsupported revision: it DELETEs the session the
   * answer issued and reads a 404/405 to that as "this server speaks HTTP+SSE" (the error connect falls back on).
   */
  private async fallBackIfDeleteRefused(issued: string | undefined, signal: AbortSignal): Promise<void> {
    if (!issued) return;
    let status = 0;
    await boundedByClose(this.ctx.config, async (bound) => {
      const link = linkSignals([signal, bound]);
      try {
        const http = await send(this.ctx.agent, { method: 'DELETE', url: this.url, headers: { [H.session]: issued }, signal: link.signal });
        await readText(http, link.signal);
        status = http.status;
      } finally {
        link.dispose();
      }
    }).catch(() => {});
    if (status === 404 || status === 405) throw new HttpStatusError('initialize', status, '', undefined);
  }

  private tearDown(reason: Error): void {
    if (!this.lifetime.signal.aborted) this.lifetime.abort(reason);
    for (const exchange of this.exchanges) exchange.abort(reason);
    for (const reader of this.readers) reader.destroy();
  }

  abandon(): void {
    this.closed = true;
    this.tearDown(new ConnectionClosedError('the connection was abandoned'));
  }
}

export function isInitializeRejection(error: unknown): error is HttpStatusError {
  return error instanceof HttpStatusError && error.what === 'initialize';
}
