// Rule 9: cancellation. Legacy: notifications/cancelled with the request id, same session and headers, the
// call rejected at once; never for initialize. Modern: the response stream closed, no notification.
import { describe, expect, test } from 'vitest';
import { basePolicy } from '../../config/settings.ts';
import { slowResponses } from '../../servers/personalities/slow-responses.ts';
import { ConnectTimeoutError, RequestTimeoutError } from './errors.ts';
import { BOUND_MS, carrying, CONNECT, header, methods, newClient, rejection, serve } from './test-support.ts';

// "At once" is an order of events, not a number of milliseconds: a call that rejects at once has rejected before the
// server could see anything of the cancellation (that takes a turn of the event loop; a rejection does not).

describe('legacy: notifications/cancelled', () => {
  for (const revision of ['2025-03-26', '2025-11-25'] as const) {
    test(`${revision}: aborting a call POSTs notifications/cancelled with its id on the same session; the call rejects at once`, async () => {
      const server = await serve(revision);
      const connection = await newClient().connect(server.url, CONNECT);
      const controller = new AbortController();
      const call = connection.callTool('slow', { ms: 10_000 }, { signal: controller.signal });
      const run = await server.fixtures.waitForRun((r) => r.tool === 'slow', 'the slow tool to start', BOUND_MS);
      controller.abort();
      const error = await rejection(call);
      expect(error.name).toBe('AbortError');
      expect(carrying(server.record, 'notifications/cancelled'), 'cancellations the server saw when the call rejected').toEqual([]);
      await server.fixtures.waitForRun((r) => r.abortedAt !== undefined, 'the handler to see the abort', BOUND_MS);

      const [cancel] = carrying(server.record, 'notifications/cancelled');
      const callExchange = carrying(server.record, 'tools/call')[0]!;
      expect(cancel!.requestMessages[0]!.params).toMatchObject({ requestId: run.requestId });
      expect(run.requestId).toBe(callExchange.requestMessages[0]!.id);
      expect(header(cancel, 'mcp-session-id')).toBe(header(callExchange, 'mcp-session-id'));
      expect(header(cancel, 'mcp-protocol-version')).toBe(header(callExchange, 'mcp-protocol-version'));
      // The next call works on the same session.
      expect(await connection.callTool('echo', { text: 'next' })).toMatchObject({ content: [{ text: 'next' }] });
      await server.record.waitFor((r) => carrying(r, 'tools/call')[0]!.endedBy !== undefined, 'the cancelled call’s stream to end', BOUND_MS);
      expect(carrying(server.record, 'initialize')).toHaveLength(1);
    });
  }

  test('timeoutMs cancels on the wire too, and the call rejects with a timeout', async () => {
    const server = await serve('2025-06-18');
    const connection = await newClient().connect(server.url, CONNECT);
    const timeoutMs = 50;
    const started = performance.now();
    const error = await rejection(connection.callTool('slow', { ms: 10_000 }, { timeoutMs }));
    expect(error).toBeInstanceOf(RequestTimeoutError);
    // Not before its timeout (timers may fire a millisecond early against performance.now()), and at once then.
    expect(performance.now() - started).toBeGreaterThanOrEqual(timeoutMs - 1);
    expect(carrying(server.record, 'notifications/cancelled'), 'cancellations the server saw when the call rejected').toEqual([]);
    await server.fixtures.waitForRun((r) => r.abortedAt !== undefined, 'the handler to see the abort', BOUND_MS);
    const call = carrying(server.record, 'tools/call')[0]!;
    expect(carrying(server.record, 'notifications/cancelled')[0]!.requestMessages[0]!.params).toMatchObject({ requestId: call.requestMessages[0]!.id });
  });

  // A caller that closes right after giving up a call (a session per operation): the cancel is already due, and
  // close() must not end the session under it.
  for (const giveUp of ['abort', 'timeout'] as const) {
    test(`close() right after ${giveUp === 'abort' ? 'an abort' : 'a timeout'}: the notifications/cancelled goes out before the DELETE`, async () => {
      const server = await serve('2025-11-25');
      const connection = await newClient().connect(server.url, CONNECT);
      const controller = new AbortController();
      const call = connection.callTool('slow', { ms: 10_000 }, giveUp === 'abort' ? { signal: controller.signal } : { timeoutMs: 50 });
      await server.fixtures.waitForRun((r) => r.tool === 'slow', 'the slow tool to start', BOUND_MS);
      controller.abort();
      await rejection(call);
      await connection.close();
      const callId = carrying(server.record, 'tools/call')[0]!.requestMessages[0]!.id;
      const [cancel] = carrying(server.record, 'notifications/cancelled');
      expect(cancel?.requestMessages[0]!.params, 'the notification that named the call').toMatchObject({ requestId: callId });
      expect(cancel!.status).toBe(202);
      expect(methods(server.record).slice(-2)).toEqual(['POST notifications/cancelled', 'DELETE']);
    });
  }

  test('a timeout during initialize sends no notifications/cancelled', async () => {
    // The policy's start-up bound: long enough that even a starved client has its initialize on the wire when it times
    // out (with 50 ms, one run beside a CPU hog timed out before sending anything); the hold outlasts it.
    const timeoutMs = basePolicy().ms.startup;
    const server = await serve('2025-11-25', [slowResponses({ method: 'initialize', ms: 4 * timeoutMs })]);
    expect(await rejection(newClient().connect(server.url, { timeoutMs }))).toBeInstanceOf(ConnectTimeoutError);
    await server.record.waitFor((r) => r.exchanges[0]?.endedBy !== undefined, 'the initialize exchange to end', BOUND_MS);
    expect(methods(server.record)).toEqual(['POST initialize']);
    expect(server.record.exchanges[0]!.endedBy).toBe('client');
  });

  test('an already aborted signal: nothing is sent', async () => {
    const server = await serve('2025-11-25');
    const connection = await newClient().connect(server.url, CONNECT);
    const before = server.record.exchanges.length;
    await rejection(connection.callTool('echo', { text: 'x' }, { signal: AbortSignal.abort() }));
    expect(server.record.exchanges).toHaveLength(before);
  });

  test('concurrent calls: only the cancelled one ends; request ids are unique', async () => {
    const server = await serve('2025-11-25');
    const connection = await newClient().connect(server.url, CONNECT);
    const controller = new AbortController();
    const first = connection.callTool('slow', { ms: 60 });
    const cancelled = connection.callTool('slow', { ms: 10_000 }, { signal: controller.signal });
    const third = connection.callTool('slow', { ms: 60 });
    await server.record.waitFor(() => server.fixtures.runsOf('slow') === 3, 'three slow runs', BOUND_MS);
    const cancelledId = carrying(server.record, 'tools/call')[1]!.requestMessages[0]!.id;
    controller.abort();
    await rejection(cancelled);
    expect(await first).toMatchObject({ content: [{ text: 'completed' }] });
    expect(await third).toMatchObject({ content: [{ text: 'completed' }] });
    const aborted = server.fixtures.runs.filter((r) => r.abortedAt !== undefined);
    expect(aborted.map((r) => r.requestId)).toEqual([cancelledId]);
    expect(carrying(server.record, 'notifications/cancelled').map((e) => e.requestMessages[0]!.params!['requestId'])).toEqual([cancelledId]);
    const ids = server.record.requests().map((r) => r.message.id);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('2026-07-28: closing the response stream', () => {
  test('aborting closes the stream, the handler aborts, no notification is POSTed', async () => {
    const server = await serve('2026-07-28');
    const connection = await newClient().connect(server.url, { ...CONNECT, negotiation: { pin: '2026-07-28' } });
    const controller = new AbortController();
    const call = connection.callTool('slow', { ms: 10_000 }, { signal: controller.signal });
    const run = await server.fixtures.waitForRun((r) => r.tool === 'slow', 'the slow tool to start', BOUND_MS);
    controller.abort();
    await rejection(call);
    expect(run.abortedAt, 'when the server saw the stream close, as the call rejected').toBeUndefined();
    expect(carrying(server.record, 'tools/call')[0]!.endedBy, 'the call exchange, as the call rejected').toBeUndefined();
    await server.fixtures.waitForRun((r) => r.abortedAt !== undefined, 'the handler to see the abort', BOUND_MS);
    await server.record.waitFor((r) => carrying(r, 'tools/call')[0]!.endedBy !== undefined, 'the call exchange to end', BOUND_MS);
    expect(carrying(server.record, 'tools/call')[0]!.endedBy).toBe('client');
    expect(carrying(server.record, 'notifications/cancelled')).toEqual([]);
    expect(await connection.callTool('echo', { text: 'next' })).toMatchObject({ content: [{ text: 'next' }] });
  });

  test('a timeout closes the stream too', async () => {
    const server = await serve('2026-07-28');
    const connection = await newClient().connect(server.url, { ...CONNECT, negotiation: 'auto' });
    expect(await rejection(connection.callTool('slow', { ms: 10_000 }, { timeoutMs: 50 }))).toBeInstanceOf(RequestTimeoutError);
    await server.fixtures.waitForRun((r) => r.abortedAt !== undefined, 'the handler to see the abort', BOUND_MS);
    expect(methods(server.record)).toEqual(['POST server/discover', 'POST tools/call']);
  });
});
