// The verbs of a judge: a rule judged, a rule never exercised, a precondition, and the check every scenario carries.
// What the wire record says (which requests, which session, which answer) is suites/wire.ts; rules with a deadline
// (in time, late, time ran out) are suites/deadlines.ts.
import type { WireExchange } from '../servers/wire-record.ts';
import type { Check, Evidence, SpecRef } from './scenario.ts';
import { check, unexercised } from './check.ts';
import { checkInTime } from './deadlines.ts';
import { onStdio } from './spec.ts';

// The two verbs every judge uses live in check.ts, which deadlines.ts builds on too.
export { check, unexercised };

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

/**
 * The scenario's client script ran to the end without the client raising an error. A connect that ran out of time is a
 * deadline missed (deadlines.ts checkInTime): on a provisional run a slow start under load, not yet the client's failure.
 */
export function clientCompleted(evidence: Evidence, rule: SpecRef): Check {
  // A judge shared with an HTTP scenario cites HTTP's rule: a stdio case cites its own transport.
  const spec = evidence.stdio !== undefined ? onStdio(rule, evidence.revision) : rule;
  if (evidence.clientError === undefined) return check('client-completed', spec, true, 'the client completed every operation');
  return checkInTime(evidence.time, 'client-completed', spec, evidence.clientTimedOut ? 'late' : false, `the client failed: ${evidence.clientError}`);
}
