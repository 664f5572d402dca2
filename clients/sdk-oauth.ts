// The application's half of the TypeScript SDKs' OAuth (v1 @modelcontextprotocol/sdk, v2 @modelcontextprotocol/client),
// headless: an in-memory OAuthClientProvider as the SDKs' own example (simpleOAuthClientProvider) keeps one, whose
// browser is the suite's user agent (ConnectOptions.authorization). Discovery, registration, PKCE, the token requests,
// refresh and every retry are the SDK's; only what its documentation leaves to the application is here: storing what
// it hands over, opening the authorization URL, and comparing `state` before finishAuth ("The SDK does not validate
// state; compare it to your stored value before calling finishAuth", v2's StreamableHTTPClientTransport.finishAuth).
import { randomUUID } from 'node:crypto';
import type { AuthorizationOptions } from './adapter.ts';

/** Structurally the OAuthClientProvider both SDKs take as `authProvider` (each adapter narrows it to its SDK's type). */
export class HeadlessOAuthProvider {
  private information: object | undefined;
  private savedTokens: object | undefined;
  private verifier: string | undefined;
  private discovery: object | undefined;
  private sentState: string | undefined;
  /** Where the user agent was redirected back to, once redirectToAuthorization opened the authorization URL. */
  private callbackUrl: Promise<string> | undefined;

  private readonly options: AuthorizationOptions;
  private readonly clientName: string;

  constructor(options: AuthorizationOptions, clientName: string) {
    this.options = options;
    this.clientName = clientName;
  }

  get redirectUrl(): string {
    return this.options.redirectUri;
  }

  get clientMetadataUrl(): string | undefined {
    return this.options.clientMetadataUrl;
  }

  /** A native application's registration: a public client (PKCE), unless it was given a secret. */
  get clientMetadata() {
    return {
      client_name: this.clientName,
      redirect_uris: [this.options.redirectUri],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: this.options.clientSecret === undefined ? 'none' : 'client_secret_basic',
    };
  }

  state(): string {
    this.sentState = randomUUID();
    return this.sentState;
  }

  /** What it registered, else the credentials it was given beforehand. */
  clientInformation() {
    if (this.information !== undefined) return this.information;
    const { clientId, clientSecret } = this.options;
    return clientId === undefined ? undefined : { client_id: clientId, ...(clientSecret !== undefined ? { client_secret: clientSecret } : {}) };
  }

  saveClientInformation(information: object): void {
    this.information = information;
  }

  tokens() {
    return this.savedTokens;
  }

  saveTokens(tokens: object): void {
    this.savedTokens = tokens;
  }

  /** v2: what discovery found, kept as long as the code verifier (its documentation's MUST). */
  saveDiscoveryState(state: object): void {
    this.discovery = state;
  }

  discoveryState() {
    return this.discovery;
  }

  /** What the SDK says the server no longer accepts, forgotten. */
  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    if (scope === 'all' || scope === 'client') this.information = undefined;
    if (scope === 'all' || scope === 'tokens') this.savedTokens = undefined;
    if (scope === 'all' || scope === 'verifier') this.verifier = undefined;
    if (scope === 'all' || scope === 'discovery') this.discovery = undefined;
  }

  /** Where a person's browser would open: the suite's user agent follows it (approving headlessly). */
  redirectToAuthorization(authorizationUrl: URL): void {
    this.callbackUrl = this.options.authorize(authorizationUrl.href);
    // Read by callback(); a rejection before then is not an unhandled one.
    this.callbackUrl.catch(() => undefined);
  }

  saveCodeVerifier(codeVerifier: string): void {
    this.verifier = codeVerifier;
  }

  codeVerifier(): string {
    if (this.verifier === undefined) throw new Error('no PKCE code verifier saved');
    return this.verifier;
  }

  /** Whether the SDK sent the user agent to authorize (so an UnauthorizedError awaits finishAuth). */
  get redirected(): boolean {
    return this.callbackUrl !== undefined;
  }

  /** The callback's query once the user agent came back, its `state` the one sent (the application's check). */
  async callback(): Promise<URLSearchParams> {
    if (this.callbackUrl === undefined) throw new Error('the SDK never sent the user agent to authorize');
    const params = new URL(await this.callbackUrl).searchParams;
    this.callbackUrl = undefined;
    if (params.get('state') !== (this.sentState ?? null)) throw new Error(`the authorization callback's state ${JSON.stringify(params.get('state'))} is not the one sent`);
    return params;
  }
}

/**
 * The same documented interactive flow for a request the SDK refused once it had sent the user agent to authorize (a
 * step-up on 403 insufficient_scope): the application finishes the authorization with the callback's parameters and
 * sends its request again, once. A refusal without a redirect is the SDK's answer, passed on as it is.
 */
export async function afterAuthorization<T>(oauth: HeadlessOAuthProvider | undefined, isUnauthorized: (error: unknown) => boolean, finish: (callback: URLSearchParams) => Promise<void>, request: () => Promise<T>): Promise<T> {
  try {
    return await request();
  } catch (error) {
    if (oauth === undefined || !oauth.redirected || !isUnauthorized(error)) throw error;
    await finish(await oauth.callback());
    return request();
  }
}
