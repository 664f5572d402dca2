// The verbs of a judge: a rule judged, a rule never exercised, a precondition, and the check every scenario carries.
// What the wire record says (which requests, which session, which answer) is suites/wire.ts.
import type { TimePolicy } from '../config/time.ts';
import type { WireExchange } from '../servers/wire-record.ts';
import type { Check, Evidence, SpecRef } from './scenario.ts';
import { onStdio } from './spec.ts';

/** A rule judged: it held (`ok`) or it was broken, with what was expected and seen. */
export function check(name: string, spec: SpecRef, ok: boolean, detail: string, exchanges: readonly WireExchange[] = []): Check {
  return { name, spec, outcome: ok ? 'pass' : 'fail', detail, exchanges: exchanges.map((exchange) => exchange.seq) };
}

/** A rule the scenario never exercised: neither pass nor fail; `why` says what the suite could not drive. */
export function unexercised(name: string, spec: SpecRef, why: string, exchanges: readonly WireExchange[] = []): Check {
  return { name, spec, outcome: 'inconclusive', detail: why, exchanges: exchanges.map((exchange) => exchange.seq) };
}

/** Whether a rule with a deadline held: in time, broken whatever the time (`false`), or not (yet) when the bound ended (`late`). */
export type InTime = boolean | 'late';

/**
 * A rule with a deadline (the react bound, say). Held in time: pass; broken whatever the time: fail. Late (not held
 * when the bound ended): a fail on a firm run, but on a provisional one (time.provisional: another run with larger
 * bounds follows) a loaded machine may be the cause, so it is inconclusive, "time ran out", and the case runs again.
 * `lateByMs`, when the judge can measure it, is how far past the bound it held: lateness no load could explain is
 * judged firmly on a busy machine too (promptAtFirstBound).
 */
export function checkInTime(time: TimePolicy, name: string, spec: SpecRef, held: InTime, detail: string, exchanges: readonly WireExchange[] = [], lateByMs?: number): Check {
  const late = held === 'late' && lateByMs !== undefined ? { lateByMs: Math.round(lateByMs) } : {};
  if (held !== 'late' || !time.provisional) return { ...check(name, spec, held === true, detail, exchanges), ...late };
  return { ...unexercised(name, spec, timeRanOut(time, detail), exchanges), ...late };
}

/** An inconclusive check's detail when more time may bring the rule within reach: "time ran out", on a provisional run. */
export function timeRanOut(time: TimePolicy, detail: string): string {
  return time.provisional ? `time ran out at time scale ${time.scale} (run again with larger bounds): ${detail}` : detail;
}

/**
 * A run with larger bounds than the case's first (runCase's reruns) gives the script room to finish on a slow machine,
 * but promptness is the first run's react bound: a rule that held only within the larger one was late by that bound.
 * `atFirst` is the same evidence judged with the first run's react bound, firmly. A check that passed here and not
 * there is the client's lateness on a quiet machine (that judgement), and on a busy one (`quiet` false) cannot be told
 * from the machine's: inconclusive, unless it was late by more than the load could explain (`loadExplainsMs`,
 * outcome.ts `latenessLoadExplains`): a gap no load can explain is judged firmly whatever the load. A client with a
 * fixed latency between the two bounds is so judged the same on any machine, not by where its latency falls against
 * the last rerun's bound. The runner's client-completed is its own.
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
    // Lasting: the first bound judges it on any rerun, so a larger bound cannot change it (a client late by a fixed
    // latency of its own, its 5 s timeout say, is as late at every scale); only a quieter machine could.
    return { ...unexercised(c.name, c.spec, `held only within a rerun's larger bounds; ${at}: ${first.detail}; the machine was busy (${load}), so the lateness cannot be told from the machine's`), exchanges: c.exchanges, lasting: true as const };
  });
}

/**
 * A rule judged only when the scenario reached it: `reached` undefined judges it (`ok`, `detail`); a string is why it
 * was not exercised. The one way judges say "could not drive the client there" without blaming the client.
 */
export function checkIf(reached: string | undefined, name: string, spec: SpecRef, ok: () => boolean, detail: () => string, exchanges: readonly WireExchange[] = []): Check {
  return reached === undefined ? check(name, spec, ok(), detail(), exchanges) : unexercised(name, spec, reached, exchanges);
}

/**
 * Who kept a precondition from being met. `suite` (the default): the suite, the machine or an earlier case could not
 * set the case up, so the case is inconclusive. `client`: the client itself never reached the behaviour under test
 * (it hung, crashed, reconnected or broke a rule first): the checks that failed stand as its verdict, and only when
 * none failed is the case inconclusive. `shape`: a correct client of another shape never reaches it (a client with a
 * session per operation never meets the loss of a session it keeps): the scenario does not apply to it, n/a.
 */
export type UnmetBy = 'suite' | 'client' | 'shape';

/**
 * A condition the suite needs before the scenario's rules say anything about the client (the behaviour under test was
 * reached, a personality acted): met, or unmet with `why` — by default this makes the whole case inconclusive (`by`
 * says otherwise). `spec` is the rule the scenario wanted to exercise; `lasting` says more time cannot make it met
 * (the case is not run again).
 */
export function precondition(name: string, spec: SpecRef, met: boolean, why: string, exchanges: readonly WireExchange[] = [], options: { lasting?: boolean; by?: UnmetBy } = {}): Check {
  const by = options.by ?? 'suite';
  return {
    name,
    spec,
    outcome: met ? 'pass' : 'inconclusive',
    precondition: true,
    // Neither a client that kept itself from the rule nor a shape the scenario cannot drive is cured by more time.
    ...(!met && (options.lasting || by !== 'suite') ? { lasting: true as const } : {}),
    ...(!met && by !== 'suite' ? { unmetBy: by } : {}),
    detail: why,
    exchanges: exchanges.map((exchange) => exchange.seq),
  };
}

/** Whether running the case again with larger bounds could change its inconclusive verdict: nothing lasting keeps it so. */
export function timeMayCure(checks: readonly Check[]): boolean {
  const inconclusive = checks.filter((c) => c.outcome === 'inconclusive');
  return !inconclusive.some((c) => c.precondition && c.lasting) && inconclusive.some((c) => !c.lasting);
}

/**
 * The scenario's client script ran to the end without the client raising an error. A connect that ran out of time is a
 * deadline missed (checkInTime): on a provisional run a slow start under load, not yet the client's failure.
 */
export function clientCompleted(evidence: Evidence, rule: SpecRef): Check {
  // A judge shared with an HTTP scenario cites HTTP's rule: a stdio case cites its own transport.
  const spec = evidence.stdio !== undefined ? onStdio(rule, evidence.revision) : rule;
  if (evidence.clientError === undefined) return check('client-completed', spec, true, 'the client completed every operation');
  return checkInTime(evidence.time, 'client-completed', spec, evidence.clientTimedOut ? 'late' : false, `the client failed: ${evidence.clientError}`);
}
