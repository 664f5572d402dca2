// Self-tests of the stateless legacy Streamable HTTP server (2025-03-26 … 2025-11-25, no sessions): exact answers over raw
// HTTP, what cancellation does there, and a round trip with the official v2 client in legacy mode.
import { beforeEach, describe, expect, test } from 'vitest';
import type { ReferenceServer } from '../reference-server.ts';
import {
  cancelled,
  closedAfterEach,
  initializeRequest,
  JSON_RPC_HEADERS,
  noSessionsAfterEach,
  type RawClient,
  POLICY,
  SERVER_INFO,
  toolCall,
  v2Client,
  type RequestHeaders,
} from '../test-support.ts';

const REVISION = '2025-11-25';
const HEADERS = { 'mcp-protocol-version': REVISION };
const opened = closedAfterEach();
let server: ReferenceServer;
let raw: RawClient;

beforeEach(async () => {
  ({ server, raw } = await opened.serve({ era: 'stateless' }));
});
// Whatever the test did, no response carried a session id.
noSessionsAfterEach(opened, () => server);

const post = (body: unknown, headers?: RequestHeaders, signal?: AbortSignal) => raw.post(server.url, body, headers, signal);

describe('stateless Streamable HTTP server', () => {
  test('is served at /mcp for every legacy Streamable HTTP revision', () => {
    expect(new URL(server.url).pathname).toBe('/mcp');
    expect(server.revisions).toEqual(['2025-03-26', '2025-06-18', REVISION]);
  });

  test('initialize is answered with the revision the client asks for, and no session id', async () => {
    const answer = await post(initializeRequest('2025-06-18'));
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('text/event-stream');
    expect(answer.headers['mcp-session-id']).toBeUndefined();
    expect(answer.messages).toEqual([
      {
        jsonrpc: '2.0',
        id: 1,
        result: { protocolVersion: '2025-06-18', capabilities: expect.objectContaining({ tools: { listChanged: true } }), serverInfo: SERVER_INFO },
      },
    ]);
  });

  test('every POST is served by a fresh instance: no initialize needed, state shared through the fixtures', async () => {
    const first = await post(toolCall(2, 'count'), HEADERS);
    const second = await post(toolCall(3, 'count'), HEADERS);
    expect(first.status).toBe(200);
    expect(first.messages).toEqual([{ jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: '1' }] } }]);
    expect(second.messages).toEqual([{ jsonrpc: '2.0', id: 3, result: { content: [{ type: 'text', text: '2' }] } }]);
    expect(server.fixtures.runsOf('count')).toBe(2);
  });

  test('an Mcp-Session-Id on a request is not checked and not echoed', async () => {
    const answer = await post(toolCall(4, 'echo', { text: 'x' }), { ...HEADERS, 'mcp-session-id': 'never-issued' });
    expect(answer.status).toBe(200);
    expect(answer.headers['mcp-session-id']).toBeUndefined();
    expect(answer.messages).toEqual([{ jsonrpc: '2.0', id: 4, result: { content: [{ type: 'text', text: 'x' }] } }]);
  });

  test('GET and DELETE get 405 with Allow: POST', async () => {
    for (const method of ['GET', 'DELETE']) {
      const answer = await raw.send(method, server.url, { headers: { ...JSON_RPC_HEADERS, ...HEADERS, 'mcp-session-id': 'never-issued' } });
      expect(answer.status, method).toBe(405);
      expect(answer.headers['allow'], method).toBe('POST');
      expect(answer.messages, method).toEqual([{ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed.' }, id: null }]);
    }
  });

  test('an MCP-Protocol-Version it does not speak gets 400 -32000', async () => {
    const answer = await post(toolCall(5, 'echo'), { 'mcp-protocol-version': '2024-11-05' });
    expect(answer.status).toBe(400);
    expect(answer.messages).toEqual([
      { jsonrpc: '2.0', error: { code: -32000, message: 'Bad Request: Unsupported protocol version: 2024-11-05 (supported versions: 2025-03-26, 2025-06-18, 2025-11-25)' }, id: null },
    ]);
    expect(server.fixtures.runs).toEqual([]);
  });

  test('notifications/cancelled lands on a fresh instance: 202, and the running call is not cancelled', async () => {
    // Long enough for the cancel's round trip on a loaded machine, and the call still runs to its end.
    const call = post(toolCall(6, 'slow', { ms: 3 * POLICY.ms.react }), HEADERS);
    const run = await server.fixtures.waitForRun((r) => r.tool === 'slow', 'the slow tool to start');
    const cancel = await post(cancelled(6), HEADERS);
    expect(cancel.status).toBe(202);
    expect(cancel.messages).toEqual([]);
    // The cancel was answered while the call was still running...
    expect(run.finishedAt).toBeUndefined();
    // ...and the call ran to its end.
    const answer = await call;
    expect(answer.messages).toEqual([{ jsonrpc: '2.0', id: 6, result: { content: [{ type: 'text', text: 'completed' }] } }]);
    expect(run.abortedAt).toBeUndefined();
  });

  test('a client that closes the POST of a running call aborts its handler (the exchange teardown)', async () => {
    const controller = new AbortController();
    const pending = post(toolCall(7, 'slow', { ms: 60_000 }), HEADERS, controller.signal);
    const run = await server.fixtures.waitForRun((r) => r.tool === 'slow', 'the slow tool to start');
    const abortAt = performance.now();
    controller.abort();
    await expect(pending).rejects.toThrow();
    // Aborted (a run of its 60 s to the end is never marked so), and after the client hung up.
    await server.fixtures.waitForRun((r) => r === run && r.abortedAt !== undefined, 'the slow handler to be aborted');
    expect(run.abortedAt!).toBeGreaterThanOrEqual(abortAt);
    await server.record.waitFor((r) => r.exchanges.at(-1)!.endedBy !== undefined, 'the aborted exchange to end');
    expect(server.record.exchanges.at(-1)!.endedBy).toBe('client');
  });

  test('another path gets 404', async () => {
    const answer = await raw.post(new URL('/other', server.url), initializeRequest('2025-11-25'));
    expect(answer.status).toBe(404);
    expect(answer.text).toBe('Not Found');
  });
});

describe('stateless server with the official v2 client', () => {
  test('legacy mode: initialize without a session, 405 for the GET stream, tool calls work', async () => {
    const { client, transport } = v2Client(server.url, 'legacy');
    opened.keep(client);
    await client.connect(transport);
    expect(client.getProtocolEra()).toBe('legacy');
    expect(client.getNegotiatedProtocolVersion()).toBe(REVISION);
    expect(transport.sessionId).toBeUndefined();
    const result = await client.callTool({ name: 'echo', arguments: { text: 'stateless' } });
    expect(result.content).toEqual([{ type: 'text', text: 'stateless' }]);

    const calls = server.record.exchanges.map((e) => [e.method, e.requestMessages[0]?.method, e.status]);
    expect(calls).toContainEqual(['POST', 'initialize', 200]);
    expect(calls).toContainEqual(['POST', 'notifications/initialized', 202]);
    expect(calls).toContainEqual(['POST', 'tools/call', 200]);
    for (const exchange of server.record.exchanges) expect(exchange.requestHeaders['mcp-session-id']).toBeUndefined();
    // The client tries the standalone GET stream after initializing; this server has none.
    await server.record.waitFor((r) => r.exchanges.some((e) => e.method === 'GET' && e.status !== undefined), 'the client to try the GET stream');
    expect(server.record.exchanges.filter((e) => e.method === 'GET').map((e) => e.status)).toEqual([405]);
  });
});
