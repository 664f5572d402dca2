// What the scenarios of the official suite's families (step-up, resource, issuer, token endpoint authentication) read on
// the authorization lane: the authorization requests the suite's user agent carried to the authorization server (the
// client's authorization URL, as the client built it), their answers, and the token requests' forms.
import type { AuthorizationOptions } from '../../clients/adapter.ts';
import { isModern, specUrl, type Revision } from '../../protocol/revisions.ts';
import { FIXTURE_TOOLS } from '../../servers/fixtures.ts';
import type { WireExchange } from '../../servers/wire-record.ts';
import { spec } from '../spec.ts';
import { settle } from '../outcome.ts';
import type { Evidence, Level, ScenarioContext, SpecRef } from '../scenario.ts';
import { authorizationLane, tokenRequests, type TokenRequest } from './support.ts';

/** The revisions with the step-up authorization flow (2025-11-25 on). */
export const STEP_UP_REVISIONS = ['2025-11-25', '2026-07-28'] as const satisfies readonly Revision[];

/** The revision whose authorization rules name the issuer checks (RFC 8414 §3.3 validation, RFC 9207 `iss`). */
export const ISSUER_REVISIONS = ['2026-07-28'] as const satisfies readonly Revision[];

/** The query of a URL path (`/auth?…`) as parameters. */
export const queryOf = (exchange: WireExchange): URLSearchParams => new URLSearchParams(exchange.path.split('?')[1] ?? '');

/** The authorization requests the lane received: the client's authorization URL (a GET carrying `response_type`). */
export function authorizationRequests(evidence: Pick<Evidence, 'authorization'>): WireExchange[] {
  return authorizationLane(evidence).filter((exchange) => exchange.method === 'GET' && queryOf(exchange).has('response_type'));
}

/** The token requests that redeemed an authorization code. */
export const codeRedemptions = (evidence: Pick<Evidence, 'authorization'>): TokenRequest[] => tokenRequests(evidence).filter((request) => request.grant === 'authorization_code');

/** The form of a token request. */
export const formOf = (request: TokenRequest): URLSearchParams => new URLSearchParams(request.exchange.requestBody);

/** The lane's dynamic registrations (a JSON POST naming redirect_uris). */
export const registrations = (evidence: Pick<Evidence, 'authorization'>): WireExchange[] =>
  authorizationLane(evidence).filter((exchange) => exchange.method === 'POST' && (exchange.requestHeaders['content-type'] ?? '').includes('application/json'));

/** The scopes of a space-separated list. */
export const scopesOf = (scope: string | null | undefined): string[] => (scope ?? '').split(' ').filter((s) => s !== '');

/** The authorization server's answer redirecting the user agent to the client (the authorization response), if any. */
export function authorizationResponses(evidence: Pick<Evidence, 'authorization'>, redirectUri: string): { exchange: WireExchange; url: URL }[] {
  return authorizationLane(evidence).flatMap((exchange) => {
    const location = exchange.responseHeaders['location'];
    if (location === undefined || !location.startsWith(redirectUri.split('?')[0]!)) return [];
    return [{ exchange, url: new URL(location) }];
  });
}

/**
 * A section of the authorization pages: basic/authorization at 2025-06-18 and 2025-11-25; at 2026-07-28 the page the
 * section moved to (`basic/authorization/index` unless named).
 */
export function authorizationSection(revision: Revision, anchor: string, section: string, level: Level, page26 = 'basic/authorization/index'): SpecRef {
  return spec(specUrl(revision, isModern(revision) ? page26 : 'basic/authorization', anchor), `Authorization › ${section}`, level);
}

/** The key of the outcome of a connect and call whose authorization a correct client refuses. */
export const REFUSED_OUTCOME = 'connectAndCall';

/**
 * Connects and calls once, observed as one operation: a client that refuses the authorization fails at its connect (or,
 * lazy, at the call), and either is the same refusal.
 */
export async function connectAndCall({ connect, bounded, observe }: Pick<ScenarioContext, 'connect' | 'bounded' | 'observe'>, authorization: AuthorizationOptions): Promise<void> {
  const attempt = (async () => {
    const client = await connect({ authorization });
    try {
      await bounded(client.callTool(FIXTURE_TOOLS.echo, { text: 'authorized?' }), 'tools/call');
    } finally {
      await bounded(client.close(), 'close').catch(() => undefined);
    }
  })();
  observe(REFUSED_OUTCOME, await settle(bounded(attempt, 'connect and tools/call')));
}
