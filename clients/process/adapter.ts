// The process adapter: a client program in another process, driven over the line protocol
// (docs/line-protocol.md, version 1.2). The program is spawned in its own process group and serves case after case.
// Everything it does is bounded by the one time policy (config/time.ts): its hello, and every operation by a deadline
// below the runner's bound on the same operation. A hang, a line that is not protocol JSON or an answer to no request
// kills the whole group and fails what was waiting with a message that names what happened.
//
// A program that exits or is killed is never judged for it: every case in flight on it at that moment is reported
// interrupted (ClientAdapter.interrupted), and the next case starts it again with a fresh hello, at most MAX_RESTARTS
// times in a run. After that, and after a restart that failed, every later case is refused at once and reported
// "not running since <case>", so a run goes on to its end without hanging and without blaming the client.
import { AsyncLocalStorage } from 'node:async_hooks';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { basePolicy } from '../../config/settings.ts';
import { closeBoundMs, type TimePolicy } from '../../config/time.ts';
import { REVISIONS, type Revision } from '../../protocol/revisions.ts';
import {
  FEATURES,
  isStdioTarget,
  TRANSPORTS,
  type ClientAdapter,
  type ClientConnection,
  type ClientUnderTest,
  type ConnectionInfo,
  type ConnectOptions,
  type Feature,
  type OperationOptions,
  type ServerTarget,
  type ToolResult,
  type ToolSummary,
  type Transport,
  type Wraps,
  wrapsProblems,
} from '../adapter.ts';

/** The line protocol version this harness speaks (the `protocol` member of the hello). */
export const LINE_PROTOCOL_VERSION = 1;
/** The error code of a program whose client has not settled an operation by its deadline (1.4). */
export const HUNG = 'hung';

/**
 * How many times in a run a program that exited or was killed is started again. Enough to ride out a client that
 * crashed once (or was killed by a loaded machine); few enough that one that dies on every case costs a few cases.
 */
export const MAX_RESTARTS = 3;
/** Each step of `shutdown()` (the polite request, then SIGTERM, then SIGKILL), in reaction times. */
const SHUTDOWN_STEP_REACTS = 4;

/**
 * The program's own deadline on one operation: two reaction times below the runner's bound on the same operation
 * (the policy's `operation`), so a hung program is named by its own deadline before the runner gives up on it.
 */
export function programOperationMs(time: TimePolicy): number {
  return Math.max(Math.round(time.ms.operation / 2), time.ms.operation - 2 * time.ms.react);
}

/** The deadlines a program gets from a policy (default: the settings' policy, config/settings.ts). */
export function programTimeouts(time: TimePolicy = basePolicy()): { operationTimeoutMs: number; helloTimeoutMs: number } {
  return { operationTimeoutMs: programOperationMs(time), helloTimeoutMs: time.ms.hello };
}
/**
 * The longest stdout line read from a program. An answer is a few kilobytes; a longer line is a runaway program, and
 * reading it unbounded would exhaust the harness (a line that never ends reached V8's string limit and crashed the
 * whole run with a RangeError within seconds).
 */
export const MAX_LINE_BYTES = 8 * 1024 * 1024;
/**
 * What to do when a program died before its hello because the Node that ran it cannot load TypeScript (a `.ts` entry
 * under Node before 22.18: ERR_UNKNOWN_FILE_EXTENSION, or a SyntaxError at a type annotation; Node prints its version
 * last): which Node to use, in one clause.
 */
export function nodeRemedy(args: readonly string[], stderr: readonly string[]): string {
  const text = stderr.join('\n');
  const version = /Node\.js v(\d+)\.(\d+)\.\d+/.exec(text);
  const old = version !== null && (Number(version[1]) < 22 || (Number(version[1]) === 22 && Number(version[2]) < 18));
  const typescript = args.some((arg) => /\.[cm]?ts$/.test(arg)) || /Unknown file extension "\.[cm]?ts"/.test(text);
  if (!old || !typescript) return '';
  return `: Node ${version![0].slice(9)} cannot run a .ts file; run it with Node 22.18 or later (the suite pins Node 24: \`npx node <program>.ts\` in its checkout or where it is installed)`;
}

/** How many trailing stderr lines are kept for failure messages. */
const STDERR_LINES = 20;
/** How many of them a failure message shows. */
const STDERR_SHOWN = 5;

export interface ProcessAdapterConfig {
  /** The program to run (looked up on PATH). No shell is involved. */
  command: string;
  args?: readonly string[];
  /** Default: the harness's working directory. */
  cwd?: string;
  /** Added to the harness's environment. */
  env?: Readonly<Record<string, string>>;
  /**
   * Deadline for each operation, fixed for every case (default: programOperationMs of each case's own policy, 4 s
   * at scale 1, larger for a case run again at a larger scale); one that carries a client timeout gets max(this,
   * that + one reaction time).
   */
  operationTimeoutMs?: number;
  /** Deadline for the hello line after each spawn (default: the policy's `hello`, 30 s at scale 1). */
  helloTimeoutMs?: number;
  /** Deadline for each step of shutdown (default: four reaction times, 2 s at scale 1). */
  shutdownStepMs?: number;
  /** Sees every protocol line, `out` to the program and `in` from it (for tests and debugging). */
  trace?: (direction: 'out' | 'in', line: string) => void;
}

/** A process adapter: the contract, plus what a caller needs to supervise the program. */
export interface ProcessAdapter extends ClientAdapter {
  /** The pid of the program started last, which is also its process group id. */
  readonly pid: number;
  /** How many times the program was started again in this run (at most MAX_RESTARTS). */
  readonly restarts: number;
  /** Why the program started last is no longer usable, or undefined while it is (the next case may start it again). */
  readonly failure: string | undefined;
  /** Ends the program: a `shutdown` request, then SIGTERM, then SIGKILL of the group, each step bounded. */
  shutdown(): Promise<void>;
  /** Why a case could not take part: the program exited or was killed while it was in flight, or was not running. */
  interrupted(caseId: string): string | undefined;
}

