// The first authorization, step by step, as the authorization server received it (the evidence's authorization lane):
// Protected Resource Metadata from the challenge, the authorization server's metadata, dynamic registration, PKCE S256,
// the code redeemed with its verifier, and `resource` in both the authorization and the token request. The official
// suite's shared fixtures check these in every auth scenario (authorization-server-metadata, client-registration,
// authorization-request, token-request, pkce-*, resource-parameter-*).
import { createHash } from 'node:crypto';
import { AUTH_NOTES } from '../../servers/authorization/protected-resource.ts';
import { FIXTURE_TOOLS } from '../../servers/fixtures.ts';
import type { WireExchange } from '../../servers/wire-record.ts';
import { check, clientCompleted, precondition } from '../checks.ts';
import { defineScenario, type Evidence } from '../scenario.ts';
import { authorization, authorizationStep, sendingMessages } from '../spec.ts';
import { label, noted } from '../wire.ts';
import { authorizationLane, AUTHORIZED_REVISIONS, protectedSetup, type Protected } from './support.ts';

const queryOf = (exchange: WireExchange) => new URLSearchParams(exchange.path.split('?')[1] ?? '');
const formOf = (exchange: WireExchange) => new URLSearchParams(exchange.requestBody);
const isAuthorizationRequest = (x: WireExchange) => x.method === 'GET' && queryOf(x).has('response_type');
const isCodeRedemption = (x: WireExchange) => x.method === 'POST' && formOf(x).get('grant_type') === 'authorization_code';
const isServerMetadata = (x: WireExchange) => x.method === 'GET' && /^\/\.well-known\/(oauth-authorization-server|openid-configuration)/.test(x.path);
const isRegistration = (x: WireExchange) => x.method === 'POST' && (x.requestHeaders['content-type'] ?? '').includes('json') && x.requestBody.includes('redirect_uris');

/** The lane's steps of the first authorization, in the order the authorization server received them. */
export function firstAuthorization(evidence: Pick<Evidence, 'authorization'>) {
  const lane = authorizationLane(evidence);
  const request = lane.find(isAuthorizationRequest);
  const before = request === undefined ? lane : lane.filter((x) => x.seq < request.seq);
  const redemption = request === undefined ? undefined : lane.find((x) => x.seq > request.seq && isCodeRedemption(x));
  return { request, redemption, serverMetadata: before.filter(isServerMetadata), registration: before.find(isRegistration) };
}

const registrationBody = (x: WireExchange): Record<string, unknown> | undefined => {
  try {
    return JSON.parse(x.requestBody) as Record<string, unknown>;
  } catch {
    return undefined;
  }
};

/** PKCE S256 (RFC 7636 §4.6): the challenge is the base64url SHA-256 of the verifier. */
const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

/** The evidence with its authorization lane mapped (doctored proofs). */
const withLane = (e: Evidence, f: (lane: readonly WireExchange[]) => WireExchange[]): Evidence => (e.authorization === undefined ? e : { ...e, authorization: { ...e.authorization, exchanges: f(e.authorization.exchanges) } });
const rewritePath = (x: WireExchange, f: (query: URLSearchParams) => void): WireExchange => {
  const query = queryOf(x);
  f(query);
  return { ...x, path: `${x.path.split('?')[0]}?${query}` };
};

