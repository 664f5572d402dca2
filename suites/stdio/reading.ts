// How the client reads the server's stdout: a byte stream in which writes are no message boundaries. Three servers
// shape their writes as real ones do (servers/stdio/personalities.ts): every message in pieces of a few bytes
// (split-writes), several messages in one write (merged-writes), and a UTF-8 character cut across two writes
// (utf8-split). The client echoes a text with a newline and characters of two and three bytes, and then once more:
// what the adapter returned is what the client read (the wire is the server's writes, so the record shows only the
// stimulus: the precondition that the personality shaped the answer's writes).
//
// One scenario per personality: they do not compose into one case (split-writes cuts a merged write into pieces again,
// and utf8-split cuts the first multi-byte character of a write, which in a merged write is not the answer's).
// merged-writes runs at the legacy revisions only: something must share the answer's write, and a 2026-07-28 server
// writes nothing the client did not ask for but answers (no request, no log message without the request's logLevel),
// so here it is a log message the server may send at any time (logging/setLevel not yet sent, Logging › MAY).
import { L, L_AND_M, type Revision } from '../../protocol/revisions.ts';
import type { StdioPersonalityName } from '../../servers/stdio/personalities.ts';
import { stdoutLines } from '../../servers/stdio/record.ts';
import { clientCompleted, precondition, unexercised } from '../checks.ts';
import { firstOperation, markOf, nothingSince } from '../connecting.ts';
import { describeOutcome } from '../outcome.ts';
import { checkInTime } from '../deadlines.ts';
import { defineScenario, type Evidence, type Scenario, type StdioEvidence } from '../scenario.ts';
import { stdio } from '../spec.ts';
import { idOf, toolCallExchanges } from '../wire.ts';
import { ECHO_TEXT, isEchoSeen, watchEcho, type EchoSeen } from './calls.ts';
import { utf8Rule } from './framing.ts';
import { serverRecorded, serverRecordedProof } from './support.ts';

type Shape = Extract<StdioPersonalityName, 'split-writes' | 'merged-writes' | 'utf8-split'>;

const PERSONALITY_ACTED = 'personality-acted';

