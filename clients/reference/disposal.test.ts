// Rule 8: disposal. DELETE for the issued session only, once; nothing after close(); calls in flight settled and
// cancelled on the wire; a connect given up on sends nothing later; nothing left running after dispose().
import { describe, expect, test } from 'vitest';
import { affinityGateway } from '../../servers/personalities/affinity-gateway.ts';
import { delete405 } from '../../servers/personalities/delete-405.ts';
import { DELETE_HELD, deleteHangs } from '../../servers/personalities/delete-hangs.ts';
import { slowResponses } from '../../servers/personalities/slow-responses.ts';
import { sseRetryInterval } from '../../servers/personalities/sse-retry.ts';
import { startReferenceServer } from '../../servers/server.ts';
import { ReferenceClient } from './client.ts';
import { ConnectionClosedError } from './errors.ts';
import { BOUND_MS, carrying, CONNECT, header, methods, newClient, POLICY, rejection, serve, settled } from './test-support.ts';
import { activeResources, grownSince } from '../../suites/leaks.ts';

describe('DELETE', () => {
  for (const revision of ['2025-03-26', '2025-06-18'] as const) {
    test(`${revision}: DELETE with the issued id${revision === '2025-06-18' ? ' and MCP-Protocol-Version' : ''}`, async () => {
      const server = await serve(revision);
      const connection = await newClient().connect(server.url, CONNECT);
      await connection.close();
      const deleted = server.record.exchanges.at(-1)!;
      expect(deleted.method).toBe('DELETE');
      expect(header(deleted, 'mcp-session-id')).toBe(server.issuedSessions()[0]);
      expect(header(deleted, 'mcp-protocol-version')).toBe(revision === '2025-06-18' ? revision : undefined);
      expect(server.liveSessions()).toEqual([]);
    });
  }

  test('keepSessionOnClose: no DELETE, the session stays alive', async () => {
    const server = await serve('2025-11-25');
    const connection = await newClient().connect(server.url, { ...CONNECT, keepSessionOnClose: true });
    await connection.close();
    expect(methods(server.record)).toEqual(['POST initialize', 'POST notifications/initialized']);
    expect(server.liveSessions()).toEqual(server.issuedSessions());
  });

  test('a 405 answer to DELETE is not an error', async () => {
    const server = await serve('2025-11-25', [delete405()]);
    const connection = await newClient().connect(server.url, CONNECT);
    await connection.close();
    await settled(server.record);
    expect(methods(server.record)).toEqual(['POST initialize', 'POST notifications/initialized', 'DELETE']);
    expect(server.record.exchanges.at(-1)!.status).toBe(405);
  });

  test("a DELETE the server never answers is given up at the connection's own timeout: close() resolves, the exchange ended by the client", async () => {
    const server = await serve('2025-11-25', [deleteHangs({ holdMs: BOUND_MS })]);
    const connection = await newClient().connect(server.url, { timeoutMs: POLICY.ms.react });
    await connection.close();
    await settled(server.record);
    const deleted = server.record.exchanges.at(-1)!;
    expect([deleted.method, deleted.notes, deleted.endedBy, deleted.status]).toEqual(['DELETE', [DELETE_HELD], 'client', undefined]);
    expect(server.liveSessions()).toEqual(server.issuedSessions());
  });

  test('close() twice: no error, one DELETE', async () => {
    const server = await serve('2025-11-25');
    const connection = await newClient().connect(server.url, CONNECT);
    await Promise.all([connection.close(), connection.close()]);
    await connection.close();
    expect(methods(server.record).filter((m) => m === 'DELETE')).toHaveLength(1);
  });

  test('no DELETE when the server issued no id (stateless legacy)', async () => {
    const server = await serve('stateless');
    await (await newClient().connect(server.url, CONNECT)).close();
    expect(methods(server.record)).toEqual(['POST initialize', 'POST notifications/initialized']);
  });

  test('2026-07-28 with an affinity key behind a gateway: the key on every request, no DELETE, all on one instance', async () => {
    const gateway = affinityGateway();
    const server = await serve('2026-07-28', [gateway]);
    const connection = await newClient().connect(server.url, { ...CONNECT, negotiation: 'auto', affinityKey: 'minted-key-a' });
    await connection.listTools();
    await connection.callTool('echo', { text: 'x' });
    await connection.close();
    expect(methods(server.record)).toEqual(['POST server/discover', 'POST tools/list', 'POST tools/call']);
    for (const exchange of server.record.exchanges) expect(header(exchange, 'mcp-session-id')).toBe('minted-key-a');
    expect(new Set(gateway.routes().map((r) => r.instance)).size).toBe(1);
  });
});

