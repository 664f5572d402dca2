// Rules 5 and 7 in 2026-07-28: the envelope and mirrored headers on every request, the affinity key, no
// session machinery, and retries only after a dropped connection (new request, new id, idempotent only).
import { describe, expect, test } from 'vitest';
import { INPUT_ANSWER } from '../../servers/fixtures.ts';
import { dropConnection } from '../../servers/personalities/drop-connection.ts';
import { echoSessionHeaders } from '../../servers/personalities/echo-session-headers.ts';
import { serverErrors } from '../../servers/personalities/server-errors.ts';
import { ConnectionDropped, HttpStatusError, JsonRpcError } from './errors.ts';
import { CLIENT_INFO, encodeHeaderValue } from './protocol.ts';
import { carrying, CONNECT, errorFor, header, isMethod, methods, newClient, rejection, scripted, serve } from './test-support.ts';

const PIN = { ...CONNECT, negotiation: { pin: '2026-07-28' as const } };
const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': CLIENT_INFO,
};

describe('every request', () => {
  test('carries the _meta envelope, MCP-Protocol-Version equal to it, Mcp-Method, and Mcp-Name on tools/call; no session machinery', async () => {
    const server = await serve('2026-07-28');
    const connection = await newClient().connect(server.url, PIN);
    await connection.listTools();
    await connection.callTool('echo', { text: 'x' });
    await connection.callTool('progress', { steps: 2 }, { timeoutMs: 2_000 });
    await connection.close();
    expect(methods(server.record)).toEqual(['POST server/discover', 'POST tools/list', 'POST tools/call', 'POST tools/call']);
    for (const exchange of server.record.exchanges) {
      const [message] = exchange.requestMessages;
      expect(message!.params!['_meta']).toMatchObject(META);
      expect(exchange.requestHeaders).toMatchObject({ 'mcp-protocol-version': '2026-07-28', 'mcp-method': message!.method, accept: 'application/json, text/event-stream' });
      expect(header(exchange, 'mcp-session-id')).toBeUndefined();
      expect(header(exchange, 'mcp-name')).toBe(message!.method === 'tools/call' ? message!.params!['name'] : undefined);
      expect(exchange.status).toBe(200);
    }
    // A call with a timeout asks for progress: its token rides in the same _meta.
    expect(carrying(server.record, 'tools/call')[1]!.requestMessages[0]!.params!['_meta']).toMatchObject({ ...META, progressToken: expect.any(String) });
  });

  test('an affinity key is sent from the very first request, and an echoed or injected Mcp-Session-Id never replaces it', async () => {
    const proxy = echoSessionHeaders();
    const server = await serve('2026-07-28', [proxy]);
    proxy.injectOnNextResponse('injected-on-discover', { method: 'server/discover' });
    const connection = await newClient().connect(server.url, { ...CONNECT, negotiation: 'auto', affinityKey: 'my-key' });
    proxy.injectOnNextResponse('injected-on-list', { method: 'tools/list' });
    await connection.listTools();
    await connection.callTool('echo', { text: 'x' });
    await connection.close();
    expect(server.record.exchanges.map((e) => header(e, 'mcp-session-id'))).toEqual(['my-key', 'my-key', 'my-key']);
    expect(server.record.exchanges.flatMap((e) => e.notes)).toEqual(['injected-session-id:injected-on-discover', 'injected-session-id:injected-on-list', 'echoed-session-id']);
    expect((await connection.info()).sessionId).toBeUndefined();
  });

  test('header values outside visible ASCII are Base64-encoded', () => {
    expect(encodeHeaderValue('echo')).toBe('echo');
    expect(encodeHeaderValue('Hello, 世界')).toBe('=?base64?SGVsbG8sIOS4lueVjA==?=');
    expect(encodeHeaderValue(' padded ')).toBe('=?base64?IHBhZGRlZCA=?=');
    expect(encodeHeaderValue('=?base64?literal?=')).toBe('=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=');
  });
});

