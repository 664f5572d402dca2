// The client takes the batches the server sends (2025-03-26 only: basic/index › Batching, "MCP implementations MAY
// support sending JSON-RPC batches, but MUST support receiving JSON-RPC batches"; transports › stdio: a message on
// stdout may be a batch). The client makes two echo calls at once; the server (batch-answers, echo only, count 2)
// holds the first answer until the second is due and writes both as one line, a JSON array. Then a tools/list, whose
// answer is a plain line after the batch: stdout is one ordered pipe, so a client that has that answer and not the
// batched ones read past the batch line without taking it (the SDKs' stdio transports drop a line their message schema
// does not parse, and report it to onerror). Judged: each call returned its own text, and the client did not take the
// line for a malformed one (no error answer to it, no cancellation or re-sending of the batched calls before close).
import { stdoutLines, type StdioProcess } from '../../servers/stdio/record.ts';
import type { SentMessage, WireExchange } from '../../servers/wire-record.ts';
import { check, clientCompleted, precondition, unexercised } from '../checks.ts';
import { describeOutcome, isOutcome, Watched, type Outcome } from '../outcome.ts';
import { checkInTime, type InTime } from '../deadlines.ts';
import { defineScenario, type Evidence, type StdioEvidence } from '../scenario.ts';
import { batching, stdio } from '../spec.ts';
import { isStdioLine, label, labels, requests } from '../wire.ts';
import { isEchoSeen, textOf, type EchoSeen } from './calls.ts';
import { serverRecorded, serverRecordedProof } from './support.ts';

/** The two calls' texts: each answer must reach its own call. */
export const BATCHED_TEXTS = ['the first of two calls answered in one batch', 'the second of two calls answered in one batch'] as const;

const BATCH_WRITTEN = 'batch-written';

const key = (id: unknown): string => JSON.stringify(id);

/** A line of the server's stdout that is a JSON-RPC batch (an array), with when its write began and the ids it answers. */
interface BatchLine {
  process: number;
  /** When the write that began the line began (record time). */
  at: number;
  /** The ids of the answers (responses) it holds. */
  ids: Set<string>;
  size: number;
}

/** Every batch line the server processes wrote. */
function batchLines(processes: readonly StdioProcess[]): BatchLine[] {
  const found: BatchLine[] = [];
  for (const p of processes) {
    if (p.role !== 'server') continue;
    for (const { value, at } of stdoutLines(p).lines) {
      if (!Array.isArray(value)) continue;
      const answers = (value as { id?: unknown; method?: unknown }[]).filter((m) => typeof m === 'object' && m !== null && m.method === undefined && m.id !== undefined && m.id !== null);
      found.push({ process: p.index, at, ids: new Set(answers.map((m) => key(m.id))), size: value.length });
    }
  }
  return found;
}

const processOf = (exchange: WireExchange): number | undefined => (exchange as { process?: number }).process;

/** The echo calls the server read, and the first batch line holding the answers to two or more of them (on their process). */
function theBatch(exchanges: readonly WireExchange[], processes: readonly StdioProcess[]): { calls: SentMessage[]; batch?: BatchLine; batched: SentMessage[]; batches: BatchLine[] } {
  const calls = requests(exchanges, 'tools/call', 'echo');
  const batches = batchLines(processes);
  for (const batch of batches) {
    const batched = calls.filter((call) => processOf(call.exchange) === batch.process && batch.ids.has(key(call.message.id)));
    if (batched.length >= 2) return { calls, batch, batched, batches };
  }
  return { calls, batched: [], batches };
}