/**
 * Something went wrong with the program itself (not a client error it reported). The message is one line, so it
 * reads in a verdict table as well as in a log: the reason, then the program's last stderr lines, if any.
 */
export class ClientProcessError extends Error {
  /** The reason, without the stderr lines. */
  readonly reason: string;
  /** The program's last stderr lines when the error was raised. */
  readonly stderr: readonly string[];
  constructor(reason: string, stderr: readonly string[]) {
    super(stderr.length === 0 ? reason : `${reason}; last stderr lines: ${stderr.slice(-STDERR_SHOWN).join(' | ')}`);
    this.name = 'ClientProcessError';
    this.reason = reason;
    this.stderr = stderr;
  }
}

/** The hello, as validated. */
export interface Hello {
  protocol: number;
  name: string;
  description: string;
  revisions: Revision[];
  features: Feature[];
  /** Declared only by a program that speaks more than HTTP (line protocol 1.1); absent: HTTP only. */
  transports?: Transport[];
  /**
   * 1.1, with stdio: the revisions it speaks over stdio, when they are not `revisions` (absent: all of them). 1.5: any
   * known revisions, those spoken only over stdio too (a Streamable HTTP client whose stdio transport speaks 2024-11-05).
   */
  stdioRevisions?: Revision[];
  /** 1.6: the SDK the program's client is built on (ClientAdapter.wraps). */
  wraps?: Wraps;
}

/** What is wrong with a hello line, one phrase per member; empty when it is valid. */
export function helloProblems(value: unknown): string[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return ['it is not a JSON object'];
  const hello = value as Record<string, unknown>;
  const problems: string[] = [];
  if (!('protocol' in hello)) problems.push('protocol is missing');
  else if (hello.protocol !== LINE_PROTOCOL_VERSION) problems.push(`protocol is ${JSON.stringify(hello.protocol)}, this harness speaks ${LINE_PROTOCOL_VERSION}`);
  if (!('name' in hello)) problems.push('name is missing');
  else if (typeof hello.name !== 'string' || hello.name.trim() === '') problems.push('name is not a non-empty string');
  if (!('description' in hello)) problems.push('description is missing');
  else if (typeof hello.description !== 'string') problems.push('description is not a string');
  problems.push(...listProblems(hello, 'revisions', REVISIONS, 'revision'));
  problems.push(...listProblems(hello, 'features', Object.keys(FEATURES), 'feature'));
  if (hello.transports !== undefined) {
    const listed = listProblems(hello, 'transports', Object.keys(TRANSPORTS), 'transport');
    problems.push(...listed);
    if (listed.length === 0 && (hello.transports as unknown[]).length === 0) problems.push('transports is empty (leave it out to declare HTTP only)');
  }
  if (hello.stdioRevisions !== undefined) {
    const listed = listProblems(hello, 'stdioRevisions', REVISIONS, 'revision');
    problems.push(...listed);
    // Any known revisions (1.5): one spoken only over stdio is in stdioRevisions alone.
    if (!Array.isArray(hello.transports) || !hello.transports.includes('stdio')) problems.push('stdioRevisions is declared, but transports does not list stdio');
  }
  if (hello.wraps !== undefined) problems.push(...wrapsProblems(hello.wraps));
  return problems;
}

/** Problems with a list member whose items must be known names (shared with the module loader). */
export function listProblems(holder: Record<string, unknown>, member: string, known: readonly string[], noun: string): string[] {
  if (holder[member] === undefined) return [`${member} is missing`];
  const list = holder[member];
  if (!Array.isArray(list)) return [`${member} is not an array`];
  return list.flatMap((item, index) => (typeof item === 'string' && known.includes(item) ? [] : [`${member}[${index}] (${JSON.stringify(item)}) is not a known ${noun}`]));
}

/** A command and its arguments as one line, quoted where needed, for messages. */
export function commandLine(command: string, args: readonly string[] = []): string {
  return [command, ...args].map((part) => (/^[\w@%+=:,./-]+$/.test(part) ? part : `'${part.replaceAll("'", "'\\''")}'`)).join(' ');
}

type Operation = 'start' | 'connect' | 'info' | 'listTools' | 'callTool' | 'cancel' | 'close' | 'dispose' | 'shutdown';