describe('retries', () => {
  test('a dropped tools/list is re-issued once as a new request with a new id', async () => {
    const server = await serve('2026-07-28', [dropConnection({ method: 'tools/list', when: 'before', count: 1 })]);
    const connection = await newClient().connect(server.url, PIN);
    await connection.listTools();
    expect(carrying(server.record, 'tools/list').map((e) => e.requestMessages[0]!.id)).toEqual([2, 3]);
  });

  test('a non-idempotent tools/call dropped after it ran: surfaced, never re-issued', async () => {
    const server = await serve('2026-07-28', [dropConnection({ method: 'tools/call', when: 'after', count: 1 })]);
    const connection = await newClient().connect(server.url, PIN);
    expect(await rejection(connection.callTool('count', {}))).toBeInstanceOf(ConnectionDropped);
    expect(server.fixtures.runsOf('count')).toBe(1);
    expect(carrying(server.record, 'tools/call')).toHaveLength(1);
  });

  test('an idempotent tools/call dropped after it ran: re-issued once with a new id', async () => {
    const server = await serve('2026-07-28', [dropConnection({ method: 'tools/call', when: 'after', count: 1 })]);
    const connection = await newClient().connect(server.url, PIN);
    await connection.listTools();
    await connection.callTool('idempotent_count', {});
    expect(carrying(server.record, 'tools/call').map((e) => e.requestMessages[0]!.id)).toEqual([3, 4]);
  });

  test('protocol errors are never retried', async () => {
    const server = await serve('2026-07-28', [scripted(isMethod('tools/list'), 200, errorFor(-32603, 'Internal error'))]);
    const connection = await newClient().connect(server.url, PIN);
    expect(await rejection(connection.listTools())).toBeInstanceOf(JsonRpcError);
    // A modern error with its HTTP 400: not retried either.
    const error = await rejection(connection.callTool('test_input_required_result_elicitation', {}));
    expect((error as JsonRpcError).code).toBe(-32021);
    expect(methods(server.record)).toEqual(['POST server/discover', 'POST tools/list', 'POST tools/call']);
  });

  test('5xx is surfaced at once', async () => {
    const errors = serverErrors();
    const server = await serve('2026-07-28', [errors]);
    const connection = await newClient().connect(server.url, PIN);
    errors.failNext(3, { method: 'tools/list', status: 503, retryAfterSeconds: 1 });
    expect(await rejection(connection.listTools())).toBeInstanceOf(HttpStatusError);
    expect(carrying(server.record, 'tools/list')).toHaveLength(1);
  });

  test('multi round-trip: each InputRequiredResult answered by the handlers and retried with a new id, the requestState echoed exactly, none carried when the result had none', async () => {
    const server = await serve('2026-07-28');
    const roots = [{ uri: 'file:///x', name: 'x' }];
    const connection = await newClient().connect(server.url, { ...PIN, handlers: { roots } });
    expect(JSON.stringify(await connection.callTool('input_client', { method: 'roots/list' }))).toContain(INPUT_ANSWER);
    const exchanges = carrying(server.record, 'tools/call');
    const [first, second, third] = exchanges.map((x) => x.requestMessages[0]!);
    expect(exchanges).toHaveLength(3);
    expect(new Set([first!.id, second!.id, third!.id]).size).toBe(3);
    const state = exchanges[0]!.responseMessages.at(-1)!.message.result!['requestState'];
    expect(typeof state).toBe('string');
    expect(second!.params).toMatchObject({ name: 'input_client', arguments: { method: 'roots/list' }, inputResponses: { first: { roots } }, requestState: state });
    expect(third!.params!['inputResponses']).toEqual({ second: { roots } });
    expect('requestState' in third!.params!).toBe(false);
  });

  test('multi round-trip: input the client has no handler for is an error, not a retry', async () => {
    // A server that asks for roots although the client declared none (a real server may not: -32021).
    const server = await serve('2026-07-28', [
      scripted(isMethod('tools/call'), 200, (request: unknown) => ({
        jsonrpc: '2.0',
        id: (request as { id: number }).id,
        result: { resultType: 'input_required', inputRequests: { first: { method: 'roots/list' } } },
      })),
    ]);
    const connection = await newClient().connect(server.url, PIN);
    expect(String(await rejection(connection.callTool('input_client', { method: 'roots/list' })))).toContain('no handler');
    expect(carrying(server.record, 'tools/call')).toHaveLength(1);
  });

  test('an input_required with neither inputRequests nor requestState is an error, not a retry', async () => {
    const server = await serve('2026-07-28', [
      scripted(isMethod('tools/call'), 200, (request: unknown) => ({ jsonrpc: '2.0', id: (request as { id: number }).id, result: { resultType: 'input_required', inputRequests: {} } })),
    ]);
    const connection = await newClient().connect(server.url, PIN);
    await rejection(connection.callTool('echo', { text: 'x' }));
    expect(carrying(server.record, 'tools/call')).toHaveLength(1);
  });
});

describe('resume', () => {
  test('resume state of a modern connection: no probe, modern requests at once', async () => {
    const server = await serve('2026-07-28');
    const connection = await newClient().connect(server.url, { ...CONNECT, resume: { protocolVersion: '2026-07-28' } });
    await connection.listTools();
    expect(methods(server.record)).toEqual(['POST tools/list']);
  });
});
