// The session is the wire's unit: request ids, answers, duplicates and cancellations are judged within their session
// (wire.ts sessionKey), never across sessions. Each record here is what a correct client of another shape leaves (a
// session per operation, a launch per operation) or the defect within one session, judged without running a client.
import { describe, expect, test } from 'vitest';
import type { Revision } from '../protocol/revisions.ts';
import type { JsonRpcMessage, WireExchange } from '../servers/wire-record.ts';
import { concurrentIndependent } from './cancellation/concurrent-independent.ts';
import { lateResponseIgnored } from './cancellation/late-response-ignored.ts';
import { nothingHappened } from './judged.ts';
import { inFlightMs } from './outcome.ts';
import { sseCommentsIgnored } from './resume/sse-comments-ignored.ts';
import { noDoubleExecution } from './retry/no-double-execution.ts';
import type { Check, Evidence, Scenario } from './scenario.ts';
import { requestsAnswered } from './server-requests/requests-answered.ts';
import { idsReusedInSession, requests, sessionKey } from './wire.ts';

const rpc = (message: Partial<JsonRpcMessage>): JsonRpcMessage => ({ jsonrpc: '2.0', ...message }) as JsonRpcMessage;

/** An exchange: an HTTP request by default, a stdin line with `process`. */
function exchange(seq: number, fields: Partial<WireExchange> & { process?: number; send?: Partial<JsonRpcMessage>[]; answer?: Partial<JsonRpcMessage>[] }): WireExchange {
  const { send = [], answer = [], ...rest } = fields;
  const startedAt = rest.startedAt ?? seq * 10;
  return {
    seq,
    method: 'POST',
    path: '/mcp',
    requestHeaders: {},
    requestBody: '',
    requestMessages: send.map(rpc),
    status: 200,
    responseHeaders: {},
    sse: false,
    sseEvents: [],
    responseMessages: answer.map((message) => ({ message: rpc(message), at: startedAt + 1 })),
    startedAt,
    endedAt: startedAt + 2,
    endedBy: 'server',
    notes: [],
    ...rest,
  } as WireExchange;
}

const stdin = (seq: number, process: number, fields: Parameters<typeof exchange>[1]) => exchange(seq, { method: 'STDIN', path: '', status: undefined, process, ...fields });
const session = (id: string) => ({ requestHeaders: { 'mcp-session-id': id } });
const evidenceOf = (revision: Revision, exchanges: WireExchange[], more: Partial<Evidence> = {}): Evidence => ({ ...nothingHappened(revision), exchanges, ...more });
const checkOf = (scenario: Scenario, evidence: Evidence, name: string): Check => {
  const found = scenario.judge(evidence).find((c) => c.name === name);
  if (found === undefined) throw new Error(`${scenario.id} gave no ${name}`);
  return found;
};

describe('sessionKey', () => {
  test('stdio: each server process is a session of its own', () => {
    const lines = [stdin(1, 1, { send: [{ method: 'initialize', id: 1 }] }), stdin(2, 2, { send: [{ method: 'initialize', id: 1 }] }), stdin(3, 1, { send: [{ method: 'tools/list', id: 2 }] })];
    expect(lines.map((line) => sessionKey(lines, line))).toEqual(['process 1', 'process 2', 'process 1']);
    expect(idsReusedInSession(lines)).toEqual([]);
  });

  test('HTTP: refused attempts and 2026-07-28 requests are scopes of their own; a session is its Mcp-Session-Id', () => {
    const exchanges = [
      exchange(1, { send: [{ method: 'initialize', id: 1 }], status: 404 }),
      exchange(2, { send: [{ method: 'initialize', id: 1 }], status: 404 }),
      exchange(3, { send: [{ method: 'initialize', id: 1 }], answer: [{ id: 1, result: {} }], responseHeaders: { 'mcp-session-id': 'a' } }),
      exchange(4, { send: [{ method: 'tools/list', id: 2 }], ...session('a') }),
    ];
    expect(exchanges.map((x) => sessionKey(exchanges, x))).toEqual(['exchange #1', 'exchange #2', 'a', 'a']);
  });

  test('ids reused within one session are found, the same id in two sessions is not', () => {
    const exchanges = [
      exchange(1, { send: [{ method: 'tools/call', id: 2 }], ...session('a') }),
      exchange(2, { send: [{ method: 'tools/call', id: 2 }], ...session('b') }),
      exchange(3, { send: [{ method: 'tools/call', id: 2 }], ...session('a') }),
    ];
    expect(idsReusedInSession(exchanges).map((r) => r.exchange.seq)).toEqual([3]);
    expect(requests(exchanges)).toHaveLength(3);
  });
});