describe('nothing after close()', () => {
  test('an operation after close() rejects and sends nothing', async () => {
    const server = await serve('2025-11-25');
    const connection = await newClient().connect(server.url, CONNECT);
    await connection.close();
    const count = server.record.exchanges.length;
    expect(await rejection(connection.listTools())).toBeInstanceOf(ConnectionClosedError);
    expect(server.record.exchanges).toHaveLength(count);
  });

  test('closing during the SSE retry wait: the call rejects and no resumption GET ever comes', async () => {
    const retryMs = 100;
    const server = await serve('2025-11-25', [sseRetryInterval(retryMs)]);
    const connection = await newClient().connect(server.url, CONNECT);
    const call = rejection(connection.callTool('close_stream', {}));
    await server.record.waitFor((r) => carrying(r, 'tools/call')[0]?.endedBy === 'server', 'the server to cut the call’s stream', BOUND_MS);
    await connection.close();
    expect(await call).toBeInstanceOf(ConnectionClosedError);
    // The retry interval and a quiet window beyond it: a client still counting down would GET in it.
    await expect(server.record.waitFor((r) => r.exchanges.some((e) => e.method === 'GET'), 'a GET', retryMs + POLICY.ms.quiet)).rejects.toThrow('timed out');
    expect(methods(server.record).slice(-2)).toEqual(['POST notifications/cancelled', 'DELETE']);
  });

  test('legacy: a call in flight rejects at once, is cancelled by notification before the DELETE, and its handler aborts', async () => {
    const server = await serve('2025-11-25');
    const connection = await newClient().connect(server.url, CONNECT);
    const call = connection.callTool('slow', { ms: 10_000 });
    const run = await server.fixtures.waitForRun((r) => r.tool === 'slow', 'the slow tool to start', BOUND_MS);
    let closed = false;
    const closing = connection.close().then(() => (closed = true));
    expect(await rejection(call)).toBeInstanceOf(ConnectionClosedError);
    // At once: before close() had its answers (the cancellation and the DELETE), before the server had even seen them.
    expect(closed).toBe(false);
    expect(carrying(server.record, 'notifications/cancelled')).toEqual([]);
    await closing;
    await server.fixtures.waitForRun((r) => r.abortedAt !== undefined, 'the handler to see the abort', BOUND_MS);
    expect(methods(server.record).slice(-3)).toEqual(['POST tools/call', 'POST notifications/cancelled', 'DELETE']);
    expect(carrying(server.record, 'notifications/cancelled')[0]!.requestMessages[0]!.params).toMatchObject({ requestId: run.requestId });
    await settled(server.record);
    expect(carrying(server.record, 'tools/call')[0]!.endedBy).toBe('client');
  });

  test('2026-07-28: a call in flight rejects at once and its stream is closed; nothing else is sent', async () => {
    const server = await serve('2026-07-28');
    const connection = await newClient().connect(server.url, { ...CONNECT, negotiation: { pin: '2026-07-28' } });
    const call = rejection(connection.callTool('slow', { ms: 10_000 }));
    await server.fixtures.waitForRun((r) => r.tool === 'slow', 'the slow tool to start', BOUND_MS);
    await connection.close();
    expect(await call).toBeInstanceOf(ConnectionClosedError);
    await server.fixtures.waitForRun((r) => r.abortedAt !== undefined, 'the handler to see the abort', BOUND_MS);
    await settled(server.record);
    expect(methods(server.record)).toEqual(['POST server/discover', 'POST tools/call']);
    expect(server.record.exchanges[1]!.endedBy).toBe('client');
  });
});

describe('close during connect', () => {
  for (const { mode, method } of [
    { mode: 'legacy' as const, method: 'initialize' },
    { mode: 'auto' as const, method: 'server/discover' },
  ]) {
    test(`dispose while ${method} is in flight: connect rejects at once, the exchange is closed, nothing is sent later`, async () => {
      const slow = slowResponses({ method, ms: 2_000 });
      const server = await serve('2025-11-25', [slow]);
      const client = newClient();
      const connecting = rejection(client.connect(server.url, { ...CONNECT, negotiation: mode }));
      await server.record.waitFor(() => slow.waiting() === 1, `${method} to arrive`, BOUND_MS);
      let disposed = false;
      const disposing = client.dispose().then(() => (disposed = true));
      expect(await connecting).toBeInstanceOf(ConnectionClosedError);
      // At once: before dispose() had closed its sockets.
      expect(disposed).toBe(false);
      await disposing;
      await settled(server.record);
      expect(methods(server.record)).toEqual([`POST ${method}`]);
      expect(server.record.exchanges[0]!.endedBy).toBe('client');
      expect(slow.waiting()).toBe(0);
    });
  }
});

describe('nothing left running', () => {
  test('after close() and dispose(): no socket, no timer', async () => {
    const before = activeResources();
    const servers = await Promise.all((['2025-11-25', '2026-07-28', '2024-11-05'] as const).map((era) => startReferenceServer({ era })));
    const client = new ReferenceClient();
    try {
      for (const server of servers) {
        const connection = await client.connect(server.url, { timeoutMs: BOUND_MS, negotiation: 'auto' });
        await connection.listTools();
        const inFlight = connection.callTool('slow', { ms: 10_000 }).catch(() => undefined);
        await server.fixtures.waitForRun((r) => r.tool === 'slow', 'the slow tool to start', BOUND_MS);
        await connection.close();
        await inFlight;
      }
      // One legacy call closed during its SSE retry wait.
      const sse = await client.connect(servers[0]!.url, { timeoutMs: BOUND_MS, negotiation: 'auto' });
      const cut = sse.callTool('close_stream', {}).catch(() => undefined);
      await servers[0]!.record.waitFor((r) => carrying(r, 'tools/call').some((e) => e.endedBy === 'server' && e.requestMessages[0]!.params!['name'] === 'close_stream'), 'the cut', BOUND_MS);
      await sse.close();
      await cut;
    } finally {
      await client.dispose();
      await Promise.all(servers.map((s) => s.close()));
    }
    for (let turn = 0; turn < 100 && Object.keys(grownSince(before)).length > 0; turn++) await new Promise((resolve) => setImmediate(resolve));
    expect(grownSince(before)).toEqual({});
  });
});
