// The reference client's rules of the official suite's authorization families (step-up, resource, issuer checks, token
// endpoint authentication), each flipped and shown on the wire against a protected reference server and its real
// authorization server (clients/reference/variants.test.ts spreads these into its table).
import { expect } from 'vitest';
import { protectedResource, type ProtectedResource, type ProtectedResourceOptions } from '../../servers/authorization/protected-resource.ts';
import type { ReferenceServer } from '../../servers/reference-server.ts';
import type { AuthorizationOptions } from '../adapter.ts';
import { withRuleBroken, type RuleName } from './rules.ts';
import { CONNECT, newClient, rejection, serve } from './test-support.ts';

export type AuthorizationFamilyRule = Extract<RuleName, 'stepUpOnInsufficientScope' | 'scopeUnionOnStepUp' | 'resourceAsPublished' | 'refuseOtherResource' | 'checkMetadataIssuer' | 'requireAdvertisedIss' | 'tokenAuthAsRegistered'>;

async function protectedServer(options: ProtectedResourceOptions): Promise<{ server: ReferenceServer; resource: ProtectedResource }> {
  const resource = protectedResource(options);
  return { server: await serve('2025-11-25', [resource]), resource };
}

function connectBroken(rule: AuthorizationFamilyRule, server: ReferenceServer, resource: ProtectedResource, authorization: Partial<AuthorizationOptions> = {}) {
  return newClient({ rules: withRuleBroken(rule) }).connect(server.url, { ...CONNECT, authorization: { ...resource.clientAuthorization(), ...authorization } });
}

const lane = (resource: ProtectedResource) => resource.authorizationServer.record.exchanges;
const authorizationRequests = (resource: ProtectedResource) => lane(resource).filter((x) => x.method === 'GET' && new URLSearchParams(x.path.split('?')[1] ?? '').has('response_type'));
const queryOf = (path: string) => new URLSearchParams(path.split('?')[1] ?? '');
const STEP_UP = { challengeScope: 'mcp', authorization: { scopes: ['mcp', 'mcp:write'] } } satisfies ProtectedResourceOptions;

export const AUTHORIZATION_FAMILIES_ON_THE_WIRE: Record<AuthorizationFamilyRule, () => Promise<void>> = {
  async stepUpOnInsufficientScope() {
    const { server, resource } = await protectedServer(STEP_UP);
    const connection = await connectBroken('stepUpOnInsufficientScope', server, resource);
    resource.requireScope('mcp:write');
    await rejection(connection.callTool('echo', { text: 'needs mcp:write' }));
    // The first authorization only: the 403 went to the caller.
    expect(authorizationRequests(resource).length).toBe(1);
  },
  async scopeUnionOnStepUp() {
    const { server, resource } = await protectedServer(STEP_UP);
    const connection = await connectBroken('scopeUnionOnStepUp', server, resource);
    resource.requireScope('mcp:write');
    await connection.callTool('echo', { text: 'needs mcp:write' });
    expect(authorizationRequests(resource).map((x) => queryOf(x.path).get('scope'))).toEqual(['mcp', 'mcp:write']);
  },
  async resourceAsPublished() {
    const { server, resource } = await protectedServer({ publishedResource: 'origin' });
    // Its token names the endpoint, the server the origin it publishes: refused.
    await rejection(connectBroken('resourceAsPublished', server, resource));
    expect(queryOf(authorizationRequests(resource)[0]!.path).get('resource')).toBe(server.url);
  },
  async refuseOtherResource() {
    const { server, resource } = await protectedServer({ publishedResource: 'https://evil.example.com/mcp' });
    await rejection(connectBroken('refuseOtherResource', server, resource));
    expect(queryOf(authorizationRequests(resource)[0]!.path).get('resource')).toBe('https://evil.example.com/mcp');
  },
  async checkMetadataIssuer() {
    const { server, resource } = await protectedServer({ authorization: { metadataIssuer: 'https://attacker.example.com' } });
    // It registers and authorizes with the lying metadata (and stops only at the iss, which names the true issuer).
    await rejection(connectBroken('checkMetadataIssuer', server, resource));
    expect(lane(resource).some((x) => x.method === 'POST' && x.path === '/reg')).toBe(true);
    expect(authorizationRequests(resource).length).toBe(1);
  },
  async requireAdvertisedIss() {
    const { server, resource } = await protectedServer({ authorization: { responseIss: 'omit' } });
    const connection = await connectBroken('requireAdvertisedIss', server, resource);
    await connection.close();
    expect(lane(resource).some((x) => x.requestBody.includes('grant_type=authorization_code'))).toBe(true);
  },
  async tokenAuthAsRegistered() {
    // Registered with client_secret_post (the server's choice), the only method its token endpoint takes.
    const { server, resource } = await protectedServer({ authorization: { registerWith: 'client_secret_post', clientAuthMethods: ['client_secret_post'] } });
    await rejection(connectBroken('tokenAuthAsRegistered', server, resource));
    const token = lane(resource).find((x) => x.requestBody.includes('grant_type=authorization_code'))!;
    expect(token.requestHeaders['authorization']).toMatch(/^Basic /);
    expect(token.status).toBe(401);
  },
};
