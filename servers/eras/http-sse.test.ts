// Raw-HTTP self-tests of the 2024-11-05 HTTP+SSE reference server: exact status, headers, events and JSON-RPC answers.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { beforeEach, describe, expect, test } from 'vitest';
import type { ReferenceServer } from '../reference-server.ts';
import { cancelled, closedAfterEach, INITIALIZED, initializeRequest, type RawClient, SERVER_INFO, toolCall, type RequestHeaders } from '../test-support.ts';

const REVISION = '2024-11-05';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const opened = closedAfterEach();
let server: ReferenceServer;
/** Its close() hangs up every stream a test opened. */
let raw: RawClient;

beforeEach(async () => {
  // An HTTP+SSE client POSTs JSON without the Streamable HTTP Accept header.
  ({ server, raw } = await opened.serve({ era: REVISION }, { postHeaders: { 'content-type': 'application/json' } }));
});

/** GETs a URL and reads it as an event stream, one event at a time. */
const openStream = (url = server.url, headers: RequestHeaders = {}) => raw.openStream(url, headers);
/** A POST to a path (or URL) of the server. */
const post = (path: string, body: unknown, headers: RequestHeaders = {}) => raw.post(new URL(path, server.url), body, headers);

/** Opens a stream and returns it with the POST URL its `endpoint` event names. */
async function connect() {
  const stream = await openStream();
  const endpoint = await stream.next('the endpoint event');
  expect(endpoint.event).toBe('endpoint');
  return { stream, endpoint: endpoint.data, sessionId: new URL(endpoint.data, server.url).searchParams.get('sessionId')! };
}

/** Opens a stream and completes the handshake on it. */
async function openSession() {
  const session = await connect();
  expect(await post(session.endpoint, initializeRequest(REVISION))).toMatchObject({ status: 202 });
  await session.stream.nextMessage('the initialize result');
  expect(await post(session.endpoint, INITIALIZED)).toMatchObject({ status: 202 });
  return session;
}

/** The lifecycle fixture tools every era serves (the conformance fixtures follow them in the list). */
const LIFECYCLE_TOOLS = ['echo', 'slow', 'count', 'idempotent_count'];

/** The initialize answer: exactly 2024-11-05, our server info, and the tools capability the fixtures need. */
const initializeResult = (id: number) => ({
  jsonrpc: '2.0',
  id,
  result: { protocolVersion: REVISION, capabilities: expect.objectContaining({ tools: { listChanged: true } }), serverInfo: SERVER_INFO },
});

