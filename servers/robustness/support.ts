// What the robustness tests (bad input, load) share: the endpoints of every era they aim at, a lean raw client
// that opens a normal session on one and calls `echo` through it, raw-socket HTTP for bodies that are cut off or
// dribbled, heap measurement; and over stdio, every era's way in and its echo call. Only tests import this module.
import { connect, type Socket } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Agent } from 'undici';
import { expect } from 'vitest';
import type { Era } from '../era.ts';
import type { ReferenceServer } from '../reference-server.ts';
import type { StdioEra } from '../stdio/protocol.ts';
import type { RawStdioClient } from '../stdio/test-client.ts';
import {
  envelope,
  INITIALIZED,
  initializeRequest,
  MODERN,
  modernRequest,
  RawClient,
  toolCall,
  type RawClientOptions,
  within,
  POLICY,
  WAIT_MS,
  type RequestHeaders,
} from '../test-support.ts';

/**
 * How an endpoint is reached: `http-sse` the messages URL of a 2024-11-05 stream; `sessionful` a 2025 Streamable
 * HTTP session (initialize, then its id on every request); `stateless` 2025-11-25 POSTs without a session;
 * `modern` 2026-07-28 requests carrying the `_meta` envelope and the standard headers.
 */
export type EndpointKind = 'http-sse' | 'sessionful' | 'stateless' | 'modern';

export interface Endpoint {
  era: Era;
  kind: EndpointKind;
  /** The revision its sessions speak. */
  revision: string;
}

/** Every endpoint of every era: one each, and both of `dual` (its modern leg and its sessionful 2025-11-25 leg). */
export const ENDPOINTS: readonly Endpoint[] = [
  { era: '2024-11-05', kind: 'http-sse', revision: '2024-11-05' },
  { era: '2025-03-26', kind: 'sessionful', revision: '2025-03-26' },
  { era: '2025-06-18', kind: 'sessionful', revision: '2025-06-18' },
  { era: '2025-11-25', kind: 'sessionful', revision: '2025-11-25' },
  { era: '2026-07-28', kind: 'modern', revision: MODERN },
  { era: 'dual', kind: 'modern', revision: MODERN },
  { era: 'dual', kind: 'sessionful', revision: '2025-11-25' },
  { era: 'stateless', kind: 'stateless', revision: '2025-11-25' },
];

export const endpointName = ({ era, kind }: Endpoint) => `${era} (${kind})`;

/** The bound of any one answer here (a safety net): seconds are seen under load on a starved machine, never this many. */
export const ANSWER_WAIT_MS = 30_000 * POLICY.scale;

/** What an HTTP+SSE client POSTs with: JSON, and no Streamable HTTP Accept header. */
const HTTP_SSE_POST_HEADERS = { 'content-type': 'application/json' };

/**
 * How long the raw clients here keep an idle connection. The reference servers close one after 2 s idle (listen.ts
 * `keepAliveTimeout` 1 s, plus Node's 1 s buffer) and say `Keep-Alive: timeout=1` only on responses without their own
 * `Connection` header. undici's defaults fit neither: it drops a connection at once after a `timeout=1` answer (its
 * 2 s threshold leaves nothing), so every 202, DELETE and 2026-07-28 answer costs a new connection; and after an SSE
 * answer (no hint) it keeps one 4 s, so a request sent on it just as the server closes it fails with ECONNRESET (seen
 * under load). Keeping connections 500 ms whatever the hint, on a precise timer (undici uses native timers up to 1 s),
 * keeps both out of what these tests measure: the server.
 */
const CLIENT_KEEP_ALIVE_MS = 500;

/** RawClient whose agent keeps idle connections CLIENT_KEEP_ALIVE_MS whatever the server says, and counts those it opens. */
export class ShortIdleRawClient extends RawClient {
  override readonly agent = new Agent({
    keepAliveTimeout: CLIENT_KEEP_ALIVE_MS,
    keepAliveMaxTimeout: CLIENT_KEEP_ALIVE_MS,
    // A server hint of 1 s minus this threshold is CLIENT_KEEP_ALIVE_MS: kept, not dropped.
    keepAliveTimeoutThreshold: 1_000 - CLIENT_KEEP_ALIVE_MS,
  });
  /** TCP connections opened so far. */
  connections = 0;

