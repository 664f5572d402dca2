// Raw-HTTP self-tests of the HTTP-level personalities on the 2025-06-18 server: exact status,
// headers and bodies, the notes on the wire record, and normal service afterwards.
import { beforeEach, describe, expect, test } from 'vitest';
import type { Personality } from '../personality.ts';
import type { ReferenceServer } from '../reference-server.ts';
import { startReferenceServer } from '../server.ts';
import { closedAfterEach, initializeRequest, RawClient, toolCall, toolsList, type Answer, type RequestHeaders } from '../test-support.ts';
import type { WireExchange } from '../wire-record.ts';
import { authErrors } from './auth-errors.ts';
import { delayed404 } from './delayed-404.ts';
import { dropConnection } from './drop-connection.ts';
import { expiringSessions } from './expiring-sessions.ts';
import { initializeAnswers } from './initialize-answers.ts';
import { SERVER_INFO } from '../test-support.ts';
import { refusesReinitialize } from './refuses-reinitialize.ts';
import { serverErrors } from './server-errors.ts';
import { slowResponses } from './slow-responses.ts';
import { unknownSession400 } from './unknown-session-400.ts';

const REVISION = '2025-06-18';
const UUID = /^[0-9a-f-]{36}$/;

/** Closed after each test, last opened first: the server a test started (which ends any request a personality still holds), then the raw client. */
const opened = closedAfterEach();
let server: ReferenceServer | undefined;
let raw: RawClient;

beforeEach(() => {
  server = undefined;
  raw = opened.keep(new RawClient());
});

async function start(...personalities: Personality[]): Promise<ReferenceServer> {
  server = opened.keep(await startReferenceServer({ era: REVISION, personalities }));
  return server;
}

function current(): ReferenceServer {
  if (!server) throw new Error('no server started');
  return server;
}

/** A request left in flight: if the test fails before awaiting it, its rejection is not reported as unhandled. */
function inFlight<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => {});
  return promise;
}

const post = (body: unknown, headers?: RequestHeaders, signal?: AbortSignal) => raw.post(current().url, body, headers, signal);
const callCount = (id: number) => toolCall(id, 'count');
const openSession = () => raw.openSession(current().url, REVISION);

/** The exchange that carried the request with this JSON-RPC id and method. */
function exchangeOf(method: string, id: number | string): WireExchange {
  const found = current()
    .record.requests(method)
    .find(({ message }) => message.id === id);
  if (!found) throw new Error(`no ${method} request with id ${id} was recorded`);
  return found.exchange;
}

const notedWith = (label: string) => current().record.exchanges.filter((exchange) => exchange.notes.includes(label));
const allNotes = () => current().record.exchanges.flatMap((exchange) => exchange.notes);

function expectToolsServed(answer: Answer, id: number) {
  expect(answer.status).toBe(200);
  expect(answer.messages[0]).toMatchObject({ jsonrpc: '2.0', id, result: { tools: expect.any(Array) } });
}

const SESSION_NOT_FOUND = { jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null };
const NO_VALID_SESSION = { jsonrpc: '2.0', error: { code: -32000, message: 'Bad Request: No valid session ID provided' }, id: null };

