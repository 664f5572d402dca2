// Rule 10: HTTP+SSE (2024-11-05) and the fallback to it: only on 400/404/405 to the initialize POST, never on
// 401/403, never after a successful initialize; the endpoint must be same-origin; closing ends the GET stream.
import { describe, expect, test } from 'vitest';
import { authErrors } from '../../servers/personalities/auth-errors.ts';
import { delete405 } from '../../servers/personalities/delete-405.ts';
import { dropConnection } from '../../servers/personalities/drop-connection.ts';
import { endpointOtherOrigin } from '../../servers/personalities/endpoint-other-origin.ts';
import { ConnectionDropped, EndpointOriginError, HttpStatusError } from './errors.ts';
import { BOUND_MS, carrying, CONNECT, header, methods, newClient, rejection, serve, settled } from './test-support.ts';

describe('fallback to HTTP+SSE', () => {
  test('a URL ending in /sse: POST initialize gets 404, then GET, endpoint, and the session runs over HTTP+SSE', async () => {
    const server = await serve('2024-11-05');
    const connection = await newClient().connect(server.url, CONNECT);
    expect(await connection.info()).toEqual({ negotiatedVersion: '2024-11-05', era: 'legacy' });
    expect((await connection.listTools()).map((t) => t.name)).toContain('echo');
    expect(await connection.callTool('echo', { text: 'over sse' })).toMatchObject({ content: [{ text: 'over sse' }] });
    await connection.close();
    await settled(server.record);

    const { record } = server;
    expect(methods(record)).toEqual(['POST initialize', 'GET', 'POST initialize', 'POST notifications/initialized', 'POST tools/list', 'POST tools/call']);
    const [refused, stream, ...posts] = record.exchanges;
    expect([refused!.path, refused!.status]).toEqual(['/sse', 404]);
    expect([stream!.path, stream!.status, header(stream, 'accept')]).toEqual(['/sse', 200, 'text/event-stream']);
    expect(stream!.sseEvents[0]!.event).toBe('endpoint');
    const endpoint = stream!.sseEvents[0]!.data;
    for (const post of posts) expect([post.path, post.status]).toEqual([endpoint, 202]);
    // Answers came on the stream; closing ended it from the client side.
    expect(stream!.responseMessages.map((m) => m.message.id)).toEqual([2, 3, 4]);
    expect(stream!.endedBy).toBe('client');
    // Ids unique across both transports.
    expect(record.requests().map((r) => r.message.id)).toEqual([1, 2, 3, 4]);
  });

  test('auto mode: one probe, then the same path', async () => {
    const server = await serve('2024-11-05');
    await (await newClient().connect(server.url, { ...CONNECT, negotiation: 'auto' })).close();
    expect(methods(server.record)).toEqual(['POST server/discover', 'POST initialize', 'GET', 'POST initialize', 'POST notifications/initialized']);
  });

  for (const status of [401, 403] as const) {
    test(`never on ${status}`, async () => {
      const server = await serve('2024-11-05', [authErrors({ status })]);
      const error = await rejection(newClient().connect(server.url, CONNECT));
      expect((error as HttpStatusError).status).toBe(status);
      expect(methods(server.record)).toEqual(['POST initialize']);
    });
  }

  test('never on a modern error body (a 400 -32022 from a modern-only server)', async () => {
    const server = await serve('2026-07-28');
    const error = await rejection(newClient().connect(server.url, CONNECT));
    expect((error as HttpStatusError).rpcError?.code).toBe(-32022);
    expect(methods(server.record)).toEqual(['POST initialize']);
  });

  test('never after a successful initialize: a DELETE answered 405 at close leads nowhere', async () => {
    const server = await serve('2025-11-25', [delete405()]);
    await (await newClient().connect(server.url, CONNECT)).close();
    await settled(server.record);
    expect(methods(server.record)).toEqual(['POST initialize', 'POST notifications/initialized', 'DELETE']);
  });

  test('an endpoint on another origin is refused: nothing is POSTed anywhere, and the stream is closed', async () => {
    const other = endpointOtherOrigin();
    const server = await serve('2024-11-05', [other]);
    expect(await rejection(newClient().connect(server.url, CONNECT))).toBeInstanceOf(EndpointOriginError);
    await settled(server.record);
    expect(methods(server.record)).toEqual(['POST initialize', 'GET']);
    expect(server.record.exchanges[1]!.notes).toContain('endpoint-other-origin');
    expect(server.record.exchanges[1]!.endedBy).toBe('client');
    expect(other.decoyRecord.exchanges).toEqual([]);
  });
});

describe('over HTTP+SSE', () => {
  test('cancelling POSTs notifications/cancelled to the endpoint and the handler aborts', async () => {
    const server = await serve('2024-11-05');
    const connection = await newClient().connect(server.url, CONNECT);
    const controller = new AbortController();
    const call = rejection(connection.callTool('slow', { ms: 10_000 }, { signal: controller.signal }));
    const run = await server.fixtures.waitForRun((r) => r.tool === 'slow', 'the slow tool to start', BOUND_MS);
    controller.abort();
    expect((await call).name).toBe('AbortError');
    await server.fixtures.waitForRun((r) => r.abortedAt !== undefined, 'the handler to see the abort', BOUND_MS);
    expect(carrying(server.record, 'notifications/cancelled')[0]!.requestMessages[0]!.params).toMatchObject({ requestId: run.requestId });
    expect(await connection.callTool('echo', { text: 'next' })).toMatchObject({ content: [{ text: 'next' }] });
  });

  test('a POST cut off: a non-idempotent call is surfaced, never sent again', async () => {
    const server = await serve('2024-11-05', [dropConnection({ method: 'tools/call', when: 'before', count: 1 })]);
    const connection = await newClient().connect(server.url, CONNECT);
    expect(await rejection(connection.callTool('count', {}))).toBeInstanceOf(ConnectionDropped);
    expect(carrying(server.record, 'tools/call')).toHaveLength(1);
    expect(await connection.callTool('echo', { text: 'x' })).toMatchObject({ content: [{ text: 'x' }] });
  });
});
