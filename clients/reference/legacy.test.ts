// Rules 3–6 on legacy Streamable HTTP: the session id from the InitializeResult only, session loss and
// re-initialization, stale 404s, dropped connections, SSE polling (retry + Last-Event-ID), no retry loops.
import { describe, expect, test } from 'vitest';
import { authErrors } from '../../servers/personalities/auth-errors.ts';
import { delayed404 } from '../../servers/personalities/delayed-404.ts';
import { dropConnection } from '../../servers/personalities/drop-connection.ts';
import { echoSessionHeaders } from '../../servers/personalities/echo-session-headers.ts';
import { expiringSessions } from '../../servers/personalities/expiring-sessions.ts';
import { serverErrors } from '../../servers/personalities/server-errors.ts';
import { SSE_COMMENT_NOTES, sseComments } from '../../servers/personalities/sse-comments.ts';
import { sseRetryInterval } from '../../servers/personalities/sse-retry.ts';
import { unknownSession400 } from '../../servers/personalities/unknown-session-400.ts';
import { CLOSE_STREAM_ANSWER } from '../../servers/fixtures.ts';
import { ConnectionDropped, HttpStatusError, SessionExpiredError } from './errors.ts';
import { BOUND_MS, carrying, CONNECT, header, isMethod, methods, newClient, rejection, scripted, serve } from './test-support.ts';

describe('the session id comes only from the InitializeResult', () => {
  test('echoed and injected Mcp-Session-Id headers (a proxy) are ignored; DELETE names the issued id', async () => {
    const proxy = echoSessionHeaders();
    const expiring = expiringSessions();
    const server = await serve('2025-11-25', [proxy, expiring]);
    const connection = await newClient().connect(server.url, CONNECT);
    const issued = (await connection.info()).sessionId!;
    proxy.injectOnNextResponse('injected-by-proxy', { method: 'tools/list' });
    await connection.listTools();
    await connection.callTool('echo', { text: 'x' });
    expect((await connection.info()).sessionId).toBe(issued);
    // The 404 for an ended session carries an injected id: the replacement comes from the new InitializeResult.
    await expiring.expireNow();
    proxy.injectOnError('injected-on-error');
    await connection.listTools();
    const [, replacement] = server.issuedSessions();
    expect((await connection.info()).sessionId).toBe(replacement);
    await connection.close();

    const notes = server.record.exchanges.flatMap((e) => e.notes);
    expect(notes).toEqual(expect.arrayContaining(['injected-session-id:injected-by-proxy', 'injected-session-id:injected-on-error', 'echoed-session-id']));
    const sent = server.record.exchanges.map((e) => header(e, 'mcp-session-id'));
    expect(sent).not.toContain('injected-by-proxy');
    expect(sent).not.toContain('injected-on-error');
    expect(sent).toEqual([undefined, issued, issued, issued, issued, undefined, replacement, replacement, replacement]);
    expect(methods(server.record).at(-1)).toBe('DELETE');
  });

  test('stateless legacy (no id issued): no session header, ever, and an injected one is not adopted', async () => {
    const proxy = echoSessionHeaders();
    const server = await serve('stateless', [proxy]);
    const connection = await newClient().connect(server.url, CONNECT);
    proxy.injectOnNextResponse('injected-by-proxy');
    await connection.listTools();
    await connection.callTool('echo', { text: 'x' });
    await connection.close();
    expect(methods(server.record)).toEqual(['POST initialize', 'POST notifications/initialized', 'POST tools/list', 'POST tools/call']);
    for (const exchange of server.record.exchanges) expect(header(exchange, 'mcp-session-id')).toBeUndefined();
    expect((await connection.info()).sessionId).toBeUndefined();
  });
});

describe('answers', () => {
  test('a JSON answer is read as well as an SSE one', async () => {
    const tools = [{ name: 'from-json', inputSchema: { type: 'object' }, annotations: { idempotentHint: true } }];
    const server = await serve('2025-11-25', [
      scripted(isMethod('tools/list'), 200, (request: unknown) => ({ jsonrpc: '2.0', id: (request as { id: number }).id, result: { tools } })),
    ]);
    const connection = await newClient().connect(server.url, CONNECT);
    expect(await connection.listTools()).toEqual([{ name: 'from-json' }]);
    expect(carrying(server.record, 'tools/list')[0]!.responseHeaders['content-type']).toBe('application/json');
    expect(carrying(server.record, 'initialize')[0]!.sse).toBe(true);
  });
});

