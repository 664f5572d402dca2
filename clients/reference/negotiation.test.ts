// Rule 1 (negotiation modes) and the handshake, judged from what the reference servers received.
import { describe, expect, test } from 'vitest';
import { authErrors } from '../../servers/personalities/auth-errors.ts';
import { dropConnection } from '../../servers/personalities/drop-connection.ts';
import { initializeAnswers } from '../../servers/personalities/initialize-answers.ts';
import { serverErrors } from '../../servers/personalities/server-errors.ts';
import { slowResponses } from '../../servers/personalities/slow-responses.ts';
import { STREAMABLE_REVISIONS } from '../../protocol/revisions.ts';
import { ConnectTimeoutError, HttpStatusError, JsonRpcError, ConnectionDropped, UnsupportedRevisionError } from './errors.ts';
import { CLIENT_INFO } from './protocol.ts';
import { after, BOUND_MS, carrying, CONNECT, errorFor, header, isMethod, methods, newClient, rejection, scripted, serve } from './test-support.ts';

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': CLIENT_INFO,
};

describe('legacy mode', () => {
  for (const revision of STREAMABLE_REVISIONS) {
    test(`${revision}: initialize offering 2025-11-25, initialized, then requests with the session and version headers; no server/discover`, async () => {
      const server = await serve(revision);
      const connection = await newClient().connect(server.url, CONNECT);
      expect(await connection.info()).toMatchObject({ negotiatedVersion: revision, era: 'legacy', sessionId: server.issuedSessions()[0] });
      await connection.listTools();
      await connection.callTool('echo', { text: 'x' });
      await connection.close();

      const { record } = server;
      expect(methods(record)).toEqual(['POST initialize', 'POST notifications/initialized', 'POST tools/list', 'POST tools/call', 'DELETE']);
      const [init] = record.exchanges;
      expect(init!.requestMessages[0]).toMatchObject({ id: 1, params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: CLIENT_INFO } });
      // Nothing but the handshake before its answer: the initialize carries no session or version header.
      expect(header(init, 'mcp-session-id')).toBeUndefined();
      expect(header(init, 'mcp-protocol-version')).toBeUndefined();
      for (const exchange of record.exchanges.filter((e) => e.method === 'POST')) expect(header(exchange, 'accept')).toBe('application/json, text/event-stream');
      const sessionId = server.issuedSessions()[0];
      for (const exchange of after(record, 'initialize')) {
        expect(header(exchange, 'mcp-session-id')).toBe(sessionId);
        expect(header(exchange, 'mcp-protocol-version')).toBe(revision >= '2025-06-18' ? revision : undefined);
      }
      // The initialized notification goes after the initialize result was written.
      expect(record.exchanges[1]!.startedAt).toBeGreaterThanOrEqual(record.responseTo(1)!.at);
      expect(record.requests().map((r) => r.message.id)).toEqual([1, 2, 3]);
    });
  }

  test('an initialize answered with a revision the client does not speak fails the connect; nothing more is sent', async () => {
    const server = await serve('2025-11-25', [initializeAnswers()]);
    const error = await rejection(newClient().connect(server.url, CONNECT));
    expect(error).toBeInstanceOf(UnsupportedRevisionError);
    expect(methods(server.record)).toEqual(['POST initialize']);
  });

  test('the error form (-32602 with data.supported) is retried once offering a listed revision', async () => {
    const server = await serve('2025-06-18', [initializeAnswers({ error: {} })]);
    const connection = await newClient().connect(server.url, CONNECT);
    expect((await connection.info()).negotiatedVersion).toBe('2025-06-18');
    expect(carrying(server.record, 'initialize').map((e) => e.requestMessages[0]!.params!['protocolVersion'])).toEqual(['2025-11-25', '2025-06-18']);
  });

  test('the error form sent with HTTP 400 is the answer too: retried with a listed revision, no HTTP+SSE fallback', async () => {
    const server = await serve('2025-03-26', [initializeAnswers({ error: { status: 400 } })]);
    const connection = await newClient().connect(server.url, CONNECT);
    expect((await connection.info()).negotiatedVersion).toBe('2025-03-26');
    expect(methods(server.record)).toEqual(['POST initialize', 'POST initialize', 'POST notifications/initialized']);
  });

  test('an error form listing nothing the client speaks fails the connect at once', async () => {
    const server = await serve('2025-06-18', [initializeAnswers({ error: { supported: ['1999-01-01'] } })]);
    // At once: with the server's error (a client that waited for something would end on its connect timeout), and
    // having sent nothing more.
    expect(await rejection(newClient().connect(server.url, CONNECT))).toBeInstanceOf(JsonRpcError);
    expect(methods(server.record)).toEqual(['POST initialize']);
  });

  test('pin to a legacy revision: offers exactly it', async () => {
    const server = await serve('2025-06-18');
    const connection = await newClient().connect(server.url, { ...CONNECT, negotiation: { pin: '2025-06-18' } });
    expect((await connection.info()).negotiatedVersion).toBe('2025-06-18');
    expect(carrying(server.record, 'initialize')[0]!.requestMessages[0]!.params!['protocolVersion']).toBe('2025-06-18');
  });
});