describe('server-requests/requests-answered › each-answered-once', () => {
  /** A session asking one request of the server's (id 0) during a call, and the client's replies to it. */
  const asked = (first: number, id: string, method: string, replies: number): WireExchange[] => [
    exchange(first, { ...session(id), send: [{ method: 'tools/call', id: 1, params: { name: 'ask' } }], answer: [{ method, id: 0 }, { id: 1, result: {} }], sse: true }),
    ...Array.from({ length: replies }, (_, i) => exchange(first + 1 + i, { ...session(id), send: [{ id: 0, error: { code: -32601, message: 'Method not found' } }], status: 202 })),
  ];
  const initialize = exchange(1, { send: [{ method: 'initialize', id: 0, params: { capabilities: {} } }], answer: [{ id: 0, result: {} }], responseHeaders: { 'mcp-session-id': 'a' } });

  test('two sessions each answering id 0 once: each answered once', () => {
    const record = [initialize, ...asked(2, 'a', 'roots/list', 1), ...asked(10, 'b', 'sampling/createMessage', 1)];
    expect(checkOf(requestsAnswered, evidenceOf('2025-03-26', record), 'each-answered-once').outcome).toBe('pass');
    expect(checkOf(requestsAnswered, evidenceOf('2025-03-26', record), 'reply-posted').outcome).toBe('pass');
  });

  test('the same id answered twice in one session: a fail', () => {
    const record = [initialize, ...asked(2, 'a', 'roots/list', 2), ...asked(10, 'b', 'sampling/createMessage', 1)];
    const check = checkOf(requestsAnswered, evidenceOf('2025-03-26', record), 'each-answered-once');
    expect(check.outcome).toBe('fail');
    expect(check.detail).toContain('answered more than once: roots/list');
  });
});

describe('retry/no-double-execution › reissued-with-new-id', () => {
  const call = (seq: number, id: number, tool: string, fields: Parameters<typeof exchange>[1] = {}) => exchange(seq, { send: [{ method: 'tools/call', id, params: { name: tool, arguments: {} } }], ...fields });
  const dropped = { status: undefined, endedBy: 'server-dropped' as const, notes: ['dropped-after-handler'], responseMessages: [] };

  test('2024-11-05: a refused Streamable HTTP attempt before each session, all with id 1, reuse nothing', () => {
    const record = [exchange(1, { send: [{ method: 'initialize', id: 1 }], status: 404 }), exchange(2, { send: [{ method: 'initialize', id: 1 }], status: 404 })];
    expect(checkOf(noDoubleExecution, evidenceOf('2024-11-05', record), 'reissued-with-new-id').outcome).toBe('pass');
  });

  test('2026-07-28: ids restarting on each connection, each re-issue with a new id: a pass; a re-issue with the dropped id: a fail', () => {
    const perOperation = [call(1, 1, 'count', dropped), call(2, 1, 'idempotent_count', dropped), call(3, 2, 'idempotent_count', { answer: [{ id: 2, result: {} }] })];
    expect(checkOf(noDoubleExecution, evidenceOf('2026-07-28', perOperation), 'reissued-with-new-id').outcome).toBe('pass');
    const sameId = [call(1, 1, 'count', dropped), call(2, 2, 'idempotent_count', dropped), call(3, 2, 'idempotent_count', { answer: [{ id: 2, result: {} }] })];
    expect(checkOf(noDoubleExecution, evidenceOf('2026-07-28', sameId), 'reissued-with-new-id').outcome).toBe('fail');
  });
});

