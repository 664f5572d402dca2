// A real OAuth 2.1 authorization server on loopback, for the protected reference servers (servers/authorization/README.md):
// oidc-provider does the standards (RFC 8414 and OpenID discovery, PKCE, dynamic registration, RFC 8707 resource
// indicators, refresh-token rotation, RFC 9207 `iss`); this file only configures it, records what it receives and
// approves every authorization on its own (no person, no browser: `approve` below).
import express from 'express';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import Provider, { errors, type Adapter, type AdapterPayload, type Configuration, type KoaContextWithOIDC } from 'oidc-provider';
import { Readable } from 'node:stream';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { listenOnLoopback } from '../listen.ts';
import { WireRecord } from '../wire-record.ts';

/** The one user of every authorization: the suite approves as them. */
export const TEST_USER = 'conformance-user';

/** The claim carrying the order in which the server issued an access token (1, 2, …): what "expired" is decided by. */
export const ISSUED_CLAIM = 'issued_n';

/** How a client authenticates at the token endpoint (RFC 7591 §2). */
export type TokenEndpointAuthMethod = 'client_secret_basic' | 'client_secret_post' | 'none';

export interface AuthorizationServerOptions {
  /** Access-token lifetime in whole seconds (oidc-provider's unit). Default 600: tokens expire when a resource says so. */
  accessTokenTtlSeconds?: number;
  /** The scopes a resource server grants (what a client may ask for). Default `['mcp']`. */
  scopes?: readonly string[];
  /** Clients registered beforehand (the pre-registration path): public or confidential. */
  clients?: readonly { clientId: string; clientSecret?: string; redirectUris: readonly string[] }[];
  /** Dynamic client registration offered (a `registration_endpoint`). Default true. */
  dynamicRegistration?: boolean;
  /**
   * Registers every dynamically registered client with this token endpoint authentication method, whatever it asked
   * (RFC 7591 §3.2.1: the server may replace a requested value; its answer says which).
   */
  registerWith?: TokenEndpointAuthMethod;
  /** The client authentication methods its token endpoint accepts (and its metadata lists). Default: oidc-provider's. */
  clientAuthMethods?: readonly TokenEndpointAuthMethod[];
  /** Rotate refresh tokens on each use (default: true, as OAuth 2.1 requires for public clients). */
  rotateRefreshTokens?: boolean;
  /** A lie: the `issuer` its metadata names, when not its own (RFC 8414 §3.3 says a client must not use such metadata). */
  metadataIssuer?: string;
  /**
   * The `iss` of the authorization response (RFC 9207) when not the true one: `omit` leaves it out while the metadata
   * still says `authorization_response_iss_parameter_supported`, a string puts that issuer there.
   */
  responseIss?: 'omit' | string;
}

export interface AuthorizationServer {
  /** The issuer identifier: the origin the server listens on (`http://127.0.0.1:<port>`). */
  readonly issuer: string;
  /** Everything clients (and the suite's user agent, on their behalf) sent it. Not MCP traffic. */
  readonly record: WireRecord;
  /** The public keys access tokens are signed with, for a resource server to verify them (jose `createLocalJWKSet`). */
  readonly jwks: { keys: JWK[] };
  /** How many access tokens it has issued so far (the ISSUED_CLAIM of the last). */
  issued(): number;
  close(): Promise<void>;
}

type Stored = { payload: AdapterPayload; consumed?: number };

/**
 * The provider's storage for one server (codes, grants, sessions, tokens, registered clients), in Maps: servers of
 * different cases share nothing, and it all goes when the server does (oidc-provider's own development adapter is one
 * store per process, and warns).
 */
