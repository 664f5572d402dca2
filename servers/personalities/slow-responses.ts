// Matching requests are answered late: each waits `ms` before the era handles it (a slow server or
// gateway, as a client's timeout sees it). The wait is a timer cleared when the client disconnects
// or the server closes; then the request is never handled.
import type { Personality } from '../personality.ts';
import { ArmedRules, pause, type Pause, type RequestFilter } from './shared.ts';

export interface SlowRule extends RequestFilter {
  ms: number;
}

export interface SlowResponses extends Personality {
  /** Delays the next `count` requests matching the rule by `rule.ms`. */
  slowNext(count: number, rule: SlowRule): void;
  pending(): number;
  /** How many requests are waiting right now. */
  waiting(): number;
}

/** With options, the rule is armed from the start for `count` requests (default: every matching one). */
export function slowResponses(options?: SlowRule & { count?: number }): SlowResponses {
  const rules = new ArmedRules<SlowRule>();
  if (options) rules.arm(options.count ?? Infinity, options);
  const waits = new Set<Pause>();
  return {
    name: 'slow-responses',
    slowNext(count, rule) {
      rules.arm(count, rule);
    },
    pending: () => rules.pending(),
    waiting: () => [...waits].filter((wait) => !wait.ended).length,
    async middleware({ res, exchange, body, record }, next) {
      const rule = rules.take(body);
      if (!rule) return next();
      const wait = pause(res, rule.ms);
      waits.add(wait);
      record.note(exchange, 'slowed');
      const outcome = await wait.done;
      waits.delete(wait);
      if (outcome === 'elapsed') return next();
    },
  };
}
