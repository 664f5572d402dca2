// The `initialize` (POSTed without a session id) is answered here instead of by the era, in one of two ways:
//
// - `{ revision }`: a well-formed InitializeResult naming that revision (default `1999-01-01`, which no
//   client supports), with an `Mcp-Session-Id` header as a sessionful server sends (none on the
//   stateless era). The id is unknown to the era: later requests carrying it get its 404.
//   Noted `initialize-unsupported-revision`.
// - `{ error }`: the lifecycle page's error form, `-32602 "Unsupported protocol version"` with
//   `data: { supported, requested }`, for an initialize whose version is not in `supported` (default:
//   the era's revisions); a retry with a supported version reaches the era and gets a session.
//   Noted `initialize-error-form`.
//   HTTP status 200 by default: in the legacy revisions this is a JSON-RPC response to the
//   `initialize` request (the spec's example carries the request's id), and Streamable HTTP answers a
//   request with `application/json` or SSE (transports, "Sending Messages to the Server" 5); HTTP error
//   statuses are specified for rejected notifications/responses and for header or session failures.
//   The SDKs send errors from request handlers the same way, with 200. `status: 400` mimics servers
//   that reject at the HTTP level, as 2026-07-28 does for `-32022`; note that a 400 to `initialize`
//   is also a trigger for HTTP+SSE fallback in clients that implement it.
// `count` limits how many initialize requests are answered here (default: all).
import { randomUUID } from 'node:crypto';
import type { Era } from '../era.ts';
import { messagesOf } from '../http.ts';
import type { Personality, PersonalityHost } from '../personality.ts';
import { backendOf, sessionIdOf } from './shared.ts';
import { REFERENCE_SERVER_INFO } from '../fixtures.ts';

export type InitializeAnswersOptions = (
  | { revision: string }
  | { error: { supported?: readonly string[]; status?: 200 | 400 } }
) & { count?: number };

const ERAS_WITH_INITIALIZE: readonly Era[] = ['2025-03-26', '2025-06-18', '2025-11-25', 'stateless', 'dual'];

export function initializeAnswers(options: InitializeAnswersOptions = { revision: '1999-01-01' }): Personality {
  let host: PersonalityHost | undefined;
  let remaining = options.count ?? Infinity;
  return {
    name: 'initialize-answers',
    eras: ERAS_WITH_INITIALIZE,
    attach(attached) {
      host = attached;
    },
    async middleware({ req, res, exchange, body, record }, next) {
      const [message, ...others] = messagesOf(body);
      if (req.method !== 'POST' || sessionIdOf(exchange) !== undefined || message?.method !== 'initialize' || others.length > 0) return next();
      const id = message.id ?? null;
      const requested = (message.params as { protocolVersion?: unknown } | undefined)?.protocolVersion;

      if ('error' in options) {
        const supported = options.error.supported ?? backendOf(host, 'initialize-answers').revisions;
        if ((typeof requested === 'string' && supported.includes(requested)) || remaining <= 0) return next();
        remaining -= 1;
        record.note(exchange, 'initialize-error-form');
        const error = { code: -32602, message: 'Unsupported protocol version', data: { supported, requested } };
        res.writeHead(options.error.status ?? 200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id, error }));
        return;
      }

      if (remaining <= 0) return next();
      remaining -= 1;
      record.note(exchange, 'initialize-unsupported-revision');
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (host?.era !== 'stateless') headers['mcp-session-id'] = randomUUID();
      const result = { protocolVersion: options.revision, capabilities: { tools: {} }, serverInfo: REFERENCE_SERVER_INFO };
      res.writeHead(200, headers).end(JSON.stringify({ jsonrpc: '2.0', id, result }));
    },
  };
}
