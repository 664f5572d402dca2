// An unknown or expired session id answered the way servers copied from older SDK examples answer it:
// `400 -32000 "Bad Request: No valid session ID provided"` instead of the spec's 404.
// A request without any session id keeps the era's answer.
// Composition: personalities run in list order, so put this one after those that end sessions
// (expiring-sessions) and after delayed-404 (which then holds back this 400 instead of the 404).
import { sendJsonRpcError } from '../http.ts';
import type { Personality, PersonalityHost } from '../personality.ts';
import { backendOf, HEADER_SESSION_ERAS, sessionIdOf } from './shared.ts';

export function unknownSession400(): Personality {
  let host: PersonalityHost | undefined;
  return {
    name: 'unknown-session-400',
    eras: HEADER_SESSION_ERAS,
    attach(attached) {
      host = attached;
    },
    async middleware({ res, exchange, record }, next) {
      const sessionId = sessionIdOf(exchange);
      if (sessionId === undefined || backendOf(host, 'unknown-session-400').liveSessions().includes(sessionId)) return next();
      record.note(exchange, 'unknown-session-400');
      sendJsonRpcError(res, 400, -32000, 'Bad Request: No valid session ID provided');
    },
  };
}
