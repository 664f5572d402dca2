// The reference server as an OAuth 2.1 protected resource (a personality): Protected Resource Metadata (RFC 9728) at
// its well-known paths, a 401 with a `WWW-Authenticate: Bearer` challenge (with or without `resource_metadata` and
// `scope`) for a request without a valid token, audience-checked Bearer tokens verified with jose against its
// authorization server's keys, and 403 `insufficient_scope`. It starts that authorization server itself
// (servers/authorization/authorization-server.ts), whose record is the case's authorization lane.
import { createLocalJWKSet, jwtVerify, type JWTPayload } from 'jose';
import type { ServerResponse } from 'node:http';
import type { AuthorizationOptions } from '../../protocol/authorization.ts';
import { listenOnLoopback, type Listening } from '../listen.ts';
import type { Personality } from '../personality.ts';
import { WireRecord, type JsonRpcMessage } from '../wire-record.ts';
import { startAuthorizationServer, ISSUED_CLAIM, type AuthorizationServer, type AuthorizationServerOptions } from './authorization-server.ts';
import { followAuthorization, startUserAgentEndpoint } from './user-agent.ts';

/** Where the Protected Resource Metadata is served. */
export type MetadataAt = 'path' | 'root' | 'both';

export interface ProtectedResourceOptions {
  /** The challenge names the metadata document (`resource_metadata`). Default true. */
  resourceMetadataInChallenge?: boolean;
  /** The `scope` the challenge names, if any. */
  challengeScope?: string;
  /** Where the metadata is: path-based (`/.well-known/oauth-protected-resource/mcp`), at the root, or both (default). */
  metadataAt?: MetadataAt;
  /** The metadata lists `scopes_supported` (the authorization server's resource scopes). Default true. */
  scopesInMetadata?: boolean;
  /** A token without this scope is answered 403 `insufficient_scope` (from the start; `requireScope()` sets it later). */
  requiredScope?: string;
  /**
   * The `resource` its Protected Resource Metadata publishes (and the audience its tokens must carry): the MCP endpoint's
   * URL (default), `origin` (the server's origin, a parent of the endpoint: the audience of every token it accepts), or
   * any other URL (metadata for another resource, which a client must refuse; tokens still need the endpoint's URL).
   */
  publishedResource?: 'endpoint' | 'origin' | string;
  /** How the authorization server behind it is set up. */
  authorization?: AuthorizationServerOptions;
}

/** The notes the personality puts on the exchanges it answers (what the judges read). */
export const AUTH_NOTES = {
  metadata: 'protected-resource-metadata',
  noToken: 'auth-401-no-token',
  invalid: 'auth-401-invalid-token',
  expired: 'auth-401-expired-token',
  refused: 'auth-401-refused',
  tokenInQuery: 'auth-token-in-query',
  insufficientScope: 'auth-403-insufficient-scope',
  accepted: 'auth-accepted',
  /** An accepted request answered 307 to another origin (redirectOnce). */
  redirected: 'auth-307-other-origin',
} as const;

/** What a one-shot control matches a request by: its HTTP method, its headers (names lower-cased) and the JSON-RPC messages it carried. */
export type MatchedRequest = { method: string; headers: Readonly<Record<string, string>>; messages: readonly JsonRpcMessage[] };

export interface ProtectedResource extends Personality {
  /** The authorization server, once the reference server has started. */
  readonly authorizationServer: AuthorizationServer;
  /** Every access token issued so far expires now: a request carrying one is answered 401 `invalid_token`. */
  expireIssuedTokens(): void;
  /** From now on, every request is answered 401 `invalid_token` whatever its token (a server that keeps refusing), or no longer. */
  refuseEveryToken(refusing: boolean): void;
  /**
   * Every token issued so far expires just as the next request that `matches` arrives (the GET that opens the stream,
   * the GET that resumes one): that request is answered 401 `invalid_token`, and a token issued after it is good.
   */
  expireBefore(matches: (request: MatchedRequest) => boolean): void;
  /**
   * The next accepted request that `matches` is answered 307 Temporary Redirect to the same path on another origin (a
   * decoy on another loopback port, which records what reaches it and answers 403).
   */
  redirectOnce(matches: (request: MatchedRequest) => boolean): void;
  /** What reached the decoy origin of redirectOnce (empty until a client followed a redirect there). */
  readonly decoyRecord: WireRecord;
  /**
   * From now on, a token without `scope` is answered 403 `insufficient_scope` naming it (undefined: no longer); with
   * `always`, every token is, the scope granted or not (a server a step-up never satisfies).
   */
  requireScope(scope: string | undefined, always?: boolean): void;
  /** What a client is given to authorize headlessly (ConnectOptions.authorization). */
  clientAuthorization(overrides?: Partial<Omit<AuthorizationOptions, 'authorize' | 'userAgentUrl'>>): AuthorizationOptions;
}

