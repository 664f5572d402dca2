// What the reference servers' self-tests (servers/**/*.test.ts) share: raw HTTP through undici with the answer
// parsed (JSON or SSE), the JSON-RPC bodies they send, session set-up, bounded event-stream reading, the official
// v2 client, and per-test clean-up. Only tests import this module.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Agent, request, type Dispatcher } from 'undici';
import { afterEach, expect } from 'vitest';
import { basePolicy } from '../config/settings.ts';
import { createFixtureServer, FixtureState, REFERENCE_SERVER_INFO } from './fixtures.ts';
import type { ReferenceServer } from './reference-server.ts';
import { startReferenceServer, type ServerOptions } from './server.ts';
import { SseParser, type SseEvent } from './sse.ts';

export type { SseEvent };
export type RequestHeaders = Record<string, string>;
export type ResponseHeaders = Dispatcher.ResponseData['headers'];

export const MODERN = '2026-07-28';
/** The Accept header of a Streamable HTTP POST. */
export const ACCEPT = 'application/json, text/event-stream';
/** The headers `RawClient.post` sends unless the call overrides them. */
export const JSON_RPC_HEADERS: Readonly<RequestHeaders> = { 'content-type': 'application/json', accept: ACCEPT };
/** How the reference servers name themselves (servers/fixtures.ts). */
export const SERVER_INFO = REFERENCE_SERVER_INFO;
/** What every 2026-07-28 result carries in `_meta`. */
export const RESULT_META = { 'io.modelcontextprotocol/serverInfo': SERVER_INFO };
/** Resumable SSE event ids are `<stream id>:<n>` (servers/event-store.ts). */
export const EVENT_ID = /^[0-9a-f-]{36}:\d+$/;
/** The suite's time policy (config/time.ts): every bound of these tests derives from it. */
export const POLICY = basePolicy();
/** How long any single wait of these helpers may take before it fails naming what it waited for: a safety net, never what a test measures. */
export const WAIT_MS = POLICY.ms.operation;

/** A whole HTTP answer. */
export interface Answer {
  status: number;
  headers: ResponseHeaders;
  text: string;
  /** Every SSE event (empty when the body is not an event stream). */
  events: SseEvent[];
  /** The JSON body, or the JSON of every SSE event that has data (empty for any other body). */
  messages: any[];
}

/** A session opened with initialize + notifications/initialized. */
export interface Session {
  sessionId: string;
  /** The headers every later request of the session carries. */
  headers: RequestHeaders;
  init: Answer;
  initialized: Answer;
}

/** `promise`, or a rejection naming `what` after `timeoutMs`; the timer never outlives the race. */
export function within<T>(promise: Promise<T>, what: string, timeoutMs = WAIT_MS): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)), timeoutMs);
    promise.then(resolve, reject).finally(() => clearTimeout(timer));
  });
}

export interface RawClientOptions {
  /** What `post` sends unless the call overrides it, instead of JSON_RPC_HEADERS (HTTP+SSE POSTs send no Accept). */
  postHeaders?: Readonly<RequestHeaders>;
}

/** Raw HTTP through one dedicated undici Agent; `close()` hangs up every stream it opened, then closes the agent. */
export class RawClient {
  readonly agent = new Agent();
  private readonly postHeaders: Readonly<RequestHeaders>;
  private readonly streams = new Set<SseStream>();

  constructor(options: RawClientOptions = {}) {
    this.postHeaders = options.postHeaders ?? JSON_RPC_HEADERS;
  }

  /** Any request with exactly these headers; a string body is sent as is, anything else as JSON. The whole answer. */
  async send(method: string, url: string | URL, init: { body?: unknown; headers?: RequestHeaders; signal?: AbortSignal } = {}): Promise<Answer> {
    return readAnswer(await this.request(method, url, init));
  }

  /** A JSON-RPC POST (the default headers, overridden by `headers`). */
  post(url: string | URL, body: unknown, headers: RequestHeaders = {}, signal?: AbortSignal): Promise<Answer> {
    return this.send('POST', url, { body, headers: { ...this.postHeaders, ...headers }, signal });
  }

  /** A GET for an event stream, read to its end (the server must end it: a resumption, or an error). */
  get(url: string | URL, headers: RequestHeaders = {}): Promise<Answer> {
    return this.send('GET', url, { headers: { accept: 'text/event-stream', ...headers } });
  }

