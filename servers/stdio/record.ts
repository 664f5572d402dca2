// The wire record of a stdio server, built from what its processes report on the side channel (protocol.ts), in the
// HTTP record's shape wherever it can be (servers/wire-record.ts), so judges and wire queries (suites/wire.ts) are shared.
//
// The mapping to WireExchange:
// - One stdin line = one exchange: method 'STDIN', path '', no headers, no status; `requestBody` is the line's text
//   (without its newline), `requestMessages` its JSON-RPC messages (a batch flattened; none when it is not JSON-RPC),
//   `startedAt` when the line was complete. `line` and `process` say where it came from.
// - The server's answer to a request, and a notification it sent about one (progress), are `responseMessages` of that
//   request's exchange, with the time their last byte was written; the exchange ends (`endedBy: 'server'`) when every
//   request on it is answered (an error with id null answers a whole line: a batch refused where there are none). A notification line ends at once. A message the server sent on its own (a ping, a
//   command the harness gave) is an exchange of its own: method 'STDOUT', no request messages.
// - `notes`: a personality's labels (PROBE_ANSWER_NOTE, …) and the line's faults: 'stdin-not-json',
//   'stdin-not-jsonrpc' (JSON, but no JSON-RPC message: noted by the line, or by the server when its parser refused
//   it), 'stdin-not-utf8', 'stdin-blank-line', 'stdin-unterminated', 'stdin-batch', 'stdin-too-long' (past
//   MAX_STDIN_LINE_BYTES: `requestBody` empty, nothing of it kept).
// Plus what only stdio has, per process (`processes`, in launch order): every stdin chunk (base64) and stdout write with
// its time, stderr writes, stdin EOF, signals, the exit (reported, or inferred when the channel dropped without one:
// SIGKILL), children, and whether the harness had to kill it at the end.
import { ExchangeRecord, type JsonRpcMessage, type WireExchange } from '../wire-record.ts';
import { fromMachineClock, machineNow, type ChannelEvent, type ProcessRole, type StdioEra, type StdioPersonalitySpec } from './protocol.ts';

export interface StdioExchange extends WireExchange {
  /** The process (its `index` in `processes`) whose stdin or stdout carried it. */
  process: number;
  /** The stdin line, from 1 per process (undefined on a STDOUT exchange). */
  line?: number;
}

/** A piece of bytes and when it crossed (base64: the record is plain data, as evidence is). */
export interface StdioChunk {
  at: number;
  data: string;
  /** stdin only: this many bytes of a line past MAX_STDIN_LINE_BYTES, read but not kept (`data` is then empty). */
  dropped?: number;
}

export interface StdioStderrWrite {
  at: number;
  /** When the write returned: later than `at` when the pipe was full and the client slow to drain it. */
  doneAt: number;
  bytes: number;
  /** The write's first bytes, as text. */
  head: string;
}

export interface StdioExit {
  at: number;
  code: number | null;
  signal: string | null;
  reason: string;
  /** The process never said how it ended: its channel closed without an exit record (SIGKILL is the only way). */
  inferred?: true;
}

export interface StdioProcess {
  /** Its place in `processes`, from 1 (the order the processes said hello). */
  index: number;
  /** Which launch of the server by the client it belongs to, from 1 (a wrapper's child shares its wrapper's). */
  launch: number;
  /** The index of the process that spawned it, when that is one of ours (a wrapper's). */
  parent?: number;
  pid?: number;
  ppid?: number;
  role: ProcessRole | 'unknown';
  era?: StdioEra;
  personalities: StdioPersonalitySpec[];
  argv: string[];
  procStart?: string;
  /** When its channel connected (record time, ms). */
  connectedAt: number;
  /** When it said hello (its own clock, converted). */
  startedAt?: number;
  stdin: StdioChunk[];
  stdout: StdioChunk[];
  stderr: StdioStderrWrite[];
  stdinEofAt?: number;
  signals: { at: number; signal: string }[];
  children: number[];
  notes: { at: number; label: string; line?: number }[];
  stdoutErrors: { at: number; error: string }[];
  exit?: StdioExit;
  channelClosedAt?: number;
  /** The harness found it alive at the end of the case and killed it (SIGKILL). */
  killedByHarness?: { at: number };
}

/** What the harness did at the end: the processes it found alive and killed, and when. */
export interface StdioCleanup {
  at: number;
  /** pids it had to kill. */
  killed: number[];
}

/** What `onEvent` listeners hear: each event a process reported, and its channel closing. */
export type StdioRecordEvent = ChannelEvent | { t: 'channel-closed'; at: number };

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