interface Pending {
  op: Operation;
  /** The case instance the request is for (none for `shutdown`). */
  case: string | undefined;
  resolve(result: unknown): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

/** The deadlines and policy one program runs with (the config's, or the policy's defaults). */
interface ProgramSettings extends ProcessAdapterConfig {
  operationTimeoutMs: number;
  helloTimeoutMs: number;
  shutdownStepMs: number;
  time: TimePolicy;
}

/**
 * How a program stopped being usable, other than by shutdown. `unstarted`: before its hello. `died`: it exited or was
 * killed by someone else. `killed`: the harness killed it for misbehaving (a hang, a line that is not an answer), on
 * a request of the `culprits` case instances, whose cases are judged on that misbehaviour.
 */
interface ProgramEnd {
  kind: 'unstarted' | 'died' | 'killed';
  /** "exited with code 3", "was killed by SIGKILL", "was killed because it did not answer callTool within 4000 ms". */
  how: string;
  culprits: ReadonlySet<string>;
  stderr: readonly string[];
  /** The program broke the line protocol itself (a line on stdout that is no answer): an adapter error, no case's client is judged on it. */
  adapterError?: true;
}

/** A client error the program reported, under the class name it gave (so reports read as they would in process). */
function reportedError(error: { message: string; name?: unknown; code?: unknown }): Error {
  const name = typeof error.name === 'string' && /^[A-Za-z_$][\w$]*$/.test(error.name) ? error.name : 'ClientError';
  const Named = { [name]: class extends Error {} }[name]!;
  const result = new Named(error.message) as Error & { code?: unknown };
  if (error.code !== undefined) result.code = error.code;
  return result;
}

// Every live program's process group, killed synchronously if the harness exits or is interrupted without
// shutting its adapters down. (A program must also exit when its stdin ends: that covers SIGKILL of the harness.)
// The hooks stay while an adapter is open, not only while a group lives, so a program started again does not put
// them after hooks installed since (the container adapter's must run last).
const liveGroups = new Set<number>();
const hookHolders = new Set<object>();
const onSignal = (signal: NodeJS.Signals) => {
  killAllGroups();
  // Put the default behaviour back: if nobody else handles the signal, the harness ends as it would have.
  uninstallHooks();
  if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
};
const HOOKED_SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
let hooked = false;

function killAllGroups(): void {
  for (const pgid of liveGroups) killGroup(pgid, 'SIGKILL');
}
function hold(holder: object): void {
  hookHolders.add(holder);
  if (hooked) return;
  hooked = true;
  process.on('exit', killAllGroups);
  for (const signal of HOOKED_SIGNALS) process.on(signal, onSignal);
}
function release(holder: object): void {
  hookHolders.delete(holder);
  if (hookHolders.size === 0) uninstallHooks();
}
function uninstallHooks(): void {
  if (!hooked) return;
  hooked = false;
  process.off('exit', killAllGroups);
  for (const signal of HOOKED_SIGNALS) process.off(signal, onSignal);
}
function killGroup(pgid: number, signal: NodeJS.Signals): void {
  // Never -1 or 0: those would signal every process we may signal, or our own group.
  if (!Number.isSafeInteger(pgid) || pgid <= 1) return;
  try {
    process.kill(-pgid, signal);
  } catch {
    // ESRCH: the group is gone already.
  }
}

/**
 * Runs `work` in the async context this module was loaded in, outside any case's. The adapter's own timers (each
 * request's deadline, the hello's, the shutdown's steps) live in the harness's process, but they are the harness's:
 * made inside a call the runner traces (suites/runner.ts, timers-released), they would be taken for the client's, which
 * runs in the program's process, where no timer of it can be seen.
 */
const outsideCases = AsyncLocalStorage.snapshot();

/** A timer of the adapter's own (`outsideCases`). */
const harnessTimer = (callback: () => void, ms: number): NodeJS.Timeout => outsideCases(() => setTimeout(callback, ms));

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => harnessTimer(resolve, ms).unref());
}

/** How a program ended, as the exit event tells it. */
const exitHow = (code: number | null, signal: NodeJS.Signals | null) => (code !== null ? `exited with code ${code}` : `was killed by ${signal}`);

/** One spawned program, from its spawn to its end: a new one is made for each restart. */
class ProgramSupervisor {
  readonly config: ProgramSettings;
  readonly child: ChildProcess;
  readonly pid: number;
  /** Settles once the program is unusable (failed, exited or shut down), with the reason recorded. */
  readonly ended: Promise<void>;
  private label: string;
  private readonly stderr: string[] = [];
  private stderrPartial = '';
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private hello: { resolve(hello: Hello): void; reject(error: Error): void } | undefined;
  private greeted = false;
  private failureReason: string | undefined;
  private failureError: ClientProcessError | undefined;
  private markEnded!: () => void;
  private shuttingDown = false;
  private readonly exited: Promise<void>;
  private hasExited = false;
  private readonly closed: Promise<void>;
  private readonly onEnd: (end: ProgramEnd) => void;

  /** `onEnd` hears, synchronously and before anything waiting is failed, how the program stopped being usable (never for a shutdown). */
  constructor(config: ProgramSettings, onEnd: (end: ProgramEnd) => void) {
    this.config = config;
    this.onEnd = onEnd;
    this.ended = new Promise((resolve) => (this.markEnded = resolve));
    this.label = `client ${JSON.stringify(commandLine(config.command, config.args))}`;
    // The kill hooks go in before the spawn: a Ctrl-C arriving while it runs (the harness waits there for the exec) is
    // then handled once it returns, with the new group known, instead of ending the harness and orphaning the program.
    hold(this);
    this.child = spawn(config.command, [...(config.args ?? [])], {
      cwd: config.cwd,
      env: { ...process.env, ...config.env },
      stdio: ['pipe', 'pipe', 'pipe'],
      // Its own process group, so the program and everything it starts are killed together.
      detached: true,
    });
    this.pid = this.child.pid ?? -1;
    if (this.pid > 0) liveGroups.add(this.pid);
    else release(this);
    this.exited = new Promise((resolve) => {
      this.child.once('exit', () => {
        this.hasExited = true;
        resolve();
      });
      this.child.once('error', () => {
        if (this.pid <= 0) {
          this.hasExited = true;
          resolve();
        }
      });
    });
    this.closed = new Promise((resolve) => this.child.once('close', () => resolve()));
    this.child.once('error', (error) => this.fail(`could not be started: ${error.message}`, { prefix: 'cannot start' }));
    this.child.once('exit', (code, signal) => void this.onExit(code, signal));
    // A write to a program that has gone is reported by its exit, not by the pipe.
    this.child.stdin!.on('error', () => {});
    this.child.stderr!.setEncoding('utf8');
    this.child.stderr!.on('data', (chunk: string) => this.onStderr(chunk));
    readLines(this.child.stdout!, (line) => this.onLine(line), () => {
      if (this.failureReason === undefined) this.fail(`printed a line longer than ${MAX_LINE_BYTES} bytes (a line-protocol answer is one line of JSON)`, { killed: true, adapterError: true });
    });
  }