export const firstAuthorizationScenario = defineScenario<Protected>({
  id: 'authorization/first-authorization',
  title: 'The first authorization, step by step: metadata, registration, PKCE S256, the code redeemed, resource in both requests',
  revisions: AUTHORIZED_REVISIONS,
  requires: ['oauth'],
  source: { spec: authorization('2025-11-25', 'authorization-flow-steps', 'Authorization Flow Steps', 'MUST') },
  setup: () => protectedSetup(),
  async run({ connect, bounded, state }) {
    const client = await connect({ authorization: state.resource.clientAuthorization() });
    await bounded(client.callTool(FIXTURE_TOOLS.echo, { text: 'authorized' }), 'tools/call once authorized');
    await bounded(client.close(), 'close');
  },
  judge(evidence) {
    const { revision } = evidence;
    const challenged = noted(evidence.exchanges, AUTH_NOTES.noToken)[0];
    const shown = challenged === undefined ? [] : [challenged];
    // The challenge names the metadata document (resource_metadata); the resource is the MCP endpoint's canonical URI.
    const metadataUrl = /resource_metadata="([^"]+)"/.exec(challenged?.responseHeaders['www-authenticate'] ?? '')?.[1];
    const metadataPath = metadataUrl === undefined ? undefined : new URL(metadataUrl).pathname;
    const metadataFetches = noted(evidence.exchanges, AUTH_NOTES.metadata);
    const fetched = metadataFetches.filter((x) => x.path.split('?')[0] === metadataPath);
    // The server serves the metadata at both well-known paths: a client that read the challenge asks for the one it names.
    const unnamed = metadataFetches.filter((x) => x.path.split('?')[0] !== metadataPath);
    const resource = challenged === undefined ? undefined : `http://${challenged.requestHeaders['host']}${challenged.path.split('?')[0]}`;
    const { request, redemption, serverMetadata, registration } = firstAuthorization(evidence);
    const query = request === undefined ? undefined : queryOf(request);
    const form = redemption === undefined ? undefined : formOf(redemption);
    const verifier = form?.get('code_verifier') ?? undefined;
    const noRequest = 'the client sent no authorization request to the authorization server';
    return [
      precondition(
        'challenged',
        authorization(revision, 'error-handling', 'a request without a token is answered 401 with a Bearer challenge naming the metadata', 'MUST'),
        challenged !== undefined && metadataPath !== undefined,
        challenged === undefined ? 'no request was answered 401 for want of a token: the server did not act' : `${label(challenged)} was answered 401 (${challenged.responseHeaders['www-authenticate'] ?? 'no challenge'})`,
        shown,
      ),
      clientCompleted(evidence, sendingMessages(revision, 'the script runs to its end', 'MUST')),
      check(
        'resource-metadata-fetched',
        authorization(revision, 'authorization-server-discovery', 'Protected Resource Metadata (RFC 9728) for authorization server discovery, from the challenge\'s resource_metadata', 'MUST'),
        fetched.length > 0,
        fetched.length > 0 ? `${label(fetched[0]!)} fetched the metadata the challenge named (${metadataPath})` : `the client never fetched ${metadataPath ?? 'the metadata the challenge named'}`,
        [...shown, ...fetched.slice(0, 1)],
      ),
      check(
        'named-metadata-only',
        authorization(revision, 'authorization-server-discovery', 'the metadata URL from the challenge first: no well-known guess when the challenge names the document', 'MUST'),
        unnamed.length === 0,
        unnamed.length === 0 ? 'no metadata was asked for but the one the challenge named' : `the client also asked for ${unnamed.map((x) => x.path).join(', ')}, which the challenge did not name`,
        [...shown, ...unnamed],
      ),
      check(
        'server-metadata-requested',
        authorizationStep(revision, 'server-metadata', 'Authorization Server Metadata Discovery (RFC 8414 or OpenID Connect Discovery)', 'MUST'),
        serverMetadata.length > 0,
        serverMetadata.length > 0 ? `the authorization server was asked for its metadata (${serverMetadata.map((x) => x.path).join(', ')}) before the authorization request` : `no request for the authorization server's metadata came before ${request === undefined ? 'the end' : 'the authorization request'}`,
      ),
      check(
        'registered',
        // SHOULD at 2025-06-18; from 2025-11-25 a fallback clients MAY support (after pre-registration and CIMD).
        authorizationStep(revision, 'registration', 'Dynamic Client Registration: with no credentials given and no Client ID Metadata Document support advertised, the client registers', revision === '2025-06-18' ? 'SHOULD' : 'MAY'),
        registration !== undefined,
        registration !== undefined ? `the client registered (${registration.method} ${registration.path}) before the authorization request` : 'no registration request came before the authorization request',
      ),
      ...(revision === '2026-07-28'
        ? [
            check(
              'application-type-registered',
              authorizationStep(revision, 'registration', 'Application Type and Redirect URI Constraints: an application_type in the registration request', 'MUST'),
              registration === undefined || typeof registrationBody(registration)?.['application_type'] === 'string',
              registration === undefined ? 'the client did not register dynamically' : `the registration request carried application_type ${JSON.stringify(registrationBody(registration)?.['application_type'] ?? null)}`,
            ),
          ]
        : []),
      check(
        'pkce-s256',
        authorizationStep(revision, 'pkce', 'Authorization Code Protection: PKCE with S256 (code_challenge, code_challenge_method=S256)', 'MUST'),
        query !== undefined && (query.get('code_challenge') ?? '') !== '' && query.get('code_challenge_method') === 'S256',
        query === undefined ? noRequest : `the authorization request carried code_challenge ${query.has('code_challenge') ? 'set' : 'absent'}, code_challenge_method ${query.get('code_challenge_method') ?? 'absent'}`,
      ),
      check(
        'code-exchanged',
        authorization(revision, 'authorization-flow-steps', 'the authorization code redeemed at the token endpoint', 'MUST'),
        redemption !== undefined,
        request === undefined ? noRequest : redemption !== undefined ? 'the code the authorization returned was redeemed at the token endpoint' : 'no token request redeemed the authorization code',
      ),
      check(
        'pkce-verifier-matches',
        authorizationStep(revision, 'pkce', 'Authorization Code Protection: the token request carries the code_verifier whose S256 is the challenge sent', 'MUST'),
        verifier !== undefined && query?.get('code_challenge') === s256(verifier),
        form === undefined ? 'no token request redeemed the authorization code' : verifier === undefined ? 'the token request carried no code_verifier' : query?.get('code_challenge') === s256(verifier) ? "the code_verifier's S256 is the code_challenge sent" : "the code_verifier's S256 is not the code_challenge sent",
      ),
      check(
        'resource-in-both-requests',
        authorization(revision, 'resource-parameter-implementation', 'resource (RFC 8707), the canonical server URI, in both the authorization and the token request', 'MUST'),
        resource !== undefined && query?.get('resource') === resource && form?.get('resource') === resource,
        query === undefined
          ? noRequest
          : `resource ${JSON.stringify(query.get('resource'))} in the authorization request, ${form === undefined ? 'no token request' : JSON.stringify(form.get('resource'))} in the token request; the server is ${resource ?? 'unknown'}`,
        shown,
      ),
    ];
  },
  doctored: [
    {
      check: 'challenged',
      unmet: true,
      how: 'no 401 for want of a token (the personality did not act)',
      doctor: (e) => ({ ...e, exchanges: e.exchanges.map((x) => ({ ...x, notes: x.notes.filter((n) => n !== AUTH_NOTES.noToken) })) }),
    },
    {
      check: 'resource-metadata-fetched',
      how: 'no fetch of the Protected Resource Metadata',
      doctor: (e) => ({ ...e, exchanges: e.exchanges.filter((x) => !x.notes.includes(AUTH_NOTES.metadata)) }),
    },
    {
      check: 'named-metadata-only',
      how: 'a fetch of the root metadata besides the one the challenge named',
      doctor: (e) => {
        const fetched = e.exchanges.find((x) => x.notes.includes(AUTH_NOTES.metadata))!;
        const root: WireExchange = { ...structuredClone(fetched), path: '/.well-known/oauth-protected-resource' };
        const at = e.exchanges.indexOf(fetched) + 1;
        const exchanges = [...e.exchanges.slice(0, at), root, ...e.exchanges.slice(at)];
        return { ...e, exchanges: exchanges.map((x, index) => ({ ...x, seq: index + 1 })) };
      },
    },
    {
      check: 'server-metadata-requested',
      how: "no request for the authorization server's metadata",
      doctor: (e) => withLane(e, (lane) => lane.filter((x) => !isServerMetadata(x))),
    },
    {
      check: 'registered',
      how: 'no registration request',
      doctor: (e) => withLane(e, (lane) => lane.filter((x) => !isRegistration(x))),
    },
    {
      check: 'application-type-registered',
      how: 'no application_type in the registration request',
      doctor: (e) =>
        withLane(e, (lane) =>
          lane.map((x) => {
            if (!isRegistration(x)) return x;
            const { application_type: _dropped, ...rest } = registrationBody(x) ?? {};
            return { ...x, requestBody: JSON.stringify(rest) };
          }),
        ),
    },
    {
      check: 'pkce-s256',
      how: 'code_challenge_method plain in the authorization request',
      doctor: (e) => withLane(e, (lane) => lane.map((x) => (isAuthorizationRequest(x) ? rewritePath(x, (q) => q.set('code_challenge_method', 'plain')) : x))),
    },
    {
      check: 'code-exchanged',
      how: 'no token request redeeming the code',
      doctor: (e) => withLane(e, (lane) => lane.filter((x) => !isCodeRedemption(x))),
    },
    {
      check: 'pkce-verifier-matches',
      how: 'another code_verifier in the token request',
      doctor: (e) =>
        withLane(e, (lane) =>
          lane.map((x) => {
            if (!isCodeRedemption(x)) return x;
            const form = formOf(x);
            form.set('code_verifier', 'another-verifier-than-the-one-challenged-0123456789');
            return { ...x, requestBody: form.toString() };
          }),
        ),
    },
  ],
});
