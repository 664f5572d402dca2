// Self-tests of the dual server: 2026-07-28 and sessionful 2025-11-25 on one URL, routed by the SDK's
// isLegacyRequest. Raw HTTP for each route, then the official v2 client in auto, pinned and legacy mode.
import { beforeEach, describe, expect, test } from 'vitest';
import type { ReferenceServer } from '../reference-server.ts';
import {
  cancelled,
  closedAfterEach,
  envelope,
  fixtureCapabilities,
  initializeRequest,
  MODERN,
  modernRequest,
  type RawClient,
  RESULT_META,
  toolCall,
  v2Client,
  type RequestHeaders,
} from '../test-support.ts';

const LEGACY = '2025-11-25';
const opened = closedAfterEach();
let server: ReferenceServer;
let raw: RawClient;

beforeEach(async () => {
  ({ server, raw } = await opened.serve({ era: 'dual' }));
});

const post = (body: unknown, headers?: RequestHeaders) => raw.post(server.url, body, headers);
const postCall = (call: { body: unknown; headers: RequestHeaders }) => post(call.body, call.headers);
/** A legacy session: initialize, then initialized. */
const openSession = () => raw.openSession(server.url, LEGACY);

describe('dual server', () => {
  test('is served at /mcp for 2026-07-28 and 2025-11-25', () => {
    expect(new URL(server.url).pathname).toBe('/mcp');
    expect(server.revisions).toEqual([MODERN, LEGACY]);
  });

  test('server/discover is answered by the modern side, without a session', async () => {
    const answer = await postCall(modernRequest(1, 'server/discover'));
    expect(answer.status).toBe(200);
    expect(answer.headers['mcp-session-id']).toBeUndefined();
    expect(answer.messages).toEqual([
      {
        jsonrpc: '2.0',
        id: 1,
        result: { supportedVersions: [MODERN], capabilities: fixtureCapabilities(), resultType: 'complete', ttlMs: 0, cacheScope: 'private', _meta: RESULT_META },
      },
    ]);
    expect(server.issuedSessions()).toEqual([]);
  });

  test('initialize opens a 2025-11-25 session on the legacy side', async () => {
    const init = await post(initializeRequest('2025-06-18'));
    expect(init.status).toBe(200);
    expect(init.headers['content-type']).toBe('text/event-stream');
    const sessionId = init.headers['mcp-session-id'];
    expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(init.messages).toHaveLength(1);
    expect(init.messages[0]).toMatchObject({ jsonrpc: '2.0', id: 1, result: { protocolVersion: LEGACY } });
    expect(init.messages[0].result._meta).toBeUndefined();
    expect(server.issuedSessions()).toEqual([sessionId]);
    expect(server.liveSessions()).toEqual([sessionId]);
  });

  test('legacy requests in a session and modern requests share the fixtures, each on its own side', async () => {
    const { sessionId, headers } = await openSession();
    const legacy = await post(toolCall(2, 'count'), headers);
    expect(legacy.status).toBe(200);
    expect(legacy.headers['mcp-session-id']).toBe(sessionId);
    expect(legacy.messages).toEqual([{ jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: '1' }] } }]);

    const modern = await postCall(modernRequest(3, 'tools/call', { name: 'count', arguments: {} }));
    expect(modern.status).toBe(200);
    expect(modern.headers['mcp-session-id']).toBeUndefined();
    expect(modern.messages).toEqual([{ jsonrpc: '2.0', id: 3, result: { content: [{ type: 'text', text: '2' }], resultType: 'complete', _meta: RESULT_META } }]);
  });

  test('a modern request carrying a session id goes to the modern side: served, nothing echoed', async () => {
    const { sessionId } = await openSession();
    const call = modernRequest(4, 'tools/call', { name: 'echo', arguments: { text: 'modern' } });
    const answer = await post(call.body, { ...call.headers, 'mcp-session-id': sessionId, 'last-event-id': 'x:1' });
    expect(answer.status).toBe(200);
    expect(answer.headers['mcp-session-id']).toBeUndefined();
    expect(answer.messages).toEqual([{ jsonrpc: '2.0', id: 4, result: { content: [{ type: 'text', text: 'modern' }], resultType: 'complete', _meta: RESULT_META } }]);
  });

  test('malformed modern requests get the modern answers, never a legacy one', async () => {
    const list = modernRequest(5, 'tools/list');
    const mismatch = await post(list.body, { ...list.headers, 'mcp-protocol-version': LEGACY });
    expect(mismatch.status).toBe(400);
    expect(mismatch.messages[0]).toMatchObject({ id: 5, error: { code: -32020, data: { mismatch: { header: LEGACY } } } });

    const future = { jsonrpc: '2.0', id: 6, method: 'tools/list', params: { _meta: envelope({}, '2099-01-01') } };
    const unsupported = await post(future, { 'mcp-protocol-version': '2099-01-01', 'mcp-method': 'tools/list' });
    expect(unsupported.status).toBe(400);
    expect(unsupported.messages).toEqual([
      { jsonrpc: '2.0', id: 6, error: { code: -32022, message: 'Unsupported protocol version: 2099-01-01', data: { supported: [MODERN], requested: '2099-01-01' } } },
    ]);

    const incomplete = { jsonrpc: '2.0', id: 7, method: 'tools/list', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN } } };
    const envelopeError = await post(incomplete, { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/list' });
    expect(envelopeError.status).toBe(400);
    expect(envelopeError.messages[0]).toMatchObject({ id: 7, error: { code: -32602, data: { envelope: { key: 'io.modelcontextprotocol/clientCapabilities', problem: 'missing' } } } });

    const ping = await postCall(modernRequest(8, 'ping'));
    expect(ping.status).toBe(404);
    expect(ping.messages).toEqual([{ jsonrpc: '2.0', id: 8, error: { code: -32601, message: 'Method not found' } }]);

    const initializeWithModernHeader = await post(initializeRequest(LEGACY, 9), { 'mcp-protocol-version': MODERN });
    expect(initializeWithModernHeader.status).toBe(400);
    expect(initializeWithModernHeader.messages[0]).toMatchObject({ id: 9, error: { code: -32020 } });
    expect(server.issuedSessions()).toEqual([]);
  });

  test('envelope-less requests and bodies that are not JSON, without a session, get the legacy answer 400 -32000', async () => {
    const missing = [{ jsonrpc: '2.0', error: { code: -32000, message: 'Bad Request: Mcp-Session-Id header is required' }, id: null }];
    const ping = await post({ jsonrpc: '2.0', id: 10, method: 'ping' });
    expect(ping.status).toBe(400);
    expect(ping.messages).toEqual(missing);
    const garbage = await post('{not json');
    expect(garbage.status).toBe(400);
    expect(garbage.messages).toEqual(missing);
  });

  test('GET with a session id opens the legacy standalone stream; without one it gets 400', async () => {
    const { sessionId, headers } = await openSession();
    const stream = await raw.openStream(server.url, headers);
    expect(stream.status).toBe(200);
    expect(stream.headers['content-type']).toBe('text/event-stream');
    expect(stream.headers['mcp-session-id']).toBe(sessionId);
    stream.close();
    await server.record.waitFor((r) => r.exchanges.some((e) => e.method === 'GET' && e.endedBy !== undefined), 'the GET stream to end');

    const without = await raw.get(server.url, { 'mcp-protocol-version': LEGACY });
    expect(without.status).toBe(400);
    expect(without.messages).toEqual([{ jsonrpc: '2.0', error: { code: -32000, message: 'Bad Request: Mcp-Session-Id header is required' }, id: null }]);
  });

  test('DELETE with a session id ends the legacy session: 200, then 404 -32001', async () => {
    const { sessionId, headers } = await openSession();
    const deleted = await raw.send('DELETE', server.url, { headers });
    expect(deleted.status).toBe(200);
    expect(server.liveSessions()).toEqual([]);
    expect(server.issuedSessions()).toEqual([sessionId]);
    const after = await post({ jsonrpc: '2.0', id: 11, method: 'tools/list' }, headers);
    expect(after.status).toBe(404);
    expect(after.messages).toEqual([{ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null }]);
  });

  test('expireSession() ends a legacy session', async () => {
    const { sessionId, headers } = await openSession();
    await server.expireSession(sessionId);
    expect(server.liveSessions()).toEqual([]);
    expect((await post({ jsonrpc: '2.0', id: 12, method: 'tools/list' }, headers)).status).toBe(404);
  });

  test('in a legacy session notifications/cancelled aborts the running call', async () => {
    const { headers } = await openSession();
    const call = post(toolCall(13, 'slow', { ms: 60_000 }), headers).catch((e: unknown) => e);
    const run = await server.fixtures.waitForRun((r) => r.tool === 'slow', 'the slow tool to start');
    const cancel = await post(cancelled(13), headers);
    expect(cancel.status).toBe(202);
    await server.fixtures.waitForRun((r) => r === run && r.abortedAt !== undefined, 'the slow handler to be aborted');
    // The SDK sends no answer to a cancelled request: its stream stays open until the server closes.
    await server.close();
    expect(await call).toBeInstanceOf(Error);
    expect(server.record.responseTo(13)).toBeUndefined();
  });
});

