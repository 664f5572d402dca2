// Every endpoint of every era, given a bad request: the documented answer (EXPECTED below), the exchange recorded
// once with that status, and the same server still serving — the session the bad request aimed at, and a new one.
//
// The answers, and why each is kept (`—`: no answer, the client hung up):
//
// | bad request                          | 2024-11-05 (SDK v1 text)      | 2025 sessionful, stateless    | 2026-07-28                    | dual, modern headers          | dual, legacy session          |
// |--------------------------------------|-------------------------------|-------------------------------|-------------------------------|-------------------------------|-------------------------------|
// | malformed JSON                       | 400 `Invalid message: <body>` | 400 -32700                    | 400 -32700                    | 400 -32000 session required ¹ | 400 -32700                    |
// | JSON that is not JSON-RPC            | 400 `Invalid message: <body>` | 400 -32700 ²                  | 400 -32600                    | 400 -32600                    | 400 -32600 ³                  |
// | empty body                           | 400 `Invalid message: `       | 400 -32700                    | 400 -32700                    | 400 -32000 session required ¹ | 400 -32700                    |
// | Content-Type: text/plain             | 400 `Error: Unsupported …` ⁴  | 415 -32000                    | 415 -32000                    | 415 -32000                    | 415 -32000                    |
// | no Content-Type                      | 400 `TypeError: …` ⁴          | 415 -32000                    | 415 -32000                    | 415 -32000                    | 415 -32000                    |
// | 8 MiB body (Content-Length / chunked)| 413 -32000 ⁵                  | 413 -32000                    | 413 -32000                    | 413 -32000                    | 413 -32000                    |
// | truncated body, client hangs up ⁹    | —                             | —                             | —                             | —                             | —                             |
// | truncated body, client stalls        | 408 -32000 ⁶                  | 408 -32000                    | 408 -32000                    | 408 -32000                    | 408 -32000                    |
// | body dribbled past the timeout       | 408 -32000 ⁶                  | 408 -32000                    | 408 -32000                    | 408 -32000                    | 408 -32000                    |
// | PUT, PATCH                           | 405 `Allow: POST` ⁷           | 405 -32000 `Allow` ⁸          | 405 -32000, the body's id     | 405 -32000 `Allow` ⁸          | 405 -32000 `Allow` ⁸          |
//
// ¹ The SDK's `isLegacyRequest` routes a body that is not JSON to the legacy leg, whose router wants a session id
//   first (servers/eras/dual.test.ts pins this answer). 400 either way.
// ² The SDK legacy transport answers valid JSON that is not JSON-RPC with -32700 Parse error, where JSON-RPC 2.0
//   §5.1 has -32600 Invalid Request (the modern entry does answer -32600). Kept: the reference servers answer as
//   the SDK does; a client never sends such a body anyway.
// ³ Not legacy by `isLegacyRequest`, so the modern leg answers it, session id or not.
// ⁴ The SDK v1 SSEServerTransport answers every unreadable POST 400 in plain text (2024-11-05 defines no status).
// ⁵ Our limit (servers/server.ts DEFAULT_MAX_BODY_BYTES = 4 MiB, the SDK's own), answered by the shared pipeline
//   before any era with the SDK's `toNodeHandler` answer and `Connection: close`; the v1 transport alone would
//   have answered 400 `PayloadTooLargeError`.
// ⁶ The shared pipeline's body deadline (DEFAULT_BODY_TIMEOUT_MS, 10 s; BODY_TIMEOUT_MS here): 408 (RFC 9110
//   §15.5.9) and `Connection: close`. A deadline from the headers, so dribbling cannot extend it.
// ⁷ RFC 9110 §15.5.6 (the SDK example's express route would have answered 404).
// ⁸ `Allow: GET, POST, DELETE` (sessionful) or `Allow: POST` (stateless), the SDK transports' answers.
// ⁹ Recorded with no status, `endedBy: 'client'`. Node's http server itself writes a bare `400 Bad Request` on a
//   connection whose request body ends early (its default `clientError` answer), outside the record: a client that
//   only half-closes receives it; one that closed entirely never does.
import { Readable } from 'node:stream';
import { request } from 'undici';
import { describe, expect, test } from 'vitest';
import { failOnLeakedHandles } from '../../suites/leaks.ts';
import { ERAS } from '../era.ts';
import { DEFAULT_MAX_BODY_BYTES } from '../server.ts';
import { Opened, POLICY, type RawClient, type RequestHeaders } from '../test-support.ts';
import { BODY_PROBLEM_NOTES, type BodyProblem, type WireExchange } from '../wire-record.ts';
import { endpointName, ENDPOINTS, MiB, openChannel, RawConnection, rawClientFor, type Channel, type Endpoint } from './support.ts';

