// Shared by the self-tests of the 2026-07-28, dual and stateless servers: raw HTTP with undici, the
// 2026-07-28 request shape, the official v2 client, and event-driven waits on the fixture state.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Agent, request } from 'undici';
import { createFixtureServer, FixtureState, type ToolRun } from '../fixtures.ts';
import { SseParser } from '../sse.ts';

export const MODERN = '2026-07-28';
export const ACCEPT = 'application/json, text/event-stream';
/** How the reference servers name themselves (servers/fixtures.ts). */
export const SERVER_INFO = { name: 'mcp-client-conformance-reference', version: '0.1.0' };
/** What every 2026-07-28 result carries in `_meta`. */
export const RESULT_META = { 'io.modelcontextprotocol/serverInfo': SERVER_INFO };

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The JSON body, or the data of every SSE event that has data (empty for any other body). */
  messages: any[];
}

export type Send = (method: string, body?: unknown, headers?: Record<string, string>) => Promise<Answer>;

/** Raw HTTP to one URL through a dedicated undici Agent; `close()` it after the test. */
export function rawHttp(url: () => string) {
  const agent = new Agent();
  const send: Send = async (method, body, headers = {}) => {
    const response = await request(url(), {
      method: method as 'POST',
      headers: { 'content-type': 'application/json', accept: ACCEPT, ...headers },
      ...(body !== undefined && { body: typeof body === 'string' ? body : JSON.stringify(body) }),
      dispatcher: agent,
    });
    const text = await response.body.text();
    const type = String(response.headers['content-type'] ?? '');
    const messages = type.includes('text/event-stream')
      ? new SseParser()
          .push(text)
          .filter((event) => event.data !== '')
          .map((event) => JSON.parse(event.data))
      : type.includes('application/json')
        ? [JSON.parse(text)]
        : [];
    return { status: response.statusCode, headers: response.headers, text, messages };
  };
  return {
    agent,
    send,
    post: (body: unknown, headers: Record<string, string> = {}) => send('POST', body, headers),
    close: () => agent.close(),
  };
}

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
    headers: { 'mcp-protocol-version': MODERN, 'mcp-method': method, ...(name !== undefined && { 'mcp-name': name }) } as Record<string, string>,
  };
}

export const legacyInitialize = (protocolVersion = '2025-11-25', id = 1) => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
});

export const cancelled = (requestId: number) => ({
  jsonrpc: '2.0',
  method: 'notifications/cancelled',
  params: { requestId, reason: 'self-test' },
});

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

/**
 * Resolves with the next run of `tool` that starts. FixtureState emits no events, so its `start` is wrapped
 * on this instance until the run comes (or the wait times out).
 */
export function nextRun(fixtures: FixtureState, tool: string, timeoutMs = 5_000): Promise<ToolRun> {
  return new Promise((resolve, reject) => {
    const start = fixtures.start;
    const restore = () => {
      clearTimeout(timer);
      Reflect.deleteProperty(fixtures, 'start');
    };
    const timer = setTimeout(() => {
      restore();
      reject(new Error(`timed out after ${timeoutMs} ms waiting for the ${tool} tool to start`));
    }, timeoutMs);
    fixtures.start = (name, requestId) => {
      const run = start.call(fixtures, name, requestId);
      if (name === tool) {
        restore();
        resolve(run);
      }
      return run;
    };
  });
}

/** Resolves with `run.abortedAt` once the tool sets it (the handler saw its abort signal fire). */
export function whenAborted(run: ToolRun, timeoutMs = 5_000): Promise<number> {
  if (run.abortedAt !== undefined) return Promise.resolve(run.abortedAt);
  return new Promise((resolve, reject) => {
    let value: number | undefined;
    const settle = () => {
      clearTimeout(timer);
      Object.defineProperty(run, 'abortedAt', { value, writable: true, enumerable: true, configurable: true });
    };
    const timer = setTimeout(() => {
      settle();
      reject(new Error(`timed out after ${timeoutMs} ms waiting for the ${run.tool} handler (request ${run.requestId}) to be aborted`));
    }, timeoutMs);
    Object.defineProperty(run, 'abortedAt', {
      enumerable: true,
      configurable: true,
      get: () => value,
      set: (abortedAt: number) => {
        value = abortedAt;
        settle();
        resolve(abortedAt);
      },
    });
  });
}
