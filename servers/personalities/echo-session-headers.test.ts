// Raw-HTTP self-tests of the echo-session-headers front (and, through it, of the streaming proxy core).
import type { RequestListener } from 'node:http';
import { beforeEach, describe, expect, test } from 'vitest';
import { listenOnLoopback } from '../listen.ts';
import type { Front, FrontDependencies } from '../personality.ts';
import type { ReferenceServer } from '../reference-server.ts';
import { startReferenceServer } from '../server.ts';
import { closedAfterEach, initializeRequest, MODERN, modernRequest, RawClient, toolCall, toolsList, type RequestHeaders } from '../test-support.ts';
import { WireRecord } from '../wire-record.ts';
import { echoSessionHeaders, type EchoSessionHeaders } from './echo-session-headers.ts';

const REVISION = '2025-06-18';
/** The raw client, servers, fronts and backends a test opened; closed after it, last opened first. */
const opened = closedAfterEach();
let raw: RawClient;

beforeEach(() => {
  raw = opened.keep(new RawClient());
});

async function serve(echo: EchoSessionHeaders): Promise<ReferenceServer> {
  return opened.keep(await startReferenceServer({ era: REVISION, personalities: [echo] }));
}

/** The front alone, in front of a backend the test controls (and whose record it can read). */
async function frontOf(echo: EchoSessionHeaders, backendUrl: string): Promise<Front> {
  const dependencies: FrontDependencies = {
    backendUrl,
    backendRecord: new WireRecord(),
    recording: true,
    startInstance: () => Promise.reject(new Error('echo-session-headers starts no instance')),
  };
  return opened.keep(await echo.front!(dependencies));
}

const post = (url: string, body: unknown, headers?: RequestHeaders) => raw.post(url, body, headers);

/** A 2026-07-28 request with the client-minted affinity key on `Mcp-Session-Id` (then `headers`). */
function modern(url: string, key: string, id: number, method: string, headers: RequestHeaders = {}) {
  const call = modernRequest(id, method);
  return post(url, call.body, { ...call.headers, 'mcp-session-id': key, ...headers });
}

const openSession = (url: string) => raw.openSession(url, REVISION);

/** A plain HTTP backend on 127.0.0.1 whose answers the test scripts. */
async function scriptedBackend(handler: RequestListener): Promise<string> {
  const listening = opened.keep(await listenOnLoopback(handler));
  return `${listening.origin}/mcp`;
}

