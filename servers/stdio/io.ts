// The program's own input and output, every byte reported as it happens: stdin read in chunks and cut into lines,
// stdout written message by message in the framing the personalities ask for, stderr, the signals, and the exit.
// Node built-ins only: it starts before the era's server (serve.ts) is loaded, so nothing the client writes early
// goes unrecorded, and the lines wait in order until the era is ready.
import { closeSync, readFileSync } from 'node:fs';
import type { ProgramChannel } from './channel.ts';
import { find, type StdioPersonalityName, STDERR_FLOOD_BYTES, UTF8_SPLIT_CHARACTER, UTF8_SPLIT_META_KEY } from './personalities.ts';
import { machineNow, MAX_STDIN_LINE_BYTES, type StdioPersonalitySpec } from './protocol.ts';

/** A stdin line as the program read it: what the dispatcher gets. */
export interface StdinLine {
  line: number;
  text: string;
  utf8: boolean;
  /** The JSON value, when the line is JSON. */
  value?: unknown;
  /** Why it is not a JSON-RPC message or batch (undefined when it is). */
  error?: string;
  /** A line of whitespace only. */
  blank: boolean;
  /** The bytes before EOF, with no newline after them. */
  unterminated: boolean;
  /** Its length in bytes when past MAX_STDIN_LINE_BYTES (its text is then empty). */
  tooLong?: number;
}

/** What the dispatcher is given, in arrival order: each line, then EOF. */
export type Arrival = { kind: 'line'; line: StdinLine } | { kind: 'eof' };

/** One message to write, and the stdin line it answers or belongs to. */
interface Outgoing {
  message: unknown;
  line: number | undefined;
}

const SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;
type HandledSignal = (typeof SIGNALS)[number];
const SIGNAL_NUMBERS: Record<HandledSignal, number> = { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 };

/**
 * A split write's piece and pause, unless the personality says otherwise, and the most pieces one message is cut into:
 * the rest of a longer message goes in its last write. Without that cap a message's write time grew with its size: the
 * tools/list a Python client sends after each call (to validate the result) is 8.9 KB, 1,110 pauses, 2.5 s on a quiet
 * machine and 4.2 s beside the hog, so its echo call was judged never answered (8 Python cells of a quiet matrix).
 */
const SPLIT_PIECE_BYTES = 8;
const SPLIT_PAUSE_MS = 2;
const SPLIT_MAX_PIECES = 16;
/** The pause between the two halves of a utf8-split write, so the client reads them apart. */
const UTF8_PAUSE_MS = 5;
/** merged-writes: the longest a notification waits for an answer to travel with, unless the personality says otherwise. */
const MERGE_HOLD_MS = 250;
/** batch-answers with a count: the longest the first answer waits for the others to travel with, unless it says otherwise. */
const BATCH_HOLD_MS = 250;
/** What a stderr write reports of its bytes. */
const STDERR_HEAD_BYTES = 2_048;

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const isResponse = (message: unknown) =>
  typeof message === 'object' && message !== null && !Array.isArray(message) && !('method' in message) && ('result' in message || 'error' in message);

