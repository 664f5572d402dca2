// The reference client's authorization rules, each flipped and shown on the wire against a protected reference server
// and its real authorization server (clients/reference/variants.test.ts spreads these into its table).
import { expect } from 'vitest';
import { AUTH_NOTES, protectedResource, type ProtectedResource } from '../../servers/authorization/protected-resource.ts';
import type { ReferenceServer } from '../../servers/reference-server.ts';
import type { Era } from '../../servers/era.ts';
import type { ClientConnection } from '../adapter.ts';
import { withRuleBroken, type RuleName } from './rules.ts';
import { CONNECT, newClient, rejection, serve } from './test-support.ts';

export type AuthorizationRule = Extract<RuleName, 'authorizeOn401' | 'retryInSessionAfterAuthorization' | 'oneRenewalForAll' | 'boundAuthorizationRetries' | 'tokenInHeaderOnly' | 'tokenOnlyToItsServer' | 'authorizeTheProbe'>;

/** A protected reference server of `era`, and its authorization server. */
export async function protectedServer(era: Era = '2025-11-25'): Promise<{ server: ReferenceServer; resource: ProtectedResource }> {
  const resource = protectedResource();
  return { server: await serve(era, [resource]), resource };
}

/** Connects a client with `rule` broken (or the reference, with none) to `server`, authorized headlessly. */
export function connectAuthorized(server: ReferenceServer, resource: ProtectedResource, rule?: AuthorizationRule, options: Partial<typeof CONNECT> = {}): Promise<ClientConnection> {
  const client = newClient(rule === undefined ? {} : { rules: withRuleBroken(rule) });
  return client.connect(server.url, { ...CONNECT, ...options, authorization: resource.clientAuthorization() });
}

const tokenRequests = (resource: ProtectedResource) => resource.authorizationServer.record.exchanges.filter((x) => x.requestBody.includes('grant_type='));

export const AUTHORIZATION_ON_THE_WIRE: Record<AuthorizationRule, () => Promise<void>> = {
  async authorizeOn401() {
    const { server, resource } = await protectedServer();
    await rejection(connectAuthorized(server, resource, 'authorizeOn401'));
    expect(resource.authorizationServer.record.exchanges).toEqual([]);
    expect(server.record.exchanges.map((x) => x.notes)).toEqual([[AUTH_NOTES.noToken]]);
  },
  async retryInSessionAfterAuthorization() {
    const { server, resource } = await protectedServer();
    const connection = await connectAuthorized(server, resource, 'retryInSessionAfterAuthorization');
    resource.expireIssuedTokens();
    await connection.listTools();
    // The refused listing, then a new session's initialize: the listing (idempotent) goes there.
    const afterExpiry = server.record.exchanges.slice(server.record.exchanges.findIndex((x) => x.notes.includes(AUTH_NOTES.expired)));
    expect(afterExpiry.map((x) => x.requestMessages[0]?.method)).toEqual(['tools/list', 'initialize', 'notifications/initialized', 'tools/list']);
  },
  async oneRenewalForAll() {
    const { server, resource } = await protectedServer();
    const connection = await connectAuthorized(server, resource, 'oneRenewalForAll');
    resource.expireIssuedTokens();
    await Promise.allSettled([connection.callTool('echo', { text: 'a' }), connection.callTool('echo', { text: 'b' })]);
    // One authorization, then a refresh for each refused call.
    expect(tokenRequests(resource).filter((x) => x.requestBody.includes('grant_type=refresh_token')).length).toBe(2);
  },
  async boundAuthorizationRetries() {
    const { server, resource } = await protectedServer();
    const connection = await connectAuthorized(server, resource, 'boundAuthorizationRetries');
    resource.refuseEveryToken(true);
    await rejection(connection.callTool('echo', { text: 'refused' }));
    expect(server.record.exchanges.filter((x) => x.notes.includes(AUTH_NOTES.refused)).length).toBe(21);
  },
  async tokenInHeaderOnly() {
    const { server, resource } = await protectedServer();
    await (await connectAuthorized(server, resource, 'tokenInHeaderOnly')).listTools();
    expect(server.record.exchanges.filter((x) => x.notes.includes(AUTH_NOTES.tokenInQuery)).length).toBeGreaterThan(0);
  },
  async tokenOnlyToItsServer() {
    const { server, resource } = await protectedServer();
    const connection = await connectAuthorized(server, resource, 'tokenOnlyToItsServer');
    resource.expireIssuedTokens();
    await rejection(connection.callTool('echo', { text: 'after expiry' }));
    expect(tokenRequests(resource).slice(1).every((x) => (x.requestHeaders['authorization'] ?? '').startsWith('Bearer '))).toBe(true);
  },
  async authorizeTheProbe() {
    const { server, resource } = await protectedServer('2026-07-28');
    await rejection(connectAuthorized(server, resource, 'authorizeTheProbe', { negotiation: 'auto' }));
    expect(server.record.exchanges.map((x) => x.requestMessages[0]?.method).slice(0, 2)).toEqual(['server/discover', 'initialize']);
  },
};