/** What the client wrote after the batch line (before close) that takes it for a malformed line, and what each is. */
function refusals(evidence: Evidence, batch: BatchLine): { exchange: WireExchange; what: string }[] {
  const closing = typeof evidence.observed['closingAt'] === 'number' ? evidence.observed['closingAt'] : undefined;
  const texts = new Set<unknown>(BATCHED_TEXTS);
  const found: { exchange: WireExchange; what: string }[] = [];
  for (const exchange of evidence.exchanges) {
    if (!isStdioLine(exchange) || processOf(exchange) !== batch.process || exchange.startedAt < batch.at) continue;
    if (closing !== undefined && exchange.startedAt > closing) continue;
    for (const m of exchange.requestMessages) {
      // The server asked the client nothing here: a response from it answers the batch line.
      if (m.method === undefined && (m.error !== undefined || batch.ids.has(key(m.id)))) {
        found.push({ exchange, what: `a response${m.error ? ` with error ${String((m.error as { code?: unknown }).code)}` : ''} (id ${key(m.id)})` });
      } else if (m.method === 'notifications/cancelled' && batch.ids.has(key(m.params?.['requestId']))) {
        found.push({ exchange, what: `notifications/cancelled naming ${key(m.params?.['requestId'])}` });
      } else if (m.method === 'tools/call' && (batch.ids.has(key(m.id)) || texts.has((m.params?.['arguments'] as { text?: unknown } | undefined)?.text))) {
        found.push({ exchange, what: `the call ${key(m.id)} sent again` });
      }
    }
  }
  return found;
}

