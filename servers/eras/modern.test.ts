// Self-tests of the 2026-07-28 reference server (createMcpHandler, legacy: 'reject'): exact status, headers and
// JSON-RPC answers over raw HTTP, cancellation by disconnect, and round trips with the official v2 client.
import { beforeEach, describe, expect, test } from 'vitest';
import type { ReferenceServer } from '../reference-server.ts';
import {
  closedAfterEach,
  envelope,
  fixtureCapabilities,
  initializeRequest,
  JSON_RPC_HEADERS,
  MODERN,
  modernRequest,
  noSessionsAfterEach,
  type RawClient,
  RESULT_META,
  SERVER_INFO,
  v2Client,
  type RequestHeaders,
} from '../test-support.ts';

/** The server, the raw client and the official clients a test opened; closed after it, even when it fails. */
const opened = closedAfterEach();
let server: ReferenceServer;
let raw: RawClient;

beforeEach(async () => {
  ({ server, raw } = await opened.serve({ era: MODERN }));
});
// Whatever the test did, this era never minted or echoed a session id.
noSessionsAfterEach(opened, () => server);

const post = (body: unknown, headers?: RequestHeaders, signal?: AbortSignal) => raw.post(server.url, body, headers, signal);
const postCall = (call: { body: unknown; headers: RequestHeaders }) => post(call.body, call.headers);

