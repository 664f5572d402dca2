// 2026-07-28 Streamable HTTP: stateless requests, each a POST carrying the `_meta` envelope and the mirrored
// headers; no initialize, no GET, no DELETE, no session (a client-minted affinity key may ride in Mcp-Session-Id).
// Cancelling is closing the request's response stream. Only a dropped connection is retried, as a new request
// with a new id, and only when the request is idempotent.
import type { ConnectionInfo } from '../adapter.ts';
import {
  ConnectionClosedError,
  ConnectionDropped,
  EraContradiction,
  isAuthOrServerFailure,
  JsonRpcError,
  ProtocolError,
  RequestCancelledError,
  StreamCut,
} from './errors.ts';
import { isOk, readAnswer, readText, send, statusError, type Answered, type SseReader } from './http.ts';
import { invalidModernResult, modernRequest } from './modern-wire.ts';
import { H, isModernErrorCode, type JsonRpcMessage, type Params } from './protocol.ts';
import { boundedByClose, progressTokenOf, Tasks, type Call, type Session, type SessionContext } from './session.ts';

export interface ModernOptions {
  url: string;
  version: string;
  affinityKey: string | undefined;
  /** True when the era came from the cache and no modern answer has arrived yet: a legacy answer then contradicts it. */
  fromCache: boolean;
}

/** An answer only a legacy server gives to a modern request: a 4xx whose body is not a modern error. */
function looksLegacy(status: number, rpcCode: number | undefined): boolean {
  return [400, 404, 405, 406, 415].includes(status) && !isModernErrorCode(rpcCode) && rpcCode !== -32601 && rpcCode !== -32602;
}

export class ModernSession implements Session {
  readonly era = 'modern' as const;
  private verified: boolean;
  private closed = false;
  private readonly exchanges = new Set<AbortController>();
  private readonly readers = new Set<SseReader>();
  private readonly tasks = new Tasks();
  private readonly ctx: SessionContext;
  private readonly options: ModernOptions;

  constructor(ctx: SessionContext, options: ModernOptions) {
    this.ctx = ctx;
    this.options = options;
    this.verified = !options.fromCache;
  }

  info(): ConnectionInfo {
    return { negotiatedVersion: this.options.version, era: 'modern', resumeState: { protocolVersion: this.options.version } };
  }

  async request(call: Call): Promise<Params> {
    const { rules } = this.ctx;
    let reissued = false;
    let httpRetries = 0;
    let id: number | undefined;
    for (;;) {
      if (this.closed) throw new ConnectionClosedError();
      id = id === undefined || rules.freshIdOnReissue ? this.ctx.nextId() : id;
      call.wireId = id;
      try {
        return await this.attempt(call, id);
      } catch (error) {
        if (call.signal.aborted && rules.settleOnCancel) throw call.signal.reason;
        if (this.closed) throw error instanceof ConnectionClosedError ? error : new ConnectionClosedError();
        if (error instanceof ConnectionDropped && !reissued && (call.idempotent || !rules.retryOnlyIdempotent)) {
          reissued = true;
          continue;
        }
        if (error instanceof JsonRpcError && !reissued && !rules.modernRetryOnlyDrops) {
          reissued = true;
          continue;
        }
        if (!rules.noRetryOnHttpErrors && isAuthOrServerFailure(error) && httpRetries < 3) {
          httpRetries++;
          continue;
        }
        throw error;
      }
    }
  }

  private async attempt(call: Call, id: number): Promise<Params> {
    const exchange = new AbortController();
    call.exchange = exchange;
    this.exchanges.add(exchange);
    const { signal } = exchange;
    try {
      const { body, headers } = modernRequest({ id, method: call.method, params: call.params, version: this.options.version, affinityKey: this.options.affinityKey }, this.ctx);
      const http = await send(this.ctx.agent, { method: 'POST', url: this.options.url, headers, body, signal });
      // A modern server never sends a session id: a response header (an echo, a proxy's id) never replaces the key.
      const echoed = http.headers[H.session];
      if (!this.ctx.rules.sessionIdOnlyFromInitialize && echoed) this.options.affinityKey = echoed;
      if (!isOk(http)) {
        const error = await statusError(`POST ${call.method}`, http, signal);
        const rpc = error.rpcError;
        if (rpc !== undefined && (isModernErrorCode(rpc.code) || rpc.id === id)) {
          this.verified = true;
          throw new JsonRpcError(rpc, http.status);
        }
        if (!this.verified && looksLegacy(http.status, rpc?.code)) throw new EraContradiction(error.message);
        throw error;
      }
      let answered: Answered;
      try {
        answered = await readAnswer(http, id, signal, (message) => this.onServerMessage(message, call), this.ctx.rules);
      } catch (error) {
        // No resumption in this era: a cut stream lost the request.
        throw error instanceof StreamCut ? new ConnectionDropped(error.message) : error;
      }
      this.drain(answered);
      call.answered = true;
      this.verified = true;
      const { message } = answered;
      if (message.error) throw new JsonRpcError(message.error, http.status);
      const result = message.result ?? {};
      const invalid = invalidModernResult(call.method, result);
      if (invalid !== undefined) throw invalid;
      return result;
    } finally {
      this.exchanges.delete(exchange);
      if (call.exchange === exchange) call.exchange = undefined;
    }
  }

  private onServerMessage(message: JsonRpcMessage, call: Call): void {
    const token = message.params?.['progressToken'];
    if (message.method === 'notifications/progress' && token !== undefined && token === progressTokenOf(call.params)) call.onProgress?.();
  }

  private drain(answered: Answered): void {
    const reader = answered.rest;
    if (reader === undefined) return;
    this.readers.add(reader);
    this.tasks.add(reader.drain().finally(() => this.readers.delete(reader)));
  }


  async cancel(call: Call, options: { closeStream: boolean; reason: string }): Promise<void> {
    const exchange = call.exchange;
    if (exchange === undefined || call.answered) return;
    if (this.ctx.rules.cancelOnTheWire) {
      // Closing the response stream IS the cancellation (2026-07-28 cancellation › Transport-Specific Cancellation).
      exchange.abort(call.signal.reason ?? new RequestCancelledError(options.reason));
      return;
    }
    // The legacy habit, wrong here: a notification, and the stream left open.
    const { body, headers } = modernRequest(
      { method: 'notifications/cancelled', params: { requestId: call.wireId, reason: options.reason }, version: this.options.version, affinityKey: this.options.affinityKey },
      this.ctx,
    );
    await boundedByClose(this.ctx.config, async (signal) => {
      const http = await send(this.ctx.agent, { method: 'POST', url: this.options.url, headers, body, signal });
      await readText(http, signal);
    }).catch(() => {});
  }

  async close(): Promise<void> {
    const { rules } = this.ctx;
    this.closed = true;
    if (rules.closeTearsDown) this.abandon();
    // seed 000: DELETE for an id the server never issued (here the client's own affinity key).
    if (!rules.deleteOnlyIssuedSessions && this.options.affinityKey !== undefined) {
      const headers = { [H.session]: this.options.affinityKey, [H.version]: this.options.version };
      await boundedByClose(this.ctx.config, async (signal) => {
        const http = await send(this.ctx.agent, { method: 'DELETE', url: this.options.url, headers, signal });
        await readText(http, signal);
      }).catch(() => {});
    }
    if (rules.closeTearsDown) await this.tasks.settled();
  }

  abandon(): void {
    this.closed = true;
    const reason = new ConnectionClosedError();
    for (const exchange of this.exchanges) exchange.abort(reason);
    for (const reader of this.readers) reader.destroy();
  }
}

