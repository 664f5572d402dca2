// An `initialize` sent with the id of a live session is refused, as the SDK transport refuses it, but
// here explicitly, before the era, and noted: the answer a resuming client gets if it re-handshakes.
import { containsMethod, sendJsonRpcError } from '../http.ts';
import type { Personality, PersonalityHost } from '../personality.ts';
import { backendOf, HEADER_SESSION_ERAS, sessionIdOf } from './shared.ts';

export function refusesReinitialize(): Personality {
  let host: PersonalityHost | undefined;
  return {
    name: 'refuses-reinitialize',
    eras: HEADER_SESSION_ERAS,
    attach(attached) {
      host = attached;
    },
    async middleware({ req, res, exchange, body, record }, next) {
      const sessionId = sessionIdOf(exchange);
      if (req.method !== 'POST' || sessionId === undefined || !containsMethod(body, 'initialize')) return next();
      if (!backendOf(host, 'refuses-reinitialize').liveSessions().includes(sessionId)) return next();
      record.note(exchange, 'refused-reinitialize');
      // Exactly the SDK transport's answer: it does not tie the error to the request, so the id is null.
      sendJsonRpcError(res, 400, -32600, 'Invalid Request: Server already initialized');
    },
  };
}
