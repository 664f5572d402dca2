// The stdio transport of the reference client, below the protocol: the server as a child process in its own process
// group, newline-delimited JSON-RPC on its stdin and stdout, its stderr drained (and never taken as an error), and the
// shutdown the spec describes: close stdin, wait, SIGTERM, wait, SIGKILL, then whatever is left of the process tree.
// Every wait is a grace given by the caller (ConnectOptions.shutdownGraceMs, from the runner's time policy).
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import type { StdioTarget } from '../adapter.ts';
import { ConnectionDropped, ProtocolError } from './errors.ts';
import { messagesIn, type JsonRpcMessage } from './protocol.ts';
import type { ReferenceRules } from './rules.ts';
import { delay } from './timers.ts';

/** The longest stdout line read from a server (one JSON-RPC message); a longer one is a runaway server, shut down. */
export const MAX_LINE_BYTES = 16 * 1024 * 1024;
/** How much of the server's stderr is kept for error messages (the rest is read and dropped). */
const STDERR_TAIL_BYTES = 2_048;

/** How the process ended: its exit code, or the signal that killed it. */
export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

const exitText = (exit: ProcessExit) => (exit.code !== null ? `exited with code ${exit.code}` : `was killed by ${exit.signal}`);

/** The shutdown rules of the stdio transport (rules.ts). */
type StdioRules = Pick<ReferenceRules, 'closeStdinFirst' | 'escalateToSigkill' | 'killProcessTree' | 'drainStderr' | 'stderrNotAnError' | 'oneLinePerMessage' | 'acceptBatches'>;

/**
 * One server process. Messages it writes reach `onMessage` (a batch flattened); its end (stdout closed or the process
 * gone) is `ended`, with the reason every request still waiting is failed with.
 */
export class StdioProcess {
  readonly pid: number;
  private readonly child: ChildProcess;
  private readonly rules: StdioRules;
  private readonly label: string;
  private exit: ProcessExit | undefined;
  private readonly exited: Promise<ProcessExit>;
  /** All its standard streams closed: the process and every descendant holding them are gone. */
  private readonly streamsClosed: Promise<void>;
  private stderrTail = '';
  private endReason: Error | undefined;
  private readonly endListeners = new Set<(reason: Error) => void>();
  private shuttingDown: Promise<void> | undefined;
  onMessage: (message: JsonRpcMessage) => void = () => {};

  /** Spawns the server. Rejects when it cannot be started (no such program, say). */
  static async launch(target: StdioTarget, rules: StdioRules): Promise<StdioProcess> {
    const launched = new StdioProcess(target, rules);
    await launched.spawned;
    return launched;
  }

  private readonly spawned: Promise<void>;