  constructor(options: RawClientOptions = {}) {
    super(options);
    this.agent.on('connect', () => this.connections++);
  }
}

/** A raw client for one endpoint kind (HTTP+SSE POSTs carry no Streamable HTTP Accept header). */
export function rawClientFor(kind: EndpointKind): ShortIdleRawClient {
  return new ShortIdleRawClient(kind === 'http-sse' ? { postHeaders: HTTP_SSE_POST_HEADERS } : {});
}

/** One client's way into a server: a live session where the era has them. */
export interface Channel {
  /** Where its POSTs go. */
  readonly url: string;
  /** The session id it was issued (undefined where the era has none). */
  readonly sessionId: string | undefined;
  /** The POST a tools/call of `echo` is, as a conforming client sends it: the body and the headers besides Content-Type and Accept. */
  echoRequest(id: number, text: string): { body: unknown; headers: RequestHeaders };
  /** Sends `echoRequest`; resolves with the JSON-RPC answer to it, from wherever it comes. */
  echo(id: number, text: string): Promise<any>;
  /** Ends the session: DELETE (sessionful), hanging up the stream (HTTP+SSE), nothing where there is none. */
  close(): Promise<void>;
}

/** Opens a channel the way a conforming client does (handshake or discovery), checking each answer. */
export async function openChannel(server: ReferenceServer, endpoint: Endpoint, raw: RawClient): Promise<Channel> {
  switch (endpoint.kind) {
    case 'http-sse':
      return openHttpSseChannel(server, raw);
    case 'sessionful': {
      const session = await raw.openSession(server.url, endpoint.revision);
      return postingChannel(raw, server.url, session.sessionId, (id, text) => ({ body: toolCall(id, 'echo', { text }), headers: session.headers }), {
        async close() {
          expect((await raw.send('DELETE', server.url, { headers: session.headers })).status, 'the DELETE of the session').toBe(200);
        },
      });
    }
    case 'stateless': {
      const headers = { 'mcp-protocol-version': endpoint.revision };
      const init = await raw.post(server.url, initializeRequest(endpoint.revision, 0));
      expect(init.status, 'the initialize answer').toBe(200);
      return postingChannel(raw, server.url, undefined, (id, text) => ({ body: toolCall(id, 'echo', { text }), headers }));
    }
    case 'modern': {
      const discover = modernRequest(0, 'server/discover');
      const discovered = await raw.post(server.url, discover.body, discover.headers);
      expect(discovered.status, 'the server/discover answer').toBe(200);
      expect(discovered.messages[0]?.result?.supportedVersions, 'the versions server/discover names').toContain(MODERN);
      return postingChannel(raw, server.url, undefined, (id, text) => modernRequest(id, 'tools/call', { name: 'echo', arguments: { text } }));
    }
  }
}

/** A channel whose answers come back on the POST itself (Streamable HTTP: JSON or an SSE stream). */
function postingChannel(
  raw: RawClient,
  url: string,
  sessionId: string | undefined,
  echoRequest: Channel['echoRequest'],
  { close = async () => {} }: { close?: () => Promise<void> } = {},
): Channel {
  return {
    url,
    sessionId,
    echoRequest,
    async echo(id, text) {
      const { body, headers } = echoRequest(id, text);
      return answerTo(id, await raw.post(url, body, headers));
    },
    close,
  };
}

/** The message of an answer that is the response to `id` (undefined when there is none). */
function answerTo(id: number, answer: { status: number; messages: any[] }): any {
  expect(answer.status, `the HTTP status of the answer to request ${id}`).toBe(200);
  return answer.messages.find((message) => message.id === id && message.method === undefined);
}

/**
 * 2024-11-05: GET the stream, POST the handshake to the URL its `endpoint` event names; every answer comes back on
 * the stream, in order, since a channel's calls are sequential (the caller checks the id).
 */
