// What the authorization scenarios share: the protected server they run against, and the queries on the evidence's
// authorization lane (the authorization server's record, never MCP traffic) and on the Bearer tokens requests carried.
import type { Revision } from '../../protocol/revisions.ts';
import { protectedResource, type ProtectedResource, type ProtectedResourceOptions } from '../../servers/authorization/protected-resource.ts';
import type { JsonRpcMessage, WireExchange } from '../../servers/wire-record.ts';
import { FIXTURE_TOOLS } from '../../servers/fixtures.ts';
import type { Evidence, ScenarioContext, ServerSetup } from '../scenario.ts';

/** The revisions with the authorization the lifecycle scenarios exercise (Protected Resource Metadata: 2025-06-18 on). */
export const AUTHORIZED_REVISIONS = ['2025-06-18', '2025-11-25', '2026-07-28'] as const satisfies readonly Revision[];

/** Of those, the ones with sessions (an Mcp-Session-Id to keep). */
export const SESSION_REVISIONS = ['2025-06-18', '2025-11-25'] as const satisfies readonly Revision[];

export interface Protected {
  resource: ProtectedResource;
}

/** The case's server as a protected resource, with its authorization server. */
export function protectedSetup(options?: ProtectedResourceOptions): { server: ServerSetup; state: Protected } {
  const resource = protectedResource(options);
  return { server: { personalities: [resource] }, state: { resource } };
}

/** The Bearer token a request carried in its Authorization header, if any. */
export function bearerOf(exchange: WireExchange): string | undefined {
  return /^Bearer\s+(\S+)$/i.exec(exchange.requestHeaders['authorization'] ?? '')?.[1];
}

/** The authorization lane's exchanges (empty when the case had no authorization server). */
export function authorizationLane(evidence: Pick<Evidence, 'authorization'>): readonly WireExchange[] {
  return evidence.authorization?.exchanges ?? [];
}

/** One token request the authorization server received: its grant and, for a refresh, the refresh token it spent. */
export interface TokenRequest {
  exchange: WireExchange;
  grant: string | undefined;
  refreshToken: string | undefined;
}

/** Every token request of the lane (a form POST carrying grant_type), in arrival order. */
export function tokenRequests(evidence: Pick<Evidence, 'authorization'>): TokenRequest[] {
  return authorizationLane(evidence).flatMap((exchange) => {
    if (exchange.method !== 'POST' || !(exchange.requestHeaders['content-type'] ?? '').includes('application/x-www-form-urlencoded')) return [];
    const form = new URLSearchParams(exchange.requestBody);
    const grant = form.get('grant_type') ?? undefined;
    return grant === undefined ? [] : [{ exchange, grant, refreshToken: form.get('refresh_token') ?? undefined }];
  });
}

/** A JSON-RPC request's identity across re-sends: its method and params (a re-send may carry another id). */
const identity = (message: JsonRpcMessage) => JSON.stringify([message.method, message.params ?? {}]);

/** The request an exchange carried (its first JSON-RPC request), if any. */
export function requestOf(exchange: WireExchange): JsonRpcMessage | undefined {
  return exchange.requestMessages.find((message) => message.method !== undefined && message.id !== undefined);
}

/** The exchanges from `refused` on that carried the same request (method and params) again: its re-sends. */
export function resends(exchanges: readonly WireExchange[], refused: WireExchange): WireExchange[] {
  const request = requestOf(refused);
  if (request === undefined) return [];
  return exchanges.filter((exchange) => exchange.seq > refused.seq && exchange.requestMessages.some((message) => message.id !== undefined && identity(message) === identity(request)));
}

/** The key under which the script records the server's record time of the stimulus (the token expired, the refusals began). */
export const STIMULUS_AT = 'stimulusAt';

/**
 * How a scenario about an expiring token begins: connect with headless authorization, one call with the first token
 * (a call, not a listing: a listing may be answered from the client's cache and never reach the server), then every
 * token issued so far expires, the moment marked (STIMULUS_AT). Returns the client, for what follows.
 */
export async function connectedThenExpired({ connect, bounded, state, observe, server }: ScenarioContext<Protected>): Promise<Awaited<ReturnType<ScenarioContext<Protected>['connect']>>> {
  const client = await connect({ authorization: state.resource.clientAuthorization() });
  await bounded(client.callTool(FIXTURE_TOOLS.echo, { text: 'with the first token' }), 'tools/call with the first token');
  observe(STIMULUS_AT, server.record.now());
  state.resource.expireIssuedTokens();
  return client;
}