describe('dual server with the official v2 client', () => {
  for (const mode of ['auto', { pin: MODERN }] as const) {
    test(`versionNegotiation ${JSON.stringify(mode)} ends in the modern era, no session`, async () => {
      const { client, transport } = v2Client(server.url, mode);
      opened.keep(client);
      await client.connect(transport);
      expect(client.getProtocolEra()).toBe('modern');
      expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
      const result = await client.callTool({ name: 'echo', arguments: { text: 'dual' } });
      expect(result.content).toEqual([{ type: 'text', text: 'dual' }]);
      expect(server.record.exchanges.map((e) => [e.requestMessages[0]?.method, e.status])).toEqual([
        ['server/discover', 200],
        ['tools/call', 200],
      ]);
      expect(server.issuedSessions()).toEqual([]);
    });
  }

  test('versionNegotiation legacy: a 2025-11-25 session on the legacy side, ended by DELETE', async () => {
    const { client, transport } = v2Client(server.url, 'legacy');
    opened.keep(client);
    await client.connect(transport);
    expect(client.getProtocolEra()).toBe('legacy');
    expect(client.getNegotiatedProtocolVersion()).toBe(LEGACY);
    expect(server.issuedSessions()).toEqual([transport.sessionId]);
    const result = await client.callTool({ name: 'echo', arguments: { text: 'legacy' } });
    expect(result.content).toEqual([{ type: 'text', text: 'legacy' }]);
    await transport.terminateSession();
    expect(server.liveSessions()).toEqual([]);
    const methods = server.record.exchanges.map((e) => `${e.method} ${e.requestMessages[0]?.method ?? ''}`.trim());
    expect(methods).toEqual(expect.arrayContaining(['POST initialize', 'POST notifications/initialized', 'POST tools/call', 'DELETE']));
    expect(methods).not.toContain('POST server/discover');
  });
});