  get failure(): string | undefined {
    return this.failureReason;
  }

  /** Running, and not known to have exited: requests may be sent to it. */
  get usable(): boolean {
    return this.failureReason === undefined && !this.hasExited;
  }

  /** Resolves with the validated hello, or rejects (and the program is killed) within the hello timeout. */
  awaitHello(): Promise<Hello> {
    const timeoutMs = this.config.helloTimeoutMs;
    return new Promise<Hello>((resolve, reject) => {
      const timer = harnessTimer(() => this.fail(`printed no hello within ${timeoutMs} ms (does it flush stdout after each line?)`, { killed: true }), timeoutMs);
      this.hello = {
        resolve: (hello) => {
          clearTimeout(timer);
          this.hello = undefined;
          this.greeted = true;
          this.label = `client ${hello.name}`;
          resolve(hello);
        },
        reject: (error) => {
          clearTimeout(timer);
          this.hello = undefined;
          reject(error);
        },
      };
      if (this.failureError) this.hello.reject(this.failureError);
    });
  }

  /** Sends one request and resolves with its result; every failure is an Error naming what happened. */
  request(op: Operation, members: Record<string, unknown>, timeoutMs: number, options: { killOnTimeout?: boolean; onSent?: (id: number) => void } = {}): Promise<unknown> {
    if (this.failureReason !== undefined) return Promise.reject(this.notRunning());
    const id = this.nextId++;
    // `deadlineMs` is when the program must have answered (1.4: if need be with "hung"); it is killed a reaction time
    // later, so an answer sent at the deadline on a loaded machine still arrives.
    const killAfterMs = timeoutMs + this.config.time.ms.react;
    return new Promise<unknown>((resolve, reject) => {
      const timer = harnessTimer(() => {
        const pending = this.pending.get(id);
        if (!pending) return;
        if (options.killOnTimeout === false || this.failureReason !== undefined) {
          this.pending.delete(id);
          reject(this.failureReason !== undefined ? this.notRunning() : new ClientProcessError(`${this.label} did not answer ${op} within ${timeoutMs} ms`, this.stderrLines()));
        } else {
          this.fail(`did not answer ${op} within ${timeoutMs} ms`, { killed: true, culprit: pending.case });
        }
      }, killAfterMs);
      this.pending.set(id, { op, case: typeof members.case === 'string' ? members.case : undefined, resolve, reject, timer });
      this.write({ id, ...members, op, deadlineMs: timeoutMs });
      options.onSent?.(id);
    });
  }

  /** Ends the program politely if it can, by force if it must; bounded, and safe to call twice. */
  async shutdown(): Promise<void> {
    const step = this.config.shutdownStepMs;
    if (!this.shuttingDown) {
      this.shuttingDown = true;
      // A program that has not said hello is not spoken to.
      if (this.failureReason === undefined && !this.hasExited && this.greeted) {
        await this.request('shutdown', {}, step, { killOnTimeout: false }).catch(() => {});
      }
      this.markFailed('the adapter was shut down');
    }
    if (!(await this.waitForExit(step))) {
      killGroup(this.pid, 'SIGTERM');
      if (!(await this.waitForExit(step))) {
        killGroup(this.pid, 'SIGKILL');
        await this.waitForExit(step);
      }
    }
    // Whatever the program started and left behind in its group goes with it.
    killGroup(this.pid, 'SIGKILL');
    this.forget();
  }

  notRunning(): ClientProcessError {
    return new ClientProcessError(`${this.label} is not running: ${this.failureReason}`, this.stderrLines());
  }

  private write(message: Record<string, unknown>): void {
    const line = JSON.stringify(message);
    this.config.trace?.('out', line);
    this.child.stdin!.write(`${line}\n`);
  }

  private async waitForExit(timeoutMs: number): Promise<boolean> {
    if (this.hasExited || this.pid <= 0) return true;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<false>((resolve) => (timer = harnessTimer(() => resolve(false), timeoutMs)));
    const result = await Promise.race([this.exited.then(() => true as const), timedOut]);
    clearTimeout(timer);
    return result;
  }

  private forget(): void {
    liveGroups.delete(this.pid);
    release(this);
  }

  private onStderr(chunk: string): void {
    const parts = (this.stderrPartial + chunk).split('\n');
    this.stderrPartial = parts.pop()!;
    for (const line of parts) this.keepStderr(line);
  }

  private keepStderr(line: string): void {
    const trimmed = line.replace(/\r$/, '');
    if (trimmed.trim() === '') return;
    this.stderr.push(trimmed.length > 300 ? `${trimmed.slice(0, 300)}…` : trimmed);
    if (this.stderr.length > STDERR_LINES) this.stderr.shift();
  }

  private stderrLines(): string[] {
    return this.stderrPartial.trim() === '' ? [...this.stderr] : [...this.stderr, this.stderrPartial];
  }