function memoryStore(): new (model: string) => Adapter {
  const models = new Map<string, Map<string, Stored>>();
  const byUid = new Map<string, string>();
  const byUserCode = new Map<string, string>();
  const byGrant = new Map<string, { model: string; id: string }[]>();
  const modelOf = (model: string) => {
    let store = models.get(model);
    if (!store) models.set(model, (store = new Map()));
    return store;
  };
  return class MemoryStore implements Adapter {
    private readonly store: Map<string, Stored>;
    private readonly model: string;
    constructor(model: string) {
      this.model = model;
      this.store = modelOf(model);
    }
    async upsert(id: string, payload: AdapterPayload): Promise<void> {
      this.store.set(id, { payload });
      if (payload.uid !== undefined) byUid.set(payload.uid, id);
      if (payload.userCode !== undefined) byUserCode.set(payload.userCode, id);
      if (payload.grantId !== undefined) byGrant.set(payload.grantId, [...(byGrant.get(payload.grantId) ?? []), { model: this.model, id }]);
    }
    async find(id: string): Promise<AdapterPayload | undefined> {
      const item = this.store.get(id);
      return item === undefined ? undefined : { ...item.payload, ...(item.consumed !== undefined ? { consumed: item.consumed } : {}) };
    }
    async findByUid(uid: string): Promise<AdapterPayload | undefined> {
      const id = byUid.get(uid);
      return id === undefined ? undefined : this.find(id);
    }
    async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
      const id = byUserCode.get(userCode);
      return id === undefined ? undefined : this.find(id);
    }
    async consume(id: string): Promise<void> {
      const item = this.store.get(id);
      if (item) item.consumed = Math.floor(Date.now() / 1000);
    }
    async destroy(id: string): Promise<void> {
      this.store.delete(id);
    }
    async revokeByGrantId(grantId: string): Promise<void> {
      for (const { model, id } of byGrant.get(grantId) ?? []) models.get(model)?.delete(id);
      byGrant.delete(grantId);
    }
  };
}

/** A resource indicator the server issues tokens for: an http(s) URL on loopback, without a fragment (RFC 8707 §2). */
function loopbackResource(indicator: string): boolean {
  try {
    const url = new URL(indicator);
    return url.hostname === '127.0.0.1' && url.hash === '' && (url.protocol === 'http:' || url.protocol === 'https:');
  } catch {
    return false;
  }
}

/**
 * oidc-provider reads request bodies itself; the record has read them first. Give it the same bytes again as a fresh
 * stream (its body parser asks the request whether it is readable and iterates it).
 */
function replayBody(req: IncomingMessage, body: string): void {
  const replay = Readable.from([Buffer.from(body, 'utf8')]);
  Object.defineProperty(req, 'readable', { value: true, configurable: true });
  Object.defineProperty(req, 'iterator', { value: (options?: { destroyOnReturn?: boolean }) => replay.iterator(options), configurable: true });
}

