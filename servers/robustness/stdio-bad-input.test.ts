// Every stdio era's server program (the real one, launched by a raw client: servers/stdio/test-client.ts), given a bad
// stdin line: the documented answer (below), the line recorded once as one exchange with its note, and the same
// process still serving: a valid call answered after each, and exit 0 at EOF. One process per era runs every case in
// turn (a launch is a Node process loading the SDK; that it survives them all is the point); the last case ends it.
//
// The answers, the same in every era and on both legs of `dual` (the program answers a line before the era's server
// sees it, so a bad opening line decides nothing either: each process here opens with one):
//
// | stdin line                                          | answer                                      | notes                           |
// |-----------------------------------------------------|---------------------------------------------|---------------------------------|
// | malformed JSON                                      | -32700, id null ¹                           | stdin-not-json                  |
// | a JSON object that is not JSON-RPC                  | -32600, id null ²                           | stdin-not-jsonrpc               |
// | JSON that is not an object (a string)               | -32600, id null ²                           | stdin-not-jsonrpc               |
// | an empty line                                       | — (ignored) ³                               | stdin-blank-line                |
// | bytes that are not UTF-8                            | -32700, id null ⁴                           | stdin-not-utf8, stdin-not-json  |
// | a call with bytes that are not UTF-8 in a string    | answered, each bad sequence U+FFFD ⁴        | stdin-not-utf8                  |
// | a call dribbled a byte at a time                    | answered once, one exchange ⁵               | —                               |
// | a batch (every era but 2025-03-26)                  | -32600, id null ⁶                           | stdin-batch                     |
// | 2025-03-26: an empty batch                          | -32600, id null ⁶                           | stdin-batch, stdin-not-jsonrpc  |
// | 2025-03-26: a batch with a member that is none      | one batch: the call's answer, and -32600 ⁶  | stdin-batch, stdin-not-jsonrpc  |
// | a line of exactly MAX_STDIN_LINE_BYTES (10 MiB)     | served ⁷                                    | —                               |
// | a line one byte longer (a call)                     | -32000 `Line Too Long`, id null; not run ⁷  | stdin-too-long                  |
// | an unterminated last line (a call), then EOF        | — (not served); exit 0 ⁸                    | stdin-unterminated              |
//
// ¹ JSON-RPC 2.0 §5.1 and its examples: invalid JSON is -32700 with id null (no id can be read). The SDK's own stdio
//   transport answers nothing (its read buffer hands the error to onerror): a client cannot tell that silence from a
//   slow server, so the reference server answers. The message: `Parse error: not JSON: <the parser's message>`.
// ² -32600 Invalid Request (§5.1), id null (§5: the id could not be told; the server uses one it can read). Noted by
//   its shape (servers/stdio/io.ts: no `"jsonrpc": "2.0"` with a method, a result or an error), which is what the
//   suite's framing scenario judges a client by; a line of that shape the SDK's strict parser still refuses (an extra
//   member) is answered -32600 too, and not noted. (Before, a JSON object was taken for a message: answered, unnoted.)
// ³ No message (the stdio transport delimits messages by newlines): nothing to answer. The SDK calls onerror.
// ⁴ Decoded as the SDK's transport decodes a line (each invalid sequence becomes U+FFFD), then taken as that text:
//   outside a string no JSON is left (-32700); inside one the call is served with U+FFFD in its place. Noted either
//   way: MCP messages are UTF-8 (the framing scenario's `utf8` check reads the note).
// ⁵ A line is a message once its newline arrives, however many reads it took (here each byte its own read, as the
//   record's chunks show), and there is no deadline: over HTTP a 408 frees a connection for other clients, while a
//   stdio pipe belongs to its one client, and a line still coming holds nothing but itself.
// ⁶ Only 2025-03-26 has JSON-RPC batches (their answers one batch: servers/stdio/stdio.test.ts); elsewhere a batch is
//   one invalid request, -32600 with id null, nothing of it served. At 2025-03-26, JSON-RPC 2.0 §6: an empty batch
//   is one -32600 (not an array), a member that is no message gets its -32600 inside the batch's answer.
// ⁷ servers/stdio/protocol.ts MAX_STDIN_LINE_BYTES: the SDK's stdio read limit (STDIO_DEFAULT_MAX_BUFFER_SIZE, checked
//   below). The SDK's transport closes itself at it (the process is then done); the reference server answers as the
//   HTTP pipeline answers a body past its limit (413 with -32000 `Payload Too Large`, servers/server.ts), drops the
//   rest of the line to its newline (counted in the record's chunks as `dropped`, neither kept nor reported) and goes
//   on. It had no limit before: a line that never ends grew the program and the harness's record (in the test's own
//   process) without bound, until V8's string limit (~512 MiB) crashed the program with a RangeError; a line just
//   under it reached the harness whole, in one side-channel event twice its size (an endless line once crashed a whole
//   run that way: clients/process/adapter.ts MAX_LINE_BYTES).
// ⁸ A message ends at its newline: bytes before EOF without one are no message. Recorded and not served, as the SDK's
//   transport serves only what a newline ended (before, the program served it, racing its own shutdown at EOF).
import { STDIO_DEFAULT_MAX_BUFFER_SIZE } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { failOnLeakedHandles } from '../../suites/leaks.ts';
import { startStdioServer, type StdioReferenceServer } from '../stdio/harness.ts';
import { MAX_STDIN_LINE_BYTES, STDIO_ERAS } from '../stdio/protocol.ts';
import type { StdioExchange } from '../stdio/record.ts';
import { RawStdioClient, WAIT_MS } from '../stdio/test-client.ts';
import { Opened } from '../test-support.ts';
import { echoAnswer, openStdio, STDIO_ENDPOINTS, stdioEcho, stdioEndpointName, stdioRequest, type StdioEndpoint } from './support.ts';