export const stdioBatchAnswers = defineScenario({
  id: 'stdio/batch-answers',
  title: 'Two calls at once, their answers written as one JSON-RPC batch line (2025-03-26): each reaches its call, and the line is taken as its messages, not as a malformed one',
  revisions: ['2025-03-26'],
  requires: [],
  transport: 'stdio',
  source: { spec: batching('MCP implementations MUST support receiving JSON-RPC batches', 'MUST') },
  // The first answer waits for the second as long as a client may take to send it: a client that has both calls in
  // flight gets them in one batch whatever the load.
  setup: (_revision, time) => ({ stdio: { personalities: [{ name: 'batch-answers', tool: 'echo', count: 2, ms: time.ms.operation }] }, state: undefined }),
  async run(context) {
    const { time } = context;
    const { record } = context.stdio;
    const client = await context.connect();
    const since = performance.now();
    const texts: (string | undefined)[] = BATCHED_TEXTS.map(() => undefined);
    const calls = BATCHED_TEXTS.map(
      (text, i) =>
        new Watched(
          client.callTool('echo', { text }).then((result) => {
            texts[i] = textOf(result);
            return result;
          }),
        ),
    );
    const written = await record
      .waitFor((r) => theBatch(r.exchanges, r.processes).batch !== undefined, 'the two answers written as one batch', time.ms.operation + time.ms.react)
      .then(
        () => true,
        () => false,
      );
    if (written) {
      // Its answer is a plain line after the batch's: a client that has it read past the batch line.
      const readOnSince = performance.now();
      const readOn = new Watched(client.listTools());
      await readOn.within(time.ms.operation);
      // Read in order from one pipe, the batched answers came before it: a reaction time more for the calls to settle.
      await Promise.all(calls.map((call) => call.within(time.ms.react)));
      context.observe('readOn', readOn.since(readOnSince));
    }
    context.observe(
      'calls',
      calls.map((call, i): EchoSeen => ({ ...call.since(since), ...(texts[i] !== undefined && { text: texts[i] }) })),
    );
    // By time, not by the record's order: a line reaches the record on the program's side channel, which may lag behind
    // the answers the client already has, while each line's time is when the program read it.
    context.observe('closingAt', record.now());
    await context.bounded(client.close(), 'close');
  },
  judge(evidence) {
    const { revision, time } = evidence;
    const rule = batching('MCP implementations MUST support receiving JSON-RPC batches: each answer in a batch the server wrote reaches its call', 'MUST');
    const { calls, batch, batched, batches } = theBatch(evidence.exchanges, evidence.stdio?.processes ?? []);
    const seen = Array.isArray(evidence.observed['calls']) ? (evidence.observed['calls'] as unknown[]).filter(isEchoSeen) : undefined;
    const readOn = isOutcome(evidence.observed['readOn']) ? evidence.observed['readOn'] : undefined;
    const refused = batch ? refusals(evidence, batch) : [];
    const written = batches.map((b) => `a batch of ${b.size}`).join(', ') || 'no batch';
    // No echo call answered at all: nothing of the server's to read, whatever the client did (its checks say what).
    const answered = calls.filter((call) => call.exchange.responseMessages.some(({ message }) => message.method === undefined && message.id === call.message.id));
    const launchEach = batch === undefined ? launchPerCall(evidence, calls) : undefined;
    return [
      serverRecorded(evidence, rule),
      precondition(
        BATCH_WRITTEN,
        rule,
        batch !== undefined || answered.length === 0,
        batch !== undefined
          ? `the server wrote the answers to the echo calls ${batched.map((c) => key(c.message.id)).join(' and ')} as one batch line (${batch.size} answers)`
          : answered.length === 0
            ? `the server answered no echo call (it read ${calls.length}): nothing of it to read (the client’s checks say why)`
            : launchEach !== undefined
              ? launchEach
              : `the server wrote no batch line holding the answers to two echo calls (it read ${calls.length} echo call${calls.length === 1 ? '' : 's'}: ${labels(calls.map((c) => c.exchange))}; it wrote ${written}): the client did not have both calls in flight within the server’s hold of an operation bound`,
        launchEach !== undefined ? calls.map((c) => c.exchange) : batched.map((c) => c.exchange),
        launchEach !== undefined ? { by: 'shape' } : {},
      ),
      clientCompleted(evidence, stdio(revision, 'the client reads the server’s messages from its stdout', 'MUST')),
      seen === undefined || seen.length !== BATCHED_TEXTS.length
        ? unexercised('answers-delivered', rule, 'the script never got to the two calls')
        : checkInTime(time, 'answers-delivered', rule, delivered(seen, readOn, refused.length > 0), describeDelivery(seen, readOn, refused.length > 0), batched.map((c) => c.exchange)),
      batch === undefined
        ? unexercised('batch-taken-as-messages', batching('a batch is its messages, never a malformed line', 'MUST'), 'no batch line was written')
        : check(
            'batch-taken-as-messages',
            batching('MUST support receiving JSON-RPC batches: a batch line is its messages, never a malformed line to refuse, cancel or send again', 'MUST'),
            refused.length === 0,
            refused.length === 0
              ? 'after the batch line the client wrote no error answer to it, and neither cancelled nor re-sent the calls it answered'
              : `after the batch line the client wrote ${refused.map((r) => `${r.what} (${label(r.exchange)})`).join(', ')}: it took the line for a malformed one`,
            refused.map((r) => r.exchange),
          ),
    ];
  },
  doctored: [
    {
      check: BATCH_WRITTEN,
      unmet: true,
      how: 'every batch line the server wrote re-cut into its members, one line each',
      doctor: (e) => ({ ...e, stdio: unbatched(e.stdio!) }),
    },
    {
      check: 'answers-delivered',
      how: 'each call returned the other’s text (the answers handed to the wrong calls)',
      doctor: (e) => ({
        ...e,
        observed: { ...e.observed, calls: (e.observed['calls'] as EchoSeen[]).map((seen, i) => ({ ...seen, text: BATCHED_TEXTS[1 - i] })) },
      }),
    },
    {
      check: 'batch-taken-as-messages',
      how: 'the line after the batch is an error answer with id null (-32600 Invalid Request), as a peer that does not read batches writes',
      doctor: (e) => withLineAfterBatch(e, { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request' } }),
    },
    {
      check: 'batch-taken-as-messages',
      how: 'the line after the batch cancels the first batched call',
      doctor: (e) => {
        const first = theBatch(e.exchanges, e.stdio?.processes ?? []).batched[0];
        return withLineAfterBatch(e, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: first?.message.id, reason: 'unreadable answer' } });
      },
    },
    serverRecordedProof,
  ],
});

