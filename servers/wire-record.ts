// The wire record: every HTTP exchange a reference server receives, as the server saw it (and the base every
// transport's record shares: ExchangeRecord).
// Suites judge clients from this record, never from what an adapter claims it did.
import { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { basePolicy } from '../config/settings.ts';
import { SseParser, type SseEvent } from './sse.ts';

export type { SseEvent };

/** A JSON-RPC message as it crossed the wire (not validated here; schema checks come later). */
export type JsonRpcMessage = {
  jsonrpc?: unknown;
  id?: string | number | null;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
};


export interface WireExchange {
  /** Arrival order on this server, from 1. */
  seq: number;
  method: string;
  path: string;
  /** Request headers, names lower-cased; repeated headers joined with ", ". */
  requestHeaders: Record<string, string>;
  requestBody: string;
  /** JSON-RPC messages in the request body (a batch is flattened); empty when the body is not JSON-RPC. */
  requestMessages: JsonRpcMessage[];
  /** Set when the response head is written. */
  status?: number;
  responseHeaders: Record<string, string>;
  /** True when the response is an SSE stream. */
  sse: boolean;
  /** Each SSE event with the time it was written. */
  sseEvents: (SseEvent & { at: number })[];
  /** JSON-RPC messages the server sent back (the JSON body, or the data of each SSE event), with the time each was written. */
  responseMessages: ServerMessage[];
  /** Milliseconds since the record was created. */
  startedAt: number;
  headersAt?: number;
  endedAt?: number;
  /**
   * `server`: the server finished the response; `client`: the client closed the connection first;
   * `server-dropped`: a personality destroyed the connection without an answer.
   */
  endedBy?: 'server' | 'client' | 'server-dropped';
  /** Free-form labels a server personality attaches (for example `refused-reinitialize`), and BODY_PROBLEM_NOTES. */
  notes: string[];
}

/**
 * Bounds on reading one request body (servers/server.ts sets them), so a client cannot make the server buffer
 * without limit or wait forever for bytes that never come.
 */
export interface BodyLimits {
  /** The largest body read, in bytes: a longer one (by its Content-Length, or as it arrives) is not read on. */
  maxBytes: number;
  /** How long the whole body may take to arrive, counted from when its headers were read (a deadline, not an idle timer: dribbling does not extend it). */
  timeoutMs: number;
}

/** Why a request body was not read to its end: over `maxBytes`, not complete within `timeoutMs`, or the client hung up mid-body. */
export type BodyProblem = 'too-large' | 'timed-out' | 'aborted';

/** The note `begin` puts on an exchange whose body it could not read, per problem. */
export const BODY_PROBLEM_NOTES: Record<BodyProblem, string> = {
  'too-large': 'request-body-too-large',
  'timed-out': 'request-body-timed-out',
  aborted: 'request-body-aborted',
};

/** One server-to-client JSON-RPC message and when the server wrote it. */
export interface ServerMessage {
  message: JsonRpcMessage;
  at: number;
}

/** One client-to-server JSON-RPC message with the exchange that carried it. */
export interface SentMessage {
  message: JsonRpcMessage;
  exchange: WireExchange;
}

/**
 * What every wire record is, whatever the transport: the exchanges in arrival order and the queries and waits on them
 * (suites/wire.ts, `waitFor`, `responseTo`). WireRecord records HTTP; servers/stdio/record.ts records a stdio server.
 */
export class ExchangeRecord<E extends WireExchange = WireExchange> {
  readonly exchanges: E[] = [];
  /** False only to measure what recording costs: exchanges are then parsed but neither kept nor tapped. */
  readonly enabled: boolean;
  /** When the record was created (performance.now() of this process): times in the record count from it. */
  protected readonly origin = performance.now();

  constructor(options: { enabled?: boolean } = {}) {
    this.enabled = options.enabled ?? true;
  }
  protected readonly changes = new EventEmitter();

  now(): number {
    return performance.now() - this.origin;
  }

  /** Every JSON-RPC message clients sent, in arrival order. */
  sentMessages(): SentMessage[] {
    return this.exchanges.flatMap((exchange) => exchange.requestMessages.map((message) => ({ message, exchange })));
  }

  /** Client requests (messages with a method and an id) of one method, or of all methods. */
  requests(method?: string): SentMessage[] {
    return this.sentMessages().filter(
      ({ message }) => message.method !== undefined && message.id !== undefined && (method === undefined || message.method === method),
    );
  }

  /** Client notifications of one method, or of all methods. */
  notifications(method?: string): SentMessage[] {
    return this.sentMessages().filter(
      ({ message }) => message.method !== undefined && message.id === undefined && (method === undefined || message.method === method),
    );
  }

  /** The server's answer to a client request id, if it has been sent. */
  responseTo(id: string | number): ServerMessage | undefined {
    for (const exchange of this.exchanges) {
      const found = exchange.responseMessages.find(({ message }) => message.method === undefined && message.id === id);
      if (found) return found;
    }
    return undefined;
  }

  /**
   * Resolves when `predicate` holds over the record; rejects after `timeoutMs` (default: the operation bound of the
   * settings' time policy) with `what` in the message. Event-driven, not polling: it re-checks on every change.
   */
  waitFor(predicate: (record: this) => boolean, what: string, timeoutMs = basePolicy().ms.operation): Promise<void> {
    if (predicate(this)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const onChange = () => {
        if (!predicate(this)) return;
        cleanup();
        resolve();
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`));
      }, timeoutMs);
      const cleanup = () => {
        clearTimeout(timer);
        this.changes.off('change', onChange);
      };
      this.changes.on('change', onChange);
    });
  }

  /** Calls `listener` with each exchange when it ends; returns the unsubscribe function. */
  onEnded(listener: (exchange: E) => void): () => void {
    this.changes.on('ended', listener);
    return () => this.changes.off('ended', listener);
  }

  /** A server personality labels the exchange it is answering. */
  note(exchange: E, label: string): void {
    exchange.notes.push(label);
    this.changed();
  }

  /** Something in the record changed: every `waitFor` re-checks. */
  protected changed(): void {
    this.changes.emit('change');
  }

  /** An exchange ended: `onEnded` listeners hear of it. */
  protected ended(exchange: E): void {
    this.changed();
    this.changes.emit('ended', exchange);
  }
}

/** The record of an HTTP reference server: every exchange as the server saw it, its bodies read and its responses tapped. */
export class WireRecord extends ExchangeRecord {
  private readonly dropped = new WeakSet<WireExchange>();

  /** A personality is about to destroy this exchange's connection on purpose: record it as the server's doing. */
  markDropped(exchange: WireExchange): void {
    this.dropped.add(exchange);
  }

  /**
   * Starts recording one exchange: reads the whole request body (within `limits`, when given), then taps the response.
   * Returns the exchange and the body parsed as JSON (undefined when it is not JSON); `bodyProblem` when the body
   * was not read to its end, which the caller answers (or not, when the client is gone). The exchange then keeps
   * what did arrive (nothing when too large) and a BODY_PROBLEM_NOTES note.
   */
  async begin(req: IncomingMessage, res: ServerResponse, limits?: BodyLimits): Promise<{ exchange: WireExchange; parsedBody: unknown; bodyProblem?: BodyProblem }> {
    const exchange: WireExchange = {
      seq: this.exchanges.length + 1,
      method: req.method ?? '',
      path: req.url ?? '',
      requestHeaders: flattenHeaders(req.headers),
      requestBody: '',
      requestMessages: [],
      responseHeaders: {},
      sse: false,
      sseEvents: [],
      responseMessages: [],
      startedAt: this.now(),
      notes: [],
    };
    if (this.enabled) {
      this.exchanges.push(exchange);
      this.tapResponse(exchange, res);
    }
    const { body, problem } = await readBody(req, limits);
    exchange.requestBody = body.toString('utf8');
    if (problem) {
      exchange.notes.push(BODY_PROBLEM_NOTES[problem]);
      this.changed();
      return { exchange, parsedBody: undefined, bodyProblem: problem };
    }
    const parsedBody = parseJson(exchange.requestBody);
    exchange.requestMessages = toMessages(parsedBody);
    this.changed();
    return { exchange, parsedBody };
  }

  private tapResponse(exchange: WireExchange, res: ServerResponse): void {
    const decoder = new TextDecoder();
    const sse = new SseParser();
    let jsonBody = '';
    const onHead = (headArgs: unknown[] = []) => {
      if (exchange.status !== undefined) return;
      exchange.status = res.statusCode;
      exchange.headersAt = this.now();
      // Headers given to writeHead() are not always visible through getHeaders(): take both.
      const given = headArgs.find((arg) => typeof arg === 'object' && arg !== null);
      const pairs: [string, unknown][] = Array.isArray(given)
        ? Array.from({ length: Math.floor(given.length / 2) }, (_, i) => [String(given[2 * i]), given[2 * i + 1]])
        : Object.entries((given as Record<string, unknown> | undefined) ?? {});
      for (const [name, value] of [...Object.entries(res.getHeaders()), ...pairs]) {
        if (value !== undefined) exchange.responseHeaders[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
      }
      exchange.sse = (exchange.responseHeaders['content-type'] ?? '').includes('text/event-stream');
      this.changed();
    };
    const onChunk = (chunk: unknown, encoding?: unknown) => {
      if (chunk === undefined || chunk === null || typeof chunk === 'function') return;
      const text =
        typeof chunk === 'string'
          ? chunk
          : decoder.decode(chunk instanceof Uint8Array ? chunk : Buffer.from(String(chunk), encoding as BufferEncoding), { stream: true });
      if (!exchange.sse) {
        jsonBody += text;
        return;
      }
      for (const event of sse.push(text)) {
        const at = this.now();
        exchange.sseEvents.push({ ...event, at });
        if (event.data !== '' && (event.event === undefined || event.event === 'message')) {
          exchange.responseMessages.push(...toMessages(parseJson(event.data)).map((message) => ({ message, at })));
        }
        this.changed();
      }
    };

    // Wrapping writeHead/write/end sees exactly the bytes the client is sent, whatever framework wrote them.
    const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse;
    res.writeHead = ((...args: unknown[]) => {
      if (typeof args[0] === 'number') res.statusCode = args[0];
      onHead(args);
      const result = writeHead(...args);
      return result;
    }) as ServerResponse['writeHead'];
    const write = res.write.bind(res) as (...args: unknown[]) => boolean;
    res.write = ((...args: unknown[]) => {
      onHead();
      onChunk(args[0], typeof args[1] === 'string' ? args[1] : undefined);
      return write(...args);
    }) as ServerResponse['write'];
    const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
    res.end = ((...args: unknown[]) => {
      onHead();
      onChunk(args[0], typeof args[1] === 'string' ? args[1] : undefined);
      if (!exchange.sse && jsonBody !== '') {
        const at = this.now();
        exchange.responseMessages.push(...toMessages(parseJson(jsonBody)).map((message) => ({ message, at })));
      }
      return end(...args);
    }) as ServerResponse['end'];
    res.on('close', () => {
      exchange.endedAt = this.now();
      exchange.endedBy = res.writableFinished ? 'server' : this.dropped.has(exchange) ? 'server-dropped' : 'client';
      this.ended(exchange);
    });
  }
}

/**
 * Reads a request body to its end, or stops at the first of `limits` it breaks, or when the client hangs up
 * mid-body (a truncated body: fewer bytes than its Content-Length, then the connection closed).
 */
function readBody(req: IncomingMessage, limits: BodyLimits | undefined): Promise<{ body: Buffer; problem?: BodyProblem }> {
  // A declared length over the limit is refused before a byte is read, as the SDK's own reader does.
  if (limits && Number(req.headers['content-length']) > limits.maxBytes) return Promise.resolve({ body: Buffer.alloc(0), problem: 'too-large' });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (problem?: BodyProblem) => {
      clearTimeout(deadline);
      req.off('data', onData).off('end', onEnd).off('close', onAborted).off('error', onAborted);
      // What was read of a too-large body is not kept: the record would hold up to `maxBytes` of it for nothing.
      if (problem === 'too-large') chunks.length = 0;
      resolve({ body: Buffer.concat(chunks), ...(problem && { problem }) });
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (limits && size > limits.maxBytes) {
        req.pause();
        finish('too-large');
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => finish();
    // 'close' (or 'error': ECONNRESET "aborted") before 'end' is the client hanging up mid-body.
    const onAborted = () => finish('aborted');
    const deadline = limits ? setTimeout(() => finish('timed-out'), limits.timeoutMs) : undefined;
    req.on('data', onData).on('end', onEnd).on('close', onAborted).on('error', onAborted);
  });
}

function flattenHeaders(headers: IncomingMessage['headers']): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

function parseJson(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function toMessages(body: unknown): JsonRpcMessage[] {
  const items = Array.isArray(body) ? body : body === undefined ? [] : [body];
  return items.filter((item): item is JsonRpcMessage => typeof item === 'object' && item !== null && !Array.isArray(item));
}
