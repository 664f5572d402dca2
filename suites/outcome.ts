// One way to watch an operation a script drives: what it came to (resolved, rejected, or still pending when the script
// looked), after how long, with what, and whether the runner's bound gave up on it (a hang). The script records it in
// `observed`; the judge reads the same record back. Also the errors the runner raises for a client that hangs or breaks
// the adapter contract, the one line that describes anything a client threw, and the server side of an operation
// (its handler running, aborted).
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import type { TimePolicy } from '../config/time.ts';
import type { FixtureState, ToolRun } from '../servers/fixtures.ts';
import type { ExchangeRecord, WireExchange } from '../servers/wire-record.ts';
import { checkInTime } from './deadlines.ts';
import type { Check, DoctoredProof, Evidence, MachineLoad, SpecRef } from './scenario.ts';

// — what a client threw —

/** The runner's bound on a client operation ran out before the client settled it. */
export class ClientHung extends Error {}

/** The client broke the adapter contract: it threw instead of returning a promise, or returned what the operation does not promise. */
export class ClientMisbehaved extends Error {}

/** One line for anything a client threw or rejected with; never throws itself (String() of a hostile value may). */
export function describeError(error: unknown): string {
  try {
    return error instanceof Error ? `${error.constructor.name}: ${error.message}` : String(error);
  } catch {
    return `${describeValue(error)} that cannot be shown as text`;
  }
}