describe('pin 2026-07-28', () => {
  test('server/discover then modern requests only', async () => {
    const server = await serve('2026-07-28');
    const connection = await newClient().connect(server.url, { ...CONNECT, negotiation: { pin: '2026-07-28' } });
    await connection.listTools();
    await connection.close();
    expect(methods(server.record)).toEqual(['POST server/discover', 'POST tools/list']);
    expect(await connection.info()).toMatchObject({ negotiatedVersion: '2026-07-28', era: 'modern' });
  });

  test('against a legacy server: one probe, an error, never initialize', async () => {
    const server = await serve('2025-11-25');
    await rejection(newClient().connect(server.url, { ...CONNECT, negotiation: { pin: '2026-07-28' } }));
    expect(methods(server.record)).toEqual(['POST server/discover']);
  });
});

describe('auto mode', () => {
  test('a modern answer: the probe carries the _meta envelope and its headers, and the client stays modern', async () => {
    const server = await serve('2026-07-28');
    const connection = await newClient().connect(server.url, { ...CONNECT, negotiation: 'auto' });
    expect(await connection.info()).toEqual({ negotiatedVersion: '2026-07-28', era: 'modern', resumeState: { protocolVersion: '2026-07-28' } });
    const [discover] = server.record.exchanges;
    expect(discover!.requestMessages[0]).toEqual({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: META } });
    expect(discover!.requestHeaders).toMatchObject({ 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'server/discover', accept: 'application/json, text/event-stream' });
    expect(header(discover, 'mcp-session-id')).toBeUndefined();
  });

  test('a dual-era server: modern', async () => {
    const server = await serve('dual');
    const connection = await newClient().connect(server.url, { ...CONNECT, negotiation: 'auto' });
    await connection.listTools();
    expect((await connection.info()).era).toBe('modern');
    expect(methods(server.record)).toEqual(['POST server/discover', 'POST tools/list']);
    expect(server.issuedSessions()).toEqual([]);
  });

  // Legacy answers of every shape lead to initialize, after exactly one probe.
  const legacyAnswers = [
    { what: '400 -32000 from a sessionful legacy server', era: '2025-11-25' as const, personalities: [] },
    { what: '200 -32601 Method not found', era: '2025-06-18' as const, personalities: [scripted(isMethod('server/discover'), 200, errorFor(-32601, 'Method not found'))] },
    { what: '200 -32000 (an implementation-defined legacy error)', era: '2025-03-26' as const, personalities: [scripted(isMethod('server/discover'), 200, errorFor(-32000, 'Server not initialized'))] },
    { what: '405 without a body', era: '2025-11-25' as const, personalities: [scripted(isMethod('server/discover'), 405, '')] },
    { what: '202 with an empty body', era: '2025-11-25' as const, personalities: [scripted(isMethod('server/discover'), 202, '')] },
    { what: '404 text (an HTTP+SSE server)', era: '2024-11-05' as const, personalities: [] },
  ];
  for (const { what, era, personalities } of legacyAnswers) {
    test(`a legacy answer (${what}): one probe, then initialize and a working session`, async () => {
      const server = await serve(era, personalities);
      const connection = await newClient().connect(server.url, { ...CONNECT, negotiation: 'auto' });
      await connection.listTools();
      expect((await connection.info()).era).toBe('legacy');
      expect(carrying(server.record, 'server/discover')).toHaveLength(1);
      expect(methods(server.record).filter((m) => m.startsWith('POST initialize')).length).toBeGreaterThan(0);
      expect(methods(server.record)[0]).toBe('POST server/discover');
    });
  }

  test('-32022 naming a mutually supported version: the probe is retried once with it, and stays modern', async () => {
    const server = await serve('2026-07-28');
    const client = newClient({ config: { modernRevisions: ['2099-01-01', '2026-07-28'] } });
    const connection = await client.connect(server.url, { ...CONNECT, negotiation: 'auto' });
    await connection.listTools();
    const probes = carrying(server.record, 'server/discover');
    expect(probes.map((e) => header(e, 'mcp-protocol-version'))).toEqual(['2099-01-01', '2026-07-28']);
    expect(probes[0]!.status).toBe(400);
    expect(probes[0]!.responseMessages[0]!.message.error!.code).toBe(-32022);
    expect(probes.map((e) => e.requestMessages[0]!.id)).toEqual([1, 2]);
    expect(carrying(server.record, 'initialize')).toEqual([]);
    expect(await connection.info()).toMatchObject({ era: 'modern', negotiatedVersion: '2026-07-28' });
  });

  const modernErrors = [
    { code: -32020, data: undefined },
    { code: -32021, data: { requiredCapabilities: { sampling: {} } } },
    { code: -32022, data: { supported: ['2025-11-25'], requested: '2026-07-28' } },
  ];
  for (const { code, data } of modernErrors) {
    test(`${code}${code === -32022 ? ' without a mutual modern version' : ''}: surfaced, never a fallback to initialize`, async () => {
      const server = await serve('dual', [scripted(isMethod('server/discover'), 400, errorFor(code, 'modern error', data))]);
      const error = await rejection(newClient().connect(server.url, { ...CONNECT, negotiation: 'auto' }));
      expect(error).toBeInstanceOf(JsonRpcError);
      expect((error as JsonRpcError).code).toBe(code);
      expect(methods(server.record)).toEqual(['POST server/discover']);
    });
  }

  const failures = [
    { what: '503', personality: () => serverErrors({ status: 503, retryAfterSeconds: 1 }), type: HttpStatusError },
    { what: '500 with a JSON-RPC error body', personality: () => scripted(isMethod('server/discover'), 500, errorFor(-32603, 'Internal error')), type: HttpStatusError },
    { what: '401', personality: () => authErrors({ status: 401 }), type: HttpStatusError },
    { what: '403', personality: () => authErrors({ status: 403 }), type: HttpStatusError },
    { what: 'a reset connection', personality: () => dropConnection({ method: 'server/discover', when: 'before' }), type: ConnectionDropped },
  ];
  for (const { what, personality, type } of failures) {
    test(`a probe answered ${what}: surfaced, no initialize`, async () => {
      const server = await serve('2025-11-25', [personality()]);
      expect(await rejection(newClient().connect(server.url, { ...CONNECT, negotiation: 'auto' }))).toBeInstanceOf(type);
      expect(methods(server.record)).toEqual(['POST server/discover']);
    });
  }

  test('a probe that times out: surfaced, no initialize, and the probe is aborted', async () => {
    const server = await serve('2025-11-25', [slowResponses({ ms: 5_000, method: 'server/discover' })]);
    const timeoutMs = 150;
    const started = performance.now();
    expect(await rejection(newClient().connect(server.url, { timeoutMs, negotiation: 'auto' }))).toBeInstanceOf(ConnectTimeoutError);
    // Not before its timeout (timers may fire a millisecond early against performance.now()); and not after the
    // server's answer: the client ended the probe's exchange, the server never answered it.
    expect(performance.now() - started).toBeGreaterThanOrEqual(timeoutMs - 1);
    await server.record.waitFor((r) => r.exchanges[0]?.endedBy !== undefined, 'the probe exchange to end', BOUND_MS);
    expect(server.record.exchanges[0]!.endedBy).toBe('client');
    expect(methods(server.record)).toEqual(['POST server/discover']);
  });
});