describe('refuses-reinitialize', () => {
  test('the plain server: a live id gets 400 -32600 from the SDK transport, an unknown id 404 -32001 from the router', async () => {
    await start();
    const { headers } = await openSession();
    const again = await post(initializeRequest(REVISION, 2), headers);
    expect(again.status).toBe(400);
    expect(again.messages).toEqual([{ jsonrpc: '2.0', error: { code: -32600, message: 'Invalid Request: Server already initialized' }, id: null }]);
    const unknown = await post(initializeRequest(REVISION, 3), { 'mcp-session-id': 'not-a-session' });
    expect(unknown.status).toBe(404);
    expect(unknown.messages).toEqual([SESSION_NOT_FOUND]);
    expect(allNotes()).toEqual([]);
  });

  test('an initialize with a live session id is refused here and noted; the session keeps working', async () => {
    await start(refusesReinitialize());
    const { sessionId, headers } = await openSession();
    const again = await post(initializeRequest(REVISION, 2), headers);
    expect(again.status).toBe(400);
    expect(again.headers['content-type']).toBe('application/json');
    expect(again.headers['mcp-session-id']).toBeUndefined();
    expect(again.messages).toEqual([{ jsonrpc: '2.0', error: { code: -32600, message: 'Invalid Request: Server already initialized' }, id: null }]);
    expect(exchangeOf('initialize', 2).notes).toEqual(['refused-reinitialize']);
    expect(notedWith('refused-reinitialize')).toHaveLength(1);

    expectToolsServed(await post(toolsList(3), headers), 3);
    expect(current().liveSessions()).toEqual([sessionId]);
    // Not its business: an unknown id keeps the era's 404, and a fresh initialize gets a new session.
    expect((await post(initializeRequest(REVISION, 4), { 'mcp-session-id': 'not-a-session' })).status).toBe(404);
    expect(exchangeOf('initialize', 4).notes).toEqual([]);
    expect((await post(initializeRequest(REVISION, 5))).headers['mcp-session-id']).toMatch(UUID);
    expect(current().issuedSessions()).toHaveLength(2);
  });

  test('refuses to run on an era without header sessions', async () => {
    await expect(startReferenceServer({ era: '2024-11-05', personalities: [refusesReinitialize()] })).rejects.toThrow(
      'personality refuses-reinitialize does not apply to era 2024-11-05',
    );
  });
});

describe('expiring-sessions', () => {
  test('afterRequests: N requests are served, the next finds the session gone (404), noted once', async () => {
    await start(expiringSessions({ afterRequests: 2 }));
    const { sessionId, headers } = await openSession();
    expectToolsServed(await post(toolsList(2), headers), 2);
    expectToolsServed(await post(toolsList(3), headers), 3);
    const third = await post(toolsList(4), headers);
    expect(third.status).toBe(404);
    expect(third.headers['content-type']).toBe('application/json');
    expect(third.messages).toEqual([SESSION_NOT_FOUND]);
    expect(exchangeOf('tools/list', 4).notes).toEqual(['session-expired']);
    expect(current().liveSessions()).toEqual([]);
    // Later requests with the dead id get the era's 404 without a note: the expiry was met once.
    expect((await post(toolsList(5), headers)).status).toBe(404);
    expect(notedWith('session-expired')).toHaveLength(1);

    const fresh = await openSession();
    expect(fresh.sessionId).not.toBe(sessionId);
    expectToolsServed(await post(toolsList(6), fresh.headers), 6);
  });

  test('expireNow(id) ends that session only; the next exchange carrying it is noted', async () => {
    const expiring = expiringSessions();
    await start(expiring);
    const doomed = await openSession();
    const survivor = await openSession();
    await expiring.expireNow(doomed.sessionId);
    expect(current().liveSessions()).toEqual([survivor.sessionId]);
    expect(allNotes()).toEqual([]);
    const gone = await post(toolsList(2), doomed.headers);
    expect(gone.status).toBe(404);
    expect(gone.messages).toEqual([SESSION_NOT_FOUND]);
    expect(exchangeOf('tools/list', 2).notes).toEqual(['session-expired']);
    expectToolsServed(await post(toolsList(3), survivor.headers), 3);
    expect(exchangeOf('tools/list', 3).notes).toEqual([]);
  });

  test('expireNow() ends every live session; afterRequests(n) set later counts from the session start', async () => {
    const expiring = expiringSessions();
    await start(expiring);
    const first = await openSession();
    const second = await openSession();
    await expiring.expireNow();
    expect(current().liveSessions()).toEqual([]);
    expect((await post(toolsList(2), first.headers)).status).toBe(404);
    expect((await post(toolsList(3), second.headers)).status).toBe(404);
    expect(notedWith('session-expired')).toHaveLength(2);

    const third = await openSession();
    expectToolsServed(await post(toolsList(4), third.headers), 4);
    expiring.afterRequests(1);
    expect((await post(toolsList(5), third.headers)).status).toBe(404);
    expect(exchangeOf('tools/list', 5).notes).toEqual(['session-expired']);
  });
});