failOnLeakedHandles();

/** A JSON-RPC error with id null, as a matcher (`message` a prefix where the text names the parser's own message). */
const nullIdError = (code: number, message: string) => ({ jsonrpc: '2.0', id: null, error: { code, message: expect.stringMatching(new RegExp(`^${message.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`)) } });
const PARSE_ERROR = nullIdError(-32700, 'Parse error: not JSON: ');
const NOT_JSON_RPC = nullIdError(-32600, 'Invalid Request: not a JSON-RPC message');
const NO_BATCHES = (era: string) => nullIdError(-32600, `Invalid Request: JSON-RPC batches are not accepted at ${era}`);
const TOO_LONG = nullIdError(-32000, `Line Too Long: a stdin line must not exceed ${MAX_STDIN_LINE_BYTES} bytes`);

/** A line of JSON text of exactly `bytes` bytes: `message` with a `pad` of x's in its params. */
function padded(message: { params?: Record<string, unknown> }, bytes: number): string {
  const bare = JSON.stringify({ ...message, params: { ...message.params, pad: '' } });
  const text = JSON.stringify({ ...message, params: { ...message.params, pad: 'x'.repeat(bytes - Buffer.byteLength(bare)) } });
  expect(Buffer.byteLength(text), 'the padded line').toBe(bytes);
  return text;
}

/** One process of an era, with what the cases have done to it so far. */
interface Proc {
  endpoint: StdioEndpoint;
  server: StdioReferenceServer;
  client: RawStdioClient;
  /** The next request id (clear of the raw client's own, which count from 1). */
  nextId: number;
}

interface BadLine {
  /** The bytes written (a function: it may need an id, or write in pieces). */
  write(proc: Proc, id: number): Promise<void> | void;
  /** The answer to it on stdout, if any (a matcher). */
  answer?: unknown;
  notes: string[];
  /** How many times it runs echo itself (a call that is served). */
  echoRuns?: number;
  /** What the record must say of its exchange, besides the notes and the answer. */
  exchange?: (exchange: StdioExchange) => void;
}

