// 401 and 403 for matching requests, shaped like the SDK's bearer-auth answers
// (`bearerAuthChallengeResponse`): a `WWW-Authenticate: Bearer …` challenge and an OAuth error body.
// No `resource_metadata` is advertised: this server has no authorization server to send a client to.
import type { Personality } from '../personality.ts';
import { ArmedRules, type RequestFilter } from './shared.ts';

export interface AuthRule extends RequestFilter {
  /** Default 401. */
  status?: 401 | 403;
}

export interface AuthErrors extends Personality {
  /** Rejects the next `count` requests matching the rule (default: 1, 401, any request). */
  rejectNext(count?: number, rule?: AuthRule): void;
  pending(): number;
}

const ANSWERS = {
  401: { error: 'invalid_token', description: 'Missing or invalid access token' },
  403: { error: 'insufficient_scope', description: 'Insufficient scope' },
} as const;

/** With options, the rule is armed from the start for `count` requests (default: every matching one: always on). */
export function authErrors(options?: AuthRule & { count?: number }): AuthErrors {
  const rules = new ArmedRules<AuthRule>();
  if (options) rules.arm(options.count ?? Infinity, options);
  return {
    name: 'auth-errors',
    rejectNext(count = 1, rule = {}) {
      rules.arm(count, rule);
    },
    pending: () => rules.pending(),
    async middleware({ res, exchange, body, record }, next) {
      const rule = rules.take(body);
      if (!rule) return next();
      const status = rule.status ?? 401;
      const { error, description } = ANSWERS[status];
      record.note(exchange, `auth-${status}`);
      res
        .writeHead(status, {
          'content-type': 'application/json',
          'www-authenticate': `Bearer error="${error}", error_description="${description}"`,
        })
        .end(JSON.stringify({ error, error_description: description }));
    },
  };
}