describe('unknown-session-400', () => {
  test('an unknown id gets the SDK-example 400 -32000; a missing id keeps the era answer; live sessions work', async () => {
    await start(unknownSession400());
    const { headers } = await openSession();
    const unknown = await post(toolsList(2), { 'mcp-session-id': 'not-a-session', 'mcp-protocol-version': REVISION });
    expect(unknown.status).toBe(400);
    expect(unknown.headers['content-type']).toBe('application/json');
    expect(unknown.messages).toEqual([NO_VALID_SESSION]);
    expect(exchangeOf('tools/list', 2).notes).toEqual(['unknown-session-400']);
    // As in the SDK examples' catch-all branch: an initialize with an unknown id, too.
    expect((await post(initializeRequest(REVISION, 3), { 'mcp-session-id': 'not-a-session' })).messages).toEqual([NO_VALID_SESSION]);

    const missing = await post(toolsList(4), { 'mcp-protocol-version': REVISION });
    expect(missing.status).toBe(400);
    expect(missing.messages).toEqual([{ jsonrpc: '2.0', error: { code: -32000, message: 'Bad Request: Mcp-Session-Id header is required' }, id: null }]);
    expect(exchangeOf('tools/list', 4).notes).toEqual([]);
    expectToolsServed(await post(toolsList(5), headers), 5);
    expect(notedWith('unknown-session-400')).toHaveLength(2);
  });

  test('after expiring-sessions: the expired session is answered 400 instead of 404, with both notes', async () => {
    await start(expiringSessions({ afterRequests: 1 }), unknownSession400());
    const { headers } = await openSession();
    expectToolsServed(await post(toolsList(2), headers), 2);
    const expired = await post(toolsList(3), headers);
    expect(expired.status).toBe(400);
    expect(expired.messages).toEqual([NO_VALID_SESSION]);
    expect(exchangeOf('tools/list', 3).notes).toEqual(['session-expired', 'unknown-session-400']);
    expect(current().liveSessions()).toEqual([]);
    const fresh = await openSession();
    expectToolsServed(await post(toolsList(4), fresh.headers), 4);
  });
});