export class StdioRecord extends ExchangeRecord<StdioExchange> {
  readonly processes: StdioProcess[] = [];
  /** Set by the harness's close(). */
  cleanup?: StdioCleanup;
  /** The exchange of each (process, line). */
  private readonly byLine = new Map<string, StdioExchange>();
  /** The requests of each exchange still unanswered (ids as JSON). */
  private readonly unanswered = new Map<StdioExchange, Set<string>>();

  /** A time the program reported (protocol.ts machineNow) in this record's time (ms since the record was created). */
  fromMachine(machineMs: number): number {
    return fromMachineClock(machineMs) - this.origin;
  }

  /** A connection opened: a process, known once it says hello. */
  connected(): StdioProcess {
    const entry: StdioProcess = {
      index: this.processes.length + 1,
      launch: 0,
      role: 'unknown',
      personalities: [],
      argv: [],
      connectedAt: this.now(),
      stdin: [],
      stdout: [],
      stderr: [],
      signals: [],
      children: [],
      notes: [],
      stdoutErrors: [],
    };
    this.processes.push(entry);
    this.changed();
    return entry;
  }

  /** Calls `listener` with each event as it is recorded (times as the program reported them); returns the unsubscribe function. */
  onEvent(listener: (process: StdioProcess, event: StdioRecordEvent) => void): () => void {
    this.changes.on('event', listener);
    return () => this.changes.off('event', listener);
  }

  /** A process's connection closed: without an exit record, it was killed (SIGKILL: nothing else ends it unheard). */
  disconnected(entry: StdioProcess): void {
    entry.channelClosedAt = this.now();
    entry.exit ??= {
      at: entry.channelClosedAt,
      code: null,
      signal: 'SIGKILL',
      reason: 'inferred: the channel closed without an exit record',
      inferred: true,
    };
    this.changes.emit('event', entry, { t: 'channel-closed', at: machineNow() });
    this.changed();
  }

  /** One event a process reported. */
  ingest(entry: StdioProcess, event: ChannelEvent): void {
    const at = this.fromMachine(event.at);
    switch (event.t) {
      case 'hello': {
        entry.pid = event.pid;
        entry.ppid = event.ppid;
        entry.role = event.role;
        entry.era = event.era;
        entry.personalities = event.personalities;
        entry.argv = event.argv;
        if (event.procStart !== undefined) entry.procStart = event.procStart;
        entry.startedAt = at;
        const parent = this.processes.find((p) => p !== entry && p.pid === event.ppid && p.exit === undefined);
        if (parent) entry.parent = parent.index;
        entry.launch = parent ? parent.launch : Math.max(0, ...this.processes.filter((p) => p !== entry).map((p) => p.launch)) + 1;
        break;
      }
      case 'stdin':
        entry.stdin.push({ at, data: event.data, ...(event.dropped !== undefined && { dropped: event.dropped }) });
        break;
      case 'stdin-eof':
        entry.stdinEofAt = at;
        break;
      case 'line':
        this.addLine(entry, event, at);
        break;
      case 'sent':
        this.addSent(entry, event.message, event.line, at);
        break;
      case 'stdout':
        entry.stdout.push({ at, data: event.data });
        break;
      case 'stdout-error':
        entry.stdoutErrors.push({ at, error: event.error });
        break;
      case 'stderr':
        entry.stderr.push({ at, doneAt: this.fromMachine(event.doneAt), bytes: event.bytes, head: event.head });
        break;
      case 'signal':
        entry.signals.push({ at, signal: event.signal });
        break;
      case 'child':
        entry.children.push(event.pid);
        break;
      case 'note': {
        entry.notes.push({ at, label: event.label, ...(event.line !== undefined && { line: event.line }) });
        const exchange = event.line === undefined ? undefined : this.byLine.get(`${entry.index}:${event.line}`);
        if (exchange) exchange.notes.push(event.label);
        break;
      }
      case 'exit':
        entry.exit = { at, code: event.code, signal: event.signal, reason: event.reason };
        break;
      case 'run':
      case 'aborted':
        break;
    }
    this.changes.emit('event', entry, event);
    this.changed();
  }

  private addLine(entry: StdioProcess, event: Extract<ChannelEvent, { t: 'line' }>, at: number): void {
    const messages = event.messages.filter(isObject) as JsonRpcMessage[];
    const notes: string[] = [];
    if (!event.utf8) notes.push('stdin-not-utf8');
    if (event.unterminated) notes.push('stdin-unterminated');
    if (event.batch) notes.push('stdin-batch');
    if (event.tooLong !== undefined) notes.push('stdin-too-long');
    else if (event.error === 'blank line') notes.push('stdin-blank-line');
    else if (event.error?.startsWith('not JSON')) notes.push('stdin-not-json');
    else if (event.error !== undefined) notes.push('stdin-not-jsonrpc');
    const exchange: StdioExchange = {
      seq: this.exchanges.length + 1,
      method: 'STDIN',
      path: '',
      requestHeaders: {},
      requestBody: event.text,
      requestMessages: messages,
      responseHeaders: {},
      sse: false,
      sseEvents: [],
      responseMessages: [],
      startedAt: at,
      notes,
      process: entry.index,
      line: event.line,
    };
    if (!this.enabled) return;
    this.exchanges.push(exchange);
    this.byLine.set(`${entry.index}:${event.line}`, exchange);
    const ids = messages.filter((m) => m.method !== undefined && m.id !== undefined).map((m) => JSON.stringify(m.id));
    if (ids.length > 0) this.unanswered.set(exchange, new Set(ids));
    else this.end(exchange, at);
  }