describe('cancellation/concurrent-independent', () => {
  const slow = (seq: number, process: number, id: number, ms: number) => stdin(seq, process, { send: [{ method: 'tools/call', id, params: { name: 'slow', arguments: { ms } } }], endedAt: undefined, endedBy: undefined });

  test('stdio: three launches each using id 1 reuse no id; one launch using it twice does', () => {
    const evidence = nothingHappened('2025-11-25');
    const ms = (n: number) => inFlightMs(evidence.time) + n;
    const perLaunch = [slow(1, 1, 1, ms(1)), slow(2, 2, 1, ms(2)), slow(3, 3, 1, ms(3))];
    const stdio = { era: '2025-11-25', personalities: [], shutdownGraceMs: 0, processes: [], survivors: [] } as unknown as Evidence['stdio'];
    expect(checkOf(concurrentIndependent, evidenceOf('2025-11-25', perLaunch, { stdio }), 'ids-unique').outcome).toBe('pass');
    const oneLaunch = [slow(1, 1, 1, ms(1)), slow(2, 1, 1, ms(2)), slow(3, 1, 2, ms(3))];
    expect(checkOf(concurrentIndependent, evidenceOf('2025-11-25', oneLaunch, { stdio }), 'ids-unique').outcome).toBe('fail');
  });

  test('a cancellation and an aborted handler in the cancelled call’s session leave the calls of other sessions with its id untouched', () => {
    const evidence = nothingHappened('2025-11-25');
    const ms = (n: number) => inFlightMs(evidence.time) + n;
    const call = (seq: number, id: string, n: number) => exchange(seq, { ...session(id), send: [{ method: 'tools/call', id: 1, params: { name: 'slow', arguments: { ms: ms(n) } } }], endedAt: undefined, endedBy: undefined, sse: true });
    const record = [call(1, 'a', 1), call(2, 'b', 2), call(3, 'c', 3), exchange(4, { ...session('b'), send: [{ method: 'notifications/cancelled', params: { requestId: 1 } }], status: 202 })];
    const toolRuns = [{ tool: 'slow', requestId: 1 }, { tool: 'slow', requestId: 1, abortedAt: 50 }, { tool: 'slow', requestId: 1 }];
    const observed = { first: { state: 'pending', afterMs: 1 }, third: { state: 'pending', afterMs: 1 }, cancelled: { state: 'rejected', afterMs: 1 } };
    const check = checkOf(concurrentIndependent, evidenceOf('2025-11-25', record, { toolRuns, observed }), 'others-run-on');
    expect(check.outcome, check.detail).toBe('pass');
    const cancelsAll = evidenceOf('2025-11-25', record, { toolRuns: toolRuns.map((run) => ({ ...run, abortedAt: 50 })), observed });
    expect(checkOf(concurrentIndependent, cancelsAll, 'others-run-on').outcome).toBe('fail');
  });
});