describe('delayed-404', () => {
  test('two requests in flight on an expired session: the second 404 arrives after a new session was made', async () => {
    const delayed = delayed404();
    await start(delayed);
    const old = await openSession();
    await current().expireSession(old.sessionId);

    const first = inFlight(post(toolsList(2), old.headers));
    await current().record.waitFor(() => notedWith('delayed-404').length === 1, 'the first request to be held');
    const second = inFlight(post(toolsList(3), old.headers));
    await current().record.waitFor(() => notedWith('delayed-404').length === 2, 'the second request to be held');
    expect(delayed.heldCount()).toBe(2);
    expect(exchangeOf('tools/list', 2).status).toBeUndefined();

    expect(delayed.releaseDelayed(1)).toBe(1);
    const firstAnswer = await first;
    expect(firstAnswer.status).toBe(404);
    expect(firstAnswer.messages).toEqual([SESSION_NOT_FOUND]);

    const replacement = await openSession();
    expect(delayed.heldCount()).toBe(1);
    expect(exchangeOf('tools/list', 3).status).toBeUndefined();
    expect(delayed.releaseDelayed()).toBe(1);
    const stale = await second;
    expect(stale.status).toBe(404);
    expect(stale.messages).toEqual([SESSION_NOT_FOUND]);
    expect(exchangeOf('tools/list', 3).headersAt!).toBeGreaterThan(exchangeOf('initialize', 1).headersAt!);
    expect(exchangeOf('tools/list', 3).notes).toEqual(['delayed-404']);

    expect(current().liveSessions()).toEqual([replacement.sessionId]);
    expectToolsServed(await post(toolsList(4), replacement.headers), 4);
    expect(delayed.heldCount()).toBe(0);
  });

  test('before unknown-session-400: the held answer is its 400', async () => {
    const delayed = delayed404();
    await start(delayed, unknownSession400());
    const { sessionId, headers } = await openSession();
    await current().expireSession(sessionId);
    const pending = inFlight(post(toolsList(2), headers));
    await current().record.waitFor(() => notedWith('delayed-404').length === 1, 'the request to be held');
    expect(delayed.heldCount()).toBe(1);
    delayed.releaseDelayed();
    const answer = await pending;
    expect(answer.status).toBe(400);
    expect(answer.messages).toEqual([NO_VALID_SESSION]);
    expect(exchangeOf('tools/list', 2).notes).toEqual(['delayed-404', 'unknown-session-400']);
  });

  test('a hold is bounded: after maxHoldMs the 404 goes out by itself, noted', async () => {
    const delayed = delayed404({ maxHoldMs: 50 });
    await start(delayed);
    const { sessionId, headers } = await openSession();
    await current().expireSession(sessionId);
    const answer = await post(toolsList(2), headers);
    expect(answer.status).toBe(404);
    expect(answer.messages).toEqual([SESSION_NOT_FOUND]);
    expect(exchangeOf('tools/list', 2).notes).toEqual(['delayed-404', 'delayed-404-timeout']);
    expect(delayed.heldCount()).toBe(0);
  });

  test('ids the server never issued, and live sessions, are not held', async () => {
    const delayed = delayed404();
    await start(delayed);
    const { headers } = await openSession();
    const unknown = await post(toolsList(2), { 'mcp-session-id': 'not-a-session', 'mcp-protocol-version': REVISION });
    expect(unknown.status).toBe(404);
    expectToolsServed(await post(toolsList(3), headers), 3);
    expect(allNotes()).toEqual([]);
  });

  test('a client hanging up or the server closing ends a hold without answering it', async () => {
    const delayed = delayed404();
    const running = await start(delayed);
    const { sessionId, headers } = await openSession();
    await running.expireSession(sessionId);

    const controller = new AbortController();
    const abandoned = inFlight(post(toolsList(2), headers, controller.signal));
    await running.record.waitFor(() => notedWith('delayed-404').length === 1, 'the request to be held');
    expect(delayed.heldCount()).toBe(1);
    controller.abort();
    await expect(abandoned).rejects.toThrow();
    await running.record.waitFor(() => exchangeOf('tools/list', 2).endedBy !== undefined, 'the abandoned exchange to end');
    expect(exchangeOf('tools/list', 2).endedBy).toBe('client');
    expect(exchangeOf('tools/list', 2).status).toBeUndefined();
    expect(delayed.heldCount()).toBe(0);

    const cut = inFlight(post(toolsList(3), headers));
    await running.record.waitFor(() => notedWith('delayed-404').length === 2, 'the second request to be held');
    expect(delayed.heldCount()).toBe(1);
    await running.close();
    await expect(cut).rejects.toMatchObject({ code: 'UND_ERR_SOCKET' });
    expect(delayed.heldCount()).toBe(0);
    expect(exchangeOf('tools/list', 3).status).toBeUndefined();
  });
});