describe('2026-07-28 reference server', () => {
  test('is served at /mcp for exactly 2026-07-28', () => {
    expect(new URL(server.url).pathname).toBe('/mcp');
    expect(server.revisions).toEqual([MODERN]);
  });

  test('server/discover answers versions, capabilities, cache hints and serverInfo, with no session', async () => {
    const answer = await postCall(modernRequest(1, 'server/discover'));
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('application/json');
    expect(answer.headers['mcp-session-id']).toBeUndefined();
    expect(answer.messages).toEqual([
      {
        jsonrpc: '2.0',
        id: 1,
        result: {
          supportedVersions: [MODERN],
          capabilities: fixtureCapabilities(),
          resultType: 'complete',
          ttlMs: 0,
          cacheScope: 'private',
          _meta: RESULT_META,
        },
      },
    ]);
    expect(answer.messages[0].result.capabilities.tools).toEqual({ listChanged: true });
  });

  test('tools/call with the envelope and the standard headers runs the tool', async () => {
    const answer = await postCall(modernRequest(2, 'tools/call', { name: 'echo', arguments: { text: 'hi' } }));
    expect(answer.status).toBe(200);
    expect(answer.messages).toEqual([
      { jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'hi' }], resultType: 'complete', _meta: RESULT_META } },
    ]);
    expect(server.fixtures.runsOf('echo')).toBe(1);
    const [exchange] = server.record.exchanges;
    expect(exchange!.requestHeaders).toMatchObject({ 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': 'echo' });
  });

  test('tools/list lists the fixture tools, idempotent_count annotated', async () => {
    const answer = await postCall(modernRequest(3, 'tools/list'));
    expect(answer.status).toBe(200);
    const tools: { name: string; annotations?: unknown }[] = answer.messages[0].result.tools;
    expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['echo', 'slow', 'count', 'idempotent_count']));
    expect(tools.find((tool) => tool.name === 'idempotent_count')!.annotations).toEqual({ idempotentHint: true });
  });

  test('an MCP-Protocol-Version header that disagrees with the envelope gets 400 -32020', async () => {
    const call = modernRequest(4, 'tools/list');
    const answer = await post(call.body, { ...call.headers, 'mcp-protocol-version': '2025-11-25' });
    expect(answer.status).toBe(400);
    const detail = 'the body envelope names protocol version 2026-07-28 but the MCP-Protocol-Version header names 2025-11-25';
    expect(answer.messages).toEqual([
      {
        jsonrpc: '2.0',
        id: 4,
        error: { code: -32020, message: `Bad Request: the request headers and body disagree: ${detail}`, data: { mismatch: { header: '2025-11-25', body: detail } } },
      },
    ]);
    expect(server.fixtures.runs).toEqual([]);
  });

  test('a missing MCP-Protocol-Version, Mcp-Method or Mcp-Name header gets 400 -32020', async () => {
    const list = modernRequest(5, 'tools/list');
    const noVersion = await post(list.body, { 'mcp-method': 'tools/list' });
    expect(noVersion.status).toBe(400);
    expect(noVersion.messages[0]).toMatchObject({
      id: 5,
      error: { code: -32020, data: { mismatch: { header: '(missing)', body: 'the body envelope names protocol version 2026-07-28 but the required MCP-Protocol-Version header is absent' } } },
    });

    const noMethod = await post(list.body, { 'mcp-protocol-version': MODERN });
    expect(noMethod.status).toBe(400);
    expect(noMethod.messages[0]).toMatchObject({
      id: 5,
      error: { code: -32020, data: { mismatch: { header: '(missing)', body: 'the body names method tools/list but the required Mcp-Method header is absent' } } },
    });

    const call = modernRequest(6, 'tools/call', { name: 'echo', arguments: {} });
    const noName = await post(call.body, { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call' });
    expect(noName.status).toBe(400);
    expect(noName.messages[0]).toMatchObject({
      id: 6,
      error: { code: -32020, data: { mismatch: { header: '(missing)', body: 'the body carries params.name="echo" but the required Mcp-Name header is absent' } } },
    });
    expect(server.fixtures.runs).toEqual([]);
  });

  test('an unsupported version in envelope and header gets 400 -32022 naming the supported ones', async () => {
    const body = { jsonrpc: '2.0', id: 7, method: 'tools/list', params: { _meta: envelope({}, '2099-01-01') } };
    const answer = await post(body, { 'mcp-protocol-version': '2099-01-01', 'mcp-method': 'tools/list' });
    expect(answer.status).toBe(400);
    expect(answer.messages).toEqual([
      { jsonrpc: '2.0', id: 7, error: { code: -32022, message: 'Unsupported protocol version: 2099-01-01', data: { supported: [MODERN], requested: '2099-01-01' } } },
    ]);
  });

  test('an incomplete envelope gets 400 -32602 naming the missing key', async () => {
    const body = { jsonrpc: '2.0', id: 8, method: 'tools/list', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN } } };
    const answer = await post(body, { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/list' });
    expect(answer.status).toBe(400);
    expect(answer.messages).toEqual([
      {
        jsonrpc: '2.0',
        id: 8,
        error: {
          code: -32602,
          message: 'Invalid _meta envelope for protocol revision 2026-07-28: io.modelcontextprotocol/clientCapabilities: missing',
          data: { envelope: { key: 'io.modelcontextprotocol/clientCapabilities', problem: 'missing' } },
        },
      },
    ]);

    const noEnvelope = await post({ jsonrpc: '2.0', id: 9, method: 'tools/list', params: {} }, { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/list' });
    expect(noEnvelope.status).toBe(400);
    expect(noEnvelope.messages).toEqual([
      {
        jsonrpc: '2.0',
        id: 9,
        error: {
          code: -32602,
          message:
            'Invalid params: the MCP-Protocol-Version header names protocol revision 2026-07-28, but the request is missing the required per-request envelope key(s): _meta',
          data: { envelope: { missing: ['_meta'] } },
        },
      },
    ]);
  });

  test('a result needing a client capability the envelope lacks gets 400 -32021 (the SDK input_required gate)', async () => {
    // The standard conformance fixture asks for a form elicitation through an input-required result.
    const tool = { name: 'test_input_required_result_elicitation', arguments: {} };
    const without = await postCall(modernRequest(10, 'tools/call', tool));
    expect(without.status).toBe(400);
    expect(without.messages).toEqual([
      {
        jsonrpc: '2.0',
        id: 10,
        error: {
          code: -32021,
          message: "Cannot request input 'user_name' (elicitation/create): the request's client capabilities do not declare the required capability",
          data: { requiredCapabilities: { elicitation: { form: {} } } },
        },
      },
    ]);
    // The same call from a client that declares elicitation gets the input-required result.
    const declared = await postCall(modernRequest(11, 'tools/call', tool, { elicitation: {} }));
    expect(declared.status).toBe(200);
    expect(declared.messages[0].result).toMatchObject({ resultType: 'input_required', inputRequests: { user_name: { method: 'elicitation/create' } } });
  });

  test('a legacy initialize gets 400 -32022 with the supported versions; ping without envelope too', async () => {
    const initialize = await post(initializeRequest('2025-11-25', 12));
    expect(initialize.status).toBe(400);
    expect(initialize.messages).toEqual([
      { jsonrpc: '2.0', id: 12, error: { code: -32022, message: 'Unsupported protocol version: 2025-11-25', data: { supported: [MODERN], requested: '2025-11-25' } } },
    ]);
    const ping = await post({ jsonrpc: '2.0', id: 13, method: 'ping' });
    expect(ping.status).toBe(400);
    expect(ping.messages).toEqual([
      {
        jsonrpc: '2.0',
        id: 13,
        error: { code: -32022, message: 'Unsupported protocol version: the request did not name a protocol version', data: { supported: [MODERN] } },
      },
    ]);
  });

  test('initialize or ping with a modern envelope gets 404 -32601', async () => {
    const initialize = await postCall(modernRequest(14, 'initialize', initializeRequest('2025-11-25').params));
    expect(initialize.status).toBe(404);
    expect(initialize.messages).toEqual([{ jsonrpc: '2.0', id: 14, error: { code: -32601, message: 'Method not found' } }]);
    const ping = await postCall(modernRequest(15, 'ping'));
    expect(ping.status).toBe(404);
    expect(ping.messages).toEqual([{ jsonrpc: '2.0', id: 15, error: { code: -32601, message: 'Method not found' } }]);
  });

  test('an initialize with a modern MCP-Protocol-Version header but no envelope gets 400 -32020', async () => {
    const answer = await post(initializeRequest('2025-11-25', 16), { 'mcp-protocol-version': MODERN });
    expect(answer.status).toBe(400);
    expect(answer.messages[0]).toMatchObject({ id: 16, error: { code: -32020, data: { mismatch: { header: MODERN } } } });
  });

  test('GET and DELETE get 405 with Allow: POST', async () => {
    for (const method of ['GET', 'DELETE']) {
      const answer = await raw.send(method, server.url, { headers: { ...JSON_RPC_HEADERS, 'mcp-protocol-version': MODERN, 'mcp-session-id': 'an-old-session' } });
      expect(answer.status, method).toBe(405);
      expect(answer.headers['allow'], method).toBe('POST');
      expect(answer.messages, method).toEqual([{ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed.' }, id: null }]);
    }
  });

  test('Mcp-Session-Id and Last-Event-ID on a request are ignored: served normally, nothing echoed', async () => {
    const call = modernRequest(17, 'tools/call', { name: 'count', arguments: {} });
    const answer = await post(call.body, { ...call.headers, 'mcp-session-id': 'from-a-2025-session', 'last-event-id': 'stream-1:4' });
    expect(answer.status).toBe(200);
    expect(answer.headers['mcp-session-id']).toBeUndefined();
    expect(answer.messages).toEqual([{ jsonrpc: '2.0', id: 17, result: { content: [{ type: 'text', text: '1' }], resultType: 'complete', _meta: RESULT_META } }]);
  });

  test('a body that is not JSON gets 400 -32700; a notification gets 202', async () => {
    const garbage = await post('{not json', { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/list' });
    expect(garbage.status).toBe(400);
    expect(garbage.messages).toEqual([{ jsonrpc: '2.0', error: { code: -32700, message: 'Parse error: the request body is not valid JSON' }, id: null }]);
    const notification = await post(
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1, _meta: envelope() } },
      { 'mcp-protocol-version': MODERN, 'mcp-method': 'notifications/cancelled' },
    );
    expect(notification.status).toBe(202);
    expect(notification.messages).toEqual([]);
  });

  test('another path gets 404', async () => {
    const call = modernRequest(18, 'tools/list');
    const answer = await raw.post(new URL('/other', server.url), call.body, call.headers);
    expect(answer.status).toBe(404);
    expect(answer.text).toBe('Not Found');
  });

  test('a client that closes the POST of a running call aborts the handler at once', async () => {
    const controller = new AbortController();
    const call = modernRequest(19, 'tools/call', { name: 'slow', arguments: { ms: 60_000 } });
    const pending = post(call.body, call.headers, controller.signal);
    const run = await server.fixtures.waitForRun((r) => r.tool === 'slow', 'the slow tool to start');
    const abortAt = performance.now();
    controller.abort();
    await expect(pending).rejects.toThrow();
    await server.fixtures.waitForRun((r) => r === run && r.abortedAt !== undefined, 'the slow handler to be aborted');
    expect(run).toMatchObject({ tool: 'slow', requestId: 19 });
    // Aborted by the disconnect (a run of its 60 s to the end is never marked aborted), after the client hung up.
    expect(run.abortedAt!).toBeGreaterThanOrEqual(abortAt);
    await server.record.waitFor((r) => r.exchanges.at(-1)!.endedBy !== undefined, 'the aborted exchange to end');
    const exchange = server.record.exchanges.at(-1)!;
    expect(exchange.endedBy).toBe('client');
    expect(exchange.responseMessages).toEqual([]);
  });

  test('closing the server aborts a call still running', async () => {
    const call = modernRequest(20, 'tools/call', { name: 'slow', arguments: { ms: 60_000 } });
    const pending = post(call.body, call.headers).catch((error: unknown) => error);
    const run = await server.fixtures.waitForRun((r) => r.tool === 'slow', 'the slow tool to start');
    await server.close();
    await server.fixtures.waitForRun((r) => r === run && r.abortedAt !== undefined, 'the slow handler to be aborted');
    expect(await pending).toBeInstanceOf(Error);
  });
});

describe('2026-07-28 reference server with the official v2 client', () => {
  for (const mode of ['auto', { pin: MODERN }] as const) {
    test(`versionNegotiation ${JSON.stringify(mode)}: discover, then tool calls in the modern era`, async () => {
      const { client, transport } = v2Client(server.url, mode);
      opened.keep(client);
      await client.connect(transport);
      expect(client.getProtocolEra()).toBe('modern');
      expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
      expect(client.getServerVersion()).toEqual(SERVER_INFO);
      const result = await client.callTool({ name: 'echo', arguments: { text: 'round trip' } });
      expect(result.content).toEqual([{ type: 'text', text: 'round trip' }]);
      expect(transport.sessionId).toBeUndefined();

      const exchanges = server.record.exchanges.map((e) => ({ method: e.method, mcpMethod: e.requestHeaders['mcp-method'], status: e.status }));
      expect(exchanges).toEqual([
        { method: 'POST', mcpMethod: 'server/discover', status: 200 },
        { method: 'POST', mcpMethod: 'tools/call', status: 200 },
      ]);
      const callExchange = server.record.exchanges[1]!;
      expect(callExchange.requestHeaders).toMatchObject({ 'mcp-protocol-version': MODERN, 'mcp-name': 'echo' });
      expect(callExchange.requestMessages[0]!.params!['_meta']).toMatchObject({ 'io.modelcontextprotocol/protocolVersion': MODERN });
    });
  }

  test('versionNegotiation legacy: the initialize is refused with -32022 and connect fails', async () => {
    const { client, transport } = v2Client(server.url, 'legacy');
    opened.keep(client);
    await expect(client.connect(transport)).rejects.toThrow(/-32022|Unsupported protocol version/);
    expect(server.record.exchanges.map((e) => [e.requestMessages[0]?.method, e.status])).toEqual([['initialize', 400]]);
  });
});