/**
 * Writes a bad line, then a valid echo call: stdout holds exactly the documented answer (if any) and then the echo's;
 * the record exactly two exchanges, the bad line's (its notes, its answer, ended) and the echo's; echo ran as often as
 * the line asked, plus once.
 */
async function expectBadLine(proc: Proc, bad: BadLine): Promise<void> {
  const { client, server, endpoint } = proc;
  const { record } = server;
  // Everything before (a notification nothing answers, the opening's initialized) in the record first.
  await server.settle(WAIT_MS);
  const linesBefore = client.lines.length;
  const exchangesBefore = record.exchanges.length;
  const runsBefore = server.fixtures.runsOf('echo');
  const badId = proc.nextId++;
  await bad.write(proc, badId);
  // An answer first, so the echo after it cannot overtake it (a batch's answer waits for its call).
  if (bad.answer !== undefined) await client.linesFrom(linesBefore, 1, 'the answer to the bad line');
  const echoId = proc.nextId++;
  const text = `after the bad line ${badId}`;
  client.send(stdioEcho(endpoint, echoId, text));
  await client.answerTo(echoId);
  expect(client.lines.slice(linesBefore), 'what the server wrote on stdout: the answer to the bad line, then the echo').toEqual([
    ...(bad.answer !== undefined ? [bad.answer] : []),
    echoAnswer(echoId, text),
  ]);

  // The channel carries the server's report of its answer after the line's own: once the echo's answer is in the record, all is.
  await record.waitFor((r) => r.responseTo(echoId) !== undefined, 'the echo answer in the record', WAIT_MS);
  const [badExchange, echo, ...more] = record.exchanges.slice(exchangesBefore);
  expect(more, 'exchanges recorded beyond the bad line and the echo').toEqual([]);
  expect(badExchange, 'the bad line').toMatchObject({ method: 'STDIN', notes: bad.notes });
  expect(badExchange!.responseMessages.map((m) => m.message), 'what the record has of the answer to the bad line').toEqual(
    bad.answer === undefined ? [] : Array.isArray(bad.answer) ? bad.answer : [bad.answer],
  );
  expect(badExchange!.endedBy, 'the bad line ended in the record').toBe('server');
  bad.exchange?.(badExchange!);
  expect(echo, 'the echo after it').toMatchObject({ method: 'STDIN', line: badExchange!.line! + 1, notes: [] });
  expect(echo!.responseMessages.map((m) => m.message)).toEqual([echoAnswer(echoId, text)]);
  expect(server.fixtures.runsOf('echo'), 'echo runs').toBe(runsBefore + (bad.echoRuns ?? 0) + 1);
}

const line = (text: string | Buffer) => (typeof text === 'string' ? `${text}\n` : Buffer.concat([text, Buffer.from('\n')]));

test('the line limit is the SDK’s own stdio read limit', () => {
  expect(MAX_STDIN_LINE_BYTES).toBe(STDIO_DEFAULT_MAX_BUFFER_SIZE);
});

test('every stdio era is here, dual on both legs', () => {
  expect(new Set(STDIO_ENDPOINTS.map((e) => e.era))).toEqual(new Set(STDIO_ERAS));
  expect(STDIO_ENDPOINTS.filter((e) => e.era === 'dual').map((e) => e.leg).sort()).toEqual(['legacy', 'modern']);
});

