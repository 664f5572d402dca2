// Raw-HTTP self-tests of the 2025-06-18 reference server: exact status, headers and JSON-RPC answers.
import { beforeEach, describe, expect, test } from 'vitest';
import type { ReferenceServer } from '../reference-server.ts';
import { closedAfterEach, EVENT_ID, initializeRequest, type RawClient, toolCall, toolsList, type RequestHeaders } from '../test-support.ts';

const REVISION = '2025-06-18';
const opened = closedAfterEach();
let server: ReferenceServer;
let raw: RawClient;

beforeEach(async () => {
  ({ server, raw } = await opened.serve({ era: REVISION }));
});

const post = (body: unknown, headers?: RequestHeaders, signal?: AbortSignal) => raw.post(server.url, body, headers, signal);
/** A session of this revision, opened by a client that offered 2025-11-25. */
const openSession = () => raw.openSession(server.url, REVISION, { offer: '2025-11-25' });

describe('2025-06-18 Streamable HTTP server', () => {
  test('answers any initialize with exactly its revision and issues a session id', async () => {
    const init = await post(initializeRequest('2025-11-25'));
    expect(init.status).toBe(200);
    expect(init.headers['mcp-session-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(init.messages[0].result.protocolVersion).toBe(REVISION);
    expect(server.issuedSessions()).toEqual([init.headers['mcp-session-id']]);
  });

  test('serves the fixture tools in a session and counts their runs', async () => {
    const { headers } = await openSession();
    const list = await post(toolsList(2), headers);
    // The suite's own fixture tools come first; the standard conformance fixtures follow (servers/fixtures.test.ts).
    const names = list.messages[0].result.tools.map((t: { name: string }) => t.name);
    expect(names.slice(0, 6)).toEqual(['echo', 'slow', 'count', 'idempotent_count', 'progress', 'close_stream']);
    const idempotent = list.messages[0].result.tools.find((t: { name: string }) => t.name === 'idempotent_count');
    expect(idempotent.annotations).toEqual({ idempotentHint: true });
    await post(toolCall(3, 'count'), headers);
    const second = await post(toolCall(4, 'count'), headers);
    expect(second.messages[0].result.content[0].text).toBe('2');
    expect(server.fixtures.runsOf('count')).toBe(2);
  });

  test('a second initialize inside a live session gets 400 -32600', async () => {
    const { headers } = await openSession();
    const again = await post(initializeRequest('2025-06-18', 9), headers);
    expect(again.status).toBe(400);
    expect(again.messages[0].error).toMatchObject({ code: -32600, message: 'Invalid Request: Server already initialized' });
  });

  test('an unknown session id gets 404 -32001 and a missing one 400 -32000', async () => {
    const unknown = await post({ jsonrpc: '2.0', id: 2, method: 'tools/list' }, { 'mcp-session-id': 'nope', 'mcp-protocol-version': REVISION });
    expect(unknown.status).toBe(404);
    expect(unknown.messages[0]).toEqual({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null });
    const missing = await post({ jsonrpc: '2.0', id: 2, method: 'tools/list' }, { 'mcp-protocol-version': REVISION });
    expect(missing.status).toBe(400);
    expect(missing.messages[0].error).toEqual({ code: -32000, message: 'Bad Request: Mcp-Session-Id header is required' });
  });

  test('an unsupported MCP-Protocol-Version gets 400', async () => {
    const { sessionId } = await openSession();
    const wrong = await post({ jsonrpc: '2.0', id: 2, method: 'tools/list' }, { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-03-26' });
    expect(wrong.status).toBe(400);
    expect(wrong.messages[0].error.code).toBe(-32000);
    expect(wrong.messages[0].error.message).toMatch(/^Bad Request: Unsupported protocol version: 2025-03-26/);
  });

  test('DELETE ends the session: 200, then 404 for its id', async () => {
    const { sessionId, headers } = await openSession();
    const deleted = await raw.send('DELETE', server.url, { headers });
    expect(deleted.status).toBe(200);
    expect(server.liveSessions()).not.toContain(sessionId);
    expect((await post({ jsonrpc: '2.0', id: 2, method: 'tools/list' }, headers)).status).toBe(404);
  });

  test('expireSession() makes the id answer 404 -32001', async () => {
    const { sessionId, headers } = await openSession();
    await server.expireSession(sessionId);
    const after = await post({ jsonrpc: '2.0', id: 2, method: 'tools/list' }, headers);
    expect(after.status).toBe(404);
    expect(after.messages[0].error.code).toBe(-32001);
  });

  test('an invalid Origin gets 403 and is still recorded', async () => {
    const rejected = await post(initializeRequest('2025-11-25'), { origin: 'http://evil.example' });
    expect(rejected.status).toBe(403);
    expect(server.record.exchanges.at(-1)).toMatchObject({ status: 403, requestHeaders: { origin: 'http://evil.example' } });
    expect(server.issuedSessions()).toEqual([]);
  });

  test('the wire record holds each exchange: headers, messages in and out, SSE events, who ended it', async () => {
    const { sessionId, headers } = await openSession();
    await post(toolCall(2, 'echo', { text: 'hi' }), headers);
    const [init, initialized, call] = server.record.exchanges;
    expect(init).toMatchObject({ seq: 1, method: 'POST', path: '/mcp', status: 200, sse: true, endedBy: 'server' });
    expect(init!.responseHeaders['mcp-session-id']).toBe(sessionId);
    expect(init!.requestMessages[0]!.method).toBe('initialize');
    expect(initialized).toMatchObject({ seq: 2, status: 202, requestHeaders: { 'mcp-session-id': sessionId, 'mcp-protocol-version': REVISION } });
    expect(call!.responseMessages[0]!.message).toMatchObject({ id: 2, result: { content: [{ type: 'text', text: 'hi' }] } });
    expect(call!.sseEvents[0]!.event).toBe('message');
    expect(call!.startedAt).toBeLessThanOrEqual(call!.responseMessages[0]!.at);
  });

  test('a client that hangs up mid-call is recorded as having ended the exchange', async () => {
    const { headers } = await openSession();
    const controller = new AbortController();
    const pending = post(toolCall(5, 'slow', { ms: 10_000 }), headers, controller.signal);
    await server.fixtures.waitForRun((run) => run.tool === 'slow', 'the slow tool to start');
    expect(server.fixtures.runsOf('slow')).toBe(1);
    controller.abort();
    await expect(pending).rejects.toThrow();
    await server.record.waitFor((r) => r.exchanges.at(-1)!.endedBy !== undefined, 'the exchange to end');
    expect(server.record.exchanges.at(-1)!.endedBy).toBe('client');
  });

  test('events carry resumable ids without the 2025-11-25 priming event; GET with Last-Event-ID replays the rest', async () => {
    const { headers } = await openSession();
    const { events } = await post(toolCall(2, 'progress', { steps: 1 }, { progressToken: 'p' }), headers);
    expect(events).toEqual([
      { event: 'message', id: expect.stringMatching(EVENT_ID), data: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'p', progress: 1, total: 1 } }) },
      { event: 'message', id: expect.stringMatching(EVENT_ID), data: expect.any(String) },
    ]);
    const replay = await raw.get(server.url, { 'last-event-id': events[0]!.id!, ...headers });
    expect(replay.status).toBe(200);
    expect(replay.events).toEqual([events[1]]);
    expect(JSON.parse(events[1]!.data)).toEqual({ jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'completed 1/1' }] } });
  });

  test('waitFor rejects with what it waited for', async () => {
    await expect(server.record.waitFor(() => false, 'a DELETE that never comes', 20)).rejects.toThrow(
      'timed out after 20 ms waiting for a DELETE that never comes',
    );
  });
});