describe('drop-connection', () => {
  test('before the handler: no answer, the tool never ran, the record has no status; then service as usual', async () => {
    const dropping = dropConnection();
    await start(dropping);
    const { sessionId, headers } = await openSession();
    dropping.dropNext(1, { method: 'tools/call' });
    expectToolsServed(await post(toolsList(2), headers), 2);
    expect(dropping.pending()).toBe(1);

    await expect(post(callCount(3), headers)).rejects.toMatchObject({ code: 'UND_ERR_SOCKET' });
    await current().record.waitFor(() => exchangeOf('tools/call', 3).endedBy !== undefined, 'the dropped exchange to end');
    expect(exchangeOf('tools/call', 3).status).toBeUndefined();
    expect(exchangeOf('tools/call', 3).headersAt).toBeUndefined();
    expect(exchangeOf('tools/call', 3)).toMatchObject({
      responseHeaders: {},
      responseMessages: [],
      endedBy: 'server-dropped',
      notes: ['dropped-before-handler'],
    });
    expect(current().fixtures.runsOf('count')).toBe(0);
    expect(dropping.pending()).toBe(0);

    const next = await post(callCount(4), headers);
    expect(next.status).toBe(200);
    expect(next.messages[0]).toMatchObject({ id: 4, result: { content: [{ type: 'text', text: '1' }] } });
    expect(current().liveSessions()).toEqual([sessionId]);
  });

  test('after the handler: the tool ran but its answer never left; the record has no status either', async () => {
    const dropping = dropConnection();
    await start(dropping);
    const { headers } = await openSession();
    dropping.dropNext(1, { when: 'after', method: 'tools/call' });

    await expect(post(callCount(2), headers)).rejects.toMatchObject({ code: 'UND_ERR_SOCKET' });
    await current().record.waitFor(() => exchangeOf('tools/call', 2).endedBy !== undefined, 'the dropped exchange to end');
    expect(current().fixtures.runsOf('count')).toBe(1);
    expect(exchangeOf('tools/call', 2).status).toBeUndefined();
    expect(exchangeOf('tools/call', 2)).toMatchObject({
      responseHeaders: {},
      responseMessages: [],
      sseEvents: [],
      endedBy: 'server-dropped',
      notes: ['dropped-after-handler'],
    });

    const next = await post(callCount(3), headers);
    expect(next.messages[0]).toMatchObject({ id: 3, result: { content: [{ type: 'text', text: '2' }] } });
  });

  test('armed from the options for n requests; the others pass', async () => {
    const dropping = dropConnection({ method: 'tools/call', count: 2 });
    await start(dropping);
    const { headers } = await openSession();
    await expect(post(callCount(2), headers)).rejects.toMatchObject({ code: 'UND_ERR_SOCKET' });
    expectToolsServed(await post(toolsList(3), headers), 3);
    await expect(post(callCount(4), headers)).rejects.toMatchObject({ code: 'UND_ERR_SOCKET' });
    expect((await post(callCount(5), headers)).messages[0]).toMatchObject({ id: 5, result: { content: [{ text: '1' }] } });
    await current().record.waitFor(() => notedWith('dropped-before-handler').length === 2, 'two drops to be noted');
    expect(notedWith('dropped-before-handler').map((e) => e.requestMessages[0]!.id)).toEqual([2, 4]);
  });
});

describe('server-errors', () => {
  test('503 with Retry-After for the next tools/call; the era never saw it; the next call is served', async () => {
    const failing = serverErrors();
    await start(failing);
    const { headers } = await openSession();
    failing.failNext(1, { status: 503, retryAfterSeconds: 2, method: 'tools/call' });
    const failed = await post(callCount(2), headers);
    expect(failed.status).toBe(503);
    expect(failed.headers['retry-after']).toBe('2');
    expect(failed.headers['content-type']).toBe('text/plain');
    expect(failed.text).toBe('Service Unavailable');
    expect(exchangeOf('tools/call', 2).notes).toEqual(['server-error']);
    expect(current().fixtures.runsOf('count')).toBe(0);
    expect((await post(callCount(3), headers)).messages[0]).toMatchObject({ id: 3, result: { content: [{ text: '1' }] } });
  });

  test('500 and 502 without Retry-After, one each, in the order armed', async () => {
    const failing = serverErrors();
    await start(failing);
    const { headers } = await openSession();
    failing.failNext(1, { status: 500 });
    failing.failNext(1, { status: 502 });
    const internal = await post(toolsList(2), headers);
    expect([internal.status, internal.text, internal.headers['retry-after']]).toEqual([500, 'Internal Server Error', undefined]);
    const gateway = await post(toolsList(3), headers);
    expect([gateway.status, gateway.text, gateway.headers['retry-after']]).toEqual([502, 'Bad Gateway', undefined]);
    expectToolsServed(await post(toolsList(4), headers), 4);
    expect(notedWith('server-error')).toHaveLength(2);
  });

  test('always on from the options: every initialize gets 503, no session is made', async () => {
    await start(serverErrors({ status: 503, retryAfterSeconds: 1 }));
    for (const id of [1, 2]) {
      const answer = await post(initializeRequest(REVISION, id));
      expect([answer.status, answer.headers['retry-after']]).toEqual([503, '1']);
    }
    expect(current().issuedSessions()).toEqual([]);
    expect(notedWith('server-error')).toHaveLength(2);
  });
});