  private constructor(target: StdioTarget, rules: StdioRules) {
    this.rules = rules;

    this.child = spawn(target.command, target.args, {
      ...(target.cwd !== undefined ? { cwd: target.cwd } : {}),
      env: { ...process.env, ...target.env },
      stdio: ['pipe', 'pipe', 'pipe'],
      // Its own process group: the server and everything it starts can be signalled together (killProcessTree).
      detached: true,
    });
    this.pid = this.child.pid ?? -1;
    this.label = `the server process ${JSON.stringify([target.command, ...target.args].join(' '))}${this.pid > 0 ? ` (pid ${this.pid})` : ''}`;
    this.spawned = new Promise((resolve, reject) => {
      this.child.once('spawn', resolve);
      this.child.once('error', (error) => reject(new ConnectionDropped(`${this.label} could not be started: ${error.message}`, { cause: error })));
    });
    this.exited = new Promise((resolve) => {
      this.child.once('exit', (code, signal) => {
        this.exit = { code, signal };
        this.end(new ConnectionDropped(`${this.label} ${exitText(this.exit)}${this.stderrTail ? ` (its last stderr: ${lastLine(this.stderrTail)})` : ''}`));
        resolve(this.exit);
      });
      this.child.once('error', () => {
        if (this.pid <= 0) resolve({ code: null, signal: null });
      });
    });
    this.streamsClosed = new Promise((resolve) => this.child.once('close', () => resolve()));
    // A write to a server that has gone is reported by its end, not by the pipe.
    this.child.stdin!.on('error', () => {});
    this.child.stdout!.on('error', () => {});
    this.child.stderr!.on('error', () => {});
    readLines(
      this.child.stdout!,
      (line) => this.onLine(line),
      () => this.fail(new ProtocolError(`${this.label} wrote a line longer than ${MAX_LINE_BYTES} bytes`)),
      () => this.end(new ConnectionDropped(`${this.label} closed its stdout`)),
    );
    // Reading stderr is what keeps a chatty server from blocking on a full pipe; its content is logs, never an error.
    if (rules.drainStderr) {
      this.child.stderr!.on('data', (chunk: Buffer) => {
        this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-STDERR_TAIL_BYTES);
        // The habit the spec warns against: a log line read as the server failing.
        if (!rules.stderrNotAnError) this.fail(new ProtocolError(`${this.label} reported an error on stderr: ${lastLine(this.stderrTail)}`));
      });
    } else {
      this.child.stderr!.pause();
    }
  }

  /** The process has exited (whatever its descendants do). */
  get hasExited(): boolean {
    return this.exit !== undefined;
  }

  /** It exited by itself with an error (a code other than 0, or a signal), not shut down by this client. */
  get crashed(): boolean {
    return this.exit !== undefined && this.shuttingDown === undefined && (this.exit.code !== 0 || this.exit.signal !== null);
  }

  /** Waits at most `ms` for the process to exit (its stdout may end a moment before); true when it has. */
  exitedWithin(ms: number): Promise<boolean> {
    return this.within(this.exited, ms);
  }

  /** Why the server can no longer be talked to, once it cannot. */
  get ended(): Error | undefined {
    return this.endReason;
  }

  /** Hears the end once (at once if it has ended already). */
  onEnd(listener: (reason: Error) => void): void {
    if (this.endReason !== undefined) listener(this.endReason);
    else this.endListeners.add(listener);
  }

  /** Writes one message as one line. Rejects when the server is gone. */
  send(message: JsonRpcMessage): Promise<void> {
    if (this.endReason !== undefined) return Promise.reject(this.endReason);
    const stdin = this.child.stdin!;
    if (stdin.writableEnded || stdin.destroyed) return Promise.reject(new ConnectionDropped(`${this.label}: its stdin is closed`));
    // JSON.stringify escapes every newline inside strings: one message, one line. Written raw (the habit of a
    // hand-made serializer), a string's newline cuts its message into lines that are no JSON.
    const text = this.rules.oneLinePerMessage ? JSON.stringify(message) : JSON.stringify(message).replaceAll('\\n', '\n');
    return new Promise((resolve, reject) => {
      stdin.write(`${text}\n`, (error) => (error ? reject(this.endReason ?? new ConnectionDropped(`${this.label}: writing to its stdin failed (${error.message})`)) : resolve()));
    });
  }

  /**
   * Ends the server the way the spec says: close its stdin, wait `graceMs` for it to exit, then SIGTERM, wait again,
   * then SIGKILL; then whatever is left of its process group gets the same escalation. Safe to call again (the same
   * promise). Never rejects.
   */
  shutdown(graceMs: number): Promise<void> {
    this.shuttingDown ??= this.runShutdown(graceMs).catch(() => {});
    return this.shuttingDown;
  }

  private async runShutdown(graceMs: number): Promise<void> {
    const { rules } = this;
    this.end(new ConnectionDropped(`${this.label} was shut down by the client`));
    if (!rules.closeStdinFirst) {
      // The habit the spec's order rules out: a signal first, stdin closed only after a grace.
      this.signal('SIGTERM');
      await this.within(this.exited, graceMs);
    }
    this.child.stdin!.end();
    if (!(await this.within(this.exited, graceMs))) {
      if (rules.closeStdinFirst) this.signal('SIGTERM');
      if (!(await this.within(this.exited, graceMs)) && rules.escalateToSigkill) {
        this.signal('SIGKILL');
        await this.within(this.exited, graceMs);
      }
    }
    // A server still running (a client that never sends SIGKILL) keeps its tree: there is nothing more this client does.
    if (!rules.killProcessTree || !this.hasExited) return this.release();
    // The server is gone; its descendants (a wrapper's real server, a helper) may not be. They hold its pipes, or at
    // least its process group: the same escalation for them, with nothing left afterwards.
    if (!(await this.within(this.streamsClosed, graceMs)) || this.groupAlive()) {
      this.signalGroup('SIGTERM');
      if (!(await this.groupGoneWithin(graceMs)) && rules.escalateToSigkill) {
        this.signalGroup('SIGKILL');
        await this.groupGoneWithin(graceMs);
      }
    }
    this.release();
  }

  /**
   * The broken variant's close on a connect that gave up: stdin closed, then the exit waited for, with no grace and no
   * signal: a server that ignores EOF is waited for as long as it runs.
   */
  async closeInputAndAwaitExit(): Promise<void> {
    this.end(new ConnectionDropped(`${this.label} was shut down by the client`));
    this.child.stdin!.end();
    await this.exited;
    this.release();
  }

  /** Stops reading: nothing it writes after the shutdown is waited for. */
  private release(): void {
    this.child.stdout!.destroy();
    this.child.stderr!.destroy();
    this.child.unref();
  }

  private signal(signal: NodeJS.Signals): void {
    if (this.exit !== undefined) return;
    if (this.rules.killProcessTree) this.signalGroup(signal);
    else {
      try {
        this.child.kill(signal);
      } catch {
        // gone already
      }
    }
  }

  private signalGroup(signal: NodeJS.Signals): void {
    // Never -1 or 0 (every process we may signal, our own group).
    if (this.pid <= 1) return;
    try {
      process.kill(-this.pid, signal);
    } catch {
      // ESRCH: nothing is left in the group.
    }
  }

  /** Some process of the group still runs (a zombie is no longer running: an orphan's may never be reaped). */
  private groupAlive(): boolean {
    if (this.pid <= 1) return false;
    try {
      process.kill(-this.pid, 0);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
    }
    return runningInGroup(this.pid);
  }

  /** Whether the group emptied within `ms`: the kernel tells no one when a group empties, so it is asked a few times. */
  private async groupGoneWithin(ms: number): Promise<boolean> {
    const step = Math.max(10, Math.round(ms / 20));
    for (let waited = 0; this.groupAlive(); waited += step) {
      if (waited >= ms) return false;
      await delay(step, []);
    }
    return true;
  }

  private async within(event: Promise<unknown>, ms: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const settled = await Promise.race([event.then(() => true), new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)))]);
    clearTimeout(timer);
    return settled;
  }

  private onLine(line: string): void {
    if (line.trim() === '') return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      // Not a message (the server MUST NOT write it): skipped, never taken for an answer.
      return;
    }
    // The habit acceptBatches rules out: a line that does not parse as one message is dropped, as the SDKs' stdio
    // transports drop it (their message schema has no array), and with it every answer it carried.
    if (Array.isArray(parsed) && !this.rules.acceptBatches) return;
    for (const message of messagesIn(parsed)) this.onMessage(message);
  }

  /** A fault of the server's output: nothing more is read, and what is waiting fails with it. */
  private fail(reason: Error): void {
    this.end(reason);
    this.child.stdout!.destroy();
  }

  private end(reason: Error): void {
    if (this.endReason !== undefined) return;
    this.endReason = reason;
    for (const listener of this.endListeners) listener(reason);
    this.endListeners.clear();
  }
}