describe('SSE comment lines', () => {
  test('are ignored on every stream: the answers come through, the listening stream stays, nothing is sent again', async () => {
    const server = await serve('2025-11-25', [sseComments()]);
    const connection = await newClient().connect(server.url, { ...CONNECT, listen: true });
    expect(await connection.listTools()).toContainEqual(expect.objectContaining({ name: 'echo' }));
    expect((await connection.callTool('test_tool_with_logging', {})).content).toEqual([{ type: 'text', text: 'Tool with logging executed successfully' }]);
    await server.record.waitFor((r) => r.exchanges.some((e) => e.method === 'GET' && e.notes.includes(SSE_COMMENT_NOTES.beforeFirstEvent)), 'the listening stream', BOUND_MS);
    const [get] = server.record.exchanges.filter((e) => e.method === 'GET');
    expect(get!.endedBy).toBeUndefined();
    await connection.close();
    // The GET stream opens in the background: its place among the POSTs is a race.
    expect(methods(server.record).filter((m) => m !== 'GET')).toEqual(['POST initialize', 'POST notifications/initialized', 'POST tools/list', 'POST tools/call', 'DELETE']);
    expect(methods(server.record).filter((m) => m === 'GET')).toHaveLength(1);
    expect(carrying(server.record, 'tools/call')[0]!.notes).toEqual(Object.values(SSE_COMMENT_NOTES));
  });
});

