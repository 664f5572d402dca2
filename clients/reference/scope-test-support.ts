// The reference client's rules of the first authorization (scope.ts, oauth.ts), each flipped and shown on the wire against a protected
// reference server and its real authorization server (clients/reference/variants.test.ts spreads these into its table).
import { expect } from 'vitest';
import { protectedResource, type ProtectedResourceOptions } from '../../servers/authorization/protected-resource.ts';
import { withRuleBroken, type RuleName } from './rules.ts';
import { CONNECT, newClient, serve } from './test-support.ts';

type ScopeRule = Extract<RuleName, 'scopeFromChallenge' | 'scopeFromResourceMetadata'>;
type FlowRule = ScopeRule | Extract<RuleName, 'resourceInTokenRequest' | 'usePreRegisteredCredentials'>;

const SCOPES = ['mcp:basic', 'mcp:read', 'mcp:write'];

/** The scope of the first authorization request the client with `rule` broken sends to a server set up so. */
async function scopeAskedFor(rule: ScopeRule, options: ProtectedResourceOptions): Promise<string | null> {
  const resource = protectedResource({ ...options, authorization: { scopes: SCOPES } });
  const server = await serve('2025-11-25', [resource]);
  const client = newClient({ rules: withRuleBroken(rule) });
  await (await client.connect(server.url, { ...CONNECT, authorization: resource.clientAuthorization() })).listTools();
  const request = resource.authorizationServer.record.exchanges.find((x) => x.method === 'GET' && x.path.includes('response_type='));
  return new URLSearchParams(request!.path.split('?')[1]).get('scope');
}

export const SCOPE_ON_THE_WIRE: Record<FlowRule, () => Promise<void>> = {
  async scopeFromChallenge() {
    expect(await scopeAskedFor('scopeFromChallenge', { challengeScope: 'mcp:basic' })).toBe(SCOPES.join(' '));
  },
  async scopeFromResourceMetadata() {
    const asked = await scopeAskedFor('scopeFromResourceMetadata', { scopesInMetadata: false });
    expect(asked?.split(' ')).toEqual(expect.arrayContaining(['openid', ...SCOPES]));
  },
  async resourceInTokenRequest() {
    const resource = protectedResource();
    const server = await serve('2025-11-25', [resource]);
    const client = newClient({ rules: withRuleBroken('resourceInTokenRequest') });
    await (await client.connect(server.url, { ...CONNECT, authorization: resource.clientAuthorization() })).listTools();
    const redemption = resource.authorizationServer.record.exchanges.find((x) => x.requestBody.includes('grant_type=authorization_code'));
    expect(new URLSearchParams(redemption!.requestBody).has('resource')).toBe(false);
  },
  async usePreRegisteredCredentials() {
    const resource = protectedResource();
    const server = await serve('2025-11-25', [resource]);
    const client = newClient({ rules: withRuleBroken('usePreRegisteredCredentials') });
    // Credentials the authorization server never issued: ignored, the client registers (and authorizes) all the same.
    await (await client.connect(server.url, { ...CONNECT, authorization: resource.clientAuthorization({ clientId: 'never-used', clientSecret: 'never-used' }) })).listTools();
    expect(resource.authorizationServer.record.exchanges.some((x) => x.method === 'POST' && x.requestBody.includes('redirect_uris'))).toBe(true);
  },
};
