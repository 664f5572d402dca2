// HTTP+SSE (2024-11-05): a GET stream whose first event, `endpoint`, names the URL every message is POSTed to;
// answers come back as `message` events on the stream. Used only as the fallback when the initialize POST to
// the URL is answered 400, 404 or 405 (2025-11-25 transports › Backwards Compatibility).
import type { ConnectionInfo } from '../adapter.ts';
import { advertisedCapabilities, capabilitiesOf, replyTo } from './server-messages.ts';
import {
  ConnectionClosedError,
  ConnectionDropped,
  EndpointOriginError,
  isAuthOrServerFailure,
  JsonRpcError,
  ProtocolError,
  RequestCancelledError,
  UnsupportedRevisionError,
} from './errors.ts';
import { isOk, isSse, messagesOfEvent, readText, send, SseReader, statusError } from './http.ts';
import type { HandshakeOptions } from './legacy-session.ts';
import { CLIENT_INFO, H, JSON_CONTENT, type JsonRpcMessage, type Params } from './protocol.ts';
import { boundedByClose, progressTokenOf, Tasks, type Call, type Session, type SessionContext } from './session.ts';
import { linkSignals, raceSignals, untilAborted } from './timers.ts';

interface Pending {
  resolve(message: JsonRpcMessage): void;
  reject(error: unknown): void;
  call: Call | undefined;
}

export class HttpSseSession implements Session {
  readonly era = 'legacy' as const;
  private endpoint = '';
  private reported: string | undefined;
  /** The capabilities the InitializeResult advertised. */
  private advertised: Params | undefined;
  private closed = false;
  /** Why the stream is gone, once it is. */
  private ended: Error | undefined;
  private reader: SseReader | undefined;
  /** Aborts the GET stream (close, abandon, or the connect giving up while it opens). */
  private readonly stream = new AbortController();
  private readonly pending = new Map<number, Pending>();
  private readonly tasks = new Tasks();
  private readonly ctx: SessionContext;
  private readonly url: string;
  private readonly handshakeOptions: HandshakeOptions;

  private constructor(ctx: SessionContext, url: string, handshake: HandshakeOptions) {
    this.ctx = ctx;
    this.url = url;
    this.handshakeOptions = handshake;
  }

  serverCapabilities(): Params | undefined {
    return this.advertised;
  }

  /** GET the URL, wait for `endpoint`, check its origin, then initialize over it. */
  static async open(ctx: SessionContext, url: string, handshake: HandshakeOptions, signal: AbortSignal): Promise<HttpSseSession> {
    const session = new HttpSseSession(ctx, url, handshake);
    const giveUp = () => session.stream.abort(signal.reason);
    signal.addEventListener('abort', giveUp, { once: true });
    try {
      await session.connectStream(signal);
      await session.handshake(signal);
      return session;
    } catch (error) {
      session.abandon();
      throw error;
    } finally {
      signal.removeEventListener('abort', giveUp);
    }
  }

  private async connectStream(signal: AbortSignal): Promise<void> {
    if (signal.aborted) throw signal.reason;
    const http = await send(this.ctx.agent, { method: 'GET', url: this.url, headers: { [H.accept]: 'text/event-stream' }, signal: this.stream.signal });
    if (!isOk(http)) throw await statusError('GET (HTTP+SSE stream)', http, this.stream.signal);
    if (!isSse(http)) {
      await readText(http, this.stream.signal).catch(() => '');
      throw new ProtocolError(`GET ${this.url} was answered with content type "${http.headers['content-type'] ?? ''}", not an SSE stream`);
    }
    const reader = new SseReader(http.body, this.ctx.rules);
    this.reader = reader;
    const first = await reader.next().catch((error: unknown) => {
      throw this.stream.signal.aborted ? this.stream.signal.reason : new ConnectionDropped(`the SSE stream broke before the endpoint event (${String(error)})`);
    });
    if (first === undefined || first.event !== 'endpoint') {
      throw new ProtocolError(`the first event of the SSE stream was ${first === undefined ? 'the end of the stream' : `"${first.event ?? 'message'}"`}, not endpoint`);
    }
    const endpoint = new URL(first.data.trim(), this.url);
    if (this.ctx.rules.checkEndpointOrigin && endpoint.origin !== new URL(this.url).origin) {
      throw new EndpointOriginError(`the endpoint event named ${endpoint.origin}, another origin than ${new URL(this.url).origin}: refused`);
    }
    this.endpoint = endpoint.href;
    this.tasks.add(this.pump(reader));
  }

  /** Reads the stream for the rest of the session, dispatching answers to the requests waiting for them. */
  private async pump(reader: SseReader): Promise<void> {
    let reason: Error;
    try {
      for (;;) {
        const event = await reader.next();
        if (event === undefined) {
          reason = new ConnectionDropped('the HTTP+SSE stream ended');
          break;
        }
        for (const message of messagesOfEvent(event)) this.onMessage(message);
      }
    } catch (error) {
      reason = this.closed ? new ConnectionClosedError() : new ConnectionDropped(`the HTTP+SSE stream broke (${String(error)})`);
    }
    this.ended = reason;
    for (const pending of this.pending.values()) pending.reject(reason);
    this.pending.clear();
  }