/** Short, so the timeout cases stay fast (the policy's react base; the server default is 10 s). */
const BODY_TIMEOUT_MS = POLICY.ms.react;
/** Twice the body limit. */
const OVERSIZED_TEXT = 'x'.repeat(8 * MiB);
/** One byte this often: a body that would take many times BODY_TIMEOUT_MS to arrive. */
const DRIBBLE_EVERY_MS = Math.round(BODY_TIMEOUT_MS / 10);
/** How long past BODY_TIMEOUT_MS the test waits for the 408 (a server without the timeout never sends one): a safety net, not a bound it measures. */
const TIMEOUT_SLACK_MS = POLICY.ms.operation;

failOnLeakedHandles();

/** The columns of the table above. */
type Column = 'http-sse' | 'sessionful' | 'stateless' | 'modern' | 'dual-modern' | 'dual-sessionful';
const columnOf = ({ era, kind }: Endpoint): Column => (era === 'dual' ? (kind === 'modern' ? 'dual-modern' : 'dual-sessionful') : kind);

/** An answer as the table gives it: a JSON-RPC error body (`code`, `message`, `id`), or a plain-text body, or none. */
interface Expected {
  /** `none`: nothing is answered, the client having hung up. */
  status: number | 'none';
  code?: number;
  message?: string;
  /** The JSON-RPC id of the error (null unless the server could read the request's). */
  id?: number | null;
  /** The body, when it is plain text. */
  text?: string;
  allow?: string;
}

/** What each case sends: the request an echo call is (`valid`), and how to spoil it. */
interface Sent {
  url: string;
  /** The echo call's body, as JSON text. */
  valid: string;
  /** Its headers: Content-Type, Accept (but for HTTP+SSE), and the channel's own. */
  headers: RequestHeaders;
}