describe('session loss', () => {
  const sessionLoss = [
    { what: '404 -32001', personalities: () => [expiringSessions()] },
    { what: 'the SDK-example 400 -32000 "No valid session ID provided"', personalities: () => [expiringSessions(), unknownSession400()] },
  ];
  for (const { what, personalities } of sessionLoss) {
    test(`${what}: a new initialize without a session id, the new id adopted, tools/list retried once`, async () => {
      const [expiring, ...rest] = personalities();
      const server = await serve('2025-11-25', [expiring!, ...rest]);
      const connection = await newClient().connect(server.url, CONNECT);
      const [dead] = server.issuedSessions();
      await (expiring as ReturnType<typeof expiringSessions>).expireNow();
      expect((await connection.listTools()).length).toBeGreaterThan(0);
      const fresh = server.issuedSessions()[1]!;
      expect(fresh).toBeDefined();
      expect(await connection.info()).toMatchObject({ sessionId: fresh, negotiatedVersion: '2025-11-25' });
      await connection.callTool('echo', { text: 'x' });
      await connection.close();

      const { record } = server;
      expect(methods(record)).toEqual([
        'POST initialize',
        'POST notifications/initialized',
        'POST tools/list',
        'POST initialize',
        'POST notifications/initialized',
        'POST tools/list',
        'POST tools/call',
        'DELETE',
      ]);
      const second = carrying(record, 'initialize')[1]!;
      expect(header(second, 'mcp-session-id')).toBeUndefined();
      expect(header(second, 'mcp-protocol-version')).toBeUndefined();
      const failed = record.exchanges[2]!;
      expect(header(failed, 'mcp-session-id')).toBe(dead);
      // The dead id is never sent again; every later request carries the new one and the version.
      for (const exchange of record.exchanges.slice(4)) {
        expect(header(exchange, 'mcp-session-id')).toBe(fresh);
        expect(header(exchange, 'mcp-protocol-version')).toBe('2025-11-25');
      }
      // Request ids stay unique across the connection.
      const ids = record.requests().map((r) => r.message.id);
      expect(new Set(ids).size).toBe(ids.length);
    });
  }

  test('a non-idempotent tools/call is not retried: the error is surfaced, the tool never ran, the next call works', async () => {
    const expiring = expiringSessions();
    const server = await serve('2025-06-18', [expiring]);
    const connection = await newClient().connect(server.url, CONNECT);
    await expiring.expireNow();
    expect(await rejection(connection.callTool('count', {}))).toBeInstanceOf(SessionExpiredError);
    expect(server.fixtures.runsOf('count')).toBe(0);
    expect(carrying(server.record, 'tools/call')).toHaveLength(1);
    expect(carrying(server.record, 'initialize')).toHaveLength(2);
    await connection.callTool('count', {});
    expect(server.fixtures.runsOf('count')).toBe(1);
  });

  test('a tools/call of a tool annotated idempotentHint: true is retried once (annotations remembered from tools/list)', async () => {
    const expiring = expiringSessions();
    const server = await serve('2025-11-25', [expiring]);
    const connection = await newClient().connect(server.url, CONNECT);
    await connection.listTools();
    await expiring.expireNow();
    expect(await connection.callTool('idempotent_count', {})).toMatchObject({ content: [{ type: 'text', text: '1' }] });
    expect(carrying(server.record, 'tools/call').map((e) => e.status)).toEqual([404, 200]);
  });

  test('a stale 404 for the old id, arriving after the replacement, does not tear the new session down', async () => {
    const expiring = expiringSessions();
    const delayed = delayed404();
    const server = await serve('2025-11-25', [expiring, delayed]);
    const connection = await newClient().connect(server.url, CONNECT);
    const [dead] = server.issuedSessions();
    await expiring.expireNow();
    const first = connection.listTools();
    const second = connection.listTools();
    await server.record.waitFor(() => delayed.heldCount() === 2, 'both requests to be held', BOUND_MS);
    expect(delayed.releaseDelayed(1)).toBe(1);
    await first;
    const fresh = server.issuedSessions()[1];
    expect(fresh).toBeDefined();
    expect(delayed.releaseDelayed(1)).toBe(1);
    await second;
    await connection.close();

    expect(carrying(server.record, 'initialize')).toHaveLength(2);
    expect(server.issuedSessions()).toEqual([dead, fresh]);
    const lists = carrying(server.record, 'tools/list');
    expect(lists.map((e) => [header(e, 'mcp-session-id'), e.status])).toEqual([
      [dead, 404],
      [dead, 404],
      [fresh, 200],
      [fresh, 200],
    ]);
    expect(methods(server.record).at(-1)).toBe('DELETE');
    expect(header(server.record.exchanges.at(-1), 'mcp-session-id')).toBe(fresh);
  });

  test('after re-initializing, the reported version and the headers follow the new handshake', async () => {
    const server = await serve('2025-11-25');
    const connection = await newClient().connect(server.url, { ...CONNECT, resume: { protocolVersion: '2025-06-18', sessionId: 'long-gone' } });
    expect((await connection.info()).negotiatedVersion).toBe('2025-06-18');
    await connection.listTools();
    expect(await connection.info()).toMatchObject({ negotiatedVersion: '2025-11-25', resumeState: { protocolVersion: '2025-11-25', sessionId: server.issuedSessions()[0] } });
    await connection.callTool('echo', { text: 'x' });
    const [stale, ...rest] = server.record.exchanges;
    expect([header(stale, 'mcp-session-id'), header(stale, 'mcp-protocol-version'), stale!.status]).toEqual(['long-gone', '2025-06-18', 404]);
    expect(methods(server.record)).toEqual(['POST tools/list', 'POST initialize', 'POST notifications/initialized', 'POST tools/list', 'POST tools/call']);
    for (const exchange of rest.slice(1)) expect(header(exchange, 'mcp-protocol-version')).toBe('2025-11-25');
  });
});