/** What a value is, for messages about returns that break the contract: "null", "a number (42)", "an object". */
export function describeValue(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `a string (${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)})`;
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') return `a ${typeof value === 'boolean' ? 'boolean' : 'number'} (${String(value)})`;
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/**
 * The text of an ordinary rejection a script expects and records (a close refused because its DELETE got 405, say).
 * A hang or a broken contract is no such answer: it is thrown on, so the runner reports it as the client's error.
 */
export function ordinaryRejection(error: unknown): string {
  if (error instanceof ClientHung || error instanceof ClientMisbehaved) throw error;
  return describeError(error);
}

// — what an operation came to —

/** What became of an operation, as the script saw it: plain data, recorded in `observed` for the judge. */
export interface Outcome {
  /** `pending`: not settled when the script looked, or never (`hung`). */
  state: 'resolved' | 'rejected' | 'pending';
  /** Milliseconds from the moment of interest (the call, an abort, a close) to the settlement; pending: how long it was watched. */
  afterMs: number;
  /** The rejection in one line, or the result's text. */
  detail?: string;
  /** The runner's bound gave up on it (a ClientHung): the client never settled it. */
  hung?: true;
}

/**
 * Awaits an operation (bounded by the runner, so it ends) and records what it came to instead of throwing. A hang is
 * an outcome (pending, `hung`), for the judge; a broken contract is thrown on: it is the client's error, never an answer.
 */
export async function settle(operation: Promise<unknown>, since = performance.now()): Promise<Outcome> {
  try {
    const value = await operation;
    return { state: 'resolved', afterMs: elapsed(since), detail: textOf(value) };
  } catch (error) {
    if (error instanceof ClientMisbehaved) throw error;
    if (error instanceof ClientHung) return { state: 'pending', afterMs: elapsed(since), detail: error.message, hung: true };
    return { state: 'rejected', afterMs: elapsed(since), detail: describeError(error) };
  }
}

/** Watches a call without awaiting it: when it settles, and how. */
export class Watched {
  private state: { settled: 'resolved' | 'rejected'; at: number; detail: string; error?: unknown } | undefined;
  /** Resolves when the call settles (never rejects). */
  readonly settled: Promise<void>;

  constructor(call: Promise<unknown>) {
    this.settled = call.then(
      (value) => {
        this.state = { settled: 'resolved', at: performance.now(), detail: textOf(value) };
      },
      (error: unknown) => {
        this.state = { settled: 'rejected', at: performance.now(), detail: describeError(error), error };
      },
    );
  }

  /** Waits at most `ms` for the call to settle (never throws). */
  async within(ms: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.settled, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
    clearTimeout(timer);
  }

  /** The outcome as seen from `since` (performance.now() of the moment of interest); a call that broke the contract is thrown on. */
  since(since: number): Outcome {
    if (this.state === undefined) return { state: 'pending', afterMs: elapsed(since) };
    if (this.state.error instanceof ClientMisbehaved) throw this.state.error;
    return { state: this.state.settled, afterMs: Math.round(this.state.at - since), detail: this.state.detail };
  }
}

/**
 * Watches this process's event loop until `stop()`: the longest it went without running a timer, in whole ms. A process
 * starved that long (a loaded machine) runs a timer that expired and a message that arrived meanwhile in an order no
 * client chose: a timing check in that window cannot tell a right client from a wrong one. For an in-process client this
 * is the client's own loop; for one in another process, a sign of how busy the machine was.
 */
export function watchStalls(periodMs = 10): { stop(): number } {
  let last = performance.now();
  let longest = 0;
  const tick = () => {
    const now = performance.now();
    longest = Math.max(longest, now - last - periodMs);
    last = now;
  };
  const timer = setInterval(tick, periodMs);
  timer.unref();
  let stopped: number | undefined;
  return {
    stop() {
      if (stopped === undefined) {
        clearInterval(timer);
        tick();
        stopped = Math.max(0, Math.round(longest));
      }
      return stopped;
    },
  };
}

/** Every CPU's idle time and all its time so far, as os.cpus() counts them (user, nice, sys, idle, irq). */
function cpuTimes(): { idle: number; all: number } {
  // Linux: the summary line of /proc/stat, which os.cpus() reads with /proc/cpuinfo besides, at several times its cost.
  try {
    const stat = readFileSync('/proc/stat', 'latin1');
    const [label, ...fields] = stat.slice(0, stat.indexOf('\n')).trim().split(/\s+/);
    const [user, nice, sys, idle, , irq] = fields.map(Number);
    // Clock ticks, not os.cpus()'s milliseconds: only their ratio is read.
    if (label === 'cpu' && [user, nice, sys, idle, irq].every((n) => Number.isFinite(n))) return { idle: idle!, all: user! + nice! + sys! + idle! + irq! };
  } catch {
    // not Linux
  }
  return cpus().reduce((sum, cpu) => ({ idle: sum.idle + cpu.times.idle, all: sum.all + cpu.times.idle + cpu.times.user + cpu.times.nice + cpu.times.sys + cpu.times.irq }), { idle: 0, all: 0 });
}

/** Watches the machine until `stop()` (the CPUs' times, on any platform Node runs on; a clock tick is 10 ms). */
export function watchMachine(): { stop(): MachineLoad } {
  const times = cpuTimes;
  const before = times();
  const stalls = watchStalls();
  let load: MachineLoad | undefined;
  return {
    stop() {
      if (load === undefined) {
        const after = times();
        const all = after.all - before.all;
        // A case shorter than the clock tick has no measure of its own: it counts as idle only if the machine said so.
        load = { idleShare: all > 0 ? Math.round(((after.idle - before.idle) / all) * 100) / 100 : 0, stalledMs: stalls.stop() };
      }
      return load;
    },
  };
}

const elapsed = (since: number) => Math.round(performance.now() - since);

function textOf(value: unknown): string {
  const content = (value as { content?: { text?: unknown }[] } | undefined)?.content;
  const text = Array.isArray(content) ? content.map((item) => item?.text).filter((t) => typeof t === 'string') : [];
  return text.length > 0 ? `result "${text.join(' ')}"` : 'a result';
}

export function isOutcome(value: unknown): value is Outcome {
  const state = (value as { state?: unknown } | null)?.state;
  return typeof value === 'object' && value !== null && (state === 'resolved' || state === 'rejected' || state === 'pending') && typeof (value as { afterMs?: unknown }).afterMs === 'number';
}

/** The outcome the script recorded under `key`, or undefined when it never got there. */
export function outcomeOf(evidence: Pick<Evidence, 'observed'>, key: string): Outcome | undefined {
  const value = evidence.observed[key];
  return isOutcome(value) ? value : undefined;
}

/** "the aborted call rejected after 3 ms (Error: aborted)", "… had not settled 500 ms later", "… never settled: …". */
export function describeOutcome(outcome: Outcome | undefined, what: string): string {
  if (outcome === undefined) return `${what}: not observed`;
  if (outcome.hung) return `${what} never settled: ${outcome.detail ?? `the runner gave up after ${outcome.afterMs} ms`}`;
  if (outcome.state === 'pending') return `${what} had not settled ${outcome.afterMs} ms later`;
  return `${what} ${outcome.state} after ${outcome.afterMs} ms${outcome.detail ? ` (${outcome.detail})` : ''}`;
}

/** Rejected (an error reached the caller) within `ms` of the moment of interest. */
export function rejectedWithin(outcome: Outcome | undefined, ms: number): boolean {
  return outcome?.state === 'rejected' && outcome.afterMs <= ms;
}

// — the server side of an operation —

/** True when `predicate` held on the record within `ms` (event-driven; never throws). */
export function holdsWithin<R extends ExchangeRecord>(record: R, predicate: (record: R) => boolean, what: string, ms: number): Promise<boolean> {
  return record.waitFor(predicate, what, ms).then(
    () => true,
    () => false,
  );
}

/** True when a tool run matching `predicate` was seen within `ms` (event-driven; never throws). */
export function runWithin(fixtures: FixtureState, predicate: (run: ToolRun) => boolean, what: string, ms: number): Promise<boolean> {
  return fixtures.waitForRun(predicate, what, ms).then(
    () => true,
    () => false,
  );
}

/** How long the fixture's slow tool works when its call must stay in flight for the whole case: past every bound of the case. */
export const inFlightMs = (time: TimePolicy): number => 2 * time.ms.operation;

/** The context's bound, as scenarios get it. */
export type Bound = <T>(operation: Promise<T>, what: string, timeoutMs?: number) => Promise<T>;

/**
 * Watches a call to the fixture `tool` and waits (bounded) until its handler runs on the server (the `nth` run); fails
 * at once when the call settles before that, so a broken call does not cost the whole bound.
 */
export async function startCall(fixtures: FixtureState, bounded: Bound, call: Promise<unknown>, tool: string, what: string, nth = 1): Promise<Watched> {
  const watched = new Watched(call);
  let unsubscribe = () => {};
  const started = new Promise<void>((resolve, reject) => {
    const onChange = () => {
      if (fixtures.runsOf(tool) >= nth) resolve();
    };
    unsubscribe = fixtures.on('run', onChange);
    onChange();
    // An answer the client already has may have overtaken the news of its run (over stdio they travel apart): the
    // record catches up first, so only a call that settled with no run behind it is one that never reached its handler.
    void watched.settled.then(async () => {
      await fixtures.catchUp();
      if (fixtures.runsOf(tool) >= nth) return resolve();
      try {
        reject(new Error(`${what} settled before its handler started (${watched.since(0).detail ?? ''})`));
      } catch (error) {
        reject(error); // the call broke the contract: that is the client's error
      }
    });
  });
  try {
    await bounded(started, `${what} to reach its handler`);
  } finally {
    unsubscribe();
  }
  return watched;
}

/** `handler-aborted`: the slow tool's handler saw its abort signal fire (a deadline: the react wait); `why` says what a client that fails it did. */
export function handlerAborted(time: TimePolicy, spec: SpecRef, run: ToolRun | undefined, slow: WireExchange | undefined, why?: string): Check {
  const detail =
    run === undefined ? 'the slow tool never ran' : run.abortedAt !== undefined ? 'the slow handler’s abort signal fired' : `the slow handler was never aborted${why ? ` (${why})` : ''}`;
  return checkInTime(time, 'handler-aborted', spec, run === undefined ? false : run.abortedAt !== undefined || 'late', detail, slow ? [slow] : []);
}

/** The proof of `handler-aborted` where no variant leaves the handler running: the record with every abort removed. */
export const HANDLER_ABORTED_PROOF: DoctoredProof = {
  check: 'handler-aborted',
  how: 'the handler never saw the abort',
  doctor: (e: Evidence) => ({ ...e, toolRuns: e.toolRuns.map(({ abortedAt: _, ...run }) => run) }),
};