describe('resume', () => {
  for (const revision of STREAMABLE_REVISIONS) {
    test(`${revision}: no initialize; the stored session id and revision on every request, DELETE included`, async () => {
      const server = await serve(revision);
      const first = await newClient().connect(server.url, CONNECT);
      const { resumeState } = await first.info();
      await first.close();
      expect(methods(server.record)).toEqual(['POST initialize', 'POST notifications/initialized', 'DELETE']);
      // Not deleted this time: a session kept for a later resume.
      const kept = await newClient().connect(server.url, { ...CONNECT, keepSessionOnClose: true });
      const state = (await kept.info()).resumeState!;
      await kept.close();
      // The initialize took id 1: a resume continues the session's ids from 2.
      expect(state).toEqual({ protocolVersion: revision, sessionId: server.issuedSessions()[1], nextRequestId: 2 });
      expect(resumeState).toEqual({ protocolVersion: revision, sessionId: server.issuedSessions()[0], nextRequestId: 2 });

      const before = server.record.exchanges.length;
      const resumed = await newClient().connect(server.url, { ...CONNECT, resume: state });
      expect(await resumed.info()).toMatchObject({ negotiatedVersion: revision, sessionId: state.sessionId, resumeState: state });
      await resumed.listTools();
      await resumed.callTool('echo', { text: 'again' });
      await resumed.close();
      const later = server.record.exchanges.slice(before);
      expect(later.map((e) => `${e.method} ${e.requestMessages[0]?.method ?? ''}`.trim())).toEqual(['POST tools/list', 'POST tools/call', 'DELETE']);
      expect(later.flatMap((e) => e.requestMessages.map((m) => m.id))).toEqual([2, 3]);
      for (const exchange of later) {
        expect(header(exchange, 'mcp-session-id')).toBe(state.sessionId);
        expect(header(exchange, 'mcp-protocol-version')).toBe(revision >= '2025-06-18' ? revision : undefined);
      }
      expect(later.every((e) => e.status === 200)).toBe(true);
    });
  }
});