describe('cancellation/late-response-ignored › next-call-works', () => {
  const slowCall = exchange(1, { ...session('a'), send: [{ method: 'tools/call', id: 1, params: { name: 'slow', arguments: {} } }], sse: true, answer: [], endedBy: 'client', endedAt: 30 });
  const cancel = exchange(2, { ...session('a'), send: [{ method: 'notifications/cancelled', params: { requestId: 1 } }], status: 202, startedAt: 25 });
  const next = (first: number) => [
    exchange(first, { send: [{ method: 'initialize', id: 1 }], answer: [{ id: 1, result: {} }], responseHeaders: { 'mcp-session-id': 'b' } }),
    exchange(first + 1, { ...session('b'), send: [{ method: 'tools/call', id: 2, params: { name: 'echo', arguments: {} } }], answer: [{ id: 2, result: { content: [] } }] }),
  ];
  const lateAnswer = (at: number) => ({ ...slowCall, responseMessages: [{ message: rpc({ id: 1, result: {} }), at }] });

  test('a client per operation that ended the session before the late answer, then called on a new one: a pass', () => {
    const record = [lateAnswer(60), cancel, exchange(3, { ...session('a'), method: 'DELETE', startedAt: 40 }), ...next(4)];
    const check = checkOf(lateResponseIgnored, evidenceOf('2025-11-25', record), 'next-call-works');
    expect(check.outcome, check.detail).toBe('pass');
  });

  test('a client per operation that ended the session only after the late answer (its close waited on the held cancellation): a pass', () => {
    const record = [lateAnswer(60), cancel, exchange(3, { ...session('a'), method: 'DELETE', startedAt: 70 }), ...next(8)];
    expect(checkOf(lateResponseIgnored, evidenceOf('2025-11-25', record), 'next-call-works').outcome).toBe('pass');
  });

  test('a client that left its session open and made the next call on another: a fail', () => {
    const record = [lateAnswer(60), cancel, ...next(4)];
    expect(checkOf(lateResponseIgnored, evidenceOf('2025-11-25', record), 'next-call-works').outcome).toBe('fail');
  });
});

describe('resume/sse-comments-ignored', () => {
  /** An HTTP+SSE session: its GET stream naming an endpoint, a POSTed operation answered on the stream, the stream hung up at `hangUpAt`. */
  const httpSseSession = (first: number, hangUpAt: number, answered: boolean): WireExchange[] => [
    exchange(first, {
      method: 'GET',
      path: '/sse',
      sse: true,
      sseEvents: [{ event: 'endpoint', data: `/messages?sessionId=s${first}`, at: first * 10 }],
      responseMessages: answered ? [{ message: rpc({ id: 1, result: { tools: [] } }), at: first * 10 + 5 }] : [],
      endedBy: 'client',
      endedAt: hangUpAt,
    }),
    exchange(first + 1, { path: `/messages?sessionId=s${first}`, send: [{ method: 'tools/list', id: 1 }], status: 202, startedAt: first * 10 + 2 }),
  ];

  test('2024-11-05: a session per operation, each ended once answered, is no reconnect; a stream hung up on owing its answer, then another, is', () => {
    const perOperation = [...httpSseSession(1, 18, true), ...httpSseSession(3, 38, true)];
    expect(checkOf(sseCommentsIgnored, evidenceOf('2024-11-05', perOperation), 'no-reconnect').outcome).toBe('pass');
    const reconnects = [...httpSseSession(1, 18, false), ...httpSseSession(3, 38, true)];
    expect(checkOf(sseCommentsIgnored, evidenceOf('2024-11-05', reconnects), 'no-reconnect').outcome).toBe('fail');
  });

  test('2026-07-28: two calls with one id on two connections are no repost; the same call POSTed again is', () => {
    const echo = (seq: number) => exchange(seq, { send: [{ method: 'tools/call', id: 1, params: { name: 'echo', arguments: { text: 'x' } } }] });
    const list = (seq: number) => exchange(seq, { send: [{ method: 'tools/call', id: 1, params: { name: 'test_tool_with_logging', arguments: {} } }] });
    expect(checkOf(sseCommentsIgnored, evidenceOf('2026-07-28', [list(1), echo(2)]), 'no-repost').outcome).toBe('pass');
    expect(checkOf(sseCommentsIgnored, evidenceOf('2026-07-28', [list(1), echo(2), echo(3)]), 'no-repost').outcome).toBe('fail');
  });
});
