// Raw-HTTP self-tests of the 2025-11-25 Streamable HTTP server: pinning, the priming event, resumption from the
// event store, and the close_stream fixture whose answer only a GET with Last-Event-ID can fetch.
import { beforeEach, describe, expect, test } from 'vitest';
import { CLOSE_STREAM_ANSWER, FixtureState } from '../fixtures.ts';
import { listenOnLoopback } from '../listen.ts';
import type { ReferenceServer } from '../reference-server.ts';
import { startReferenceServer } from '../server.ts';
import { closedAfterEach, EVENT_ID, initializeRequest, type RawClient, toolCall, type RequestHeaders } from '../test-support.ts';
import { WireRecord } from '../wire-record.ts';
import { sseRetryInterval } from '../personalities/sse-retry.ts';
import { DEFAULT_RETRY_INTERVAL_MS, MCP_PATH, streamableHttpEra, type StreamableHttpOptions } from './streamable-http.ts';

const REVISION = '2025-11-25';

/** The server, the raw client and whatever else a test opened; closed after it, even when it fails. */
const opened = closedAfterEach();
let server: ReferenceServer;
let raw: RawClient;

beforeEach(async () => {
  ({ server, raw } = await opened.serve({ era: REVISION }));
});

const post = (body: unknown, headers: RequestHeaders = {}, url = server.url) => raw.post(url, body, headers);
/** A GET that resumes a stream; the server ends it once the replayed request is answered. */
const resume = (lastEventId: string, headers: RequestHeaders) => raw.get(server.url, { 'last-event-id': lastEventId, ...headers });
const openSession = (url = server.url) => raw.openSession(url, REVISION);

/** The stream part of an event id. */
const streamOf = (id: string | undefined) => id?.slice(0, id.lastIndexOf(':'));