/**
 * Why no batch could be written, when a client with one launch per operation is the reason: the client completed and
 * made each echo call on a server process of its own, so no one server had both in flight to answer in one line.
 * Undefined otherwise (two calls on one process, one after the other, stay the suite's inconclusive case).
 */
function launchPerCall(evidence: Evidence, calls: readonly SentMessage[]): string | undefined {
  const processes = calls.map((call) => processOf(call.exchange));
  if (evidence.clientError !== undefined || calls.length < 2 || processes.some((p) => p === undefined) || new Set(processes).size !== calls.length) return undefined;
  return `the client made each echo call on a server process of its own (${calls.map((call) => `${label(call.exchange)} on process ${processOf(call.exchange)}`).join(', ')}), as a client with one launch per operation does: no one server had both calls in flight to answer them in one batch line`;
}

/** Held: both calls returned their own text. Broken whatever the time: one rejected or returned another text, or one is pending though the client read past the batch line (it had the tools/list answer written after it) or refused it. */
function delivered(seen: readonly EchoSeen[], readOn: Outcome | undefined, refused: boolean): InTime {
  if (seen.every((s, i) => s.state === 'resolved' && s.text === BATCHED_TEXTS[i])) return true;
  if (seen.some((s, i) => s.state === 'rejected' || (s.state === 'resolved' && s.text !== BATCHED_TEXTS[i]))) return false;
  return readOn?.state === 'resolved' || refused ? false : 'late';
}

function describeDelivery(seen: readonly EchoSeen[], readOn: Outcome | undefined, refused: boolean): string {
  const each = seen.map((s, i) => {
    const what = `the ${i === 0 ? 'first' : 'second'} call`;
    if (s.state !== 'resolved') return describeOutcome(s, what);
    return s.text === BATCHED_TEXTS[i] ? `${what} returned its own text` : `${what} returned ${JSON.stringify(s.text)}, not ${JSON.stringify(BATCHED_TEXTS[i])}`;
  });
  const pending = seen.some((s) => s.state === 'pending');
  const after =
    pending && readOn?.state === 'resolved'
      ? '; yet the tools/list after them, answered on a plain line after the batch line, resolved: the client read past the batch without taking its answers'
      : pending && refused
        ? '; and the client refused the batch line'
        : '';
  return `${each.join('; ')}${after}`;
}

/** The processes' stdout with every batch line re-cut into its members, one line each (no batch written). */
function unbatched(stdio: StdioEvidence): StdioEvidence {
  return {
    ...stdio,
    processes: stdio.processes.map((p) => {
      const text = Buffer.concat(p.stdout.map((chunk) => Buffer.from(chunk.data, 'base64'))).toString('utf8');
      const lines = text.split('\n').map((line) => {
        try {
          const parsed: unknown = JSON.parse(line);
          return Array.isArray(parsed) ? parsed.map((m) => JSON.stringify(m)).join('\n') : line;
        } catch {
          return line;
        }
      });
      const at = p.stdout[0]?.at ?? 0;
      return { ...p, stdout: [{ at, data: Buffer.from(lines.join('\n'), 'utf8').toString('base64') }] };
    }),
  };
}

/** The record with one more stdin line right after the batch line was written (and before close), carrying `message`. */
function withLineAfterBatch(e: Evidence, message: Record<string, unknown>): Evidence {
  const { batch } = theBatch(e.exchanges, e.stdio?.processes ?? []);
  const next = e.exchanges.find((x) => isStdioLine(x) && batch !== undefined && x.startedAt >= batch.at);
  if (batch === undefined || next === undefined) return e;
  const line: WireExchange = { ...next, seq: next.seq - 0.5, requestBody: JSON.stringify(message), requestMessages: [message as WireExchange['requestMessages'][number]], responseMessages: [], notes: [] };
  return { ...e, exchanges: [...e.exchanges.filter((x) => x.seq < next.seq), line, ...e.exchanges.filter((x) => x.seq >= next.seq)] };
}