  private onMessage(message: JsonRpcMessage): void {
    if (message.method === undefined) {
      if (typeof message.id !== 'number') return;
      const pending = this.pending.get(message.id);
      // An answer nobody waits for (a cancelled or retried request): ignored.
      if (pending === undefined) return;
      this.pending.delete(message.id);
      pending.resolve(message);
      return;
    }
    if (message.method === 'notifications/progress') {
      const token = message.params?.['progressToken'];
      if (token === undefined) return;
      for (const pending of this.pending.values()) if (pending.call && progressTokenOf(pending.call.params) === token) pending.call.onProgress?.();
      return;
    }
    const reply = replyTo(message, this.ctx.rules, this.ctx.handlers);
    if (reply === undefined || this.closed) return;
    this.tasks.add(boundedByClose(this.ctx.config, (signal) => this.post(reply, signal)));
  }

  private async handshake(signal: AbortSignal): Promise<void> {
    const { rules, config } = this.ctx;
    const offer = this.handshakeOptions.offer;
    const id = this.ctx.nextId();
    const message = await this.exchange(id, 'initialize', { protocolVersion: offer, capabilities: capabilitiesOf(this.ctx.handlers, this.ctx.rules), clientInfo: CLIENT_INFO }, signal, undefined);
    if (message.error) {
      // The broken variant neither settles nor retries: it waits, as the legacy session does.
      if (!rules.validateInitializeAnswer) return await untilAborted([signal]);
      throw new JsonRpcError(message.error);
    }
    const answered = (message.result ?? {})['protocolVersion'];
    const acceptable = this.handshakeOptions.pinned ? answered === offer : config.legacyRevisions.includes(String(answered));
    if (!acceptable && rules.validateInitializeAnswer) throw new UnsupportedRevisionError(answered);
    this.reported = rules.reportAnsweredVersion ? String(answered) : offer;
    this.advertised = advertisedCapabilities(message.result);
    if (rules.sendInitializedNotification) await this.post({ jsonrpc: '2.0', method: 'notifications/initialized' }, signal);
  }

  /** POSTs a request to the endpoint and waits for its answer on the stream. */
  private async exchange(id: number, method: string, params: Params, signal: AbortSignal, call: Call | undefined): Promise<JsonRpcMessage> {
    if (this.ended) throw this.ended;
    const answer = new Promise<JsonRpcMessage>((resolve, reject) => this.pending.set(id, { resolve, reject, call }));
    void answer.catch(() => {});
    try {
      await this.post({ jsonrpc: '2.0', id, method, params }, signal);
      return await raceSignals(answer, [signal]);
    } finally {
      this.pending.delete(id);
    }
  }

  private async post(message: JsonRpcMessage, signal: AbortSignal): Promise<void> {
    const link = linkSignals([signal, this.stream.signal]);
    try {
      const http = await send(this.ctx.agent, {
        method: 'POST',
        url: this.endpoint,
        headers: { [H.contentType]: JSON_CONTENT },
        body: JSON.stringify(message),
        signal: link.signal,
      });
      if (!isOk(http)) throw await statusError(`POST ${message.method ?? 'response'}`, http, link.signal);
      await readText(http, link.signal);
    } finally {
      link.dispose();
    }
  }


  info(): ConnectionInfo {
    // The ?sessionId= of the endpoint is an SDK convention, not a session id; nothing here can be resumed.
    return { negotiatedVersion: this.reported, era: 'legacy' };
  }

  async request(call: Call): Promise<Params> {
    const { rules } = this.ctx;
    let retried = false;
    let httpRetries = 0;
    for (;;) {
      if (this.closed) throw new ConnectionClosedError();
      const id = this.ctx.nextId();
      call.wireId = id;
      const exchange = new AbortController();
      call.exchange = exchange;
      try {
        const message = await this.exchange(id, call.method, call.params, exchange.signal, call);
        call.answered = true;
        if (message.error) throw new JsonRpcError(message.error);
        return message.result ?? {};
      } catch (error) {
        if (call.signal.aborted && rules.settleOnCancel) throw call.signal.reason;
        if (this.closed) throw error instanceof ConnectionClosedError ? error : new ConnectionClosedError();
        // A POST cut off: the stream is still there, the request may or may not have arrived.
        if (error instanceof ConnectionDropped && this.ended === undefined && !retried && (call.idempotent || !rules.retryOnlyIdempotent)) {
          retried = true;
          continue;
        }
        if (!rules.noRetryOnHttpErrors && isAuthOrServerFailure(error) && httpRetries < 3) {
          httpRetries++;
          continue;
        }
        throw error;
      } finally {
        if (call.exchange === exchange) call.exchange = undefined;
      }
    }
  }

  async cancel(call: Call, options: { closeStream: boolean; reason: string }): Promise<void> {
    const onTheWire = call.exchange !== undefined && call.wireId !== undefined && !call.answered;
    const exchange = call.exchange;
    if (this.ctx.rules.cancelOnTheWire && onTheWire && !this.stream.signal.aborted) {
      await boundedByClose(this.ctx.config, (signal) => this.post({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: call.wireId, reason: options.reason } }, signal)).catch(
        () => {},
      );
    }
    // Stop waiting: the answer, if it still comes on the stream, finds nobody waiting for it.
    if (options.closeStream) exchange?.abort(call.signal.reason ?? new RequestCancelledError(options.reason));
  }

  async close(): Promise<void> {
    this.closed = true;
    // Closing ends the GET stream: that is how an HTTP+SSE client hangs up.
    if (this.ctx.rules.closeTearsDown) {
      this.abandon();
      await this.tasks.settled();
    }
  }

  abandon(): void {
    this.closed = true;
    if (!this.stream.signal.aborted) this.stream.abort(new ConnectionClosedError());
    this.reader?.destroy();
  }
}