describe('2025-11-25 Streamable HTTP server', () => {
  test('answers any initialize with exactly 2025-11-25; the stream is primed when the client offered 2025-11-25', async () => {
    const older = await post(initializeRequest('2025-06-18'));
    expect(older.status).toBe(200);
    expect(older.headers['mcp-session-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(older.messages[0].result.protocolVersion).toBe(REVISION);
    // The SDK primes only for a client that offered 2025-11-25 (an older client may not parse empty data).
    expect(older.events).toEqual([{ event: 'message', id: expect.stringMatching(EVENT_ID), data: expect.any(String) }]);

    const current = await post(initializeRequest(REVISION, 2));
    expect(current.messages[0].result.protocolVersion).toBe(REVISION);
    expect(current.events).toEqual([
      { id: expect.stringMatching(EVENT_ID), retry: DEFAULT_RETRY_INTERVAL_MS, data: '' },
      { event: 'message', id: expect.stringMatching(EVENT_ID), data: expect.any(String) },
    ]);
  });

  test('any other MCP-Protocol-Version gets 400 -32000; an absent header is accepted', async () => {
    const { sessionId } = await openSession();
    const wrong = await post({ jsonrpc: '2.0', id: 2, method: 'tools/list' }, { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' });
    expect(wrong.status).toBe(400);
    expect(wrong.messages).toEqual([
      { jsonrpc: '2.0', error: { code: -32000, message: 'Bad Request: Unsupported protocol version: 2025-06-18 (supported versions: 2025-11-25)' }, id: null },
    ]);
    const absent = await post(toolCall(3, 'echo', { text: 'no header' }), { 'mcp-session-id': sessionId });
    expect(absent.status).toBe(200);
    expect(absent.messages).toEqual([{ jsonrpc: '2.0', id: 3, result: { content: [{ type: 'text', text: 'no header' }] } }]);
  });

  test('a tools/call stream opens with the priming event (an id, retry, empty data), then the result with the next id of that stream', async () => {
    const { headers } = await openSession();
    const answer = await post(toolCall(2, 'echo', { text: 'hi' }), headers);
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('text/event-stream');
    const [priming, result] = answer.events;
    expect(answer.events).toEqual([
      { id: expect.stringMatching(EVENT_ID), retry: 50, data: '' },
      { event: 'message', id: expect.stringMatching(EVENT_ID), data: expect.any(String) },
    ]);
    expect(streamOf(result!.id)).toBe(streamOf(priming!.id));
    expect(result!.id).not.toBe(priming!.id);
    expect(answer.messages).toEqual([{ jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'hi' }] } }]);
    // The wire record saw the same events, the priming one with no message in it.
    const exchange = server.record.exchanges.at(-1)!;
    expect(exchange.sseEvents.map(({ at: _at, ...event }) => event)).toEqual(answer.events);
    expect(exchange.responseMessages.map(({ message }) => message)).toEqual(answer.messages);
  });

  test('GET with Last-Event-ID replays exactly the events after it, from that stream only', async () => {
    const { headers } = await openSession();
    const progress = await post(toolCall(2, 'progress', { steps: 3 }, { progressToken: 'p' }), headers);
    expect(progress.messages).toEqual([
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'p', progress: 1, total: 3 } },
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'p', progress: 2, total: 3 } },
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'p', progress: 3, total: 3 } },
      { jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'completed 3/3' }] } },
    ]);
    expect(progress.events).toHaveLength(5);
    // Another stream of the same session, stored in the same event store: never replayed with the first one.
    const other = await post(toolCall(3, 'echo', { text: 'other stream' }), headers);
    expect(streamOf(other.events[0]!.id)).not.toBe(streamOf(progress.events[0]!.id));

    const afterFirstNotification = await resume(progress.events[1]!.id!, headers);
    expect(afterFirstNotification.status).toBe(200);
    expect(afterFirstNotification.headers['content-type']).toBe('text/event-stream');
    expect(afterFirstNotification.headers['mcp-session-id']).toBe(headers['mcp-session-id']);
    expect(afterFirstNotification.events).toEqual(progress.events.slice(2));

    // From the priming event: everything but the priming event itself (its empty data is not a message).
    expect((await resume(progress.events[0]!.id!, headers)).events).toEqual(progress.events.slice(1));
    // The request is answered, so the server ends each replaying stream itself; the tool ran once.
    const gets = (record: WireRecord) => record.exchanges.filter((exchange) => exchange.method === 'GET');
    await server.record.waitFor((record) => gets(record).every((exchange) => exchange.endedBy !== undefined), 'both GET exchanges to end');
    const replays = gets(server.record);
    expect(replays.map((exchange) => [exchange.requestHeaders['last-event-id'], exchange.status, exchange.endedBy])).toEqual([
      [progress.events[1]!.id, 200, 'server'],
      [progress.events[0]!.id, 200, 'server'],
    ]);
    expect(server.fixtures.runsOf('progress')).toBe(1);
  });

  test('a Last-Event-ID the session never issued gets 400 -32000 "Invalid event ID format"', async () => {
    const { headers } = await openSession();
    const unknown = await resume('not-an-issued-id:1', headers);
    expect(unknown.status).toBe(400);
    expect(unknown.messages).toEqual([{ jsonrpc: '2.0', error: { code: -32000, message: 'Invalid event ID format' }, id: null }]);
  });

  test('close_stream: the POST stream ends right after the priming event; GET with its id gets the result; the tool ran once', async () => {
    const { headers } = await openSession();
    const cut = await post(toolCall(7, 'close_stream'), headers);
    expect(cut.status).toBe(200);
    expect(cut.events).toEqual([{ id: expect.stringMatching(EVENT_ID), retry: 50, data: '' }]);
    expect(cut.messages).toEqual([]);
    const postExchange = server.record.exchanges.at(-1)!;
    await server.record.waitFor(() => postExchange.endedBy !== undefined, 'the cut POST exchange to end');
    expect(postExchange).toMatchObject({ method: 'POST', status: 200, endedBy: 'server', responseMessages: [] });

    const resumed = await resume(cut.events[0]!.id!, headers);
    expect(resumed.status).toBe(200);
    expect(resumed.events).toEqual([{ event: 'message', id: expect.stringMatching(EVENT_ID), data: expect.any(String) }]);
    expect(streamOf(resumed.events[0]!.id)).toBe(streamOf(cut.events[0]!.id));
    expect(resumed.messages).toEqual([{ jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text', text: CLOSE_STREAM_ANSWER }] } }]);
    expect(server.fixtures.runsOf('close_stream')).toBe(1);
    expect(server.record.requests('tools/call')).toHaveLength(1);
  });

  test('the retry interval is set with the sse-retry personality', async () => {
    const slower = opened.keep(await startReferenceServer({ era: REVISION, personalities: [sseRetryInterval(250)] }));
    const { headers } = await openSession(slower.url);
    const answer = await post(toolCall(2, 'echo', { text: 'x' }), headers, slower.url);
    expect(answer.events[0]).toEqual({ id: expect.stringMatching(EVENT_ID), retry: 250, data: '' });
    expect(() => sseRetryInterval(250).attach!({ era: '2025-11-25', backend: { entryPath: '/sse' } as never, record: new WireRecord(), fixtures: new FixtureState() })).toThrow(
      'sse-retry applies to the Streamable HTTP era servers only',
    );
  });

  describe('factory options', () => {
    /** The era backend alone behind a loopback socket, as server.ts wires it (without personalities). */
    async function serveBackend(options: StreamableHttpOptions): Promise<string> {
      const record = new WireRecord();
      const backend = await streamableHttpEra(REVISION, options)({ fixtures: new FixtureState(), record });
      const listening = await listenOnLoopback(async (req, res) => {
        const { exchange, parsedBody } = await record.begin(req, res);
        await backend.handle({ req, res, exchange, body: parsedBody, record });
      });
      opened.keep(backend);
      opened.keep(listening);
      return `${listening.origin}${MCP_PATH}`;
    }

    test('retryIntervalMs sets the retry field', async () => {
      const url = await serveBackend({ retryIntervalMs: 80 });
      const { headers } = await openSession(url);
      expect((await post(toolCall(2, 'echo', { text: 'x' }), headers, url)).events[0]).toEqual({ id: expect.stringMatching(EVENT_ID), retry: 80, data: '' });
    });

    test('resumable: false sends no ids and no priming event, and close_stream cannot close its stream', async () => {
      const url = await serveBackend({ resumable: false });
      const { headers } = await openSession(url);
      const answer = await post(toolCall(2, 'close_stream'), headers, url);
      expect(answer.events).toEqual([{ event: 'message', data: expect.any(String) }]);
      expect(answer.messages).toEqual([
        {
          jsonrpc: '2.0',
          id: 2,
          result: {
            isError: true,
            content: [{ type: 'text', text: 'this transport cannot close the stream (needs 2025-11-25 Streamable HTTP with an event store)' }],
          },
        },
      ]);
    });
  });
});