  /** A GET for an event stream, kept open and read event by event. */
  async openStream(url: string | URL, headers: RequestHeaders = {}): Promise<SseStream> {
    return this.track(await this.request('GET', url, { headers: { accept: 'text/event-stream', ...headers } }));
  }

  /** A JSON-RPC POST whose answer is read event by event (its head is there as soon as the server sends it). */
  async postStream(url: string | URL, body: unknown, headers: RequestHeaders = {}): Promise<SseStream> {
    return this.track(await this.request('POST', url, { body, headers: { ...this.postHeaders, ...headers } }));
  }

  /**
   * initialize (offering `offer`, by default `revision`) answered 200, then notifications/initialized answered 202.
   * Later requests carry the session id and, unless `versionHeader` is false, MCP-Protocol-Version: `revision`.
   */
  async openSession(url: string, revision: string, options: { offer?: string; versionHeader?: boolean } = {}): Promise<Session> {
    const init = await this.post(url, initializeRequest(options.offer ?? revision));
    expect(init.status, 'the initialize answer').toBe(200);
    const sessionId = String(init.headers['mcp-session-id']);
    const headers: RequestHeaders = { 'mcp-session-id': sessionId, ...(options.versionHeader !== false && { 'mcp-protocol-version': revision }) };
    const initialized = await this.post(url, INITIALIZED, headers);
    expect(initialized.status, 'the notifications/initialized answer').toBe(202);
    return { sessionId, headers, init, initialized };
  }

  async close(): Promise<void> {
    for (const stream of this.streams) stream.close();
    await this.agent.close();
  }

  private request(method: string, url: string | URL, { body, headers = {}, signal }: { body?: unknown; headers?: RequestHeaders; signal?: AbortSignal }) {
    return request(url, {
      method: method as Dispatcher.HttpMethod,
      headers,
      ...(body !== undefined && { body: typeof body === 'string' ? body : JSON.stringify(body) }),
      ...(signal && { signal }),
      dispatcher: this.agent,
    });
  }

  private track(response: Dispatcher.ResponseData): SseStream {
    const stream = new SseStream(response);
    this.streams.add(stream);
    return stream;
  }
}

async function readAnswer(response: Dispatcher.ResponseData): Promise<Answer> {
  const text = await response.body.text();
  const type = String(response.headers['content-type'] ?? '');
  const sse = type.includes('text/event-stream');
  const events = sse ? new SseParser().push(text) : [];
  const messages = sse
    ? events.filter((event) => event.data !== '').map((event) => JSON.parse(event.data))
    : type.includes('application/json') && text !== ''
      ? [JSON.parse(text)]
      : [];
  return { status: response.statusCode, headers: response.headers, text, events, messages };
}

/** An open event stream, read one event at a time; every wait is bounded and names what it waited for. */
export class SseStream {
  readonly status: number;
  readonly headers: ResponseHeaders;
  private readonly body: Dispatcher.ResponseData['body'];
  private readonly chunks: AsyncIterator<unknown>;
  private readonly parser = new SseParser();
  private readonly decoder = new TextDecoder();
  private readonly ready: SseEvent[] = [];

  constructor(response: Dispatcher.ResponseData) {
    this.status = response.statusCode;
    this.headers = response.headers;
    this.body = response.body;
    this.chunks = response.body[Symbol.asyncIterator]();
  }

  /** The next event; rejects if the stream ends first. */
  async next(what: string, timeoutMs = WAIT_MS): Promise<SseEvent> {
    while (this.ready.length === 0) {
      if (!(await this.read(what, timeoutMs))) throw new Error(`the stream ended before ${what}`);
    }
    return this.ready.shift()!;
  }

  /** The next event, which must be a `message` event: its JSON-RPC message. */
  async nextMessage(what: string, timeoutMs = WAIT_MS): Promise<any> {
    const event = await this.next(what, timeoutMs);
    expect(event.event, what).toBe('message');
    return JSON.parse(event.data);
  }

  /** The events left once the server ends the stream; rejects if the connection fails instead. */
  async rest(what = 'the server to end the stream', timeoutMs = WAIT_MS): Promise<SseEvent[]> {
    while (await this.read(what, timeoutMs));
    return this.ready.splice(0);
  }

  /** The client hangs up. */
  close(): void {
    this.body.destroy();
  }

  private async read(what: string, timeoutMs: number): Promise<boolean> {
    const chunk = await within(this.chunks.next(), what, timeoutMs);
    if (chunk.done) return false;
    this.ready.push(...this.parser.push(this.decoder.decode(chunk.value as Uint8Array, { stream: true })));
    return true;
  }
}