  private onLine(line: string): void {
    if (this.failureReason !== undefined) return;
    if (line.trim() === '') return;
    this.config.trace?.('in', line);
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      return this.fail(`printed a line that is not line-protocol JSON${this.hello ? ' before its hello' : ''}: ${quote(line)}`, { killed: true, adapterError: true });
    }
    if (this.hello) {
      const problems = helloProblems(message);
      if (problems.length > 0) return this.fail(`sent an invalid hello: ${problems.join('; ')}`, { killed: true });
      const hello = message as Record<string, unknown>;
      return this.hello.resolve({
        protocol: hello.protocol as number,
        name: hello.name as string,
        description: hello.description as string,
        revisions: hello.revisions as Revision[],
        features: hello.features as Feature[],
        ...(hello.transports !== undefined ? { transports: hello.transports as Transport[] } : {}),
        ...(hello.stdioRevisions !== undefined ? { stdioRevisions: hello.stdioRevisions as Revision[] } : {}),
        ...(hello.wraps !== undefined ? { wraps: hello.wraps as Wraps } : {}),
      });
    }
    const problem = responseProblem(message);
    if (problem) return this.fail(`printed a line that is not a line-protocol answer (${problem}): ${quote(line)}`, { killed: true, adapterError: true });
    const answer = message as { id: number; result?: unknown; error?: { message: string; name?: unknown; code?: unknown } };
    const pending = this.pending.get(answer.id);
    if (!pending) return this.fail(`answered request ${answer.id}, which is not in flight: ${quote(line)}`, { killed: true, adapterError: true });
    this.pending.delete(answer.id);
    clearTimeout(pending.timer);
    // 1.4: the program's client has not settled the operation by the deadline. Left unsettled, as an in-process
    // client's hung operation is (the runner's bound reports it), and the program, alive, serves its other cases.
    if (answer.error?.code === HUNG) return;
    if (answer.error) pending.reject(reportedError(answer.error));
    else pending.resolve(answer.result);
  }

  private async onExit(code: number | null, signal: NodeJS.Signals | null): Promise<void> {
    // Whatever the program started and left behind in its group goes with it.
    killGroup(this.pid, 'SIGKILL');
    // Let its last lines (an answer, a traceback) arrive before reporting, but not for long.
    await Promise.race([this.closed, delay(this.config.time.ms.react)]);
    if (this.stderrPartial !== '') {
      this.keepStderr(this.stderrPartial);
      this.stderrPartial = '';
    }
    const how = exitHow(code, signal);
    if (this.failureReason !== undefined) {
      // Already failed or shutting down: nothing may wait any longer.
    } else if (this.hello) this.fail(`${how} before its hello${nodeRemedy(this.config.args ?? [], this.stderrLines())}`);
    else if (this.shuttingDown) this.markFailed('the adapter was shut down');
    else {
      const ops = [...new Set([...this.pending.values()].map((p) => p.op))];
      this.fail(ops.length > 0 ? `${how} before it answered ${ops.join(', ')}` : how, { also: how });
    }
    this.markFailed(`it ${how}`);
    this.forget();
  }

  /**
   * The program is unusable: kill its group (if asked), say how it ended, fail what is waiting, and remember why.
   * `culprit`: the case instance whose request met the misbehaviour (else every one with a request waiting).
   */
  private fail(reason: string, options: { killed?: boolean; prefix?: string; also?: string; culprit?: string | undefined; adapterError?: true } = {}): void {
    if (this.failureReason !== undefined) return;
    if (options.killed) killGroup(this.pid, 'SIGKILL');
    const error = new ClientProcessError(options.prefix ? `${options.prefix} ${this.label}: ${reason.replace(/^could not be started: /, '')}` : `${this.label} ${reason}`, this.stderrLines());
    this.failureError = error;
    const waiting = [...this.pending.values()];
    this.pending.clear();
    const how = options.killed ? `was killed because it ${reason}` : (options.also ?? reason);
    this.markFailed(`it ${how}`);
    const culprits = new Set(options.culprit !== undefined ? [options.culprit] : options.killed ? waiting.flatMap((p) => (p.case === undefined ? [] : [p.case])) : []);
    this.onEnd({ kind: !this.greeted ? 'unstarted' : options.killed ? 'killed' : 'died', how, culprits: options.adapterError ? new Set() : culprits, stderr: error.stderr, ...(options.adapterError ? { adapterError: true as const } : {}) });
    const hello = this.hello;
    // Settle once the program is gone, so whoever sees the error also sees no process left (bounded).
    void Promise.race([this.exited, delay(2 * this.config.time.ms.react)]).then(() => {
      for (const pending of waiting) {
        clearTimeout(pending.timer);
        pending.reject(error);
      }
      hello?.reject(error);
    });
  }

  /** Remembers why the program is unusable (the first reason wins) and fails whatever still waits on it. */
  private markFailed(why: string): void {
    this.failureReason ??= why;
    this.markEnded();
    const waiting = [...this.pending.values()];
    this.pending.clear();
    for (const pending of waiting) {
      clearTimeout(pending.timer);
      pending.reject(this.notRunning());
    }
    // A shutdown while the hello is awaited ends the wait (fail() has its own error for it).
    if (this.failureError === undefined) this.hello?.reject(this.notRunning());
  }
}

/**
 * Calls `onLine` with each `\n`-ended line of `input` (a `\r` before the `\n` dropped, the last unended line at the
 * end), like readline, but holds at most MAX_LINE_BYTES of an unfinished line: past that it calls `onOverlong` once
 * and drops the rest of the stream.
 */
function readLines(input: Readable, onLine: (line: string) => void, onOverlong: () => void): void {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let overlong = false;
  const emit = (bytes: Buffer) => onLine(bytes.toString('utf8').replace(/\r$/, ''));
  const tooLong = (bytes: number) => {
    if (bytes <= MAX_LINE_BYTES) return false;
    overlong = true;
    pending = [];
    onOverlong();
    return true;
  };
  input.on('data', (chunk: Buffer) => {
    if (overlong) return;
    let start = 0;
    // 0x0a never occurs inside a multi-byte UTF-8 sequence: splitting the bytes there never splits a character.
    for (let end = chunk.indexOf(0x0a); end !== -1; end = chunk.indexOf(0x0a, start)) {
      if (tooLong(pendingBytes + end - start)) return;
      emit(Buffer.concat([...pending, chunk.subarray(start, end)]));
      pending = [];
      pendingBytes = 0;
      start = end + 1;
    }
    if (start === chunk.length) return;
    pending.push(chunk.subarray(start));
    pendingBytes += chunk.length - start;
    tooLong(pendingBytes);
  });
  input.on('end', () => {
    if (!overlong && pendingBytes > 0) emit(Buffer.concat(pending));
  });
}