async function openHttpSseChannel(server: ReferenceServer, raw: RawClient): Promise<Channel> {
  const stream = await raw.openStream(server.url);
  const endpoint = await stream.next('the endpoint event', ANSWER_WAIT_MS);
  expect(endpoint.event, 'the first event of the stream').toBe('endpoint');
  const url = new URL(endpoint.data, server.url).href;
  const post = async (body: unknown) => expect((await raw.post(url, body)).status, 'the status of a POST to the endpoint').toBe(202);
  await post(initializeRequest('2024-11-05', 0));
  expect((await stream.nextMessage('the initialize result', ANSWER_WAIT_MS)).id, 'the id of the initialize result').toBe(0);
  await post(INITIALIZED);
  return {
    url,
    sessionId: new URL(url).searchParams.get('sessionId') ?? undefined,
    echoRequest: (id, text) => ({ body: toolCall(id, 'echo', { text }), headers: {} }),
    async echo(id, text) {
      await post(toolCall(id, 'echo', { text }));
      return stream.nextMessage(`the answer to request ${id} on the stream`, ANSWER_WAIT_MS);
    },
    async close() {
      stream.close();
    },
  };
}

/**
 * How a stdio client opens a process of an era: `legacy` the initialize handshake at `revision`, `modern` 2026-07-28's
 * server/discover, then the envelope on every request. `dual` both ways: its opening message decides, for the process's life.
 */
export interface StdioEndpoint {
  era: StdioEra;
  leg: 'legacy' | 'modern';
  revision: string;
}

/** Every stdio era the server program speaks (servers/stdio/protocol.ts STDIO_ERAS), `dual` on each leg. */
export const STDIO_ENDPOINTS: readonly StdioEndpoint[] = [
  { era: '2024-11-05', leg: 'legacy', revision: '2024-11-05' },
  { era: '2025-03-26', leg: 'legacy', revision: '2025-03-26' },
  { era: '2025-06-18', leg: 'legacy', revision: '2025-06-18' },
  { era: '2025-11-25', leg: 'legacy', revision: '2025-11-25' },
  { era: '2026-07-28', leg: 'modern', revision: MODERN },
  { era: 'dual', leg: 'modern', revision: MODERN },
  { era: 'dual', leg: 'legacy', revision: '2025-11-25' },
];

export const stdioEndpointName = ({ era, leg }: StdioEndpoint) => (era === 'dual' ? `dual (${leg})` : era);

/** A request as a conforming client of the endpoint writes it (at 2026-07-28 with the envelope in `_meta`). */
export const stdioRequest = (endpoint: StdioEndpoint, id: number, method: string, params: Record<string, unknown> = {}) =>
  endpoint.leg === 'modern' ? modernRequest(id, method, params).body : { jsonrpc: '2.0', id, method, params };

/** The tools/call of `echo` a conforming client of the endpoint writes. */
export const stdioEcho = (endpoint: StdioEndpoint, id: number, text: string) => stdioRequest(endpoint, id, 'tools/call', { name: 'echo', arguments: { text } });

/** What `echo` answers `text` with, as a matcher. */
export const echoAnswer = (id: number, text: string) => expect.objectContaining({ jsonrpc: '2.0', id, result: expect.objectContaining({ content: [{ type: 'text', text }] }) });

/** Opens a process as a conforming client does (the handshake, or server/discover), checking the answer. */
export async function openStdio(client: RawStdioClient, endpoint: StdioEndpoint, timeoutMs?: number): Promise<void> {
  if (endpoint.leg === 'modern') {
    const discover = await client.request('server/discover', { _meta: envelope() }, timeoutMs);
    expect(discover.result?.['supportedVersions'], 'the versions server/discover names').toContain(MODERN);
    return;
  }
  const init = await client.request('initialize', initializeRequest(endpoint.revision).params, timeoutMs);
  expect(init.result?.['protocolVersion'], 'the revision initialize answered').toBe(endpoint.revision);
  client.send(INITIALIZED);
}

/** What a raw-socket request got back. */
export interface RawAnswer {
  status: number;
  /** Names lower-cased. */
  headers: Record<string, string>;
  body: string;
}

/**
 * One HTTP/1.1 connection written byte by byte: for requests no HTTP client sends (a body shorter than its
 * Content-Length, a body dribbled in). Every write after the server hung up is dropped, never thrown.
 */
