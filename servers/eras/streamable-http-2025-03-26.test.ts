// Raw-HTTP self-tests of the 2025-03-26 Streamable HTTP server: pinned to 2025-03-26, which defines no
// MCP-Protocol-Version header (so the server never reads it), accepts JSON-RPC batches, and sends resumable
// event ids without the 2025-11-25 priming event.
import { Agent, request } from 'undici';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { ReferenceServer } from '../reference-server.ts';
import { startReferenceServer } from '../server.ts';
import { SseParser, type SseEvent } from '../sse.ts';

const REVISION = '2025-03-26';
const ACCEPT = 'application/json, text/event-stream';
const EVENT_ID = /^[0-9a-f-]{36}:\d+$/;

let server: ReferenceServer;
let agent: Agent;

beforeEach(async () => {
  server = await startReferenceServer({ era: REVISION });
  agent = new Agent();
});
afterEach(async () => {
  await agent.close();
  await server.close();
});

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  events: SseEvent[];
  messages: any[];
}

async function read(response: Awaited<ReturnType<typeof request>>): Promise<Answer> {
  const text = await response.body.text();
  const sse = String(response.headers['content-type'] ?? '').includes('text/event-stream');
  const events = sse ? new SseParser().push(text) : [];
  const messages = sse ? events.filter((e) => e.data !== '').map((e) => JSON.parse(e.data)) : text ? [JSON.parse(text)] : [];
  return { status: response.statusCode, headers: response.headers, events, messages };
}

/** A raw POST; `body` is sent as is when it is a string. */
async function post(body: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const response = await request(server.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: ACCEPT, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    dispatcher: agent,
  });
  return read(response);
}

const initialize = (protocolVersion: string) => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
});

/** A session opened the 2025-03-26 way: no MCP-Protocol-Version header anywhere. */
async function openSession() {
  const init = await post(initialize('2025-11-25'));
  const sessionId = String(init.headers['mcp-session-id']);
  expect((await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, { 'mcp-session-id': sessionId })).status).toBe(202);
  return { sessionId, headers: { 'mcp-session-id': sessionId } };
}

const echo = (id: number, text: string) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: { text } } });
const echoed = (id: number, text: string) => ({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text }] } });

describe('2025-03-26 Streamable HTTP server', () => {
  test('answers any initialize with exactly 2025-03-26; its events carry ids but no stream is primed', async () => {
    const init = await post(initialize('2025-11-25'));
    expect(init.status).toBe(200);
    expect(init.headers['mcp-session-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(init.messages[0]).toMatchObject({ jsonrpc: '2.0', id: 1, result: { protocolVersion: REVISION } });
    expect(init.events).toEqual([{ event: 'message', id: expect.stringMatching(EVENT_ID), data: expect.any(String) }]);
    expect(server.issuedSessions()).toEqual([init.headers['mcp-session-id']]);
  });

  test('MCP-Protocol-Version is not read: any value, or none, is served, and the wire record keeps what was sent', async () => {
    const { headers } = await openSession();
    const sent = ['2025-06-18', '2025-11-25', 'not-a-version', undefined];
    for (const [index, version] of sent.entries()) {
      const answer = await post(echo(10 + index, `header ${version}`), { ...headers, ...(version && { 'mcp-protocol-version': version }) });
      expect(answer.status).toBe(200);
      expect(answer.messages).toEqual([echoed(10 + index, `header ${version}`)]);
    }
    const calls = server.record.requests('tools/call').map(({ exchange }) => exchange.requestHeaders['mcp-protocol-version']);
    expect(calls).toEqual(sent);
  });

  test('what it does check: the session id (400 missing, 404 unknown), Accept (406), Content-Type (415), Origin (403)', async () => {
    const { headers } = await openSession();
    const cases: { headers: Record<string, string>; status: number; error: object }[] = [
      { headers: {}, status: 400, error: { code: -32000, message: 'Bad Request: Mcp-Session-Id header is required' } },
      { headers: { 'mcp-session-id': 'unknown' }, status: 404, error: { code: -32001, message: 'Session not found' } },
      {
        headers: { ...headers, accept: 'application/json' },
        status: 406,
        error: { code: -32000, message: 'Not Acceptable: Client must accept both application/json and text/event-stream' },
      },
      {
        headers: { ...headers, 'content-type': 'text/plain' },
        status: 415,
        error: { code: -32000, message: 'Unsupported Media Type: Content-Type must be application/json' },
      },
      { headers: { ...headers, origin: 'http://evil.example' }, status: 403, error: { code: -32000, message: 'Invalid Origin: evil.example' } },
    ];
    for (const [index, { headers: sent, status, error }] of cases.entries()) {
      const answer = await post(echo(20 + index, 'x'), sent);
      expect([answer.status, answer.messages]).toEqual([status, [{ jsonrpc: '2.0', error, id: null }]]);
    }
    expect(server.fixtures.runsOf('echo')).toBe(0);
  });

  test('a JSON-RPC batch is accepted (2025-03-26 MUST): two calls in one POST, both answers on its stream', async () => {
    const { headers } = await openSession();
    const batch = await post([echo(2, 'first'), echo(3, 'second')], headers);
    expect(batch.status).toBe(200);
    expect(batch.messages).toEqual([echoed(2, 'first'), echoed(3, 'second')]);
    const notifications = await post([{ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 99 } }], headers);
    expect([notifications.status, notifications.messages]).toEqual([202, []]);
  });

  test('streams are resumable: GET with Last-Event-ID replays the events after it', async () => {
    const { headers } = await openSession();
    const progress = await post({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'progress', arguments: { steps: 2 }, _meta: { progressToken: 7 } } }, headers);
    expect(progress.events).toHaveLength(3);
    expect(progress.events.every((event) => EVENT_ID.test(event.id ?? ''))).toBe(true);
    const response = await request(server.url, {
      method: 'GET',
      headers: { accept: 'text/event-stream', 'last-event-id': progress.events[0]!.id!, ...headers },
      dispatcher: agent,
    });
    const replay = await read(response);
    expect(replay.status).toBe(200);
    expect(replay.events).toEqual(progress.events.slice(1));
    expect(replay.messages).toEqual([
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 7, progress: 2, total: 2 } },
      { jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'completed 2/2' }] } },
    ]);
  });

  test('close_stream cannot close a 2025-03-26 stream: it answers isError on the open stream', async () => {
    const { headers } = await openSession();
    const answer = await post({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'close_stream', arguments: {} } }, headers);
    expect(answer.messages).toEqual([
      {
        jsonrpc: '2.0',
        id: 2,
        result: { isError: true, content: [{ type: 'text', text: 'this transport cannot close the stream (needs 2025-11-25 Streamable HTTP with an event store)' }] },
      },
    ]);
    expect(server.fixtures.runsOf('close_stream')).toBe(1);
  });
});