/** What shares the answer's write under merged-writes: a log message, which a legacy server MAY send at any time. */
const LOG_MESSAGE = { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', logger: 'mcp-client-conformance', data: 'a log message sharing its write with an answer' } };

/** The byte range of one stdout line (its newline at `end`) and the writes that carried the stream. */
interface AnswerLine {
  bytes: Buffer;
  start: number;
  end: number;
  /** Where each write began in the stream (the first at 0). */
  writeStarts: number[];
}

/** The line on which the server process wrote its answer to the first echo call of the text, if it wrote one. */
function answerLine(evidence: Pick<Evidence, 'exchanges' | 'stdio'>): AnswerLine | undefined {
  // A lazy client's first operation, an echo call of another text, came before it.
  const call = toolCallExchanges(evidence.exchanges, 'echo').find((x) => x.requestMessages.some((m) => (m.params?.['arguments'] as { text?: unknown } | undefined)?.text === ECHO_TEXT));
  const id = idOf(call, 'tools/call');
  const process = evidence.stdio?.processes.find((p) => p.index === (call as { process?: number } | undefined)?.process);
  if (call === undefined || id === undefined || process === undefined) return undefined;
  const { bytes, writes, lines } = stdoutLines(process);
  const line = lines.find(({ value }) => ((Array.isArray(value) ? value : [value]) as { id?: unknown; method?: unknown }[]).some((m) => m?.method === undefined && m?.id === id));
  return line && { bytes, start: line.start, end: line.end, writeStarts: writes.map((write) => write.start) };
}

/** Whether the personality shaped the answer's writes as it says, and how. */
function shaped(shape: Shape, line: AnswerLine): { acted: boolean; how: string } {
  const inside = line.writeStarts.filter((at) => at > line.start && at <= line.end);
  switch (shape) {
    case 'split-writes':
      return { acted: inside.length > 0, how: `the answer’s ${line.end - line.start + 1} bytes came in ${inside.length + 1} writes` };
    case 'merged-writes': {
      const from = line.writeStarts.filter((at) => at <= line.end).at(-1) ?? 0;
      const to = line.writeStarts.find((at) => at > line.end) ?? line.bytes.length;
      const messages = line.bytes.subarray(from, to).filter((byte) => byte === 0x0a).length;
      return { acted: messages > 1, how: `the write that ended the answer held ${messages} messages` };
    }
    case 'utf8-split': {
      const cuts = inside.filter((at) => (line.bytes[at]! & 0xc0) === 0x80);
      return { acted: cuts.length > 0, how: cuts.length > 0 ? 'a write of the answer ended inside a multi-byte character' : 'no write of the answer ended inside a character' };
    }
  }
}

/** Held: the echo came back with exactly its text. A call the server could not read (the client's line) is the client's doing. */
function readWhole(seen: EchoSeen): boolean | 'late' {
  if (seen.state === 'resolved') return seen.text === ECHO_TEXT;
  if (seen.state === 'rejected') return false;
  return seen.misframed ? false : 'late';
}

function describeSeen(seen: EchoSeen, what: string): string {
  if (seen.state !== 'resolved') return `${describeOutcome(seen, what)}${seen.misframed ? ' (the server could not read the client’s line for it)' : ''}`;
  if (seen.text === ECHO_TEXT) return `${what} returned the text it sent`;
  const lost = seen.text?.includes('\uFFFD') ? ': U+FFFD where a character was, decoded in halves' : '';
  return `${what} returned ${JSON.stringify(seen.text)}, not ${JSON.stringify(ECHO_TEXT)}${lost}`;
}

const THE_RULE: Record<Shape, (revision: Revision) => ReturnType<typeof stdio>> = {
  'split-writes': (revision) => stdio(revision, 'messages are delimited by newlines: a message is read up to its newline, however many writes carried it', 'MUST'),
  'merged-writes': (revision) => stdio(revision, 'messages are delimited by newlines: each line of a write is a message of its own', 'MUST'),
  'utf8-split': (revision) => utf8Rule(revision, 'a message’s line is decoded as a whole, however its bytes were written'),
};

function readingScenario(shape: Shape, revisions: readonly Revision[], title: string): Scenario {
  return defineScenario({
    id: `stdio/${shape}`,
    title,
    revisions,
    requires: [],
    transport: 'stdio',
    source: { spec: THE_RULE[shape]('2025-11-25') },
    // merged-writes holds the log message for the answer as long as the client may take to call (a fixed hold ran out
    // on a loaded machine, and the message went alone).
    setup: (_revision, time) => ({ stdio: { personalities: [shape === 'merged-writes' ? { name: shape, ms: time.ms.operation } : shape] }, state: undefined }),
    async run(context) {
      const mark = markOf(context.stdio.record);
      const client = await context.connect();
      // A lazy client launches its server at its first operation: one first, so the server is there to shape the answer.
      if (nothingSince(context.stdio.record, mark)) await firstOperation(client, context.bounded);
      // Held by the server until the answer is due, and written with it.
      // The command travels on the side channel, the call on stdin: settle() makes sure the server holds the message
      // before the call can reach it (under load the call came first, and its answer went alone).
      if (shape === 'merged-writes') {
        context.observe(LOG_SENT, { sent: context.stdio.send(LOG_MESSAGE), at: context.stdio.record.now() } satisfies LogSent);
        await context.stdio.settle(context.time.ms.operation);
      }
      const first = await watchEcho(context, client);
      context.observe('first', first);
      if (first.state !== 'pending') context.observe('next', await watchEcho(context, client));
      await context.bounded(client.close(), 'close');
    },
    judge(evidence) {
      const { revision, time } = evidence;
      const rule = THE_RULE[shape](revision);
      const first = isEchoSeen(evidence.observed['first']) ? evidence.observed['first'] : undefined;
      const next = isEchoSeen(evidence.observed['next']) ? evidence.observed['next'] : undefined;
      const line = answerLine(evidence);
      const form = line && shaped(shape, line);
      const noneHeld = form?.acted === false ? keptNoProcess(evidence) : undefined;
      return [
        serverRecorded(evidence),
        // No answer written: nothing of the server's to read, whatever the client did (its checks say what).
        precondition(
          PERSONALITY_ACTED,
          rule,
          form === undefined || form.acted,
          form === undefined ? 'the server wrote no answer to the echo call (the client’s checks say why)' : `${shape}: ${form.how}${noneHeld ? `: ${noneHeld}` : ''}`,
          [],
          noneHeld ? { by: 'shape' } : {},
        ),
        clientCompleted(evidence, stdio(revision, 'the client reads the server’s messages from its stdout', 'MUST')),
        first === undefined
          ? unexercised('answer-read-whole', rule, 'the script never got to the echo call')
          : checkInTime(time, 'answer-read-whole', rule, readWhole(first), describeSeen(first, 'the echo call')),
        next === undefined
          ? unexercised('read-on', rule, first === undefined || first.state === 'pending' ? 'the first echo call never settled: no second one was made' : 'the script never got to the second echo call')
          : checkInTime(time, 'read-on', rule, readWhole(next), `after the ${shape} answer, ${describeSeen(next, 'a second echo call')}`),
      ];
    },
    doctored: [
      {
        check: 'answer-read-whole',
        how: 'the text returned with U+FFFD for its ✓, as a client decoding each write on its own returns it',
        doctor: (e) => ({ ...e, observed: { ...e.observed, first: { ...(e.observed['first'] as EchoSeen), text: ECHO_TEXT.replace('✓', '\uFFFD\uFFFD') } } }),
      },
      {
        check: 'read-on',
        how: 'the second call still pending when the script gave up on it',
        doctor: (e) => ({ ...e, observed: { ...e.observed, next: { state: 'pending', afterMs: e.time.ms.operation } satisfies EchoSeen } }),
      },
      {
        check: PERSONALITY_ACTED,
        unmet: true,
        how: 'every stdout line re-cut into a write of its own (neither split, nor merged, nor cut inside a character)',
        doctor: (e) => ({ ...e, stdio: lineByLine(e.stdio!) }),
      },
      serverRecordedProof,
    ],
  });
}

/** What the merged-writes script observed of the log message it gave the server to hold: whether a live process took it, and when. */
const LOG_SENT = 'logSent';
interface LogSent {
  sent: boolean;
  at: number;
}

/**
 * Why no server was there to hold the log message, when the client keeps none between operations (a process per
 * operation): it had closed the stdin of every process it launched before the message was sent (or, when one still took
 * it, before the echo call's process was launched), so the echo call's process never had it. A process that ended otherwise (it crashed, was killed) is no such shape.
 */
function keptNoProcess(evidence: Evidence): string | undefined {
  const log = evidence.observed[LOG_SENT] as LogSent | undefined;
  const servers = (evidence.stdio?.processes ?? []).filter((p) => p.role === 'server');
  const before = servers.filter((p) => p.connectedAt <= (log?.at ?? -Infinity));
  if (log === undefined || before.length === 0) return undefined;
  // The echo call's process, launched after the message was sent; a process still being closed may have taken the
  // message (a client per operation ends the last one's session in the background) and exited holding it.
  const echoLaunchedAt = Math.min(...servers.filter((p) => p.connectedAt > log.at).map((p) => p.connectedAt));
  const closedBy = log.sent ? echoLaunchedAt : log.at;
  if (!Number.isFinite(closedBy) || !before.every((p) => p.stdinEofAt !== undefined && p.stdinEofAt <= closedBy)) return undefined;
  return `the client had closed the stdin of every server it launched (${before.map((p) => `process ${p.index}`).join(', ')}) before the log message was to be held, and launched the echo call's process afterwards (a process per operation): no server was there to hold it`;
}

/** The processes' stdout as if each line had been one write. */
function lineByLine(stdio: StdioEvidence): StdioEvidence {
  return {
    ...stdio,
    processes: stdio.processes.map((p) => {
      const bytes = Buffer.concat(p.stdout.map((chunk) => Buffer.from(chunk.data, 'base64')));
      const at = p.stdout[0]?.at ?? 0;
      const stdout: { at: number; data: string }[] = [];
      for (let start = 0; start < bytes.length; ) {
        const newline = bytes.indexOf(0x0a, start);
        const end = newline === -1 ? bytes.length : newline + 1;
        stdout.push({ at, data: bytes.subarray(start, end).toString('base64') });
        start = end;
      }
      return { ...p, stdout };
    }),
  };
}

export const stdioSplitWrites = readingScenario(
  'split-writes',
  L_AND_M,
  'Reading stdout: a message written in pieces of a few bytes (one write each) is read whole, up to its newline, and the client reads on',
);
export const stdioMergedWrites = readingScenario(
  'merged-writes',
  L,
  'Reading stdout: several messages in one write (a log message and the answer) are each read, and the client reads on',
);
export const stdioUtf8Split = readingScenario(
  'utf8-split',
  L_AND_M,
  'Reading stdout: a UTF-8 character cut across two writes is decoded whole (the line is decoded, not each write), and the client reads on',
);