function quote(line: string): string {
  return JSON.stringify(line.length > 200 ? `${line.slice(0, 200)}…` : line);
}

/** Why a parsed line is not an answer, or undefined when it is one. */
function responseProblem(message: unknown): string | undefined {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return 'not a JSON object';
  const answer = message as Record<string, unknown>;
  if (!('id' in answer)) return 'no "id"';
  if (!Number.isSafeInteger(answer.id) || (answer.id as number) < 1) return '"id" is not a positive integer';
  const hasResult = 'result' in answer;
  const hasError = 'error' in answer;
  if (hasResult === hasError) return 'it needs exactly one of "result" and "error"';
  if (hasResult && (typeof answer.result !== 'object' || answer.result === null || Array.isArray(answer.result))) return '"result" is not an object';
  if (hasError) {
    const error = answer.error as Record<string, unknown> | null;
    if (typeof error !== 'object' || error === null || typeof error.message !== 'string') return '"error" has no "message" string';
  }
  return undefined;
}

/**
 * The line protocol's error codes that say the program could not read or serve the request itself (docs/line-protocol.md:
 * an op it does not know, a request it cannot read, a case started twice): an adapter error, never its client's
 * behaviour. Not `unknown-connection` or `unknown-case` (the answer of some programs to the runner's clean-up closing
 * again what the script closed, which judges nothing), nor `unsupported` (a client that cannot do what it was asked).
 */
const ADAPTER_CODES: ReadonlySet<unknown> = new Set(['unknown-op', 'case-live', 'invalid-request']);

/** An answer whose result does not have the shape its operation promises. */
function invalidAnswer(label: string, op: Operation, why: string): ClientProcessError {
  return new ClientProcessError(`${label} answered ${op} with an invalid result: ${why}`, []);
}

/** One case's deadlines on the program: each operation's, and the room a client timeout gets beyond its own. */
interface Deadlines {
  operationMs: number;
  /** The case's policy (the settings' when the case gave none): a client timeout gets its reaction time beyond it. */
  time: TimePolicy;
}

function operationLimit(base: number, clientTimeoutMs: number | undefined, marginMs: number): number {
  return clientTimeoutMs === undefined ? base : Math.max(base, clientTimeoutMs + marginMs);
}

/** What a restarted program must declare as the first one did: the adapter's name, revisions and features are fixed for the run. */
const declared = (hello: Hello) =>
  JSON.stringify({ name: hello.name, revisions: hello.revisions, features: hello.features, ...(hello.transports ? { transports: hello.transports } : {}), ...(hello.stdioRevisions ? { stdioRevisions: hello.stdioRevisions } : {}) });

/**
 * Spawns the program, reads its hello, and returns the adapter that drives it: a case starts on the running program,
 * or on a fresh one when the last one exited or was killed (at most MAX_RESTARTS times in the run).
 */
