// The reference client's rules of the lifecycle around authorization beyond a POST (the GET streams, the close, a
// redirect to another origin), each flipped and shown on the wire against a protected reference server
// (clients/reference/variants.test.ts spreads these into its table).
import { expect } from 'vitest';
import { AUTH_NOTES } from '../../servers/authorization/protected-resource.ts';
import type { ProtectedResource } from '../../servers/authorization/protected-resource.ts';
import type { ReferenceServer } from '../../servers/reference-server.ts';
import type { ClientConnection, ConnectOptions } from '../adapter.ts';
import { protectedServer } from './oauth-test-support.ts';
import { withRuleBroken, type RuleName } from './rules.ts';
import { CONNECT, eventually, newClient, rejection } from './test-support.ts';

export type AuthorizationLifecycleRule = Extract<RuleName, 'renewForEveryMethod' | 'closeSettlesOnRefusedDelete' | 'noTokenAcrossOrigins'>;

/** Connects a client with `rule` broken to `server`, authorized headlessly. */
function connectAuthorized(server: ReferenceServer, resource: ProtectedResource, rule: AuthorizationLifecycleRule, options: Partial<ConnectOptions> = {}): Promise<ClientConnection> {
  return newClient({ rules: withRuleBroken(rule) }).connect(server.url, { ...CONNECT, ...options, authorization: resource.clientAuthorization() });
}

export const AUTHORIZATION_LIFECYCLE_ON_THE_WIRE: Record<AuthorizationLifecycleRule, () => Promise<void>> = {
  async renewForEveryMethod() {
    const { server, resource } = await protectedServer();
    resource.expireBefore(({ method }) => method === 'GET');
    const connection = await connectAuthorized(server, resource, 'renewForEveryMethod', { listen: true });
    await eventually(() => server.record.exchanges.some((x) => x.method === 'GET' && x.status === 401), 'the GET stream refused');
    await connection.callTool('echo', { text: 'a POST is still renewed' });
    // The refused GET is never sent again; the POST after it is, once renewed.
    expect(server.record.exchanges.filter((x) => x.method === 'GET' && !x.notes.includes(AUTH_NOTES.metadata)).map((x) => x.notes)).toEqual([[AUTH_NOTES.expired]]);
  },
  async closeSettlesOnRefusedDelete() {
    const { server, resource } = await protectedServer();
    const connection = await connectAuthorized(server, resource, 'closeSettlesOnRefusedDelete');
    resource.expireIssuedTokens();
    resource.refuseEveryToken(true);
    await rejection(connection.close());
    expect(server.record.exchanges.filter((x) => x.method === 'DELETE').map((x) => x.status)).toEqual([401, 401]);
  },
  async noTokenAcrossOrigins() {
    const { server, resource } = await protectedServer();
    resource.redirectOnce(({ messages }) => messages.some((m) => m.method === 'tools/call'));
    const connection = await connectAuthorized(server, resource, 'noTokenAcrossOrigins');
    await rejection(connection.callTool('echo', { text: 'redirected' }));
    expect(resource.decoyRecord.exchanges.map((x) => (x.requestHeaders['authorization'] ?? '').startsWith('Bearer '))).toEqual([true]);
  },
};