describe('auth-errors', () => {
  test('401 with a Bearer challenge for the next tools/call; then served', async () => {
    const auth = authErrors();
    await start(auth);
    const { headers } = await openSession();
    auth.rejectNext(1, { method: 'tools/call' });
    const rejected = await post(callCount(2), headers);
    expect(rejected.status).toBe(401);
    expect(rejected.headers['www-authenticate']).toBe('Bearer error="invalid_token", error_description="Missing or invalid access token"');
    expect(rejected.headers['content-type']).toBe('application/json');
    expect(JSON.parse(rejected.text)).toEqual({ error: 'invalid_token', error_description: 'Missing or invalid access token' });
    expect(exchangeOf('tools/call', 2).notes).toEqual(['auth-401']);
    expect(current().fixtures.runsOf('count')).toBe(0);
    expect((await post(callCount(3), headers)).messages[0]).toMatchObject({ id: 3, result: { content: [{ text: '1' }] } });
  });

  test('403 insufficient_scope; then served', async () => {
    const auth = authErrors();
    await start(auth);
    const { headers } = await openSession();
    auth.rejectNext(1, { status: 403 });
    const rejected = await post(toolsList(2), headers);
    expect(rejected.status).toBe(403);
    expect(rejected.headers['www-authenticate']).toBe('Bearer error="insufficient_scope", error_description="Insufficient scope"');
    expect(JSON.parse(rejected.text)).toEqual({ error: 'insufficient_scope', error_description: 'Insufficient scope' });
    expect(exchangeOf('tools/list', 2).notes).toEqual(['auth-403']);
    expectToolsServed(await post(toolsList(3), headers), 3);
  });

  test('always on from the options: every request is rejected', async () => {
    const auth = authErrors({ status: 401 });
    await start(auth);
    for (const id of [1, 2]) expect((await post(initializeRequest(REVISION, id))).status).toBe(401);
    expect(current().issuedSessions()).toEqual([]);
    expect(notedWith('auth-401')).toHaveLength(2);
    expect(auth.pending()).toBe(Infinity);
  });
});

describe('slow-responses', () => {
  test('the matching request is answered late and in full; others are not slowed', async () => {
    const slow = slowResponses();
    await start(slow);
    const { headers } = await openSession();
    slow.slowNext(1, { ms: 150, method: 'tools/list' });
    expect((await post(callCount(2), headers)).status).toBe(200);
    expectToolsServed(await post(toolsList(3), headers), 3);
    const slowed = exchangeOf('tools/list', 3);
    expect(slowed.notes).toEqual(['slowed']);
    // Timers may fire a millisecond early against performance.now(); the wait itself started after the body was read.
    expect(slowed.headersAt! - slowed.startedAt).toBeGreaterThanOrEqual(149);
    expect(exchangeOf('tools/call', 2).notes).toEqual([]);
    expect(slow.waiting()).toBe(0);
  });

  test('a client hanging up during the wait clears it: the request is never handled', async () => {
    const slow = slowResponses({ ms: 60_000, method: 'tools/call', count: 1 });
    await start(slow);
    const { headers } = await openSession();
    const controller = new AbortController();
    const abandoned = inFlight(post(callCount(2), headers, controller.signal));
    await current().record.waitFor(() => notedWith('slowed').length === 1, 'the call to be slowed');
    expect(slow.waiting()).toBe(1);
    controller.abort();
    await expect(abandoned).rejects.toThrow();
    await current().record.waitFor(() => exchangeOf('tools/call', 2).endedBy !== undefined, 'the abandoned exchange to end');
    expect(slow.waiting()).toBe(0);
    expect(current().fixtures.runsOf('count')).toBe(0);
    expect((await post(callCount(3), headers)).messages[0]).toMatchObject({ id: 3, result: { content: [{ text: '1' }] } });
  });

  test('closing the server ends a wait at once', async () => {
    const slow = slowResponses({ ms: 60_000, method: 'tools/list' });
    const running = await start(slow);
    const { headers } = await openSession();
    const cut = inFlight(post(toolsList(2), headers));
    await running.record.waitFor(() => notedWith('slowed').length === 1, 'the request to be slowed');
    expect(slow.waiting()).toBe(1);
    await running.close();
    await expect(cut).rejects.toMatchObject({ code: 'UND_ERR_SOCKET' });
    expect(slow.waiting()).toBe(0);
  });
});