export class RawConnection {
  private readonly socket: Socket;
  private readonly received: Buffer[] = [];
  private readonly ended: Promise<void>;
  private dribbling: NodeJS.Timeout | undefined;

  private constructor(socket: Socket) {
    this.socket = socket;
    this.ended = new Promise((resolve) => socket.once('close', () => resolve()));
    socket.on('data', (chunk) => this.received.push(chunk));
    // ECONNRESET or EPIPE once the server has closed: the answer, if any, is already in `received`.
    socket.on('error', () => {});
    socket.once('close', () => this.stopDribble());
  }

  static async open(url: string): Promise<RawConnection> {
    const { hostname, port } = new URL(url);
    const socket = connect({ host: hostname, port: Number(port) });
    await within(
      new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject)),
      `a TCP connection to ${url}`,
    );
    return new RawConnection(socket);
  }

  /** Writes the request line and headers (Host added), nothing of the body. */
  writeHead(method: string, url: string, headers: RequestHeaders): Promise<void> {
    const { host, pathname, search } = new URL(url);
    const lines = [`${method} ${pathname}${search} HTTP/1.1`, `host: ${host}`, ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`)];
    return this.write(`${lines.join('\r\n')}\r\n\r\n`);
  }

  /** Resolves once the bytes are with the kernel: a close after that still delivers them, before the FIN. */
  write(text: string): Promise<void> {
    return new Promise((resolve) => (this.socket.destroyed ? resolve() : this.socket.write(text, () => resolve())));
  }

  /** Writes `text` one byte every `everyMs` until it is all sent or the connection closes; returns how many bytes went. */
  dribble(text: string, everyMs: number): { sent(): number } {
    let sent = 0;
    this.dribbling = setInterval(() => {
      if (sent >= text.length) return this.stopDribble();
      void this.write(text[sent++]!);
    }, everyMs);
    return { sent: () => sent };
  }

  /** The whole answer, once the server has closed the connection (its 408 and 413 say `Connection: close`). */
  async answer(what: string, timeoutMs = WAIT_MS): Promise<RawAnswer> {
    await within(this.ended, what, timeoutMs);
    const text = Buffer.concat(this.received).toString('utf8');
    const headEnd = text.indexOf('\r\n\r\n');
    expect(headEnd, `an HTTP answer to ${what}, got ${JSON.stringify(text.slice(0, 200))}`).toBeGreaterThan(0);
    const [statusLine = '', ...headerLines] = text.slice(0, headEnd).split('\r\n');
    const headers = Object.fromEntries(
      headerLines.map((line) => [line.slice(0, line.indexOf(':')).trim().toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
    );
    const body = text.slice(headEnd + 4);
    return { status: Number(statusLine.split(' ')[1]), headers, body: headers['transfer-encoding'] === 'chunked' ? dechunk(body) : body };
  }

  /** The client hangs up. */
  close(): void {
    this.stopDribble();
    this.socket.destroy();
  }

  private stopDribble(): void {
    clearInterval(this.dribbling);
    this.dribbling = undefined;
  }
}

/** The payload of a chunked body (RFC 9112 §7.1): each chunk is its size in hex, CRLF, the data, CRLF; size 0 ends it. */
function dechunk(body: string): string {
  let payload = '';
  for (let at = 0; ; ) {
    const lineEnd = body.indexOf('\r\n', at);
    const size = parseInt(body.slice(at, lineEnd), 16);
    if (!(size > 0)) return payload;
    payload += body.slice(lineEnd + 2, lineEnd + 2 + size);
    at = lineEnd + 2 + size + 2;
  }
}

// A full collection before each reading, so a reading is what is still reachable, not what garbage is pending.
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

export interface Memory {
  heapUsed: number;
  rss: number;
}

/** The process's heap in use and resident set, after a full garbage collection. */
export function memoryNow(): Memory {
  collectGarbage();
  const { heapUsed, rss } = process.memoryUsage();
  return { heapUsed, rss };
}

export const MiB = 1024 * 1024;
export const mib = (bytes: number) => `${(bytes / MiB).toFixed(1)} MiB`;