describe('echo-session-headers', () => {
  test('the InitializeResult keeps the issued id; every later response echoes the request id, 202 and errors included', async () => {
    const echo = echoSessionHeaders();
    const server = await serve(echo);
    const { sessionId, headers, init, initialized } = await openSession(server.url);
    expect(server.issuedSessions()).toEqual([sessionId]);
    expect(init.messages[0].result.protocolVersion).toBe(REVISION);
    // The SDK sends no session header on a 202: this one is the echo's.
    expect(initialized.headers['mcp-session-id']).toBe(sessionId);

    const list = await post(server.url, toolsList(2), headers);
    expect(list.status).toBe(200);
    expect(list.headers['mcp-session-id']).toBe(sessionId);
    expect(list.messages[0].result.tools.map((t: { name: string }) => t.name)).toEqual(expect.arrayContaining(['echo', 'slow', 'count']));

    // The backend's 404 carries no session header; the echo adds the request's.
    const unknown = await post(server.url, toolsList(3), { 'mcp-session-id': 'not-a-session', 'mcp-protocol-version': REVISION });
    expect(unknown.status).toBe(404);
    expect(unknown.headers['mcp-session-id']).toBe('not-a-session');
    expect(unknown.messages).toEqual([{ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null }]);

    expect(server.record.exchanges.map((e) => [e.status, e.responseHeaders['mcp-session-id'], e.notes])).toEqual([
      [200, sessionId, []],
      [202, sessionId, ['echoed-session-id']],
      [200, sessionId, ['echoed-session-id']],
      [404, 'not-a-session', ['echoed-session-id']],
    ]);
  });

  test('injectOnError: the next error response carries the injected id, exactly once', async () => {
    const echo = echoSessionHeaders();
    const server = await serve(echo);
    const { sessionId, headers } = await openSession(server.url);
    echo.injectOnError('injected-on-error');

    const ok = await post(server.url, toolsList(2), headers);
    expect([ok.status, ok.headers['mcp-session-id']]).toEqual([200, sessionId]);

    const wrongVersion = { ...headers, 'mcp-protocol-version': '2025-03-26' };
    const first = await post(server.url, toolsList(3), wrongVersion);
    expect(first.status).toBe(400);
    expect(first.headers['mcp-session-id']).toBe('injected-on-error');
    expect(first.messages[0].error.code).toBe(-32000);
    expect(first.messages[0].error.message).toMatch(/^Bad Request: Unsupported protocol version: 2025-03-26/);

    const second = await post(server.url, toolsList(4), wrongVersion);
    expect([second.status, second.headers['mcp-session-id']]).toEqual([400, sessionId]);

    expect(server.record.exchanges.slice(2).map((e) => e.notes)).toEqual([
      ['echoed-session-id'],
      ['injected-session-id:injected-on-error'],
      ['echoed-session-id'],
    ]);
    // The injected id never reached the backend as a session: the live one is unchanged.
    expect(server.liveSessions()).toEqual([sessionId]);
  });

  test('injectOnNextResponse: never on the InitializeResult, then on the next response (of the method given), exactly once', async () => {
    const echo = echoSessionHeaders();
    const server = await serve(echo);
    echo.injectOnNextResponse('injected-any');
    const { sessionId, headers, init, initialized } = await openSession(server.url);
    expect(init.headers['mcp-session-id']).toBe(sessionId);
    expect(server.issuedSessions()).toEqual([sessionId]);
    expect(initialized.headers['mcp-session-id']).toBe('injected-any');

    echo.injectOnNextResponse('injected-on-list', { method: 'tools/list' });
    const ping = await post(server.url, { jsonrpc: '2.0', id: 2, method: 'ping' }, headers);
    expect([ping.status, ping.headers['mcp-session-id']]).toEqual([200, sessionId]);
    expect(ping.messages).toEqual([{ jsonrpc: '2.0', id: 2, result: {} }]);
    const list = await post(server.url, toolsList(3), headers);
    expect([list.status, list.headers['mcp-session-id']]).toEqual([200, 'injected-on-list']);
    expect(list.messages[0].result.tools).toContainEqual(expect.objectContaining({ name: 'echo' }));
    const again = await post(server.url, toolsList(4), headers);
    expect([again.status, again.headers['mcp-session-id']]).toEqual([200, sessionId]);

    expect(server.record.exchanges.map((e) => e.notes)).toEqual([
      [],
      ['injected-session-id:injected-any'],
      ['echoed-session-id'],
      ['injected-session-id:injected-on-list'],
      ['echoed-session-id'],
    ]);
  });

  test('the echo replaces an id the backend sent; a request without one, and an InitializeResult, keep the backend header', async () => {
    const backendUrl = await scriptedBackend((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'backend-minted' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: 1, result: {} }));
      });
    });
    const front = await frontOf(echoSessionHeaders(), backendUrl);

    const echoed = await post(front.url, toolsList(1), { 'mcp-session-id': 'client-key' });
    expect([echoed.status, echoed.headers['mcp-session-id']]).toEqual([200, 'client-key']);
    expect(echoed.messages).toEqual([{ jsonrpc: '2.0', id: 1, result: {} }]);
    const keyless = await post(front.url, toolsList(1));
    expect(keyless.headers['mcp-session-id']).toBe('backend-minted');
    const initializeResult = await post(front.url, initializeRequest(REVISION), { 'mcp-session-id': 'client-key' });
    expect(initializeResult.headers['mcp-session-id']).toBe('backend-minted');
    expect(front.record.exchanges.map((e) => e.notes)).toEqual([['echoed-session-id'], [], []]);
  });

  test('an SSE stream flows through event by event, not buffered', async () => {
    let sendSecond!: () => void;
    const secondAllowed = new Promise<void>((resolve) => (sendSecond = resolve));
    opened.defer(() => sendSecond());
    const backendUrl = await scriptedBackend((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.write('event: message\ndata: {"jsonrpc":"2.0","method":"first"}\n\n');
      void secondAllowed.then(() => {
        if (!res.destroyed) res.end('event: message\ndata: {"jsonrpc":"2.0","method":"second"}\n\n');
      });
    });
    const front = await frontOf(echoSessionHeaders(), backendUrl);

    const stream = await raw.openStream(front.url, { 'mcp-session-id': 'key' });
    expect(stream.status).toBe(200);
    expect(stream.headers['content-type']).toBe('text/event-stream');
    expect(stream.headers['mcp-session-id']).toBe('key');
    // The backend has not finished (it waits for us): a buffering proxy would time out here.
    expect(await stream.next('the first event while the backend stream is still open')).toEqual({ event: 'message', data: '{"jsonrpc":"2.0","method":"first"}' });
    sendSecond();
    expect(await stream.next('the second event')).toEqual({ event: 'message', data: '{"jsonrpc":"2.0","method":"second"}' });
    expect(await stream.rest('the end of the stream')).toEqual([]);

    await front.record.waitFor((r) => r.exchanges[0]?.endedBy !== undefined, 'the front exchange to end');
    expect(front.record.exchanges[0]).toMatchObject({ method: 'GET', status: 200, sse: true, endedBy: 'server' });
    expect(front.record.exchanges[0]!.responseMessages.map(({ message }) => message.method)).toEqual(['first', 'second']);
  });

  test('a long tools/call streams its head at once, and a client hang-up reaches the backend (POST and GET streams)', async () => {
    const backend = opened.keep(await startReferenceServer({ era: REVISION }));
    const front = await frontOf(echoSessionHeaders(), backend.url);
    const { sessionId, headers } = await openSession(front.url);

    const call = await raw.postStream(front.url, toolCall(5, 'slow', { ms: 20_000 }), headers);
    // The head came through while the tool is still running.
    expect(call.status).toBe(200);
    expect(call.headers['content-type']).toBe('text/event-stream');
    expect(call.headers['mcp-session-id']).toBe(sessionId);
    const run = await backend.fixtures.waitForRun((r) => r.tool === 'slow', 'the slow tool to start');
    expect(backend.fixtures.runsOf('slow')).toBe(1);
    expect(run.finishedAt).toBeUndefined();
    call.close();
    await expect(call.rest()).rejects.toThrow();
    await backend.record.waitFor((r) => r.exchanges.at(-1)!.endedBy !== undefined, 'the backend to see the call stream end');
    expect(backend.record.exchanges.at(-1)).toMatchObject({ method: 'POST', endedBy: 'client' });
    await front.record.waitFor((r) => r.exchanges.at(-1)!.endedBy !== undefined, 'the front to see the call stream end');
    expect(front.record.exchanges.at(-1)).toMatchObject({ method: 'POST', endedBy: 'client' });

    const stream = await raw.openStream(front.url, headers);
    expect(stream.status).toBe(200);
    expect(stream.headers['content-type']).toBe('text/event-stream');
    await backend.record.waitFor((r) => r.exchanges.at(-1)!.method === 'GET', 'the GET to reach the backend');
    expect(backend.record.exchanges.at(-1)!.endedBy).toBeUndefined();
    stream.close();
    await expect(stream.rest()).rejects.toThrow();
    await backend.record.waitFor((r) => r.exchanges.at(-1)!.endedBy !== undefined, 'the backend to see the GET stream end');
    expect(backend.record.exchanges.at(-1)).toMatchObject({ method: 'GET', status: 200, endedBy: 'client' });
  });

  test('a non-local Origin still gets 403 through the front', async () => {
    const server = await serve(echoSessionHeaders());
    const rejected = await post(server.url, initializeRequest(REVISION), { origin: 'http://evil.example' });
    expect(rejected.status).toBe(403);
    expect(rejected.messages).toEqual([{ jsonrpc: '2.0', error: { code: -32000, message: 'Invalid Origin: evil.example' }, id: null }]);
    expect(server.record.exchanges).toHaveLength(1);
    expect(server.record.exchanges[0]).toMatchObject({ status: 403, requestHeaders: { origin: 'http://evil.example' }, notes: [] });
    expect(server.issuedSessions()).toEqual([]);
  });

  test('close() ends open streams and is safe to call twice', async () => {
    const server = await serve(echoSessionHeaders());
    const { headers } = await openSession(server.url);
    const stream = await raw.openStream(server.url, headers);
    expect(stream.status).toBe(200);
    await Promise.all([server.close(), server.close()]);
    await expect(stream.rest()).rejects.toThrow();
  });

  test('2026-07-28: the client-minted affinity key comes back on every response, and an injected one exactly once', async () => {
    const echo = echoSessionHeaders();
    const server = opened.keep(await startReferenceServer({ era: MODERN, personalities: [echo] }));
    const discover = await modern(server.url, 'minted-key', 1, 'server/discover');
    expect(discover.status).toBe(200);
    expect(discover.headers['mcp-session-id']).toBe('minted-key');
    expect(discover.messages[0].result.supportedVersions).toEqual([MODERN]);

    echo.injectOnNextResponse('proxy-minted');
    const list = await modern(server.url, 'minted-key', 2, 'tools/list');
    expect([list.status, list.headers['mcp-session-id']]).toEqual([200, 'proxy-minted']);
    // A header that contradicts the body: the SDK's 400 -32020, with the key echoed.
    const mismatch = await modern(server.url, 'minted-key', 3, 'tools/list', { 'mcp-method': 'prompts/list' });
    expect(mismatch.status).toBe(400);
    expect(mismatch.headers['mcp-session-id']).toBe('minted-key');
    expect(mismatch.messages[0].error.code).toBe(-32020);

    expect(server.issuedSessions()).toEqual([]);
    expect(server.record.exchanges.map((e) => e.notes)).toEqual([['echoed-session-id'], ['injected-session-id:proxy-minted'], ['echoed-session-id']]);
  });
});
