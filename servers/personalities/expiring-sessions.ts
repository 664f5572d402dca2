// Sessions that end while the client still holds them: on demand (`expireNow`) or after a session
// has served N JSON-RPC requests (`afterRequests(n)`), through the era backend's expireSession.
//
// Counting: JSON-RPC requests POSTed with the session's id, from the session's start (the
// `initialize` itself, notifications, responses, GET and DELETE do not count). The first N are
// served; the (N+1)th ends the session on arrival and gets the era's unknown-session answer
// (404 -32001 "Session not found"). The exchange that first meets a session ended here is noted
// `session-expired`. Put this personality before unknown-session-400 and delayed-404: they answer
// for dead sessions, so they must see the session after it ended.
import type { Personality, PersonalityHost } from '../personality.ts';
import { backendOf, carriesRequest, HEADER_SESSION_ERAS, sessionIdOf } from './shared.ts';

export interface ExpiringSessions extends Personality {
  /** Ends one session (or every live one) now; the next exchange carrying its id is noted. */
  expireNow(sessionId?: string): Promise<void>;
  /** From now on a session serves `n` requests and the next one finds it ended; undefined: never. */
  afterRequests(n: number | undefined): void;
}

export function expiringSessions(options: { afterRequests?: number } = {}): ExpiringSessions {
  let host: PersonalityHost | undefined;
  let limit = options.afterRequests;
  const served = new Map<string, number>();
  /** Sessions ended here whose id has not come back yet. */
  const ended = new Set<string>();
  const backend = () => backendOf(host, 'expiring-sessions');

  const expire = async (sessionId: string) => {
    ended.add(sessionId);
    await backend().expireSession(sessionId);
  };

  return {
    name: 'expiring-sessions',
    eras: HEADER_SESSION_ERAS,
    attach(attached) {
      host = attached;
    },
    async expireNow(sessionId) {
      const targets = sessionId === undefined ? backend().liveSessions() : [sessionId];
      for (const target of targets) if (backend().liveSessions().includes(target)) await expire(target);
    },
    afterRequests(n) {
      if (n !== undefined && !(n >= 0)) throw new Error(`afterRequests needs a count of requests, not ${n}`);
      limit = n;
    },
    async middleware({ exchange, body, record }, next) {
      const sessionId = sessionIdOf(exchange);
      if (sessionId === undefined) return next();
      if (carriesRequest(body) && backend().liveSessions().includes(sessionId)) {
        const count = (served.get(sessionId) ?? 0) + 1;
        served.set(sessionId, count);
        if (limit !== undefined && count > limit) await expire(sessionId);
      }
      if (ended.delete(sessionId)) record.note(exchange, 'session-expired');
      return next();
    },
  };
}
