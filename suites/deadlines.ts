// Deadline judging, in one place: whether a rule with a deadline held in time, broke whatever the time, or was late;
// whether a late one is the client's or may be the machine's; and whether running the case again with larger bounds
// could change its verdict. The bounds themselves come from the time policy (config/time.ts); the machine's load is
// measured by suites/outcome.ts `watchMachine` and read here.
//
// The verbs:
// - `checkInTime`: a scenario's check of a rule with a deadline (`held`: true, false, or 'late', with `lateByMs` when
//   the judge can measure how late). Late on a provisional run (another with larger bounds follows) is "time ran out".
// - `judgedAgainstLoad`: the judge's last word on lateness, with the machine's load at hand (suites/judge.ts): lateness
//   no load can explain is the client's at once, on any run (a 0 ms gap where a wait was due, a fixed bound of the
//   client's own longer than the scenario's), and on a rerun promptness is the first run's bound (`promptAtFirstBound`).
// - `moreTimeMayChange`: whether a verdict could come out otherwise with larger bounds; the runner's rerun decision
//   (suites/runner.ts runCase) reads it and nothing else.
import { ATTEMPT_GROWTH, MAX_ATTEMPTS, QUIET_MACHINE, provisionally, type TimePolicy } from '../config/time.ts';
import type { WireExchange } from '../servers/wire-record.ts';
import { check, unexercised } from './check.ts';
import type { Check, MachineLoad, SpecRef, Verdict } from './scenario.ts';

/** Whether a rule with a deadline held: in time, broken whatever the time (`false`), or not (yet) when the bound ended (`late`). */
export type InTime = boolean | 'late';

/**
 * A rule with a deadline (the react bound, say). Held in time: pass; broken whatever the time: fail. Late (not held
 * when the bound ended): a fail on a firm run, but on a provisional one (time.provisional: another run with larger
 * bounds follows) a loaded machine may be the cause, so it is inconclusive, "time ran out", and the case runs again.
 * `lateByMs`, when the judge can measure it, is how far past the bound it held (or how much short of a wait it fell):
 * lateness no load could explain is judged firmly at once (judgedAgainstLoad).
 */
export function checkInTime(time: TimePolicy, name: string, spec: SpecRef, held: InTime, detail: string, exchanges: readonly WireExchange[] = [], lateByMs?: number): Check {
  const late = held === 'late' && lateByMs !== undefined ? { lateByMs: Math.max(0, Math.round(lateByMs)) } : {};
  if (held !== 'late' || !time.provisional) return { ...check(name, spec, held === true, detail, exchanges), ...late };
  return { ...unexercised(name, spec, timeRanOut(time, detail), exchanges), ...late };
}

/** An inconclusive check's detail when more time may bring the rule within reach: "time ran out", on a provisional run. */
export function timeRanOut(time: TimePolicy, detail: string): string {
  return time.provisional ? `time ran out at time scale ${time.scale} (run again with larger bounds): ${detail}` : detail;
}

/**
 * The same as a deadline for an operation that must reject: rejected within `ms` of the moment of interest; resolved
 * (or not observed): broken whatever the time; still pending, or rejected after `ms`: late.
 */
export function rejectedInTime(outcome: { state: 'resolved' | 'rejected' | 'pending'; afterMs: number } | undefined, ms: number): InTime {
  if (outcome === undefined || outcome.state === 'resolved') return false;
  return (outcome.state === 'rejected' && outcome.afterMs <= ms) || 'late';
}

// — the machine's load —

/** Whether a client that was late on this machine was late by itself (config/time.ts QUIET_MACHINE), or may have been held up by the machine. */
export function machineWasQuiet(load: MachineLoad, time: TimePolicy): boolean {
  return load.idleShare >= QUIET_MACHINE.idleShare && load.stalledMs <= time.ms.react * QUIET_MACHINE.stallShareOfReact;
}

/**
 * The most lateness a busy machine could account for: the longest this process was held up, stretched as far as the
 * suite stretches a case's bounds for load over its reruns (ATTEMPT_GROWTH per attempt), plus the hold-up a quiet
 * machine may show anyway (QUIET_MACHINE). A client later than that was late by itself, whatever the load.
 */
export function latenessLoadExplains(load: MachineLoad, time: TimePolicy): number {
  return load.stalledMs * ATTEMPT_GROWTH ** (MAX_ATTEMPTS - 1) + time.ms.react * QUIET_MACHINE.stallShareOfReact;
}

/** The load in a few words, for a check's detail. */
export const describeLoad = (load: MachineLoad): string => `${Math.round(load.idleShare * 100)}% of the CPUs idle, this process held up ${load.stalledMs} ms at most`;

// — the judge's last word —