/**
 * Whether a member of the process group is running, not a zombie, where /proc tells (Linux); elsewhere, that the group
 * exists at all. An orphan killed after its parent exited is reparented to PID 1, which may never reap it.
 */
function runningInGroup(pgid: number): boolean {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return true;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue;
    }
    // pid (comm) state ppid pgrp …: comm may hold spaces and parentheses, so read after the last ')'.
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(pgrp) === pgid && state !== 'Z' && state !== 'X') return true;
  }
  return false;
}

function lastLine(text: string): string {
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  return JSON.stringify((lines.at(-1) ?? '').slice(0, 200));
}

/**
 * Splits a byte stream into lines at 0x0a (which never occurs inside a multi-byte UTF-8 sequence, so a character cut
 * across two writes is put together again), each decoded as UTF-8 with a trailing \r dropped.
 */
function readLines(input: NodeJS.ReadableStream, onLine: (line: string) => void, onOverlong: () => void, onEnd: () => void): void {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let overlong = false;
  const emit = (bytes: Buffer) => onLine(bytes.toString('utf8').replace(/\r$/, ''));
  input.on('data', (chunk: Buffer) => {
    if (overlong) return;
    let start = 0;
    for (let end = chunk.indexOf(0x0a); end !== -1; end = chunk.indexOf(0x0a, start)) {
      if (pendingBytes + end - start > MAX_LINE_BYTES) break;
      emit(Buffer.concat([...pending, chunk.subarray(start, end)]));
      pending = [];
      pendingBytes = 0;
      start = end + 1;
    }
    pending.push(chunk.subarray(start));
    pendingBytes += chunk.length - start;
    if (pendingBytes > MAX_LINE_BYTES) {
      overlong = true;
      pending = [];
      onOverlong();
    }
  });
  input.on('end', () => {
    if (!overlong && pendingBytes > 0) emit(Buffer.concat(pending));
    onEnd();
  });
  input.on('close', onEnd);
}
