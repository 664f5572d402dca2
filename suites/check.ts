// The two verbs under every judgement: a rule judged, and a rule the scenario never exercised. Their own module, so
// the deadline verbs (deadlines.ts) and the judge's other verbs (checks.ts) both build on them.
import type { WireExchange } from '../servers/wire-record.ts';
import type { Check, SpecRef } from './scenario.ts';

/** A rule judged: it held (`ok`) or it was broken, with what was expected and seen. */
export function check(name: string, spec: SpecRef, ok: boolean, detail: string, exchanges: readonly WireExchange[] = []): Check {
  return { name, spec, outcome: ok ? 'pass' : 'fail', detail, exchanges: exchanges.map((exchange) => exchange.seq) };
}

/** A rule the scenario never exercised: neither pass nor fail; `why` says what the suite could not drive. */
export function unexercised(name: string, spec: SpecRef, why: string, exchanges: readonly WireExchange[] = []): Check {
  return { name, spec, outcome: 'inconclusive', detail: why, exchanges: exchanges.map((exchange) => exchange.seq) };
}