describe('initialize-answers', () => {
  test('a result naming an unsupported revision, with a session id header, noted; then the era serves', async () => {
    await start(initializeAnswers({ revision: '1999-01-01', count: 1 }));
    const answer = await post(initializeRequest(REVISION, 'init-1'));
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('application/json');
    expect(answer.headers['mcp-session-id']).toMatch(UUID);
    expect(answer.messages).toEqual([
      { jsonrpc: '2.0', id: 'init-1', result: { protocolVersion: '1999-01-01', capabilities: { tools: {} }, serverInfo: SERVER_INFO } },
    ]);
    expect(exchangeOf('initialize', 'init-1').notes).toEqual(['initialize-unsupported-revision']);
    // The era knows nothing of that id.
    expect(current().issuedSessions()).toEqual([]);
    const follow = { 'mcp-session-id': String(answer.headers['mcp-session-id']), 'mcp-protocol-version': REVISION };
    expect((await post(toolsList(2), follow)).status).toBe(404);

    const { headers } = await openSession();
    expect(exchangeOf('initialize', 1).responseMessages[0]!.message.result!.protocolVersion).toBe(REVISION);
    expectToolsServed(await post(toolsList(3), headers), 3);
    expect(notedWith('initialize-unsupported-revision')).toHaveLength(1);
  });

  test('by default every initialize gets revision 1999-01-01', async () => {
    await start(initializeAnswers());
    for (const id of [1, 2]) expect((await post(initializeRequest(REVISION, id))).messages[0].result.protocolVersion).toBe('1999-01-01');
    expect(notedWith('initialize-unsupported-revision')).toHaveLength(2);
  });

  test('the error form: 200 with -32602 and data {supported, requested}; a retry with a listed version gets a session', async () => {
    await start(initializeAnswers({ error: {} }));
    const refused = await post(initializeRequest('1.0.0', 7));
    expect(refused.status).toBe(200);
    expect(refused.headers['content-type']).toBe('application/json');
    expect(refused.headers['mcp-session-id']).toBeUndefined();
    expect(refused.messages).toEqual([
      {
        jsonrpc: '2.0',
        id: 7,
        error: { code: -32602, message: 'Unsupported protocol version', data: { supported: [REVISION], requested: '1.0.0' } },
      },
    ]);
    expect(exchangeOf('initialize', 7).notes).toEqual(['initialize-error-form']);

    const retried = await post(initializeRequest(REVISION, 8));
    expect(retried.status).toBe(200);
    expect(retried.messages[0]).toMatchObject({ id: 8, result: { protocolVersion: REVISION } });
    expect(current().issuedSessions()).toEqual([retried.headers['mcp-session-id']]);
    expect(exchangeOf('initialize', 8).notes).toEqual([]);
  });

  test('the error form at HTTP 400, with a given supported list', async () => {
    await start(initializeAnswers({ error: { status: 400, supported: ['2025-03-26', REVISION] } }));
    const refused = await post(initializeRequest('2024-11-05', 1));
    expect(refused.status).toBe(400);
    expect(refused.messages).toEqual([
      {
        jsonrpc: '2.0',
        id: 1,
        error: { code: -32602, message: 'Unsupported protocol version', data: { supported: ['2025-03-26', REVISION], requested: '2024-11-05' } },
      },
    ]);
    expect(exchangeOf('initialize', 1).notes).toEqual(['initialize-error-form']);
    expect((await post(initializeRequest(REVISION, 2))).status).toBe(200);
    expect(current().issuedSessions()).toHaveLength(1);
  });
});
