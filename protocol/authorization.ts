// Headless authorization, as the suite hands it to a client (ConnectOptions.authorization, contract 2.4; the line
// protocol's 1.7): what the protected reference server makes (servers/authorization/protected-resource.ts) and the
// adapter contract passes on (clients/adapter.ts), in one place beneath both.

/**
 * Headless authorization (contract 2.4, the feature `oauth`): how a client that implements the spec's authorization is
 * driven with no person in the loop. The client discovers, registers and asks for tokens as it would for its users;
 * only the step a person would take — opening the authorization URL in a browser and approving — is the suite's: the
 * authorization server approves on its own, and `authorize` follows the URL and returns where it redirected.
 */
export interface AuthorizationOptions {
  /**
   * The redirect URI to register and send (a loopback URL nothing listens on): the suite's user agent stops at it and
   * returns it, with `code`, `state` and `iss`, instead of fetching it.
   */
  redirectUri: string;
  /**
   * The user agent: give it the authorization URL where the client would open a browser; it resolves with the redirect
   * URL the client's callback would have received (or rejects when the authorization server did not redirect there).
   */
  authorize(authorizationUrl: string): Promise<string>;
  /**
   * The same user agent over HTTP, for a client in another process: POST `{"authorizationUrl","redirectUri"}` as JSON,
   * get `{"redirect"}` (docs/line-protocol.md). Loopback only.
   */
  userAgentUrl: string;
  /** Credentials registered beforehand: the client uses them instead of registering (pre-registration). */
  clientId?: string;
  clientSecret?: string;
  /** A Client ID Metadata Document the suite serves: the client uses its URL as its client_id where the server supports it. */
  clientMetadataUrl?: string;
}