/** Reads the process's start time (Linux), so the harness can tell this process from a later one with its pid. */
export function procStart(): string | undefined {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

export class ProgramIo {
  private readonly personalities: StdioPersonalitySpec[];
  private launch: number | undefined;
  private lineCount = 0;
  /** The line read so far (until its newline), and its length. */
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** The length so far of a line past the limit, whose bytes are being dropped (undefined while lines are kept). */
  private overlong: number | undefined;
  private readonly arrivals: Arrival[] = [];
  private dispatcher: ((arrival: Arrival) => void | Promise<void>) | undefined;
  private readonly holds = new Set<Promise<unknown>>();
  private draining = false;
  /** The write chain: every stdout write in order, whatever pauses a framing puts between them. */
  private writing: Promise<void> = Promise.resolve();
  private stdoutBroken = false;
  private stdoutClosed = false;
  /** Set when the server is about to crash or exit: nothing more goes out on stdout. */
  private frozen = false;
  private floodDone = false;
  private readonly merged: Outgoing[] = [];
  private mergeTimer: NodeJS.Timeout | undefined;
  private readonly batchAnswers: Outgoing[] = [];
  private batchTimer: NodeJS.Timeout | undefined;
  /** batch-answers with a tool: the tool each tools/call request names, by its id (as JSON). */
  private readonly toolCalls = new Map<string, unknown>();
  private exiting: Promise<never> | undefined;
  private signalHandler: ((signal: HandledSignal) => void) | undefined;

  private readonly channel: ProgramChannel;

  constructor(channel: ProgramChannel, personalities: readonly StdioPersonalitySpec[]) {
    this.channel = channel;
    this.personalities = [...personalities];
  }

  /** The personality of that name, if this launch has it (one bound to a launch counts once the harness said which). */
  has(name: StdioPersonalityName): StdioPersonalitySpec | undefined {
    return find(
      this.personalities.filter((p) => p.launch === undefined || p.launch === this.launch),
      name,
    );
  }

  /** Which launch of the server this process is, as the harness said (undefined without a harness). */
  setLaunch(launch: number | undefined): void {
    this.launch = launch;
  }

  /** Records SIGTERM, SIGINT and SIGHUP from the start; what then happens is `onSignal`'s (default: die of it). */
  watchSignals(): void {
    for (const signal of SIGNALS) {
      process.on(signal, () => {
        this.channel.report({ t: 'signal', at: machineNow(), signal });
        if (this.signalHandler) this.signalHandler(signal);
        else void this.exit({ signal }, `${signal} received`);
      });
    }
  }

  onSignal(handler: (signal: HandledSignal) => void): void {
    this.signalHandler = handler;
  }

  /**
   * Reads stdin from now on: every chunk reported, cut into lines, queued for the dispatcher. A line past
   * MAX_STDIN_LINE_BYTES is dropped from there to its newline: those bytes are counted, not kept nor reported.
   */
  readStdin(): void {
    const stdin = process.stdin;
    stdin.on('data', (chunk: Buffer) => {
      const at = machineNow();
      /** The chunk's runs of kept and of dropped bytes, in order: what is reported of it. */
      const runs: { from: number; to: number; dropped: boolean }[] = [];
      const mark = (from: number, to: number, dropped: boolean) => {
        const last = runs.at(-1);
        if (to <= from) return;
        if (last && last.dropped === dropped && last.to === from) last.to = to;
        else runs.push({ from, to, dropped });
      };
      const complete: { bytes: Buffer; tooLong?: number }[] = [];
      let start = 0;
      while (start < chunk.length) {
        const newline = chunk.indexOf(0x0a, start);
        const end = newline === -1 ? chunk.length : newline;
        if (this.overlong === undefined && this.pendingBytes + (end - start) > MAX_STDIN_LINE_BYTES) {
          // Past the limit: what was kept of the line goes, and the rest of it is only counted.
          this.overlong = this.pendingBytes;
          this.pending = [];
          this.pendingBytes = 0;
        }
        if (this.overlong !== undefined) {
          this.overlong += end - start;
          mark(start, end, true);
        } else {
          this.pending.push(chunk.subarray(start, end));
          this.pendingBytes += end - start;
          mark(start, end, false);
        }
        if (newline === -1) break;
        mark(newline, newline + 1, false);
        complete.push(this.overlong !== undefined ? { bytes: Buffer.alloc(0), tooLong: this.overlong } : { bytes: Buffer.concat(this.pending) });
        this.pending = [];
        this.pendingBytes = 0;
        this.overlong = undefined;
        start = newline + 1;
      }
      for (const { from, to, dropped } of runs) {
        this.channel.report(dropped ? { t: 'stdin', at, data: '', dropped: to - from } : { t: 'stdin', at, data: chunk.subarray(from, to).toString('base64') });
      }
      for (const { bytes, tooLong } of complete) this.takeLine(bytes, false, tooLong);
    });
    stdin.on('end', () => {
      const rest = Buffer.concat(this.pending);
      const tooLong = this.overlong;
      this.pending = [];
      this.pendingBytes = 0;
      this.overlong = undefined;
      if (rest.length > 0 || tooLong !== undefined) this.takeLine(rest, true, tooLong);
      this.channel.report({ t: 'stdin-eof', at: machineNow() });
      this.arrive({ kind: 'eof' });
    });
    stdin.on('error', () => {});
  }

  /** Nothing is dispatched until `promise` settles (the era loading, a slow start, the harness's welcome). */
  hold(promise: Promise<unknown>): void {
    const held = promise.catch(() => {}).finally(() => {
      this.holds.delete(held);
      void this.drain();
    });
    this.holds.add(held);
  }

  setDispatcher(dispatcher: (arrival: Arrival) => void | Promise<void>): void {
    this.dispatcher = dispatcher;
    void this.drain();
  }

  /** One line, complete (or cut off by EOF): reported, then queued for the dispatcher. `tooLong`: its length, past the limit (none of it kept). */
  private takeLine(bytes: Buffer, unterminated: boolean, tooLong?: number): void {
    const line = ++this.lineCount;
    let text: string;
    let utf8 = true;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      text = new TextDecoder('utf-8').decode(bytes);
      utf8 = false;
    }
    const parsed: ReturnType<typeof parseLine> =
      tooLong !== undefined ? { messages: [], error: `a line of ${tooLong} bytes, longer than ${MAX_STDIN_LINE_BYTES}` } : parseLine(text);
    if (find(this.personalities, 'batch-answers')?.tool !== undefined) {
      for (const m of parsed.messages as { id?: unknown; method?: unknown; params?: { name?: unknown } }[]) {
        if (m.method === 'tools/call' && m.id !== undefined) this.toolCalls.set(JSON.stringify(m.id), m.params?.name);
      }
    }
    this.channel.report({
      t: 'line',
      at: machineNow(),
      line,
      text,
      utf8,
      messages: parsed.messages,
      ...(parsed.batch && { batch: true }),
      ...(parsed.error !== undefined && { error: parsed.error }),
      ...(unterminated && { unterminated: true }),
      ...(tooLong !== undefined && { tooLong }),
    });
    this.arrive({
      kind: 'line',
      line: {
        line,
        text,
        utf8,
        blank: tooLong === undefined && text.trim() === '',
        unterminated,
        ...('value' in parsed && { value: parsed.value }),
        ...(parsed.error !== undefined && { error: parsed.error }),
        ...(tooLong !== undefined && { tooLong }),
      },
    });
  }

  private arrive(arrival: Arrival): void {
    this.arrivals.push(arrival);
    void this.drain();
  }

  /** Dispatches the queued arrivals one at a time, in order, while nothing holds them. */
  private async drain(): Promise<void> {
    if (this.draining) return;
    this.draining = true;
    try {
      while (this.dispatcher && this.holds.size === 0 && this.arrivals.length > 0) {
        await this.dispatcher(this.arrivals.shift()!);
      }
    } finally {
      this.draining = false;
    }
  }

  /** Labels the exchange of a stdin line (or the process). */
  note(label: string, line?: number): void {
    this.channel.report({ t: 'note', at: machineNow(), label, ...(line !== undefined && { line }) });
  }

  // ---- stdout ----

  /** Writes one message (or a batch: an array) in the framing the personalities ask for; resolves once it is out. */
  send(message: unknown, line?: number): Promise<void> {
    if (this.frozen || this.stdoutClosed) return Promise.resolve();
    const outgoing = { message: this.decorate(message), line };
    const batching = this.has('batch-answers');
    if (batching && isResponse(message) && (batching.tool === undefined || this.toolCalls.get(JSON.stringify((message as { id?: unknown }).id)) === batching.tool)) {
      this.batchAnswers.push(outgoing);
      if (batching.count === undefined) {
        // The answers due together (in this turn of the event loop) go as one batch.
        if (this.batchAnswers.length === 1) setImmediate(() => this.flushBatch());
      } else if (this.batchAnswers.length >= batching.count) {
        clearTimeout(this.batchTimer);
        this.batchTimer = undefined;
        setImmediate(() => this.flushBatch());
      } else {
        this.batchTimer ??= setTimeout(() => this.flushBatch(), batching.ms ?? BATCH_HOLD_MS);
      }
      return this.writing;
    }
    const merged = this.has('merged-writes');
    if (merged) {
      this.merged.push(outgoing);
      if (isResponse(message)) {
        clearTimeout(this.mergeTimer);
        this.mergeTimer = undefined;
        setImmediate(() => this.flushMerged());
      } else {
        this.mergeTimer ??= setTimeout(() => this.flushMerged(), merged.ms ?? MERGE_HOLD_MS);
      }
      return this.writing;
    }
    return this.enqueue([outgoing]);
  }

  /** Writes these bytes as they are (a scenario's exact framing), after whatever is queued. */
  writeRaw(data: Buffer): Promise<void> {
    this.writing = this.writing.then(() => this.write(data));
    return this.writing;
  }

  /** Nothing more goes out on stdout (a crash is coming). */
  freeze(): void {
    this.frozen = true;
  }

  /** Closes stdout (fd 1) once what is queued is out: the server-initiated shutdown's first step. */
  async closeStdout(): Promise<void> {
    await this.writing;
    if (this.stdoutClosed) return;
    this.stdoutClosed = true;
    try {
      closeSync(1);
      this.note('stdout-closed');
    } catch (error) {
      this.channel.report({ t: 'stdout-error', at: machineNow(), error: (error as Error).message });
    }
  }

  /** batch-answers: the answers held so far, written as one batch (an array); each reported sent, on its own line's exchange. */
  private flushBatch(): void {
    clearTimeout(this.batchTimer);
    this.batchTimer = undefined;
    const held = this.batchAnswers.splice(0);
    if (held.length > 0) void this.enqueue([{ message: held.map((o) => o.message), line: undefined }], held);
  }

  private flushMerged(): void {
    clearTimeout(this.mergeTimer);
    this.mergeTimer = undefined;
    const units = this.merged.splice(0);
    if (units.length > 0) void this.enqueue(units);
  }

  /** utf8-split: every result and notification carries a multi-byte character. */
  private decorate(message: unknown): unknown {
    if (!this.has('utf8-split') || typeof message !== 'object' || message === null || Array.isArray(message)) return message;
    const m = message as Record<string, unknown>;
    const field = 'result' in m ? 'result' : 'method' in m ? 'params' : undefined;
    if (field === undefined) return message;
    const body = (m[field] ?? {}) as Record<string, unknown>;
    if (typeof body !== 'object' || Array.isArray(body)) return message;
    const meta = (body['_meta'] ?? {}) as Record<string, unknown>;
    return { ...m, [field]: { ...body, _meta: { ...meta, [UTF8_SPLIT_META_KEY]: UTF8_SPLIT_CHARACTER } } };
  }

  /**
   * Queues the messages as one unit: their lines joined, written in one write or cut into pieces, and each reported
   * `sent` once the unit's last byte is out. `reported` are the messages to report (a batch's members) when not the unit's.
   */
  private enqueue(units: Outgoing[], reported: Outgoing[] = units): Promise<void> {
    const bytes = Buffer.from(units.map((u) => `${JSON.stringify(u.message)}\n`).join(''), 'utf8');
    this.writing = this.writing.then(async () => {
      if (this.frozen) return;
      await this.flood();
      const split = this.has('split-writes');
      const utf8 = this.has('utf8-split');
      if (split) {
        const size = Math.max(1, split.bytes ?? SPLIT_PIECE_BYTES);
        const last = (SPLIT_MAX_PIECES - 1) * size;
        for (let at = 0; at < bytes.length; at += size) {
          if (this.frozen) return;
          if (at > 0) await pause(split.ms ?? SPLIT_PAUSE_MS);
          if (at >= last) {
            await this.write(bytes.subarray(at));
            break;
          }
          await this.write(bytes.subarray(at, at + size));
        }
      } else if (utf8 && multibyteCut(bytes) !== undefined) {
        const cut = multibyteCut(bytes)!;
        await this.write(bytes.subarray(0, cut));
        await pause(utf8.ms ?? UTF8_PAUSE_MS);
        if (this.frozen) return;
        await this.write(bytes.subarray(cut));
      } else {
        await this.write(bytes);
      }
      const at = machineNow();
      for (const { message, line } of reported) this.channel.report({ t: 'sent', at, message, ...(line !== undefined && { line }) });
    });
    return this.writing;
  }

  /**
   * One write to stdout, reported as it begins; resolves once the bytes are with the kernel. A client that does not read
   * stdout holds it there: the write chain waits (as a server blocked on a full pipe does) instead of piling up
   * answers in memory, and nothing is reported sent before it went.
   */
  private write(bytes: Buffer): Promise<void> {
    if (this.stdoutBroken || this.stdoutClosed || bytes.length === 0) return Promise.resolve();
    this.channel.report({ t: 'stdout', at: machineNow(), data: bytes.toString('base64') });
    return new Promise((resolve) => {
      try {
        // An error (EPIPE: the client closed its end) settles it too; watchStdout reports it.
        process.stdout.write(bytes, () => resolve());
      } catch {
        resolve();
      }
    });
  }

  /** Watches stdout for a client that stopped reading it (EPIPE): reported, and writes stop. */
  watchStdout(): void {
    process.stdout.on('error', (error) => {
      if (this.stdoutBroken) return;
      this.stdoutBroken = true;
      this.channel.report({ t: 'stdout-error', at: machineNow(), error: error.message });
    });
  }

  /** stderr-flood: at least 1 MiB on stderr before the first stdout write. */
  private async flood(): Promise<void> {
    if (this.floodDone) return;
    this.floodDone = true;
    const spec = this.has('stderr-flood');
    if (!spec) return;
    const total = spec.bytes ?? STDERR_FLOOD_BYTES;
    const line = 'stderr-flood: a server that logs a lot before it answers; the client must keep reading stderr\n';
    const block = Buffer.from(line.repeat(Math.ceil(65_536 / line.length)).slice(0, 65_536));
    for (let written = 0; written < total; written += block.length) {
      await this.stderr(block.subarray(0, Math.min(block.length, total - written)));
    }
  }

  // ---- stderr ----

  /** Writes to stderr and reports when the write began and when it was done (a pipe nobody drains blocks it). */
  stderr(data: string | Buffer): Promise<void> {
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    const at = machineNow();
    return new Promise((resolve) => {
      const done = () => {
        this.channel.report({ t: 'stderr', at, doneAt: machineNow(), bytes: bytes.length, head: bytes.subarray(0, STDERR_HEAD_BYTES).toString('utf8') });
        resolve();
      };
      try {
        process.stderr.write(bytes, done);
      } catch {
        done();
      }
    });
  }

  // ---- the end ----

  /** Reports the exit, lets the channel drain, then exits with `code` or dies of `signal` (as its default action would). */
  exit(how: { code: number } | { signal: HandledSignal }, reason: string): Promise<never> {
    this.exiting ??= (async () => {
      const code = 'code' in how ? how.code : null;
      const signal = 'signal' in how ? how.signal : null;
      this.channel.report({ t: 'exit', at: machineNow(), code, signal, reason });
      await this.channel.flush();
      if (signal) {
        process.removeAllListeners(signal);
        process.kill(process.pid, signal);
        // Should the signal not end it (it always does for these three), the conventional code.
        await pause(1_000);
        process.exit(128 + SIGNAL_NUMBERS[signal]);
      }
      process.exit(code ?? 0);
    })();
    return this.exiting;
  }
}