describe('2024-11-05 HTTP+SSE server', () => {
  test('GET /sse opens an event stream whose first event is the endpoint, and issues its session', async () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/sse$/);
    const stream = await openStream();
    expect(stream.status).toBe(200);
    expect(stream.headers['content-type']).toBe('text/event-stream');
    expect(stream.headers['cache-control']).toBe('no-cache, no-transform');
    const first = await stream.next('the endpoint event');
    const [sessionId] = server.issuedSessions();
    expect(sessionId).toMatch(UUID);
    expect(first).toEqual({ event: 'endpoint', data: `/messages?sessionId=${sessionId}` });
    expect(server.liveSessions()).toEqual([sessionId]);
    expect(server.revisions).toEqual([REVISION]);
  });

  test.each(['2025-11-25', '2024-11-05', '2099-01-01'])('answers an initialize for %s with exactly 2024-11-05', async (requested) => {
    const { stream, endpoint } = await connect();
    const accepted = await post(endpoint, initializeRequest(requested, 7));
    expect(accepted).toMatchObject({ status: 202, text: 'Accepted' });
    expect(await stream.nextMessage('the initialize result')).toEqual(initializeResult(7));
  });

  test('initialize, initialized, tools/list and tools/call round trip: 202 for each POST, answers on the stream', async () => {
    const { stream, endpoint } = await openSession();
    expect(await post(endpoint, { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} })).toMatchObject({ status: 202 });
    const list = (await stream.nextMessage('the tools/list result')) as { id: number; result: { tools: { name: string; annotations?: unknown }[] } };
    expect(list.id).toBe(2);
    expect(list.result.tools.map((t) => t.name).slice(0, 4)).toEqual(LIFECYCLE_TOOLS);
    expect(list.result.tools.find((t) => t.name === 'idempotent_count')!.annotations).toEqual({ idempotentHint: true });

    expect(await post(endpoint, toolCall(3, 'echo', { text: 'hi' }))).toMatchObject({ status: 202 });
    expect(await stream.nextMessage('the echo result')).toEqual({ jsonrpc: '2.0', id: 3, result: { content: [{ type: 'text', text: 'hi' }] } });

    await post(endpoint, toolCall(4, 'count'));
    await post(endpoint, toolCall(5, 'count'));
    expect(await stream.nextMessage('the first count result')).toEqual({ jsonrpc: '2.0', id: 4, result: { content: [{ type: 'text', text: '1' }] } });
    expect(await stream.nextMessage('the second count result')).toEqual({ jsonrpc: '2.0', id: 5, result: { content: [{ type: 'text', text: '2' }] } });
    expect(server.fixtures.runs.map((run) => [run.tool, run.requestId])).toEqual([
      ['echo', 3],
      ['count', 4],
      ['count', 5],
    ]);
  });

  test('POST answers outside a live session are those of the SDK example server', async () => {
    const { sessionId } = await connect();
    const unknown = await post('/messages?sessionId=00000000-0000-0000-0000-000000000000', initializeRequest(REVISION));
    expect(unknown).toMatchObject({ status: 404, text: 'Session not found' });
    expect(unknown.headers['content-type']).toBe('text/html; charset=utf-8');
    const missing = await post('/messages', initializeRequest(REVISION));
    expect(missing).toMatchObject({ status: 400, text: 'Missing sessionId parameter' });
    expect(missing.headers['content-type']).toBe('text/html; charset=utf-8');
    // The transport's own answer to a body that is not JSON.
    expect(await post(`/messages?sessionId=${sessionId}`, 'not json')).toMatchObject({ status: 400, text: 'Invalid message: not json' });
    // What a Streamable HTTP client trying the SSE URL first gets (its cue to fall back to HTTP+SSE).
    const onSse = await post('/sse', initializeRequest('2025-03-26'));
    expect(onSse).toMatchObject({ status: 404, text: 'Not Found' });
    expect(server.record.responseTo(1)).toBeUndefined();
  });

  test('the wire record holds the stream with its endpoint and message events, and each POST', async () => {
    const { stream, endpoint, sessionId } = await openSession();
    await post(endpoint, toolCall(2, 'echo', { text: 'hi' }));
    await stream.nextMessage('the echo result');
    const [get, init, notified, call] = server.record.exchanges;
    expect(get).toMatchObject({ seq: 1, method: 'GET', path: '/sse', status: 200, sse: true });
    expect(get!.endedBy).toBeUndefined();
    expect(get!.responseHeaders['content-type']).toBe('text/event-stream');
    expect(get!.sseEvents.map(({ event, data }) => ({ event, data }))).toEqual([
      { event: 'endpoint', data: `/messages?sessionId=${sessionId}` },
      { event: 'message', data: expect.stringContaining('"protocolVersion":"2024-11-05"') },
      { event: 'message', data: JSON.stringify({ result: { content: [{ type: 'text', text: 'hi' }] }, jsonrpc: '2.0', id: 2 }) },
    ]);
    expect(get!.responseMessages.map(({ message }) => message.id)).toEqual([1, 2]);
    for (const [exchange, method] of [
      [init, 'initialize'],
      [notified, 'notifications/initialized'],
      [call, 'tools/call'],
    ] as const) {
      expect(exchange).toMatchObject({ method: 'POST', path: `/messages?sessionId=${sessionId}`, status: 202, sse: false, endedBy: 'server' });
      expect(exchange!.requestMessages.map((m) => m.method)).toEqual([method]);
      expect(exchange!.responseMessages).toEqual([]);
    }
    expect(server.record.responseTo(2)!.at).toBeGreaterThanOrEqual(call!.startedAt);
  });

  test('a client closing the stream is recorded as endedBy client, and its session is gone', async () => {
    const { stream, endpoint, sessionId } = await openSession();
    stream.close();
    await server.record.waitFor((r) => r.exchanges[0]!.endedBy !== undefined, 'the stream to end');
    expect(server.record.exchanges[0]!.endedBy).toBe('client');
    expect(server.liveSessions()).toEqual([]);
    expect(server.issuedSessions()).toEqual([sessionId]);
    expect(await post(endpoint, toolCall(2, 'echo'))).toMatchObject({ status: 404, text: 'Session not found' });
  });

  test('notifications/cancelled aborts an in-flight slow call, which then sends no answer', async () => {
    const { stream, endpoint } = await openSession();
    expect(await post(endpoint, toolCall(7, 'slow', { ms: 20_000 }))).toMatchObject({ status: 202 });
    // A ping answered on the stream is a barrier: every message POSTed before it has been handled.
    await post(endpoint, { jsonrpc: '2.0', id: 8, method: 'ping' });
    expect(await stream.nextMessage('the first ping result')).toEqual({ jsonrpc: '2.0', id: 8, result: {} });
    expect(server.fixtures.runs).toEqual([{ tool: 'slow', requestId: 7 }]);

    expect(await post(endpoint, cancelled(7, 'test'))).toMatchObject({ status: 202 });
    await post(endpoint, { jsonrpc: '2.0', id: 9, method: 'ping' });
    // No answer to 7 comes before the ping's: the receiver of a cancel does not respond.
    expect(await stream.nextMessage('the second ping result')).toEqual({ jsonrpc: '2.0', id: 9, result: {} });
    const [run] = server.fixtures.aborted();
    expect(run).toMatchObject({ tool: 'slow', requestId: 7, abortedAt: expect.any(Number), finishedAt: expect.any(Number) });
    expect(server.record.responseTo(7)).toBeUndefined();
    // The stream is still open: the cancel aborted the handler, not a hang-up.
    expect(server.record.exchanges[0]!.endedBy).toBeUndefined();
  });

  test('expireSession(id) ends that stream and forgets the id: its POSTs get 404', async () => {
    const first = await openSession();
    const second = await connect();
    await server.expireSession(first.sessionId);
    expect(await first.stream.rest()).toEqual([]);
    expect(server.record.exchanges[0]!.endedBy).toBe('server');
    expect(server.liveSessions()).toEqual([second.sessionId]);
    expect(server.issuedSessions()).toEqual([first.sessionId, second.sessionId]);
    expect(await post(first.endpoint, toolCall(2, 'echo'))).toMatchObject({ status: 404, text: 'Session not found' });
    expect(await post(second.endpoint, initializeRequest(REVISION))).toMatchObject({ status: 202 });
    expect(await second.stream.nextMessage('the initialize result')).toMatchObject({ id: 1, result: { protocolVersion: REVISION } });
  });

  test('expireSession() ends every stream', async () => {
    const sessions = [await connect(), await connect()];
    await server.expireSession();
    for (const { stream } of sessions) expect(await stream.rest()).toEqual([]);
    expect(server.liveSessions()).toEqual([]);
    expect(server.issuedSessions()).toEqual(sessions.map((s) => s.sessionId));
  });

  test('closing the server ends every stream', async () => {
    const sessions = [await connect(), await connect()];
    await server.close();
    for (const { stream } of sessions) await expect(stream.rest()).rejects.toThrow();
    expect(server.liveSessions()).toEqual([]);
    expect(server.record.exchanges.map((e) => e.endedAt !== undefined)).toEqual([true, true]);
  });

  test('an invalid Origin gets 403 on the stream and on POSTs, and is still recorded', async () => {
    const rejected = await openStream(server.url, { origin: 'http://evil.example' });
    expect(rejected.status).toBe(403);
    expect(await rejected.rest()).toEqual([]);
    expect(server.issuedSessions()).toEqual([]);
    const { endpoint } = await connect();
    const post403 = await post(endpoint, initializeRequest(REVISION), { origin: 'http://evil.example' });
    expect(post403.status).toBe(403);
    expect(JSON.parse(post403.text)).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 }, id: null });
    expect(server.record.exchanges.map((e) => [e.method, e.status, e.requestHeaders.origin])).toEqual([
      ['GET', 403, 'http://evil.example'],
      ['GET', 200, undefined],
      ['POST', 403, 'http://evil.example'],
    ]);
    expect(server.record.responseTo(1)).toBeUndefined();
  });

  test('the official SDK v1 Client over SSEClientTransport connects, lists tools and calls echo', async () => {
    const client = new Client({ name: 'sdk-v1-self-test', version: '0' });
    try {
      await client.connect(new SSEClientTransport(new URL(server.url)));
      expect(client.getServerVersion()).toEqual(SERVER_INFO);
      expect((await client.listTools()).tools.map((t) => t.name).slice(0, 4)).toEqual(LIFECYCLE_TOOLS);
      expect(await client.callTool({ name: 'echo', arguments: { text: 'from v1' } })).toEqual({ content: [{ type: 'text', text: 'from v1' }] });
    } finally {
      await client.close();
    }
    const sessionId = server.issuedSessions()[0]!;
    await server.record.waitFor((r) => r.exchanges[0]!.endedBy !== undefined, 'the client to close its stream');
    expect(server.record.exchanges[0]).toMatchObject({ method: 'GET', path: '/sse', endedBy: 'client' });
    const posts = server.record.exchanges.slice(1);
    expect(posts.map((e) => [e.path, e.status, e.requestMessages[0]!.method])).toEqual([
      [`/messages?sessionId=${sessionId}`, 202, 'initialize'],
      [`/messages?sessionId=${sessionId}`, 202, 'notifications/initialized'],
      [`/messages?sessionId=${sessionId}`, 202, 'tools/list'],
      [`/messages?sessionId=${sessionId}`, 202, 'tools/call'],
    ]);
    // The client took the answered version: it sends it on every POST after initialize.
    expect(posts.slice(1).map((e) => e.requestHeaders['mcp-protocol-version'])).toEqual([REVISION, REVISION, REVISION]);
  });
});
