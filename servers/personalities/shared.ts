// What the HTTP-level personalities share: which eras have header sessions, request filters,
// armed rules ("the next n matching requests"), and holding a request back until a timer or a release.
import type { ServerResponse } from 'node:http';
import type { Era, EraBackend } from '../era.ts';
import { containsMethod, messagesOf } from '../http.ts';
import type { PersonalityHost } from '../personality.ts';
import type { WireExchange } from '../wire-record.ts';

/** The eras whose sessions travel in the `Mcp-Session-Id` header (`dual` serves sessionful 2025-11-25). */
export const HEADER_SESSION_ERAS: readonly Era[] = ['2025-03-26', '2025-06-18', '2025-11-25', 'dual'];

/** The era backend a personality was attached to; throws when used before `attach`. */
export function backendOf(host: PersonalityHost | undefined, personality: string): EraBackend {
  if (!host) throw new Error(`personality ${personality} is used before a server attached it`);
  return host.backend;
}

export function sessionIdOf(exchange: WireExchange): string | undefined {
  return exchange.requestHeaders['mcp-session-id'];
}

/** True when the body carries a JSON-RPC request (a method and an id), not only notifications or responses. */
export function carriesRequest(body: unknown): boolean {
  return messagesOf(body).some((message) => typeof message.method === 'string' && message.id !== undefined);
}

export interface RequestFilter {
  /** Only requests whose body carries this JSON-RPC method; every HTTP request (GET and DELETE too) when omitted. */
  method?: string;
}

export function matchesFilter(filter: RequestFilter, body: unknown): boolean {
  return filter.method === undefined || containsMethod(body, filter.method);
}

/** Rules armed for the next n matching requests; the oldest armed rule that matches is used first. */
export class ArmedRules<Rule extends RequestFilter> {
  private readonly armed: { rule: Rule; remaining: number }[] = [];

  /** `count` may be Infinity: the rule then applies to every matching request. */
  arm(count: number, rule: Rule): void {
    if (!(count >= 1)) throw new Error(`a rule must be armed for at least one request, not ${count}`);
    this.armed.push({ rule, remaining: count });
  }

  /** The rule for this request, if one matches; it counts as used. */
  take(body: unknown): Rule | undefined {
    const index = this.armed.findIndex(({ rule }) => matchesFilter(rule, body));
    const entry = this.armed[index];
    if (!entry) return undefined;
    entry.remaining -= 1;
    if (entry.remaining <= 0) this.armed.splice(index, 1);
    return entry.rule;
  }

  /** How many requests the armed rules still apply to (Infinity for an always-on rule). */
  pending(): number {
    return this.armed.reduce((sum, { remaining }) => sum + remaining, 0);
  }
}

export type PauseOutcome = 'elapsed' | 'released' | 'closed';

export interface Pause {
  /** How the pause ended: its timer elapsed, `release()` was called, or the connection closed (client gone or server closing). */
  readonly done: Promise<PauseOutcome>;
  /** True from the moment the pause ends (before `done` settles for its awaiters). */
  readonly ended: boolean;
  release(): void;
}

/**
 * Holds a request back for at most `ms`. The timer is cleared as soon as the pause ends, so a
 * disconnecting client or a closing server (which destroys every connection) leaves nothing behind.
 */
export function pause(res: ServerResponse, ms: number): Pause {
  let ended = false;
  let finish: (outcome: PauseOutcome) => void = () => {};
  const done = new Promise<PauseOutcome>((resolve) => {
    const onClose = () => finish('closed');
    const timer = setTimeout(() => finish('elapsed'), ms);
    res.once('close', onClose);
    finish = (outcome) => {
      if (ended) return;
      ended = true;
      clearTimeout(timer);
      res.off('close', onClose);
      resolve(outcome);
    };
    if (res.closed) finish('closed');
  });
  return {
    done,
    get ended() {
      return ended;
    },
    release: () => finish('released'),
  };
}