/**
 * Lateness judged with the machine's load at hand (suites/judge.ts judgeCase calls this after the scenario's judge).
 * On a provisional run, a check that ran out of time by more than the load explains is the client's at once: a gap no
 * load can explain, or a fixed bound of the client's own past the scenario's, fails on any machine and the case is not
 * run again for it. On a rerun (`firstReactMs`, the first run's react bound, below this run's), promptness is the
 * first run's (promptAtFirstBound), `atFirst` being the scenario's judgement of the same evidence at that bound.
 */
export function judgedAgainstLoad(checks: readonly Check[], time: TimePolicy, load: MachineLoad | undefined, rerun?: { firstReactMs: number; atFirst: (first: TimePolicy) => readonly Check[] }): Check[] {
  if (load === undefined) return [...checks];
  let judged = checks.map((c) => lateBeyondLoad(c, load, time));
  if (rerun !== undefined && rerun.firstReactMs < time.ms.react) {
    const first: TimePolicy = { ...provisionally(time, false), ms: { ...time.ms, react: rerun.firstReactMs } };
    judged = promptAtFirstBound(judged, rerun.atFirst(first), machineWasQuiet(load, first), describeLoad(load), rerun.firstReactMs, latenessLoadExplains(load, first));
  }
  return judged;
}

/** A check that ran out of time (inconclusive, late by a measured amount) past what the load explains: the client's fail. */
function lateBeyondLoad(c: Check, load: MachineLoad, time: TimePolicy): Check {
  if (c.outcome !== 'inconclusive' || c.precondition || c.lateByMs === undefined || c.lasting) return c;
  const explains = Math.round(latenessLoadExplains(load, time));
  if (c.lateByMs <= explains) return c;
  const detail = c.detail.replace(/^time ran out at time scale [\d.]+ \(run again with larger bounds\): /, '');
  return { ...c, outcome: 'fail', detail: `${detail} (late by ${c.lateByMs} ms, more than the ${explains} ms the machine's load could explain (${describeLoad(load)}), so the lateness is the client's own)` };
}

/**
 * A run with larger bounds than the case's first (runCase's reruns) gives the script room to finish on a slow machine,
 * but promptness is the first run's react bound: a rule that held only within the larger one was late by that bound.
 * `atFirst` is the same evidence judged with the first run's react bound, firmly. A check that passed here and not
 * there is the client's lateness on a quiet machine (that judgement), and on a busy one (`quiet` false) cannot be told
 * from the machine's: inconclusive, unless it was late by more than the load could explain (`loadExplainsMs`,
 * `latenessLoadExplains`): a gap no load can explain is judged firmly whatever the load. A client with a fixed latency
 * between the two bounds is so judged the same on any machine, not by where its latency falls against the last
 * rerun's bound. The runner's client-completed is its own.
 */
export function promptAtFirstBound(checks: readonly Check[], atFirst: readonly Check[], quiet: boolean, load: string, reactMs: number, loadExplainsMs = Number.POSITIVE_INFINITY): Check[] {
  const seen = new Map<string, number>();
  return checks.map((c) => {
    const nth = seen.get(c.name) ?? 0;
    seen.set(c.name, nth + 1);
    const first = atFirst.filter((f) => f.name === c.name)[nth];
    if (c.outcome !== 'pass' || c.precondition || c.name === 'client-completed' || first === undefined || first.outcome !== 'fail') return c;
    const at = `with the first run's react bound of ${reactMs} ms`;
    if (quiet) return { ...first, detail: `${first.detail} (${at}, on a quiet machine: ${load})` };
    if (first.lateByMs !== undefined && first.lateByMs > loadExplainsMs) {
      return { ...first, detail: `${first.detail} (${at}: late by ${first.lateByMs} ms, more than the ${Math.round(loadExplainsMs)} ms the machine's load could explain (${load}), so the lateness is the client's own)` };
    }
    // Lasting: the first bound judges it on any rerun, so a larger bound cannot change it; only a quieter machine could.
    return { ...unexercised(c.name, c.spec, `held only within a rerun's larger bounds; ${at}: ${first.detail}; the machine was busy (${load}), so the lateness cannot be told from the machine's`), exchanges: c.exchanges, lasting: true as const };
  });
}

// — whether to run again —

/** Whether running the case again with larger bounds could change its inconclusive checks: nothing lasting keeps it so. */
export function timeMayCure(checks: readonly Check[]): boolean {
  const inconclusive = checks.filter((c) => c.outcome === 'inconclusive');
  return !inconclusive.some((c) => c.precondition && c.lasting) && inconclusive.some((c) => !c.lasting);
}

/**
 * Whether larger bounds could change this verdict: only an inconclusive one, and only when what kept it so is time
 * running out (timeMayCure). A pass, a fail or a warn stands: no rerun can take back what the client did. The runner
 * runs a case again exactly when this says so.
 */
export function moreTimeMayChange(verdict: Verdict, checks: readonly Check[]): boolean {
  return verdict === 'inconclusive' && timeMayCure(checks);
}