interface Observed {
  status: number | 'none';
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

interface BadInput {
  name: string;
  /** POST unless said otherwise. */
  method?: string;
  send(sent: Sent, raw: RawClient): Promise<Observed>;
  expected(column: Column, sent: Sent): Expected;
  /** The note the record puts on the exchange, when its body could not be read. */
  bodyProblem?: BodyProblem;
}

const ECHO_ID = 900;
const jsonRpcError = (status: number, code: number, message: string, extra: Partial<Expected> = {}): Expected => ({ status, code, message, ...extra });
const parseError = jsonRpcError(400, -32700, 'Parse error: Invalid JSON');
const modernParseError = jsonRpcError(400, -32700, 'Parse error: the request body is not valid JSON');
const sessionRequired = jsonRpcError(400, -32000, 'Bad Request: Mcp-Session-Id header is required');
const notJsonRpc = jsonRpcError(400, -32600, 'Bad Request: the request body is not a valid JSON-RPC message');
const unsupportedMediaType = jsonRpcError(415, -32000, 'Unsupported Media Type: Content-Type must be application/json');
const tooLarge = jsonRpcError(413, -32000, `Payload Too Large: Request body must not exceed ${DEFAULT_MAX_BODY_BYTES} bytes`);
const timedOut = jsonRpcError(408, -32000, `Request Timeout: the request body did not arrive within ${BODY_TIMEOUT_MS} ms`);
const methodNotAllowed = (column: Column): Expected =>
  column === 'http-sse'
    ? { status: 405, text: 'Method Not Allowed', allow: 'POST' }
    : column === 'modern'
      ? jsonRpcError(405, -32000, 'Method not allowed.', { id: ECHO_ID })
      : jsonRpcError(405, -32000, 'Method not allowed.', { allow: column === 'stateless' ? 'POST' : 'GET, POST, DELETE' });
/** The SDK v1 HTTP+SSE transport's answer to a body it cannot take as a JSON-RPC message. */
const invalidMessage = (body: string): Expected => ({ status: 400, text: `Invalid message: ${body}` });

/** A request through undici: any method, any headers, a string body or chunks (sent chunked). */
async function send(raw: RawClient, method: string, url: string, headers: RequestHeaders, body: string | Readable): Promise<Observed> {
  const response = await request(url, { method: method as 'POST', headers, body, dispatcher: raw.agent });
  return { status: response.statusCode, headers: response.headers, text: await response.body.text() };
}

const withoutContentType = (headers: RequestHeaders) => Object.fromEntries(Object.entries(headers).filter(([name]) => name !== 'content-type'));
const half = (text: string) => text.slice(0, Math.floor(text.length / 2));

/** Opens a raw connection and writes the head of a POST announcing the whole valid body, then half of it. */
async function truncatedPost(sent: Sent): Promise<RawConnection> {
  const connection = await RawConnection.open(sent.url);
  await connection.writeHead('POST', sent.url, { ...sent.headers, 'content-length': String(Buffer.byteLength(sent.valid)) });
  await connection.write(half(sent.valid));
  return connection;
}

/**
 * A 408 must come once the deadline has passed (timers may fire a millisecond early against performance.now()). That
 * it comes at all is the wait's; that it does not wait for the whole body, the dribble's count of bytes sent.
 */
function expectAfterBodyTimeout(elapsedMs: number): void {
  expect(elapsedMs, 'ms from the request head to the 408').toBeGreaterThanOrEqual(BODY_TIMEOUT_MS - 1);
}

const BAD_INPUTS: readonly BadInput[] = [
  {
    name: 'malformed JSON',
    send: (sent, raw) => send(raw, 'POST', sent.url, sent.headers, half(sent.valid)),
    expected: (column, sent) =>
      ({ 'http-sse': invalidMessage(half(sent.valid)), sessionful: parseError, stateless: parseError, modern: modernParseError, 'dual-modern': sessionRequired, 'dual-sessionful': parseError })[column],
  },
  {
    name: 'JSON that is not JSON-RPC',
    send: (sent, raw) => send(raw, 'POST', sent.url, sent.headers, '{"hello":"world"}'),
    expected: (column) => {
      const legacyAnswer = jsonRpcError(400, -32700, 'Parse error: Invalid JSON-RPC message');
      return ({ 'http-sse': invalidMessage('{"hello":"world"}'), sessionful: legacyAnswer, stateless: legacyAnswer, modern: notJsonRpc, 'dual-modern': notJsonRpc, 'dual-sessionful': notJsonRpc })[column];
    },
  },
  {
    name: 'an empty body',
    send: (sent, raw) => send(raw, 'POST', sent.url, sent.headers, ''),
    expected: (column) =>
      ({ 'http-sse': invalidMessage(''), sessionful: parseError, stateless: parseError, modern: modernParseError, 'dual-modern': sessionRequired, 'dual-sessionful': parseError })[column],
  },
  {
    name: 'Content-Type: text/plain',
    send: (sent, raw) => send(raw, 'POST', sent.url, { ...sent.headers, 'content-type': 'text/plain' }, sent.valid),
    expected: (column) => (column === 'http-sse' ? { status: 400, text: 'Error: Unsupported content-type: text/plain' } : unsupportedMediaType),
  },
  {
    name: 'no Content-Type',
    send: (sent, raw) => send(raw, 'POST', sent.url, withoutContentType(sent.headers), sent.valid),
    expected: (column) => (column === 'http-sse' ? { status: 400, text: 'TypeError: argument string is required' } : unsupportedMediaType),
  },
  {
    name: 'an 8 MiB body with its Content-Length',
    send: (sent, raw) => send(raw, 'POST', sent.url, sent.headers, oversized(sent)),
    expected: () => tooLarge,
    bodyProblem: 'too-large',
  },
  {
    name: 'an 8 MiB body, chunked',
    async send(sent, raw) {
      const body = oversized(sent);
      async function* chunks() {
        for (let at = 0; at < body.length; at += MiB) yield body.slice(at, at + MiB);
      }
      return send(raw, 'POST', sent.url, sent.headers, Readable.from(chunks()));
    },
    expected: () => tooLarge,
    bodyProblem: 'too-large',
  },
  {
    name: 'a truncated body, then the client hangs up',
    async send(sent) {
      // Everything written is with the kernel: the server gets the head and half the body, then the close.
      const connection = await truncatedPost(sent);
      connection.close();
      return { status: 'none', headers: {}, text: '' };
    },
    expected: () => ({ status: 'none' }),
    bodyProblem: 'aborted',
  },
  {
    name: 'a truncated body, then the client stalls',
    async send(sent) {
      const connection = await truncatedPost(sent);
      const started = performance.now();
      try {
        const answer = await connection.answer('the answer to a stalled body', BODY_TIMEOUT_MS + TIMEOUT_SLACK_MS);
        expectAfterBodyTimeout(performance.now() - started);
        return { status: answer.status, headers: answer.headers, text: answer.body };
      } finally {
        connection.close();
      }
    },
    expected: () => timedOut,
    bodyProblem: 'timed-out',
  },
  {
    name: 'a body dribbled in past the timeout',
    async send(sent) {
      const connection = await RawConnection.open(sent.url);
      try {
        await connection.writeHead('POST', sent.url, { ...sent.headers, 'content-length': String(Buffer.byteLength(sent.valid)) });
        const started = performance.now();
        const dribble = connection.dribble(sent.valid, DRIBBLE_EVERY_MS);
        const answer = await connection.answer('the answer to a dribbled body', BODY_TIMEOUT_MS + TIMEOUT_SLACK_MS);
        expectAfterBodyTimeout(performance.now() - started);
        expect(dribble.sent(), 'bytes dribbled before the server gave up (it must not wait for them all)').toBeLessThan(sent.valid.length);
        return { status: answer.status, headers: answer.headers, text: answer.body };
      } finally {
        connection.close();
      }
    },
    expected: () => timedOut,
    bodyProblem: 'timed-out',
  },
  ...['PUT', 'PATCH'].map(
    (method): BadInput => ({
      name: method,
      method,
      send: (sent, raw) => send(raw, method, sent.url, sent.headers, sent.valid),
      expected: methodNotAllowed,
    }),
  ),
];

/** The valid echo call with its text grown to 8 MiB. */
function oversized(sent: Sent): string {
  const call = JSON.parse(sent.valid);
  call.params.arguments.text = OVERSIZED_TEXT;
  return JSON.stringify(call);
}

/** The bad exchange has been recorded (and ended) exactly once, with the status it was answered. */
function expectRecordedOnce(exchanges: WireExchange[], method: string, expected: Expected, bodyProblem: BodyProblem | undefined): void {
  expect(exchanges.map((exchange) => exchange.method), 'exchanges recorded for the bad request').toEqual([method]);
  const [exchange] = exchanges as [WireExchange];
  if (expected.status === 'none') {
    expect(exchange.status, 'the status of an exchange the client hung up on').toBeUndefined();
    expect(exchange.endedBy).toBe('client');
  } else {
    expect(exchange.status, 'the recorded status').toBe(expected.status);
    expect(exchange.endedBy).toBe('server');
  }
  expect(exchange.notes, 'the notes on the exchange').toEqual(bodyProblem ? [BODY_PROBLEM_NOTES[bodyProblem]] : []);
  // Nothing of a too-large body is kept; a cut-off body is kept as far as it came, and is not taken for a message.
  if (bodyProblem === 'too-large') expect(exchange.requestBody).toBe('');
  if (bodyProblem) expect(exchange.requestMessages).toEqual([]);
}

function expectAnswer(observed: Observed, expected: Expected): void {
  expect(observed.status, 'the HTTP status').toBe(expected.status);
  if (expected.allow !== undefined) expect(observed.headers['allow'], 'the Allow header').toBe(expected.allow);
  if (expected.text !== undefined) expect(observed.text, 'the plain-text body').toBe(expected.text);
  if (expected.code !== undefined) {
    expect(observed.headers['content-type'], 'the Content-Type of the error').toBe('application/json');
    expect(JSON.parse(observed.text), 'the JSON-RPC error body').toEqual({ jsonrpc: '2.0', error: { code: expected.code, message: expected.message }, id: expected.id ?? null });
  }
  // The body was never read to its end: the connection cannot carry another request.
  if (expected.status === 408 || expected.status === 413) expect(observed.headers['connection'], 'the Connection header').toBe('close');
}

/** A working echo through `channel`, with a fresh id. */
async function expectEcho(channel: Channel, id: number, what: string): Promise<void> {
  const answer = await channel.echo(id, what);
  expect(answer, `the answer to the echo ${what}`).toMatchObject({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: what }] } });
}