export async function startAuthorizationServer(options: AuthorizationServerOptions = {}): Promise<AuthorizationServer> {
  const scopes = options.scopes ?? ['mcp'];
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  const signing = { ...(await exportJWK(privateKey)), alg: 'ES256', use: 'sig', kid: 'conformance' };
  const verifying = { ...(await exportJWK(publicKey)), alg: 'ES256', use: 'sig', kid: 'conformance' };
  const record = new WireRecord();
  let issued = 0;
  // The issuer is its own origin, known once it listens: the app is bound first and the provider made after.
  const app = express();
  app.disable('x-powered-by');
  let handle: ((req: IncomingMessage, res: import('node:http').ServerResponse) => void) | undefined;
  let provider: Provider | undefined;
  app.use(async (req, res, next) => {
    try {
      const { exchange } = await record.begin(req, res);
      replayBody(req, options.registerWith !== undefined && req.method === 'POST' && req.path === '/reg' ? registeredWith(req, exchange.requestBody, options.registerWith) : exchange.requestBody);
      if (req.path.startsWith('/interaction/')) return await approve(provider!, req, res);
      // RFC 8414's well-known name for the metadata oidc-provider publishes under OpenID discovery's.
      if (req.path === '/.well-known/oauth-authorization-server') req.url = '/.well-known/openid-configuration';
      // RFC 6749 §3.3: an authorization request without a scope is processed with a pre-defined default, the resource's
      // scopes (oidc-provider alone would refuse it: no scope granted). The record keeps what the client sent.
      if (req.method === 'GET' && req.path === '/auth') {
        const url = new URL(req.url ?? '/auth', 'http://authorization-server');
        if ((url.searchParams.get('scope') ?? '').trim() === '') {
          url.searchParams.set('scope', scopes.join(' '));
          req.url = `${url.pathname}${url.search}`;
        }
      }
      if (req.path === '/.well-known/openid-configuration' && options.metadataIssuer !== undefined) rewriteJson(res, (metadata) => ({ ...metadata, issuer: options.metadataIssuer }));
      if (options.responseIss !== undefined) rewriteRedirects(res, issuer, options.responseIss);
      // oidc-provider takes any method a client authenticates by: a server that accepts only some refuses the others.
      if (req.method === 'POST' && req.path === '/token' && options.clientAuthMethods !== undefined) {
        const used = tokenEndpointAuthOf(req.headers.authorization, exchange.requestBody);
        if (!options.clientAuthMethods.includes(used)) {
          res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Basic realm="token"' }).end(JSON.stringify({ error: 'invalid_client', error_description: `client authentication by ${used} is not accepted here (${options.clientAuthMethods.join(', ')})` }));
          return;
        }
      }
      handle!(req, res);
    } catch (error) {
      next(error);
    }
  });
  const listening = await listenOnLoopback(app);
  const issuer = listening.origin;
  const configuration: Configuration = {
    clients: (options.clients ?? []).map((client) => ({
      client_id: client.clientId,
      // A confidential client authenticates with HTTP Basic (the clientDefaults below are a public client's).
      ...(client.clientSecret !== undefined ? { client_secret: client.clientSecret, token_endpoint_auth_method: 'client_secret_basic' } : { token_endpoint_auth_method: 'none' }),
      redirect_uris: [...client.redirectUris],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      application_type: 'native',
    })),
    jwks: { keys: [signing] },
    ...(options.clientAuthMethods !== undefined ? { clientAuthMethods: [...options.clientAuthMethods] } : {}),
    scopes: ['openid', 'offline_access', ...scopes],
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: options.dynamicRegistration ?? true },
      revocation: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: async (_ctx, _client, oneOf) => oneOf,
        useGrantedResource: async () => true,
        getResourceServerInfo: async (_ctx, indicator) => {
          if (!loopbackResource(indicator)) throw new errors.InvalidTarget();
          return { scope: scopes.join(' '), audience: indicator, accessTokenTTL: options.accessTokenTtlSeconds ?? 600, accessTokenFormat: 'jwt', jwt: { sign: { alg: 'ES256' } } };
        },
      },
    },
    clientDefaults: { grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none', id_token_signed_response_alg: 'ES256' },
    adapter: memoryStore(),
    // An error page in plain text: the user agent is the suite's, and oidc-provider warns when its default page is used.
    renderError: async (ctx, out) => {
      ctx.type = 'text/plain';
      ctx.body = `${out['error'] ?? 'error'}: ${out['error_description'] ?? ''}`;
    },
    // Every client that may refresh gets a refresh token (not only those asking offline_access): the lifecycle scenarios refresh.
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: () => options.rotateRefreshTokens ?? true,
    extraTokenClaims: async (_ctx: KoaContextWithOIDC, token) => (token.kind === 'AccessToken' ? { [ISSUED_CLAIM]: ++issued } : undefined),
    findAccount: async (_ctx, sub) => ({ accountId: sub, claims: async () => ({ sub }) }),
    interactions: { url: async (_ctx, interaction) => `/interaction/${interaction.uid}` },
    cookies: { keys: [crypto.randomUUID()] },
    ttl: { AccessToken: options.accessTokenTtlSeconds ?? 600, AuthorizationCode: 60, RefreshToken: 3600, Grant: 3600, IdToken: 600, Interaction: 60, Session: 3600 },
  };
  provider = new Provider(issuer, configuration);
  // The suite reads errors from the record; the provider's own logging to stderr would only be noise.
  provider.on('server_error', () => {});
  handle = provider.callback();
  return {
    issuer,
    record,
    jwks: { keys: [verifying] },
    issued: () => issued,
    close: () => listening.close(),
  };
}