describe('a dropped connection is not the server’s verdict', () => {
  test('tools/list cut off: sent again once on the same session, no new initialize', async () => {
    const server = await serve('2025-11-25', [dropConnection({ method: 'tools/list', when: 'before', count: 1 })]);
    const connection = await newClient().connect(server.url, CONNECT);
    const sessionId = (await connection.info()).sessionId;
    await connection.listTools();
    const lists = carrying(server.record, 'tools/list');
    expect(lists).toHaveLength(2);
    expect(lists.map((e) => header(e, 'mcp-session-id'))).toEqual([sessionId, sessionId]);
    expect(lists[0]!.notes).toContain('dropped-before-handler');
    expect(lists.map((e) => e.requestMessages[0]!.id)).toEqual([2, 3]);
    expect(carrying(server.record, 'initialize')).toHaveLength(1);
  });

  test('a non-idempotent tools/call cut off after it ran: surfaced, never sent again, the session kept', async () => {
    const server = await serve('2025-11-25', [dropConnection({ method: 'tools/call', when: 'after', count: 1 })]);
    const connection = await newClient().connect(server.url, CONNECT);
    const sessionId = (await connection.info()).sessionId;
    expect(await rejection(connection.callTool('count', {}))).toBeInstanceOf(ConnectionDropped);
    expect(server.fixtures.runsOf('count')).toBe(1);
    await connection.callTool('echo', { text: 'after the drop' });
    expect(carrying(server.record, 'tools/call').map((e) => e.requestMessages[0]!.params!['name'])).toEqual(['count', 'echo']);
    expect(carrying(server.record, 'initialize')).toHaveLength(1);
    expect((await connection.info()).sessionId).toBe(sessionId);
  });

  test('an idempotent tools/call cut off after it ran is sent again once, with a new id', async () => {
    const server = await serve('2025-06-18', [dropConnection({ method: 'tools/call', when: 'after', count: 1 })]);
    const connection = await newClient().connect(server.url, CONNECT);
    await connection.listTools();
    await connection.callTool('idempotent_count', {});
    expect(carrying(server.record, 'tools/call').map((e) => e.requestMessages[0]!.id)).toEqual([3, 4]);
    expect(server.fixtures.runsOf('idempotent_count')).toBe(2);
  });
});

describe('2025-11-25 SSE polling', () => {
  for (const retryMs of [undefined, 120]) {
    test(`a POST stream cut after the priming event: GET with Last-Event-ID after ≥ retry (${retryMs ?? 50} ms); the tool ran once`, async () => {
      const server = await serve('2025-11-25', retryMs === undefined ? [] : [sseRetryInterval(retryMs)]);
      const connection = await newClient().connect(server.url, CONNECT);
      const sessionId = (await connection.info()).sessionId;
      expect(await connection.callTool('close_stream', {})).toMatchObject({ content: [{ type: 'text', text: CLOSE_STREAM_ANSWER }] });
      expect(server.fixtures.runsOf('close_stream')).toBe(1);
      const { record } = server;
      expect(carrying(record, 'tools/call')).toHaveLength(1);
      const post = carrying(record, 'tools/call')[0]!;
      const get = record.exchanges.find((e) => e.method === 'GET')!;
      const priming = post.sseEvents[0]!;
      expect(priming).toMatchObject({ data: '', retry: retryMs ?? 50 });
      expect(get.requestHeaders).toMatchObject({
        'last-event-id': priming.id,
        'mcp-session-id': sessionId,
        'mcp-protocol-version': '2025-11-25',
        accept: 'text/event-stream',
      });
      expect(get.startedAt - post.endedAt!).toBeGreaterThanOrEqual((retryMs ?? 50) - 2);
      expect(get.responseMessages.map((m) => m.message.id)).toEqual([post.requestMessages[0]!.id]);
    });
  }
});

describe('no retry loops', () => {
  for (const status of [401, 403] as const) {
    test(`${status}: an error at once, one request, no fallback`, async () => {
      const server = await serve('2025-11-25', [authErrors({ status })]);
      const error = await rejection(newClient().connect(server.url, CONNECT));
      expect(error).toBeInstanceOf(HttpStatusError);
      expect((error as HttpStatusError).status).toBe(status);
      expect(methods(server.record)).toEqual(['POST initialize']);
    });
  }

  test('503 after connect: surfaced, not retried', async () => {
    const errors = serverErrors();
    const server = await serve('2025-11-25', [errors]);
    const connection = await newClient().connect(server.url, CONNECT);
    errors.failNext(5, { status: 503, retryAfterSeconds: 1 });
    expect(await rejection(connection.listTools())).toBeInstanceOf(HttpStatusError);
    expect(carrying(server.record, 'tools/list')).toHaveLength(1);
  });
});
