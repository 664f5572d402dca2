// 5xx answers, as an overloaded server or a failing gateway gives them: a plain-text body, and
// `Retry-After: <seconds>` when asked for (meaningful on 503). The era never sees the request.
import { STATUS_CODES } from 'node:http';
import type { Personality } from '../personality.ts';
import { ArmedRules, type RequestFilter } from './shared.ts';

export interface ServerErrorRule extends RequestFilter {
  /** Default 503. */
  status?: 500 | 502 | 503 | 504;
  retryAfterSeconds?: number;
}

export interface ServerErrors extends Personality {
  /** Fails the next `count` requests matching the rule (default: 1, 503, any request). */
  failNext(count?: number, rule?: ServerErrorRule): void;
  pending(): number;
}

/** With options, the rule is armed from the start for `count` requests (default: every matching one). */
export function serverErrors(options?: ServerErrorRule & { count?: number }): ServerErrors {
  const rules = new ArmedRules<ServerErrorRule>();
  if (options) rules.arm(options.count ?? Infinity, options);
  return {
    name: 'server-errors',
    failNext(count = 1, rule = {}) {
      rules.arm(count, rule);
    },
    pending: () => rules.pending(),
    async middleware({ res, exchange, body, record }, next) {
      const rule = rules.take(body);
      if (!rule) return next();
      const status = rule.status ?? 503;
      const headers: Record<string, string> = { 'content-type': 'text/plain' };
      if (rule.retryAfterSeconds !== undefined) headers['retry-after'] = String(rule.retryAfterSeconds);
      record.note(exchange, 'server-error');
      res.writeHead(status, headers).end(STATUS_CODES[status]);
    },
  };
}