export async function processAdapter(config: ProcessAdapterConfig): Promise<ProcessAdapter> {
  const time = basePolicy();
  const defaults = programTimeouts(time);
  const settings: ProgramSettings = {
    ...config,
    operationTimeoutMs: config.operationTimeoutMs ?? defaults.operationTimeoutMs,
    helloTimeoutMs: config.helloTimeoutMs ?? defaults.helloTimeoutMs,
    shutdownStepMs: config.shutdownStepMs ?? SHUTDOWN_STEP_REACTS * time.ms.react,
    time,
  };
  if (!(settings.operationTimeoutMs > 0)) throw new TypeError('processAdapter: operationTimeoutMs must be a positive number of milliseconds');
  // spawn would report a missing working directory as a missing program (ENOENT): say which it is.
  if (config.cwd !== undefined && !existsSync(config.cwd)) {
    throw new ClientProcessError(`cannot start client ${JSON.stringify(commandLine(config.command, config.args))}: its working directory ${config.cwd} does not exist`, []);
  }

  /** The case instances in flight, from start until their dispose settles, by instance name, with the program each runs on. */
  const live = new Map<string, { caseId: string; program: ProgramSupervisor }>();
  /** Why each case could not take part, for interrupted(). */
  const interruptions = new Map<string, string>();
  /** Cases whose start waits for a program started again. */
  const awaitingRestart = new Set<string>();
  /** The latest case started: where a program that died between cases was last seen. */
  let lastCase: string | undefined;
  /** Where and how the last program ended. */
  let lastEnd: { where: string; how: string } | undefined;
  /** Set once no program may be started again (restarts used up, or a restart failed): later starts are refused at once. */
  let down: { where: string; how: string } | undefined;
  let restarts = 0;
  let shutDown = false;
  let restarting: Promise<ProgramSupervisor> | undefined;
  /** The program being started again, not yet greeted (shutdown must end it too). */
  let starting: ProgramSupervisor | undefined;

  const onEnd = (ended: ProgramSupervisor, end: ProgramEnd) => {
    // A program that never said hello served no case: restart() (or the load) reports it.
    if (end.kind === 'unstarted') return;
    const onIt = [...live].filter(([, entry]) => entry.program === ended);
    // A case whose own request met the misbehaviour is judged on it, as a hang of an in-process client is.
    const judged = new Set(end.kind === 'killed' ? onIt.filter(([key]) => end.culprits.has(key)).map(([, entry]) => entry.caseId) : []);
    const stderr = end.stderr.length > 0 ? `; last stderr lines: ${end.stderr.slice(-STDERR_SHOWN).join(' | ')}` : '';
    // A line on stdout that is no answer is the program's own fault, not its client's: no case is judged on it.
    const what = end.adapterError ? `adapter error (the line protocol, not the client): the client process ${end.how}` : `the client process ${end.how}`;
    for (const [, { caseId }] of onIt) if (!judged.has(caseId)) interruptions.set(caseId, `${what} during this case${stderr}`);
    const where = [...judged][0] ?? onIt[0]?.[1].caseId ?? (lastCase !== undefined ? `the end of ${lastCase}` : 'its start');
    lastEnd = { where, how: end.how };
    if (restarts >= MAX_RESTARTS) down = { where, how: `${end.how} (after ${MAX_RESTARTS} restarts)` };
  };
  const spawnProgram = (): ProgramSupervisor => {
    const program: ProgramSupervisor = new ProgramSupervisor(settings, (end) => onEnd(program, end));
    return program;
  };

  let program = spawnProgram();
  let hello: Hello;
  try {
    hello = await program.awaitHello();
  } catch (error) {
    await program.shutdown();
    throw error;
  }
  const first = hello;
  const label = `client ${hello.name}`;
  const token = {};
  hold(token);
  /** A case's deadlines: from its own time policy (a case run again has larger bounds), unless the config fixed them. */
  const deadlinesFor = (caseTime: TimePolicy | undefined): Deadlines =>
    caseTime === undefined
      ? { operationMs: settings.operationTimeoutMs, time }
      : { operationMs: config.operationTimeoutMs ?? programOperationMs(caseTime), time: caseTime };
  const cancellable = hello.features.includes('cancellation');
  const speaksStdio = hello.transports?.includes('stdio') === true;

  /** A fresh program, greeted; one at a time, however many cases ask. */
  const restart = async (caseId: string): Promise<ProgramSupervisor> => {
    restarts++;
    const next = (starting = spawnProgram());
    try {
      const again = await next.awaitHello();
      if (declared(again) !== declared(first)) throw new ClientProcessError(`${label} declared ${declared(again)} in its hello when started again, not ${declared(first)}`, []);
      if (shutDown) throw next.notRunning();
    } catch (error) {
      await next.shutdown();
      down ??= { where: caseId, how: `could not be started again: ${error instanceof ClientProcessError ? error.reason : String(error)}` };
      throw error;
    } finally {
      starting = undefined;
    }
    program = next;
    return next;
  };

  /** The program a case starts on: the running one, or one started again; refuses (and says why) when none may run. */
  const programFor = async (caseId: string): Promise<ProgramSupervisor> => {
    if (program.usable) return program;
    // Its end is recorded within a reaction time of its exit.
    await program.ended;
    const refuse = (interruption: string, error: Error): never => {
      interruptions.set(caseId, interruption);
      throw error;
    };
    if (shutDown) return refuse('the client process is not running: the adapter was shut down', program.notRunning());
    if (down !== undefined) return refuse(`the client process is not running since ${down.where}: it ${down.how}`, new ClientProcessError(`${label} is not running since ${down.where}: it ${down.how}`, []));
    awaitingRestart.add(caseId);
    try {
      return await (restarting ??= restart(caseId).finally(() => (restarting = undefined)));
    } catch (error) {
      return refuse(`the client process could not be started again after it ${lastEnd?.how} during ${lastEnd?.where}: ${(error as Error).message}`, error as Error);
    } finally {
      awaitingRestart.delete(caseId);
    }
  };

  /**
   * The program (the adapter), not its client, failed an operation of a case: the case cannot be judged on it, and says
   * why (ClientAdapter.interrupted). Returns the error, to throw.
   */
  const adapterFault = (caseKey: unknown, error: Error): Error => {
    const caseId = typeof caseKey === 'string' ? live.get(caseKey)?.caseId : undefined;
    if (caseId !== undefined && !interruptions.has(caseId)) interruptions.set(caseId, `adapter error (the line protocol, not the client): ${error.message}`);
    return error;
  };

  const operation = (target: ProgramSupervisor, deadlines: Deadlines, op: Operation, members: Record<string, unknown>, clientTimeoutMs?: number, signal?: AbortSignal) =>
    requestOf(target, deadlines, op, members, clientTimeoutMs, signal).catch((error: unknown) => {
      throw error instanceof Error && ADAPTER_CODES.has((error as { code?: unknown }).code) ? adapterFault(members.case, error) : error;
    });

  const requestOf = async (target: ProgramSupervisor, deadlines: Deadlines, op: Operation, members: Record<string, unknown>, clientTimeoutMs?: number, signal?: AbortSignal) => {
    const limit = operationLimit(deadlines.operationMs, clientTimeoutMs, deadlines.time.ms.react);
    if (!signal || !cancellable) return target.request(op, members, limit);
    let sentId: number | undefined;
    const cancel = () => {
      if (sentId !== undefined) void target.request('cancel', { case: members.case, target: sentId }, deadlines.operationMs).catch(() => {});
    };
    try {
      return await target.request(op, members, limit, {
        onSent: (id) => {
          sentId = id;
          if (signal.aborted) cancel();
          else signal.addEventListener('abort', cancel, { once: true });
        },
      });
    } finally {
      signal.removeEventListener('abort', cancel);
    }
  };

  const connectionFor = (target: ProgramSupervisor, deadlines: Deadlines, caseKey: string, connection: string, closeMs?: number): ClientConnection => {
    const on = { case: caseKey, connection };
    const invalidResult = (label: string, op: Operation, why: string) => adapterFault(caseKey, invalidAnswer(label, op, why));
    return {
      async info(): Promise<ConnectionInfo> {
        const result = (await operation(target, deadlines, 'info', on)) as Record<string, unknown>;
        const info: ConnectionInfo = {};
        for (const key of ['negotiatedVersion', 'era', 'sessionId'] as const) {
          if (result[key] === undefined) continue;
          if (typeof result[key] !== 'string') throw invalidResult(label, 'info', `${key} is not a string`);
          (info as Record<string, unknown>)[key] = result[key];
        }
        if (result.resumeState !== undefined) {
          const state = result.resumeState as Record<string, unknown> | null;
          if (typeof state !== 'object' || state === null || typeof state.protocolVersion !== 'string') throw invalidResult(label, 'info', 'resumeState has no protocolVersion string');
          info.resumeState = { protocolVersion: state.protocolVersion, ...(typeof state.sessionId === 'string' ? { sessionId: state.sessionId } : {}) };
        }
        return info;
      },
      async listTools(options: OperationOptions = {}): Promise<ToolSummary[]> {
        const result = (await operation(target, deadlines, 'listTools', { ...on, ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}) }, options.timeoutMs, options.signal)) as Record<string, unknown>;
        if (!Array.isArray(result.tools)) throw invalidResult(label, 'listTools', 'tools is not an array');
        return result.tools.map((tool: unknown, index) => {
          const name = (tool as { name?: unknown } | null)?.name;
          if (typeof name !== 'string') throw invalidResult(label, 'listTools', `tools[${index}].name is not a string`);
          return { name };
        });
      },
      async callTool(name: string, args: Record<string, unknown>, options: OperationOptions = {}): Promise<ToolResult> {
        const members = { ...on, name, arguments: args, ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}) };
        const result = (await operation(target, deadlines, 'callTool', members, options.timeoutMs, options.signal)) as Record<string, unknown>;
        if (!Array.isArray(result.content)) throw invalidResult(label, 'callTool', 'content is not an array');
        if (result.isError !== undefined && typeof result.isError !== 'boolean') throw invalidResult(label, 'callTool', 'isError is not a boolean');
        return result as unknown as ToolResult;
      },
      async close(): Promise<void> {
        await operation(target, deadlines, 'close', on, closeMs);
      },
    };
  };

  return {
    name: hello.name,
    description: hello.description,
    revisions: hello.revisions,
    features: hello.features,
    ...(hello.transports !== undefined ? { transports: hello.transports } : {}),
    ...(hello.stdioRevisions !== undefined ? { stdioRevisions: hello.stdioRevisions } : {}),
    ...(hello.wraps !== undefined ? { wraps: hello.wraps } : {}),
    get pid() {
      return program.pid;
    },
    get restarts() {
      return restarts;
    },
    get failure() {
      return program.failure;
    },
    async start(caseId: string, caseTime?: TimePolicy): Promise<ClientUnderTest> {
      const deadlines = deadlinesFor(caseTime);
      // A case id not in flight begins a new case: what an earlier case of the same id met is not this one's.
      if (![...live.values()].some((entry) => entry.caseId === caseId)) interruptions.delete(caseId);
      lastCase = caseId;
      let target = await programFor(caseId);
      // One started again may be gone already, before this case was in flight on it: the next one (restarts counted).
      while (!target.usable) target = await programFor(caseId);
      // A case id names one client instance from start to dispose; a case started again while live gets a suffix.
      let caseKey = caseId;
      for (let n = 2; live.has(caseKey); n++) caseKey = `${caseId}#${n}`;
      live.set(caseKey, { caseId, program: target });
      try {
        await operation(target, deadlines, 'start', { case: caseKey });
      } catch (error) {
        live.delete(caseKey);
        throw error;
      }
      return {
        async connect(server: ServerTarget, options: ConnectOptions): Promise<ClientConnection> {
          // A stdio target goes as `target` (1.1), only to a program that declared the transport; a URL as `url`, as in 1.0.
          if (isStdioTarget(server) && !speaksStdio) throw new ClientProcessError(`${label} does not declare the stdio transport: it cannot be given a stdio target`, []);
          const where = isStdioTarget(server) ? { target: server } : { url: server };
          const result = (await operation(target, deadlines, 'connect', { case: caseKey, ...where, options }, options.timeoutMs)) as Record<string, unknown>;
          if (typeof result.connection !== 'string' || result.connection === '') throw adapterFault(caseKey, invalidAnswer(label, 'connect', 'connection is not a non-empty string'));
          // Over stdio the program's close runs its shutdown sequence: up to a grace after closing stdin and one after SIGTERM.
          // Over HTTP it may wait on the session DELETE as long as the runner waits for a close (closeBoundMs): its
          // deadline is that bound and a reaction time, so the runner's bound, as for a client in its own process,
          // decides a close that waits for the answer of a held DELETE, never the program's early "hung" (the
          // runtimes answer it at 90% of a deadline: below the bound, it came before the server's answer).
          const closeMs = isStdioTarget(server)
            ? options.shutdownGraceMs !== undefined
              ? deadlines.operationMs + 2 * options.shutdownGraceMs
              : undefined
            : options.timeoutMs !== undefined
              ? closeBoundMs(deadlines.time, options.timeoutMs)
              : undefined;
          return connectionFor(target, deadlines, caseKey, result.connection, closeMs);
        },
        async dispose(): Promise<void> {
          try {
            await operation(target, deadlines, 'dispose', { case: caseKey });
          } finally {
            live.delete(caseKey);
          }
        },
      };
    },
    interrupted(caseId: string): string | undefined {
      const why = interruptions.get(caseId);
      if (why !== undefined) return why;
      if (awaitingRestart.has(caseId)) {
        return `the client process was being started again after it ${lastEnd?.how} during ${lastEnd?.where}, and had not printed its hello when the case ended (it has ${settings.helloTimeoutMs} ms)`;
      }
      return undefined;
    },
    async shutdown() {
      shutDown = true;
      try {
        await Promise.all([program.shutdown(), starting?.shutdown()]);
      } finally {
        release(token);
      }
    },
  };
}