/** A registration request's body with the method the server registers every client with (the record keeps the client's). */
function registeredWith(req: IncomingMessage, body: string, method: TokenEndpointAuthMethod): string {
  let metadata: Record<string, unknown>;
  try {
    metadata = JSON.parse(body) as Record<string, unknown>;
  } catch {
    return body;
  }
  const replaced = JSON.stringify({ ...metadata, token_endpoint_auth_method: method });
  req.headers['content-length'] = String(Buffer.byteLength(replaced));
  return replaced;
}

/** The method a token request authenticates its client by: a Basic header, a client_secret in the form, or neither. */
function tokenEndpointAuthOf(authorization: string | undefined, body: string): TokenEndpointAuthMethod {
  if (/^Basic\s/i.test(authorization ?? '')) return 'client_secret_basic';
  return new URLSearchParams(body).has('client_secret') ? 'client_secret_post' : 'none';
}

/** The JSON body oidc-provider answers with, rewritten by `change` before it is sent (and recorded). */
function rewriteJson(res: ServerResponse, change: (body: Record<string, unknown>) => Record<string, unknown>): void {
  const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
  res.end = ((chunk?: unknown, ...rest: unknown[]) => {
    if (typeof chunk !== 'string' && !Buffer.isBuffer(chunk)) return end(chunk, ...rest);
    const body = JSON.stringify(change(JSON.parse(chunk.toString()) as Record<string, unknown>));
    if (!res.headersSent) res.setHeader('content-length', Buffer.byteLength(body));
    return end(body, ...rest.filter((arg) => typeof arg === 'function'));
  }) as ServerResponse['end'];
}

/** Redirects away from the server (the authorization response to the client) with their `iss` left out or replaced. */
function rewriteRedirects(res: ServerResponse, issuer: string, iss: 'omit' | string): void {
  const setHeader = res.setHeader.bind(res);
  res.setHeader = ((name: string, value: number | string | readonly string[]) => {
    if (name.toLowerCase() !== 'location' || typeof value !== 'string' || new URL(value, issuer).origin === new URL(issuer).origin) return setHeader(name, value);
    const url = new URL(value);
    if (iss === 'omit') url.searchParams.delete('iss');
    else if (url.searchParams.has('iss')) url.searchParams.set('iss', iss);
    return setHeader(name, url.toString());
  }) as ServerResponse['setHeader'];
}

/**
 * The headless approval: where oidc-provider sends the user agent to log in and consent, the test user logs in and
 * consents to everything asked (its scopes, its resource), and the user agent is sent back to the authorization.
 */
async function approve(provider: Provider, req: IncomingMessage, res: import('node:http').ServerResponse): Promise<void> {
  const details = await provider.interactionDetails(req, res);
  if (details.prompt.name === 'login') {
    await provider.interactionFinished(req, res, { login: { accountId: TEST_USER } }, { mergeWithLastSubmission: false });
    return;
  }
  const { params } = details;
  const grant = details.grantId !== undefined ? await provider.Grant.find(details.grantId) : new provider.Grant({ accountId: TEST_USER, clientId: String(params['client_id']) });
  const missing = details.prompt.details as { missingOIDCScope?: string[]; missingOIDCClaims?: string[]; missingResourceScopes?: Record<string, string[]> };
  if (missing.missingOIDCScope) grant!.addOIDCScope(missing.missingOIDCScope.join(' '));
  if (missing.missingOIDCClaims) grant!.addOIDCClaims(missing.missingOIDCClaims);
  for (const [indicator, asked] of Object.entries(missing.missingResourceScopes ?? {})) grant!.addResourceScope(indicator, asked.join(' '));
  const grantId = await grant!.save();
  await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
}
