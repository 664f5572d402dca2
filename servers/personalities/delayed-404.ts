// The answer to a request carrying the id of an ended session is held back until the test
// releases it, so a stale 404 can reach a client after it already made a new session
// (retry/stale-404-after-replacement).
//
// Every request whose session id was issued by this server and is no longer live is held, noted
// `delayed-404`, in arrival order. `releaseDelayed(n)` lets the oldest n through to the era (which
// answers 404, or to unknown-session-400 placed after this personality). A hold ends by itself
// after `maxHoldMs` (noted `delayed-404-timeout`) so nothing hangs; it also ends, unanswered, when
// the client disconnects or the server closes. Ids the server never issued are not held.
import type { Personality, PersonalityHost } from '../personality.ts';
import { backendOf, HEADER_SESSION_ERAS, pause, sessionIdOf, type Pause } from './shared.ts';

export const DELAYED_404_MAX_HOLD_MS = 10_000;

export interface Delayed404 extends Personality {
  /** Lets the oldest `count` held answers go (default: all); returns how many were released. */
  releaseDelayed(count?: number): number;
  /** How many answers are being held. */
  heldCount(): number;
}

export function delayed404(options: { maxHoldMs?: number } = {}): Delayed404 {
  const maxHoldMs = options.maxHoldMs ?? DELAYED_404_MAX_HOLD_MS;
  let host: PersonalityHost | undefined;
  const held: Pause[] = [];
  const backend = () => backendOf(host, 'delayed-404');

  return {
    name: 'delayed-404',
    eras: HEADER_SESSION_ERAS,
    attach(attached) {
      host = attached;
    },
    releaseDelayed(count = Infinity) {
      const released = held.filter((hold) => !hold.ended).slice(0, count);
      for (const hold of released) hold.release();
      return released.length;
    },
    heldCount: () => held.filter((hold) => !hold.ended).length,
    async middleware({ res, exchange, record }, next) {
      const sessionId = sessionIdOf(exchange);
      if (sessionId === undefined || !backend().issuedSessions().includes(sessionId) || backend().liveSessions().includes(sessionId)) {
        return next();
      }
      const hold = pause(res, maxHoldMs);
      held.push(hold);
      record.note(exchange, 'delayed-404');
      const outcome = await hold.done;
      held.splice(held.indexOf(hold), 1);
      if (outcome === 'closed') return;
      if (outcome === 'elapsed') record.note(exchange, 'delayed-404-timeout');
      return next();
    },
  };
}