  private addSent(entry: StdioProcess, sent: unknown, line: number | undefined, at: number): void {
    const messages = (Array.isArray(sent) ? sent : [sent]).filter(isObject) as JsonRpcMessage[];
    let exchange = line === undefined ? undefined : this.byLine.get(`${entry.index}:${line}`);
    if (!exchange) {
      exchange = {
        seq: this.exchanges.length + 1,
        method: 'STDOUT',
        path: '',
        requestHeaders: {},
        requestBody: '',
        requestMessages: [],
        responseHeaders: {},
        sse: false,
        sseEvents: [],
        responseMessages: [],
        startedAt: at,
        notes: [],
        process: entry.index,
      };
      if (!this.enabled) return;
      this.exchanges.push(exchange);
      exchange.responseMessages.push(...messages.map((message) => ({ message, at })));
      this.end(exchange, at);
      return;
    }
    exchange.responseMessages.push(...messages.map((message) => ({ message, at })));
    const pending = this.unanswered.get(exchange);
    if (!pending) return;
    for (const message of messages) {
      if (message.method !== undefined) continue;
      if (message.id !== undefined && message.id !== null) pending.delete(JSON.stringify(message.id));
      // One error with id null, not in a batch's answer, answers the line as a whole (a batch where there are none).
      else if (message.error !== undefined && !Array.isArray(sent)) pending.clear();
    }
    if (pending.size === 0) {
      this.unanswered.delete(exchange);
      this.end(exchange, at);
    }
  }

  private end(exchange: StdioExchange, at: number): void {
    exchange.endedAt = at;
    exchange.endedBy = 'server';
    this.ended(exchange);
  }

  // ---- queries of what only stdio has ----

  /** The processes of one launch, or every process of the server role (the real servers, not wrappers). */
  servers(launch?: number): StdioProcess[] {
    return this.processes.filter((p) => p.role === 'server' && (launch === undefined || p.launch === launch));
  }

  /** How many times the client launched the server. */
  launches(): number {
    return Math.max(0, ...this.processes.map((p) => p.launch));
  }

  /** The exchanges one process carried. */
  exchangesOf(process: StdioProcess): StdioExchange[] {
    return this.exchanges.filter((exchange) => exchange.process === process.index);
  }
}

/** Every byte a process read from stdin, in order (but those of a line past the limit: a chunk's `dropped` counts them). */
export const stdinBytes = (process: StdioProcess): Buffer => Buffer.concat(process.stdin.map((chunk) => Buffer.from(chunk.data, 'base64')));

/** Every byte a process wrote to stdout, in order. */
export const stdoutBytes = (process: StdioProcess): Buffer => Buffer.concat(process.stdout.map((chunk) => Buffer.from(chunk.data, 'base64')));

/** A process's stdout as lines: every byte, where each write began, and each newline-ended line that is JSON. */
export interface StdoutLines {
  bytes: Buffer;
  /** Where each write began in the stream (the first at 0), with the time it began. */
  writes: { start: number; at: number }[];
  /** Each line that parses as JSON: its bytes `start`..`end` (its newline), its value, and when the write holding its first byte began. */
  lines: { start: number; end: number; value: unknown; at: number }[];
}

export function stdoutLines(process: StdioProcess): StdoutLines {
  const chunks = process.stdout.map((chunk) => ({ at: chunk.at, bytes: Buffer.from(chunk.data, 'base64') }));
  const bytes = Buffer.concat(chunks.map((chunk) => chunk.bytes));
  const writes: StdoutLines['writes'] = [];
  for (let start = 0, i = 0; i < chunks.length; start += chunks[i]!.bytes.length, i++) writes.push({ start, at: chunks[i]!.at });
  const lines: StdoutLines['lines'] = [];
  for (let start = 0, end = bytes.indexOf(0x0a); end !== -1; start = end + 1, end = bytes.indexOf(0x0a, start)) {
    let value: unknown;
    try {
      value = JSON.parse(bytes.subarray(start, end).toString('utf8'));
    } catch {
      continue;
    }
    lines.push({ start, end, value, at: writes.findLast((write) => write.start <= start)?.at ?? 0 });
  }
  return { bytes, writes, lines };
}
