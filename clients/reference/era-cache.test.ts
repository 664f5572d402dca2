// Rule 2: the era cache per origin, in the client instance. No second probe; a re-probe only when the server
// contradicts the cached era, never on a 5xx or a timeout.
import type { Agent } from 'undici';
import { describe, expect, test } from 'vitest';
import { within } from '../../servers/test-support.ts';
import { serverErrors } from '../../servers/personalities/server-errors.ts';
import { slowResponses } from '../../servers/personalities/slow-responses.ts';
import { ConnectTimeoutError, HttpStatusError } from './errors.ts';
import { carrying, CONNECT, methods, newClient, rejection, serve } from './test-support.ts';

const AUTO = { ...CONNECT, negotiation: 'auto' as const };

describe('a second connect to the same origin does not probe again', () => {
  test('modern: the second connection sends its first request straight away', async () => {
    const server = await serve('2026-07-28');
    const client = newClient();
    await (await client.connect(server.url, AUTO)).listTools();
    const second = await client.connect(server.url, AUTO);
    expect(server.record.exchanges).toHaveLength(2);
    await second.listTools();
    expect(methods(server.record)).toEqual(['POST server/discover', 'POST tools/list', 'POST tools/list']);
    expect(client.cachedEra(server.url)).toBe('modern');
  });

  test('legacy: the second connection starts with initialize', async () => {
    const server = await serve('2025-11-25');
    const client = newClient();
    await (await client.connect(server.url, AUTO)).close();
    await (await client.connect(server.url, AUTO)).close();
    expect(methods(server.record)).toEqual([
      'POST server/discover',
      'POST initialize',
      'POST notifications/initialized',
      'DELETE',
      'POST initialize',
      'POST notifications/initialized',
      'DELETE',
    ]);
    expect(client.cachedEra(server.url)).toBe('legacy');
  });

  test('another client instance knows nothing of it', async () => {
    const server = await serve('2026-07-28');
    await newClient().connect(server.url, AUTO);
    await newClient().connect(server.url, AUTO);
    expect(carrying(server.record, 'server/discover')).toHaveLength(2);
  });
});

describe('a server that contradicts the cached era makes the client probe again', () => {
  test('cached modern, but the origin now answers like a legacy server: re-probe, initialize, and the request runs there', async () => {
    const modern = await serve('2026-07-28');
    const port = Number(new URL(modern.url).port);
    const client = newClient();
    await (await client.connect(modern.url, AUTO)).close();
    await modern.close();

    const legacy = await serve('2025-11-25', [], port);
    const connection = await client.connect(legacy.url, AUTO);
    expect(legacy.record.exchanges).toEqual([]);
    expect((await connection.listTools()).map((t) => t.name)).toContain('echo');
    expect(methods(legacy.record)).toEqual(['POST tools/list', 'POST server/discover', 'POST initialize', 'POST notifications/initialized', 'POST tools/list']);
    expect(legacy.record.exchanges[0]!.status).toBe(400);
    expect(await connection.info()).toMatchObject({ era: 'legacy', negotiatedVersion: '2025-11-25', sessionId: legacy.issuedSessions()[0] });
    expect(client.cachedEra(legacy.url)).toBe('legacy');
    // The contradicted connection keeps working in its new era.
    await connection.callTool('echo', { text: 'x' });
    await connection.close();
    expect(methods(legacy.record).slice(-2)).toEqual(['POST tools/call', 'DELETE']);
  });

  test('cached legacy, but initialize gets a modern error: re-probe, then modern', async () => {
    const legacy = await serve('2025-11-25');
    const port = Number(new URL(legacy.url).port);
    const client = newClient();
    await (await client.connect(legacy.url, AUTO)).close();
    // A new server takes the same port (the same origin, so the same cache entry). The client's pooled keep-alive
    // connections to the old one must be gone first, or the next request may go out on one as the close arrives.
    const agent = (client as unknown as { agent: Agent }).agent;
    const origin = new URL(legacy.url).origin;
    const pooled = () => agent.stats[origin]?.connected ?? 0;
    const drained = new Promise<void>((resolve) => {
      const check = () => pooled() === 0 && (agent.off('disconnect', check), resolve());
      agent.on('disconnect', check);
      check();
    });
    await legacy.close();
    await within(drained, "the client's pooled connections to the closed server");

    const modern = await serve('2026-07-28', [], port);
    const connection = await client.connect(modern.url, AUTO);
    expect(methods(modern.record)).toEqual(['POST initialize', 'POST server/discover']);
    expect(modern.record.exchanges[0]!.responseMessages[0]!.message.error!.code).toBe(-32022);
    expect((await connection.info()).era).toBe('modern');
    expect(client.cachedEra(modern.url)).toBe('modern');
  });
});

describe('no re-probe on failures', () => {
  test('cached modern: a 503 is surfaced and the era kept', async () => {
    const errors = serverErrors();
    const server = await serve('2026-07-28', [errors]);
    const client = newClient();
    const first = await client.connect(server.url, AUTO);
    errors.failNext(1, { method: 'tools/list', status: 503 });
    expect(await rejection(first.listTools())).toBeInstanceOf(HttpStatusError);
    await (await client.connect(server.url, AUTO)).listTools();
    expect(methods(server.record)).toEqual(['POST server/discover', 'POST tools/list', 'POST tools/list']);
    expect(client.cachedEra(server.url)).toBe('modern');
  });

  test('cached legacy: an initialize answered 503, or timing out, keeps the era', async () => {
    const errors = serverErrors();
    const slow = slowResponses();
    const server = await serve('2025-11-25', [errors, slow]);
    const client = newClient();
    await (await client.connect(server.url, AUTO)).close();
    errors.failNext(1, { method: 'initialize', status: 503 });
    expect(await rejection(client.connect(server.url, AUTO))).toBeInstanceOf(HttpStatusError);
    slow.slowNext(1, { method: 'initialize', ms: 5_000 });
    expect(await rejection(client.connect(server.url, { ...AUTO, timeoutMs: 100 }))).toBeInstanceOf(ConnectTimeoutError);
    await (await client.connect(server.url, AUTO)).close();
    expect(carrying(server.record, 'server/discover')).toHaveLength(1);
    expect(carrying(server.record, 'initialize')).toHaveLength(4);
    expect(client.cachedEra(server.url)).toBe('legacy');
  });
});
