// Raw-HTTP self-tests of the 2025-03-26 Streamable HTTP server: pinned to 2025-03-26, which defines no
// MCP-Protocol-Version header (so the server never reads it), accepts JSON-RPC batches, and sends resumable
// event ids without the 2025-11-25 priming event.
import { beforeEach, describe, expect, test } from 'vitest';
import type { ReferenceServer } from '../reference-server.ts';
import { closedAfterEach, EVENT_ID, initializeRequest, type RawClient, toolCall, type RequestHeaders } from '../test-support.ts';

const REVISION = '2025-03-26';

const opened = closedAfterEach();
let server: ReferenceServer;
let raw: RawClient;

beforeEach(async () => {
  ({ server, raw } = await opened.serve({ era: REVISION }));
});

const post = (body: unknown, headers?: RequestHeaders) => raw.post(server.url, body, headers);
/** A session opened the 2025-03-26 way (by a client that offered 2025-11-25): no MCP-Protocol-Version header anywhere. */
const openSession = () => raw.openSession(server.url, REVISION, { offer: '2025-11-25', versionHeader: false });

const echo = (id: number, text: string) => toolCall(id, 'echo', { text });
const echoed = (id: number, text: string) => ({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text }] } });

describe('2025-03-26 Streamable HTTP server', () => {
  test('answers any initialize with exactly 2025-03-26; its events carry ids but no stream is primed', async () => {
    const init = await post(initializeRequest('2025-11-25'));
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
    const progress = await post(toolCall(2, 'progress', { steps: 2 }, { progressToken: 7 }), headers);
    expect(progress.events).toHaveLength(3);
    expect(progress.events.every((event) => EVENT_ID.test(event.id ?? ''))).toBe(true);
    const replay = await raw.get(server.url, { 'last-event-id': progress.events[0]!.id!, ...headers });
    expect(replay.status).toBe(200);
    expect(replay.events).toEqual(progress.events.slice(1));
    expect(replay.messages).toEqual([
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 7, progress: 2, total: 2 } },
      { jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'completed 2/2' }] } },
    ]);
  });

  test('close_stream cannot close a 2025-03-26 stream: it answers isError on the open stream', async () => {
    const { headers } = await openSession();
    const answer = await post(toolCall(2, 'close_stream'), headers);
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
