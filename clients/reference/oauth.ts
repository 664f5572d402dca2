// OAuth 2.1 for the reference client (basic/authorization, 2025-06-18 on): every HTTP request to the MCP server goes
// through an Authorizer, which puts the access token in the Authorization header and answers a 401 Bearer challenge by
// getting a new token (a refresh when it holds a refresh token, else the whole authorization: Protected Resource
// Metadata from the challenge's resource_metadata or the well-known paths, authorization-server metadata by RFC 8414
// then OpenID discovery, registration, PKCE S256, `resource` in both requests) and sending the request again, once.
// A 403 `insufficient_scope` challenge is answered the same way, by a new authorization for the scopes it names (step-up).
// The request is sent again as it was (same session id, same JSON-RPC id: the server refused it unread), so the session
// and the negotiated version are kept. Each rule is a switch (rules.ts).
import { createHash, randomBytes } from 'node:crypto';
import type { Agent } from 'undici';
import type { AuthorizationOptions } from '../adapter.ts';
import { ProtocolError, SessionLost } from './errors.ts';
import { discard, readText, send, type HttpAnswer, type HttpRequest, type Sender } from './http.ts';
import { parseJson } from './protocol.ts';
import type { ReferenceRules } from './rules.ts';
import { selectScope } from './scope.ts';

/** The authorization failed: the client could not get a token (a refused registration, a missing PKCE method, …). */
export class AuthorizationError extends Error {}

/** A broken client that never stops renewing still stops here, so a test of it ends. */
const RUNAWAY_RENEWALS = 20;

/** The parameters of a `WWW-Authenticate: Bearer …` challenge (RFC 6750 §3), names lower-cased; undefined when it is not Bearer. */
export function bearerChallenge(header: string | undefined): Record<string, string> | undefined {
  if (header === undefined || !/^\s*Bearer\b/i.test(header)) return undefined;
  const params: Record<string, string> = {};
  for (const match of header.replace(/^\s*Bearer\s*/i, '').matchAll(/([A-Za-z0-9_-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]+))/g)) {
    params[match[1]!.toLowerCase()] = match[2] !== undefined ? match[2].replace(/\\(.)/g, '$1') : match[3]!;
  }
  return params;
}

interface ServerMetadata {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  registration_endpoint?: string;
  code_challenge_methods_supported?: string[];
  client_id_metadata_document_supported?: boolean;
  token_endpoint_auth_methods_supported?: string[];
  authorization_response_iss_parameter_supported?: boolean;
}

/** How the client authenticates at the token endpoint (RFC 7591 §2 `token_endpoint_auth_method`). */
type TokenEndpointAuth = 'client_secret_basic' | 'client_secret_post' | 'none';

interface Registration {
  clientId: string;
  clientSecret?: string;
  /** The method registered for it (the registration answer's), else the one the server's metadata supports. */
  auth: TokenEndpointAuth;
}

interface Tokens {
  accessToken: string;
  refreshToken?: string;
}

/** The well-known URLs of a server's Protected Resource Metadata, in the order 2025-11-25 gives: path-based, then root. */
function protectedResourceMetadataUrls(url: string): string[] {
  const { origin, pathname } = new URL(url);
  const path = pathname === '/' ? '' : pathname.replace(/\/$/, '');
  return [...(path !== '' ? [`${origin}/.well-known/oauth-protected-resource${path}`] : []), `${origin}/.well-known/oauth-protected-resource`];
}

/** The authorization-server metadata URLs of an issuer, in the stated priority (RFC 8414, then OpenID discovery). */
function authorizationServerMetadataUrls(issuer: string): string[] {
  const { origin, pathname } = new URL(issuer);
  const path = pathname === '/' ? '' : pathname.replace(/\/$/, '');
  if (path === '') return [`${origin}/.well-known/oauth-authorization-server`, `${origin}/.well-known/openid-configuration`];
  return [`${origin}/.well-known/oauth-authorization-server${path}`, `${origin}/.well-known/openid-configuration${path}`, `${origin}${path}/.well-known/openid-configuration`];
}

/**
 * The server's canonical URI (the RFC 8707 `resource`) when its Protected Resource Metadata names none: its URL without a
 * fragment, and without the "/" a URL parser gives an empty path (authorization › Canonical Server URI).
 */