/**
 * Whether a JSON value has the shape of a JSON-RPC 2.0 message (§4, §5): an object with `"jsonrpc": "2.0"` and a method
 * (a request or notification), a result or an error (a response). Only the shape: the era's server (the SDK's
 * parser) judges the rest, and answers -32600 what it refuses.
 */
const isJsonRpcShaped = (value: unknown) =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && (value as { jsonrpc?: unknown }).jsonrpc === '2.0' && ('method' in value || 'result' in value || 'error' in value);

/** A JSON-RPC message, a batch (an array: its JSON-RPC members), or why the line is neither. */
export function parseLine(text: string): { messages: unknown[]; value?: unknown; batch?: boolean; error?: string } {
  if (text.trim() === '') return { messages: [], error: 'blank line' };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { messages: [], error: `not JSON: ${(error as Error).message}` };
  }
  if (Array.isArray(value)) {
    const messages = value.filter(isJsonRpcShaped);
    const error = value.length === 0 ? 'an empty batch' : messages.length < value.length ? 'a batch member is not a JSON-RPC message' : undefined;
    return { messages, value, batch: true, ...(error !== undefined && { error }) };
  }
  if (!isJsonRpcShaped(value)) return { messages: [], value, error: 'JSON, but not a JSON-RPC message or batch' };
  return { messages: [value], value };
}

/** Where to cut `bytes` so a multi-byte UTF-8 character is split (after its first byte); undefined when there is none. */
export function multibyteCut(bytes: Buffer): number | undefined {
  for (let i = 0; i < bytes.length; i++) if (bytes[i]! >= 0xc0) return i + 1;
  return undefined;
}