test('every era has its endpoints here', () => {
  expect(new Set(ENDPOINTS.map((endpoint) => endpoint.era))).toEqual(new Set(ERAS));
});

describe.each(ENDPOINTS.map((endpoint) => [endpointName(endpoint), endpoint] as const))('%s', (_name, endpoint) => {
  test.each(BAD_INPUTS.map((input) => [input.name, input] as const))('%s', async (_case, input) => {
    const opened = new Opened();
    try {
      const { server } = await opened.serve({ era: endpoint.era, bodyTimeoutMs: BODY_TIMEOUT_MS });
      const raw = opened.keep(rawClientFor(endpoint.kind));
      const channel = await openChannel(server, endpoint, raw);
      opened.defer(() => channel.close());
      const valid = channel.echoRequest(ECHO_ID, 'the bad request');
      const sent: Sent = {
        url: channel.url,
        valid: JSON.stringify(valid.body),
        headers: { 'content-type': 'application/json', ...(endpoint.kind !== 'http-sse' && { accept: 'application/json, text/event-stream' }), ...valid.headers },
      };
      const before = server.record.exchanges.length;
      const expected = input.expected(columnOf(endpoint), sent);

      const observed = await input.send(sent, raw);
      expectAnswer(observed, expected);
      // Ended, and noted when its body could not be read (the client's hang-up may end it before the read gives up).
      const note = input.bodyProblem && BODY_PROBLEM_NOTES[input.bodyProblem];
      const recorded = (exchange: WireExchange | undefined) => exchange?.endedBy !== undefined && (note === undefined || exchange.notes.includes(note));
      await server.record.waitFor((record) => recorded(record.exchanges[before]), 'the bad exchange to end');
      expectRecordedOnce(server.record.exchanges.slice(before), input.method ?? 'POST', expected, input.bodyProblem);
      expect(server.fixtures.runsOf('echo'), 'echo runs for the bad request').toBe(0);

      // The same server goes on: the session the bad request aimed at, and a new one.
      await expectEcho(channel, 1, 'after the bad request, on the same channel');
      const fresh = await openChannel(server, endpoint, raw);
      opened.defer(() => fresh.close());
      await expectEcho(fresh, 1, 'after the bad request, on a new channel');
    } finally {
      await opened.closeAll();
    }
  });
});