/** A 2025-era (or 2024-11-05) initialize request. */
export const initializeRequest = (protocolVersion: string, id: number | string = 1) => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
});

export const INITIALIZED = { jsonrpc: '2.0', method: 'notifications/initialized' };

export const toolsList = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/list', params: {} });

/** A tools/call request; `meta` becomes `params._meta`. */
export const toolCall = (id: number, name: string, args: Record<string, unknown> = {}, meta?: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args, ...(meta && { _meta: meta }) },
});

export const cancelled = (requestId: number, reason = 'self-test') => ({
  jsonrpc: '2.0',
  method: 'notifications/cancelled',
  params: { requestId, reason },
});

/** The per-request `_meta` envelope of 2026-07-28. */
export function envelope(clientCapabilities: Record<string, unknown> = {}, protocolVersion = MODERN) {
  return {
    'io.modelcontextprotocol/protocolVersion': protocolVersion,
    'io.modelcontextprotocol/clientCapabilities': clientCapabilities,
    'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '0' },
  };
}

/** A 2026-07-28 request as a conforming client sends it: the envelope in `params._meta`, and the standard headers. */
export function modernRequest(id: number, method: string, params: Record<string, unknown> = {}, clientCapabilities: Record<string, unknown> = {}) {
  const name = typeof params['name'] === 'string' ? params['name'] : typeof params['uri'] === 'string' ? params['uri'] : undefined;
  return {
    body: { jsonrpc: '2.0', id, method, params: { ...params, _meta: envelope(clientCapabilities) } },
    headers: { 'mcp-protocol-version': MODERN, 'mcp-method': method, ...(name !== undefined && { 'mcp-name': name }) } as RequestHeaders,
  };
}

/** The capabilities a fresh fixture server has (what `server/discover` must advertise). */
export function fixtureCapabilities(revision = MODERN) {
  return createFixtureServer(new FixtureState(), [revision]).server.getCapabilities();
}

/** The official v2 client in one negotiation mode, with its transport. */
export function v2Client(url: string, mode: 'legacy' | 'auto' | { pin: string }) {
  const client = new Client({ name: 'self-test', version: '0' }, { versionNegotiation: { mode } });
  const transport = new StreamableHTTPClientTransport(new URL(url));
  return { client, transport };
}

/** What a test opened, closed after it, last opened first; every closer runs (each bounded) even when one fails. */
export class Opened {
  private readonly closers: (() => unknown)[] = [];

  /** Closes `resource` after the test; returns it. */
  keep<T extends { close(): unknown }>(resource: T): T {
    this.closers.push(() => resource.close());
    return resource;
  }

  /** Runs `closer` after the test. */
  defer(closer: () => unknown): void {
    this.closers.push(closer);
  }

  /** A reference server started with `options` and a RawClient, both closed after the test (the client first). */
  async serve(options: ServerOptions, client: RawClientOptions = {}): Promise<{ server: ReferenceServer; raw: RawClient }> {
    const server = this.keep(await startReferenceServer(options));
    return { server, raw: this.keep(new RawClient(client)) };
  }

  /** Closes everything kept so far; rethrows the first failure once all have run. */
  async closeAll(): Promise<void> {
    const failures: unknown[] = [];
    for (const closer of this.closers.splice(0).reverse()) {
      try {
        await within(Promise.resolve(closer()), 'something the test opened to close');
      } catch (error) {
        failures.push(error);
      }
    }
    if (failures.length > 0) throw failures[0];
  }
}

/** An `Opened` that this test file empties after each test (registers the afterEach). */
export function closedAfterEach(): Opened {
  const opened = new Opened();
  afterEach(() => opened.closeAll());
  return opened;
}

/**
 * For eras without sessions: after each test, closes what `opened` holds, then checks that no response of the
 * server carried an Mcp-Session-Id and that it issued no session.
 */
export function noSessionsAfterEach(opened: Opened, server: () => ReferenceServer): void {
  afterEach(async () => {
    const withSession = server().record.exchanges.filter((exchange) => 'mcp-session-id' in exchange.responseHeaders);
    await opened.closeAll();
    expect(withSession.map((exchange) => exchange.seq), 'exchanges whose response carried an Mcp-Session-Id').toEqual([]);
    expect(server().issuedSessions()).toEqual([]);
  });
}
