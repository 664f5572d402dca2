// Every DELETE held without an answer: a server, or a proxy in front of it, that never answers the session DELETE a
// client sends when it closes (lifecycle › Error Handling, 2024-11-05: "Shutdown timeout"; from 2025-03-26,
// lifecycle › Timeouts: timeouts for all sent requests, "to prevent hung connections").
//
// Each DELETE is noted `delete-held` and held. The hold is bounded: it ends unanswered when the client gives up
// (closes the connection) or the server closes, and after `holdMs` the DELETE is let through to the era (which ends
// the session and answers 200), noted `delete-hold-elapsed`, so nothing hangs for good.
import { basePolicy } from '../../config/settings.ts';
import type { Personality } from '../personality.ts';
import { pause, type Pause } from './shared.ts';

export const DELETE_HELD = 'delete-held';
export const DELETE_HOLD_ELAPSED = 'delete-hold-elapsed';

export interface DeleteHangs extends Personality {
  /** How many DELETEs are being held. */
  heldCount(): number;
}

/** Default hold: twice the operation bound of the settings' time policy (10 s at scale 1), past any close a case waits for. */
export const defaultDeleteHoldMs = (): number => 2 * basePolicy().ms.operation;

export function deleteHangs(options: { holdMs?: number } = {}): DeleteHangs {
  const holdMs = options.holdMs ?? defaultDeleteHoldMs();
  const held = new Set<Pause>();
  return {
    name: 'delete-hangs',
    // The Streamable HTTP eras with sessions: the only ones whose clients end a session with DELETE.
    eras: ['2025-03-26', '2025-06-18', '2025-11-25'],
    heldCount: () => [...held].filter((hold) => !hold.ended).length,
    async middleware({ req, res, exchange, record }, next) {
      if (req.method !== 'DELETE') return next();
      const hold = pause(res, holdMs);
      held.add(hold);
      record.note(exchange, DELETE_HELD);
      const outcome = await hold.done;
      held.delete(hold);
      // The client gave up (or the server is closing): the DELETE ends unanswered; the record says who ended it.
      if (outcome !== 'elapsed') return;
      record.note(exchange, DELETE_HOLD_ELAPSED);
      return next();
    },
  };
}