// In order, even in a shuffled run (npm run flakes): the cases share their era's process, and the last one ends it.
describe('each stdio era, its cases in order', { shuffle: false }, () => {
  describe.each(STDIO_ENDPOINTS.map((endpoint) => [stdioEndpointName(endpoint), endpoint] as const))('%s', (_name, endpoint) => {
    const opened = new Opened();
    let proc: Proc;

    beforeAll(async () => {
      const server = opened.keep(await startStdioServer({ era: endpoint.era }));
      const client = new RawStdioClient(server.target);
      opened.defer(() => client.dispose());
      // The opening line is bad: answered, and it decides nothing (dual: the handshake or the discovery after it does).
      client.write('{"opening": \n');
      expect(await client.linesFrom(0, 1, 'the answer to the bad opening line')).toEqual([PARSE_ERROR]);
      await openStdio(client, endpoint);
      proc = { endpoint, server, client, nextId: 100 };
    });
    afterAll(() => opened.closeAll());

    test('malformed JSON: -32700, id null', () => expectBadLine(proc, { write: ({ client }, id) => client.write(line(`{"jsonrpc":"2.0","id":${id},"method":"ping"`)), answer: PARSE_ERROR, notes: ['stdin-not-json'] }));

    test('a JSON object that is not JSON-RPC: -32600, id null', () =>
      expectBadLine(proc, {
        write: ({ client }) => client.write(line('{"hello":"world"}')),
        answer: NOT_JSON_RPC,
        notes: ['stdin-not-jsonrpc'],
        exchange: (x) => expect(x.requestMessages, 'messages of a line that is none').toEqual([]),
      }));

    test('JSON that is not an object: -32600, id null', () => expectBadLine(proc, { write: ({ client }) => client.write(line('"hello"')), answer: NOT_JSON_RPC, notes: ['stdin-not-jsonrpc'] }));

    test('an empty line: ignored', () => expectBadLine(proc, { write: ({ client }) => client.write('\n'), notes: ['stdin-blank-line'] }));

    test('bytes that are not UTF-8: -32700, id null', () =>
      expectBadLine(proc, {
        write: ({ client }) => client.write(line(Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0xe2, 0x82]))),
        answer: PARSE_ERROR,
        notes: ['stdin-not-utf8', 'stdin-not-json'],
      }));

    test('a call with bytes that are not UTF-8 in a string: answered, U+FFFD in their place', () =>
      expectBadLine(proc, {
        // "naïve" in Latin-1: 0xEF opens a three-byte sequence that "v" does not continue.
        write: ({ client }, id) => {
          const [head, tail] = JSON.stringify(stdioEcho(endpoint, id, 'na@ve')).split('@') as [string, string];
          client.write(line(Buffer.concat([Buffer.from(head), Buffer.from([0xef]), Buffer.from(tail)])));
        },
        answer: echoAnswer(proc.nextId, 'na\uFFFDve'),
        notes: ['stdin-not-utf8'],
        echoRuns: 1,
      }));

    test('a call dribbled a byte at a time: one line, one exchange, answered once', () =>
      expectBadLine(proc, {
        async write({ client, server }, id) {
          const bytes = Buffer.from(line(JSON.stringify(stdioEcho(endpoint, id, 'dribbled'))));
          const reads = server.record.processes[0]!.stdin;
          const before = reads.length;
          // Each byte once the previous one has been read (its chunk reported): each its own read.
          for (let at = 0; at < bytes.length; at++) {
            client.write(bytes.subarray(at, at + 1));
            await server.record.waitFor(() => reads.length === before + at + 1, `byte ${at + 1} of ${bytes.length} read`, WAIT_MS);
          }
          expect(reads.slice(before).map((chunk) => Buffer.from(chunk.data, 'base64').length), 'bytes per read').toEqual(Array.from(bytes, () => 1));
        },
        answer: echoAnswer(proc.nextId, 'dribbled'),
        notes: [],
        echoRuns: 1,
      }));

    if (endpoint.era === '2025-03-26') {
      test('an empty batch: -32600, id null (a single error, not an array)', () =>
        expectBadLine(proc, { write: ({ client }) => client.write(line('[]')), answer: nullIdError(-32600, 'Invalid Request: an empty batch'), notes: ['stdin-batch', 'stdin-not-jsonrpc'] }));

      test('a batch with a member that is no message: one batch answer, the call’s result and a -32600 for the member', () =>
        expectBadLine(proc, {
          write: ({ client }, id) => client.write(line(JSON.stringify([stdioEcho(endpoint, id, 'in a batch'), 1]))),
          answer: [nullIdError(-32600, 'Invalid Request: a batch member is not a JSON-RPC message'), echoAnswer(proc.nextId, 'in a batch')],
          notes: ['stdin-batch', 'stdin-not-jsonrpc'],
          echoRuns: 1,
          exchange: (x) => expect(x.requestMessages.map((m) => m.method), 'the batch’s messages').toEqual(['tools/call']),
        }));
    } else {
      test('a batch, in a revision without them: -32600, id null; nothing of it served', () =>
        expectBadLine(proc, {
          write: ({ client }, id) => client.write(line(JSON.stringify([stdioEcho(endpoint, id, 'in a batch')]))),
          answer: NO_BATCHES(endpoint.era),
          notes: ['stdin-batch'],
        }));
    }

    test('a line of exactly the limit: served', () =>
      expectBadLine(proc, {
        write: ({ client }, id) => client.write(line(padded(stdioRequest(endpoint, id, 'tools/list'), MAX_STDIN_LINE_BYTES))),
        answer: expect.objectContaining({ id: proc.nextId, result: expect.objectContaining({ tools: expect.arrayContaining([expect.objectContaining({ name: 'echo' })]) }) }),
        notes: [],
        exchange: (x) => expect(Buffer.byteLength(x.requestBody)).toBe(MAX_STDIN_LINE_BYTES),
      }));

    test('a line one byte longer: -32000, id null; the call never runs, and nothing past the limit is kept', () =>
      expectBadLine(proc, {
        write: ({ client }, id) => client.write(line(padded(stdioEcho(endpoint, id, 'too long'), MAX_STDIN_LINE_BYTES + 1))),
        answer: TOO_LONG,
        notes: ['stdin-too-long'],
        exchange: (x) => {
          expect(x.requestBody, 'what the record keeps of the line').toBe('');
          expect(x.requestMessages).toEqual([]);
          // The bytes read once the line was past the limit are counted, not reported: the record holds less than the line.
          const reads = proc.server.record.processes[0]!.stdin;
          const dropped = reads.reduce((sum, chunk) => sum + (chunk.dropped ?? 0), 0);
          expect(dropped, 'bytes dropped').toBeGreaterThan(0);
          expect(dropped, 'bytes dropped').toBeLessThanOrEqual(MAX_STDIN_LINE_BYTES + 1);
          expect(reads.filter((chunk) => chunk.dropped !== undefined).every((chunk) => chunk.data === ''), 'dropped runs carry no data').toBe(true);
        },
      }));

    // Last: it ends the process.
    test('an unterminated last line, then EOF: recorded, not served; exit 0', async () => {
      const { client, server } = proc;
      const { record } = server;
      const linesBefore = client.lines.length;
      const runsBefore = server.fixtures.runsOf('echo');
      const id = proc.nextId++;
      client.write(JSON.stringify(stdioEcho(endpoint, id, 'unterminated')));
      client.closeStdin();
      expect(await client.exited, 'how the process ended').toEqual({ code: 0, signal: null });
      await record.waitFor((r) => r.processes[0]!.channelClosedAt !== undefined, 'the process’s channel to close', WAIT_MS);
      expect(client.lines.slice(linesBefore), 'what the server wrote after the line').toEqual([]);
      const last = record.exchanges.at(-1)!;
      expect(last).toMatchObject({ method: 'STDIN', notes: ['stdin-unterminated'], responseMessages: [] });
      expect(last.requestMessages.map((m) => m.id), 'the call, as the line carried it').toEqual([id]);
      expect(last.endedBy, 'an unanswered request never ends').toBeUndefined();
      expect(server.fixtures.runsOf('echo'), 'echo runs').toBe(runsBefore);
      const [p, ...others] = record.processes;
      expect(others, 'processes besides the one launched').toEqual([]);
      expect(p!.exit).toEqual({ at: expect.any(Number), code: 0, signal: null, reason: 'stdin EOF' });
      expect(server.survivors()).toEqual([]);
    });
  });
});