/** The redirect URI clients register: a loopback callback nothing listens on (the suite's user agent never fetches it). */
export const REDIRECT_URI = 'http://127.0.0.1:9/callback';

/** The well-known path of the Protected Resource Metadata (RFC 9728 §3.1), path-based or at the root. */
export function metadataPath(entryPath: string, at: 'path' | 'root'): string {
  return at === 'root' || entryPath === '/' ? '/.well-known/oauth-protected-resource' : `/.well-known/oauth-protected-resource${entryPath}`;
}

/** A `WWW-Authenticate: Bearer` challenge (RFC 6750 §3, RFC 9728 §5.1). */
function challenge(params: Record<string, string | undefined>): string {
  const pairs = Object.entries(params).flatMap(([name, value]) => (value === undefined ? [] : [`${name}="${value}"`]));
  return pairs.length === 0 ? 'Bearer' : `Bearer ${pairs.join(', ')}`;
}

export function protectedResource(options: ProtectedResourceOptions = {}): ProtectedResource {
  let authorization: AuthorizationServer | undefined;
  let userAgent: { url: string; close(): Promise<void> } | undefined;
  let entryPath = '/mcp';
  let expiredThrough = 0;
  let refusing = false;
  let requiredScope = options.requiredScope;
  let scopeNeverEnough = false;
  const metadataAt = options.metadataAt ?? 'both';
  const servedAt = (): string[] => (metadataAt === 'both' ? [metadataPath(entryPath, 'path'), metadataPath(entryPath, 'root')] : [metadataPath(entryPath, metadataAt)]);
  const server = (): AuthorizationServer => {
    if (authorization === undefined) throw new Error('the protected resource has not started: its authorization server starts with the reference server');
    return authorization;
  };
  let keys: ReturnType<typeof createLocalJWKSet> | undefined;
  let expireAt: ((request: MatchedRequest) => boolean) | undefined;
  let redirectAt: ((request: MatchedRequest) => boolean) | undefined;
  const decoyRecord = new WireRecord();
  let decoy: Listening | undefined;

  return {
    name: 'protected-resource',
    get authorizationServer() {
      return server();
    },
    decoyRecord,
    async start() {
      decoy = await listenOnLoopback(async (req, res) => {
        await decoyRecord.begin(req, res);
        res.writeHead(403, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'forbidden', error_description: 'another origin than the MCP server the client was given' }));
      });
      authorization = await startAuthorizationServer(options.authorization);
      userAgent = await startUserAgentEndpoint(authorization.issuer);
      keys = createLocalJWKSet(authorization.jwks);
    },
    attach({ backend }) {
      entryPath = backend.entryPath;
    },
    async close() {
      await Promise.all([authorization?.close(), userAgent?.close(), decoy?.close()]);
    },
    expireIssuedTokens() {
      expiredThrough = server().issued();
    },
    refuseEveryToken(on) {
      refusing = on;
    },
    expireBefore(matches) {
      expireAt = matches;
    },
    redirectOnce(matches) {
      redirectAt = matches;
    },
    requireScope(scope, always = false) {
      requiredScope = scope;
      scopeNeverEnough = always;
    },
    clientAuthorization(overrides = {}) {
      const issuer = server().issuer;
      return {
        redirectUri: REDIRECT_URI,
        authorize: (authorizationUrl: string) => followAuthorization(authorizationUrl, overrides.redirectUri ?? REDIRECT_URI, issuer),
        userAgentUrl: userAgent!.url,
        ...overrides,
      };
    },
    async middleware({ req, res, exchange, record, body }, next) {
      const host = req.headers.host ?? '127.0.0.1';
      const endpoint = `http://${host}${entryPath}`;
      const published = options.publishedResource;
      const resource = published === undefined || published === 'endpoint' ? endpoint : published === 'origin' ? `http://${host}` : published;
      // Tokens for a resource that is not this server's are no good here either.
      const audience = resource.startsWith(`http://${host}`) ? resource : endpoint;
      const [path = '', query = ''] = (req.url ?? '').split('?');
      const metadataUrl = `http://${host}${servedAt()[0]}`;
      if (req.method === 'GET' && servedAt().includes(path)) {
        record.note(exchange, AUTH_NOTES.metadata);
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({ resource, authorization_servers: [server().issuer], bearer_methods_supported: ['header'], ...(options.scopesInMetadata === false ? {} : { scopes_supported: options.authorization?.scopes ?? ['mcp'] }) }),
        );
        return;
      }
      // Everything else on this server is the resource: the MCP endpoint, and any path a client may wander to.
      const refuse = (status: 401 | 403, note: string, error?: string, description?: string) => {
        record.note(exchange, note);
        const params = {
          ...(error !== undefined ? { error, error_description: description } : {}),
          ...(options.resourceMetadataInChallenge === false ? {} : { resource_metadata: metadataUrl }),
          scope: status === 403 ? requiredScope : options.challengeScope,
        };
        answer(res, status, challenge(params), error ?? 'unauthorized', description ?? 'an access token is required');
      };
      if (new URLSearchParams(query).has('access_token')) record.note(exchange, AUTH_NOTES.tokenInQuery);
      const bearer = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
      if (bearer === undefined) return refuse(401, AUTH_NOTES.noToken);
      const seen: MatchedRequest = { method: req.method ?? '', headers: exchange.requestHeaders, messages: jsonRpcMessages(body) };
      if (expireAt?.(seen)) {
        expireAt = undefined;
        expiredThrough = server().issued();
      }
      let claims: JWTPayload;
      try {
        ({ payload: claims } = await jwtVerify(bearer, keys!, { issuer: server().issuer, audience }));
      } catch (error) {
        return refuse(401, AUTH_NOTES.invalid, 'invalid_token', `the access token is not valid here (${error instanceof Error ? error.message : String(error)})`);
      }
      // An expired token is refused as expired first: a server refusing every token too refuses its replacement as revoked.
      if (Number(claims[ISSUED_CLAIM] ?? 0) <= expiredThrough) return refuse(401, AUTH_NOTES.expired, 'invalid_token', 'the access token expired');
      if (refusing) return refuse(401, AUTH_NOTES.refused, 'invalid_token', 'the access token was revoked');
      if (requiredScope !== undefined && (scopeNeverEnough || !String(claims['scope'] ?? '').split(' ').includes(requiredScope))) {
        return refuse(403, AUTH_NOTES.insufficientScope, 'insufficient_scope', `the access token lacks the scope ${requiredScope}`);
      }
      record.note(exchange, AUTH_NOTES.accepted);
      if (redirectAt?.(seen)) {
        redirectAt = undefined;
        record.note(exchange, AUTH_NOTES.redirected);
        res.writeHead(307, { location: `${decoy!.origin}${req.url ?? entryPath}` }).end();
        return;
      }
      await next();
    },
  };
}

/** The JSON-RPC messages of a request body (one, or a batch). */
function jsonRpcMessages(body: unknown): JsonRpcMessage[] {
  const all = Array.isArray(body) ? body : body === undefined ? [] : [body];
  return all.filter((m): m is JsonRpcMessage => typeof m === 'object' && m !== null);
}

function answer(res: ServerResponse, status: number, wwwAuthenticate: string, error: string, description: string): void {
  res.writeHead(status, { 'content-type': 'application/json', 'www-authenticate': wwwAuthenticate }).end(JSON.stringify({ error, error_description: description }));
}