function canonical(url: string): string {
  const parsed = new URL(url);
  parsed.hash = '';
  const text = parsed.toString();
  return parsed.pathname === '/' && !parsed.search && !url.split(/[?#]/)[0]!.endsWith('/') ? text.slice(0, -1) : text;
}

/**
 * Whether the `resource` a server's Protected Resource Metadata publishes names that server (RFC 9728 §3.3, §7.3): the
 * same origin, and a path that is the server URL's path or a parent of it. Anything else is another resource's metadata,
 * and a token asked for it would be a token for another server.
 */
function namesServer(resource: string, serverUrl: string): boolean {
  let published: URL;
  try {
    published = new URL(resource);
  } catch {
    return false;
  }
  const server = new URL(serverUrl);
  if (published.origin !== server.origin || published.hash !== '') return false;
  const path = published.pathname.replace(/\/$/, '');
  return server.pathname === path || server.pathname.startsWith(`${path}/`);
}

/** The scopes of both space-separated lists, each once (a step-up keeps what was granted: 2026-07-28 asks the union). */
function scopeUnion(held: string | undefined, asked: string | undefined): string | undefined {
  const scopes = [...new Set([...(held ?? '').split(' '), ...(asked ?? '').split(' ')].filter((scope) => scope !== ''))];
  return scopes.length === 0 ? undefined : scopes.join(' ');
}

/** A 403 whose Bearer challenge says the token lacks a scope (RFC 6750 §3.1 `insufficient_scope`): a step-up is due. */
function insufficientScope(answer: HttpAnswer): Record<string, string> | undefined {
  if (answer.status !== 403) return undefined;
  const challenge = bearerChallenge(answer.headers['www-authenticate']);
  return challenge?.['error'] === 'insufficient_scope' ? challenge : undefined;
}

const base64url = (bytes: Buffer) => bytes.toString('base64url');

/**
 * One client instance's authorization with one MCP server: its tokens, the authorization server's metadata and its
 * registration, kept across the connections of the instance. Sends every request to that server.
 */
export class Authorizer implements Sender {
  private tokens: Tokens | undefined;
  private metadata: ServerMetadata | undefined;
  private registered: Registration | undefined;
  private resource: string | undefined;
  /** The scope the last authorization asked for (a step-up asks for it and the challenge's). */
  private scope: string | undefined;
  private renewing: Promise<void> | undefined;
  private readonly agent: Agent;
  private readonly rules: ReferenceRules;
  private readonly options: AuthorizationOptions;
  private readonly serverOrigin: string;

  constructor(agent: Agent, rules: ReferenceRules, options: AuthorizationOptions, serverUrl: string) {
    this.agent = agent;
    this.rules = rules;
    this.options = options;
    this.serverOrigin = new URL(serverUrl).origin;
  }

  async send(req: HttpRequest): Promise<HttpAnswer> {
    let sentWith = this.tokens?.accessToken;
    let answer = await send(this.agent, this.withToken(req, sentWith));
    for (let renewals = 0; answer.status === 401 || (this.rules.stepUpOnInsufficientScope && insufficientScope(answer) !== undefined); renewals++) {
      const stepUp = answer.status === 403;
      const challenge = bearerChallenge(answer.headers['www-authenticate']);
      if (challenge === undefined || !this.rules.authorizeOn401) return answer;
      // A broken variant renews only for its POSTs: a 401 to a GET stream, a resuming GET or the DELETE is passed on.
      if (!this.rules.renewForEveryMethod && req.method !== 'POST') return answer;
      // A 401 to the era probe taken for "not a modern server" (a broken variant): passed on, the probe decides.
      if (!this.rules.authorizeTheProbe && isProbe(req)) return answer;
      // Refused again with a token just obtained: the caller gets the 401 (no authorization loop).
      if ((renewals >= 1 && this.rules.boundAuthorizationRetries) || renewals >= RUNAWAY_RENEWALS) return answer;
      discard(answer.body);
      await this.renew(sentWith, challenge, req, stepUp);
      // The refused request belonged to a session: a broken variant takes the 401 for its loss and starts another.
      const session = req.headers['mcp-session-id'];
      if (!this.rules.retryInSessionAfterAuthorization && session !== undefined) throw new SessionLost(session, 'the access token was refused; authorized again');
      sentWith = this.tokens?.accessToken;
      answer = await send(this.agent, this.withToken(req, sentWith));
    }
    return answer;
  }

  /** The request with the access token in its Authorization header (and, for a broken variant, in its query string). */
  private withToken(req: HttpRequest, token: string | undefined): HttpRequest {
    if (token === undefined) return req;
    // A request to another origin (an HTTP+SSE endpoint a client was steered to) goes without the token.
    if (this.rules.noTokenAcrossOrigins && new URL(req.url).origin !== this.serverOrigin) return req;
    const headers = { ...req.headers, authorization: `Bearer ${token}` };
    // A redirect to another origin drops the header (http.ts); a broken variant carries it along.
    if (!this.rules.noTokenAcrossOrigins) req = { ...req, authorizationAcrossOrigins: true };
    if (this.rules.tokenInHeaderOnly) return { ...req, headers };
    const url = new URL(req.url);
    url.searchParams.set('access_token', token);
    return { ...req, url: url.toString(), headers };
  }

  /**
   * A new access token, once for every request refused with the same one: a request sent with a token already replaced
   * only waits for (or takes) the replacement.
   */
  private renew(sentWith: string | undefined, challenge: Record<string, string>, req: HttpRequest, stepUp: boolean): Promise<void> {
    if (this.rules.oneRenewalForAll) {
      if (this.tokens !== undefined && this.tokens.accessToken !== sentWith) return Promise.resolve();
      this.renewing ??= this.renewOnce(challenge, req, stepUp).finally(() => (this.renewing = undefined));
      return this.renewing;
    }
    return this.renewOnce(challenge, req, stepUp);
  }

  private async renewOnce(challenge: Record<string, string>, req: HttpRequest, stepUp: boolean): Promise<void> {
    // A refresh keeps the scope it was granted: a step-up needs a new authorization.
    if (!stepUp && this.tokens?.refreshToken !== undefined && this.metadata !== undefined && this.registered !== undefined) {
      try {
        await this.refresh(this.tokens.refreshToken, req.signal);
        return;
      } catch (error) {
        if (req.signal.aborted) throw error;
        // A refused refresh (the grant revoked, the token expired): the whole authorization again.
      }
    }
    await this.authorize(challenge, req, stepUp);
  }

  private async authorize(challenge: Record<string, string>, req: HttpRequest, stepUp: boolean): Promise<void> {
    const { signal } = req;
    const resourceMetadata = await this.protectedResourceMetadata(challenge, req.url, signal);
    const issuer = (resourceMetadata['authorization_servers'] as unknown[] | undefined)?.find((s): s is string => typeof s === 'string');
    if (issuer === undefined) throw new AuthorizationError('the Protected Resource Metadata names no authorization server');
    // The resource exactly as the metadata publishes it, once it is known to name this server (RFC 9728 §3.3).
    const published = resourceMetadata['resource'];
    if (typeof published === 'string' && this.rules.refuseOtherResource && !namesServer(published, req.url)) throw new AuthorizationError(`the Protected Resource Metadata is for ${published}, not ${req.url}`);
    // (A broken variant sends the URL it was given, whatever the metadata says.)
    this.resource = typeof published === 'string' && this.rules.resourceAsPublished ? published : canonical(req.url);
    const metadata = await this.serverMetadata(issuer, signal);
    // 2025-11-25: PKCE support is read from the metadata, and a server that does not advertise S256 is refused.
    if (!metadata.code_challenge_methods_supported?.includes('S256')) throw new AuthorizationError(`the authorization server ${issuer} does not advertise PKCE S256 (code_challenge_methods_supported)`);
    if (this.metadata?.issuer !== metadata.issuer) this.registered = undefined;
    this.metadata = metadata;
    const client = await this.register(metadata, signal);
    const chosen = selectScope(this.rules, challenge['scope'], resourceMetadata, metadata);
    const scope = stepUp && this.rules.scopeUnionOnStepUp ? scopeUnion(this.scope, chosen) : chosen;
    this.scope = scope;
    const verifier = base64url(randomBytes(32));
    const state = base64url(randomBytes(16));
    const authorizationUrl = new URL(metadata.authorization_endpoint);
    const params: Record<string, string | undefined> = {
      response_type: 'code',
      client_id: client.clientId,
      redirect_uri: this.options.redirectUri,
      code_challenge: base64url(createHash('sha256').update(verifier).digest()),
      code_challenge_method: 'S256',
      state,
      resource: this.resource,
      scope,
    };
    for (const [name, value] of Object.entries(params)) if (value !== undefined) authorizationUrl.searchParams.set(name, value);
    const redirect = new URL(await this.options.authorize(authorizationUrl.toString()));
    const answered = redirect.searchParams;
    if (answered.get('state') !== state) throw new AuthorizationError('the authorization response carried another state');
    // RFC 9207: an `iss` that is present must be the issuer the request went to.
    const iss = answered.get('iss');
    if (iss !== null && iss !== metadata.issuer) throw new AuthorizationError(`the authorization response came from ${iss}, not ${metadata.issuer}`);
    // …and one the server's metadata promises must be there (RFC 9207 §2.4).
    if (iss === null && this.rules.requireAdvertisedIss && metadata.authorization_response_iss_parameter_supported === true) throw new AuthorizationError(`the authorization response carried no iss, which ${metadata.issuer} promises (authorization_response_iss_parameter_supported)`);
    const code = answered.get('code');
    if (code === null) throw new AuthorizationError(`the authorization was refused: ${answered.get('error') ?? 'no code'}`);
    this.tokens = await this.tokenRequest({ grant_type: 'authorization_code', code, redirect_uri: this.options.redirectUri, code_verifier: verifier, ...(this.rules.resourceInTokenRequest ? { resource: this.resource } : {}) }, signal);
  }

  private async refresh(refreshToken: string, signal: AbortSignal): Promise<void> {
    const refreshed = await this.tokenRequest({ grant_type: 'refresh_token', refresh_token: refreshToken, ...(this.resource !== undefined ? { resource: this.resource } : {}) }, signal);
    // A server that does not rotate keeps the refresh token it issued.
    this.tokens = { accessToken: refreshed.accessToken, refreshToken: refreshed.refreshToken ?? refreshToken };
  }

  /** The challenge's resource_metadata first, else the well-known URLs in order (path-based, then root). */
  private async protectedResourceMetadata(challenge: Record<string, string>, url: string, signal: AbortSignal): Promise<Record<string, unknown>> {
    const candidates = [...(challenge['resource_metadata'] !== undefined ? [challenge['resource_metadata']] : []), ...protectedResourceMetadataUrls(url)];
    for (const candidate of candidates) {
      const found = await this.getJson(candidate, signal);
      if (found !== undefined) return found;
    }
    throw new AuthorizationError(`no Protected Resource Metadata at ${candidates.join(', ')}`);
  }

  private async serverMetadata(issuer: string, signal: AbortSignal): Promise<ServerMetadata> {
    for (const candidate of authorizationServerMetadataUrls(issuer)) {
      const found = (await this.getJson(candidate, signal)) as Partial<ServerMetadata> | undefined;
      if (found === undefined) continue;
      if (typeof found.authorization_endpoint !== 'string' || typeof found.token_endpoint !== 'string' || typeof found.issuer !== 'string') {
        throw new AuthorizationError(`the authorization-server metadata at ${candidate} lacks an issuer, authorization_endpoint or token_endpoint`);
      }
      // RFC 8414 §3.3: metadata naming another issuer than the one asked is not that server's (an impersonation).
      if (found.issuer !== issuer && this.rules.checkMetadataIssuer) throw new AuthorizationError(`the authorization-server metadata at ${candidate} names the issuer ${found.issuer}, not ${issuer}`);
      return found as ServerMetadata;
    }
    throw new AuthorizationError(`no authorization-server metadata for ${issuer}`);
  }

  /** Registration in the stated order: credentials given beforehand, a Client ID Metadata Document, dynamic registration. */
  private async register(metadata: ServerMetadata, signal: AbortSignal): Promise<Registration> {
    if (this.registered !== undefined) return this.registered;
    const { clientId, clientSecret, clientMetadataUrl } = this.options;
    if (clientId !== undefined && this.rules.usePreRegisteredCredentials) return (this.registered = { clientId, ...(clientSecret !== undefined ? { clientSecret } : {}), auth: secretAuth(clientSecret, metadata) });
    if (clientMetadataUrl !== undefined && metadata.client_id_metadata_document_supported === true) return (this.registered = { clientId: clientMetadataUrl, auth: 'none' });
    if (metadata.registration_endpoint === undefined) throw new AuthorizationError('the authorization server offers no registration, and the client has no credentials');
    const body = JSON.stringify({
      client_name: 'mcp-client-conformance reference client',
      redirect_uris: [this.options.redirectUri],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      application_type: 'native',
    });
    const answer = await send(this.agent, this.toAuthorizationServer({ method: 'POST', url: metadata.registration_endpoint, headers: { 'content-type': 'application/json', accept: 'application/json' }, body, signal }));
    const text = await readText(answer, signal);
    const registered = parseJson(text) as { client_id?: unknown; client_secret?: unknown; token_endpoint_auth_method?: unknown } | undefined;
    if (answer.status !== 201 && answer.status !== 200) throw new AuthorizationError(`registration was refused (HTTP ${answer.status}: ${text.slice(0, 200)})`);
    if (typeof registered?.client_id !== 'string') throw new AuthorizationError('the registration answer carried no client_id');
    const secret = typeof registered.client_secret === 'string' ? registered.client_secret : undefined;
    // The method the server registered (RFC 7591 §3.2.1 returns it), else what its metadata supports.
    const method = registered.token_endpoint_auth_method;
    const auth = method === 'client_secret_basic' || method === 'client_secret_post' || method === 'none' ? method : secretAuth(secret, metadata);
    return (this.registered = { clientId: registered.client_id, ...(secret !== undefined ? { clientSecret: secret } : {}), auth });
  }

  private async tokenRequest(params: Record<string, string>, signal: AbortSignal): Promise<Tokens> {
    const client = this.registered!;
    const form = new URLSearchParams(params);
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
    // (A broken variant uses HTTP Basic whenever it holds a secret, whatever it registered.)
    if (client.clientSecret !== undefined && (client.auth === 'client_secret_basic' || !this.rules.tokenAuthAsRegistered)) headers['authorization'] = `Basic ${Buffer.from(`${encodeURIComponent(client.clientId)}:${encodeURIComponent(client.clientSecret)}`).toString('base64')}`;
    else {
      form.set('client_id', client.clientId);
      if (client.clientSecret !== undefined && client.auth === 'client_secret_post') form.set('client_secret', client.clientSecret);
    }
    const answer = await send(this.agent, this.toAuthorizationServer({ method: 'POST', url: this.metadata!.token_endpoint, headers, body: form.toString(), signal }));
    const text = await readText(answer, signal);
    const tokens = parseJson(text) as { access_token?: unknown; refresh_token?: unknown } | undefined;
    if (answer.status !== 200 || typeof tokens?.access_token !== 'string') throw new AuthorizationError(`the token request (${params['grant_type']}) was refused (HTTP ${answer.status}: ${text.slice(0, 200)})`);
    return { accessToken: tokens.access_token, ...(typeof tokens.refresh_token === 'string' ? { refreshToken: tokens.refresh_token } : {}) };
  }

  /** A GET for a metadata document: the JSON object, or undefined when there is none there (any status but 200). */
  private async getJson(url: string, signal: AbortSignal): Promise<Record<string, unknown> | undefined> {
    const request: HttpRequest = { method: 'GET', url, headers: { accept: 'application/json' }, signal };
    const answer = await send(this.agent, new URL(url).origin === this.serverOrigin ? request : this.toAuthorizationServer(request));
    if (answer.status !== 200) {
      discard(answer.body);
      return undefined;
    }
    const found = parseJson(await readText(answer, signal));
    if (typeof found !== 'object' || found === null || Array.isArray(found)) throw new ProtocolError(`the metadata at ${url} is not a JSON object`);
    return found as Record<string, unknown>;
  }

  /** A request to the authorization server: it carries no access token (a broken variant sends it everywhere). */
  private toAuthorizationServer(req: HttpRequest): HttpRequest {
    if (this.rules.tokenOnlyToItsServer || this.tokens === undefined || req.headers['authorization'] !== undefined) return req;
    return { ...req, headers: { ...req.headers, authorization: `Bearer ${this.tokens.accessToken}` } };
  }
}

/**
 * How a client with credentials given or registered without a method authenticates: HTTP Basic where the server supports
 * it or names nothing (RFC 8414 §2: its default), else the form's client_secret where it supports that; none without a secret.
 */
function secretAuth(secret: string | undefined, metadata: ServerMetadata): TokenEndpointAuth {
  if (secret === undefined) return 'none';
  const supported = metadata.token_endpoint_auth_methods_supported;
  if (supported === undefined || supported.includes('client_secret_basic') || !supported.includes('client_secret_post')) return 'client_secret_basic';
  return 'client_secret_post';
}

/** The 2026-07-28 era probe. */
function isProbe(req: HttpRequest): boolean {
  return req.body !== undefined && (parseJson(req.body) as { method?: unknown } | undefined)?.method === 'server/discover';
}
