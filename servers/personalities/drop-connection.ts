// The connection is destroyed with no answer, for the next n matching requests:
// `before` the era handles the request (it never happened), or `after` it did (its effect, such as a
// `count` tool run, happened, but the answer never reaches the client).
//
// On the wire record such an exchange has no `status` and no response messages, and `endedBy` is
// `client` (the record only knows that the server did not finish the response); the notes
// `dropped-before-handler` / `dropped-after-handler` say who really cut it.
// On 2024-11-05 (HTTP+SSE) answers travel on the GET stream: `after` withholds only the POST's 202.
import type { ServerResponse } from 'node:http';
import type { Personality } from '../personality.ts';
import { ArmedRules, type RequestFilter } from './shared.ts';

export interface DropRule extends RequestFilter {
  /** Default `before`. */
  when?: 'before' | 'after';
}

export interface DropConnection extends Personality {
  /** Drops the next `count` requests matching the rule (default: 1, before the handler, any request). */
  dropNext(count?: number, rule?: DropRule): void;
  /** How many drops are still armed. */
  pending(): number;
}

/** With options, the rule is armed from the start for `count` requests (default: every matching one). */
export function dropConnection(options?: DropRule & { count?: number }): DropConnection {
  const rules = new ArmedRules<DropRule>();
  if (options) rules.arm(options.count ?? Infinity, options);
  return {
    name: 'drop-connection',
    dropNext(count = 1, rule = {}) {
      rules.arm(count, rule);
    },
    pending: () => rules.pending(),
    async middleware({ req, res, exchange, body, record }, next) {
      const rule = rules.take(body);
      if (!rule) return next();
      if ((rule.when ?? 'before') === 'before') {
        record.note(exchange, 'dropped-before-handler');
        record.markDropped(exchange);
        req.socket.destroy();
        return;
      }
      withholdAnswer(res);
      await next();
      record.note(exchange, 'dropped-after-handler');
      record.markDropped(exchange);
      req.socket.destroy();
    },
  };
}

/**
 * Lets the handler write its answer into nothing. These replace the wire record's own taps too,
 * so the record, like the client, sees no status and no messages.
 */
function withholdAnswer(res: ServerResponse): void {
  res.writeHead = (() => res) as ServerResponse['writeHead'];
  res.flushHeaders = () => {};
  res.write = (() => true) as ServerResponse['write'];
  res.end = (() => res) as ServerResponse['end'];
}
