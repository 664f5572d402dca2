// The suite's headless user agent: where a client would open a browser, the suite follows the authorization URL itself
// (the authorization server approves on its own) and hands back the URL the server redirected to, code, state and iss
// included. It follows redirects only on the authorization server's origin and never fetches the redirect URI.
import express from 'express';
import { listenOnLoopback } from '../listen.ts';

/** At most this many redirects from the authorization URL to the client's redirect URI (oidc-provider takes four). */
const MAX_HOPS = 10;

export class UserAgentRefused extends Error {}

/**
 * Follows `authorizationUrl` as a browser would, with a cookie jar, until a redirect to `redirectUri` (which is returned,
 * not fetched). Only URLs on `issuer`'s origin are fetched: a redirect anywhere else is refused.
 */
export async function followAuthorization(authorizationUrl: string, redirectUri: string, issuer: string): Promise<string> {
  const origin = new URL(issuer).origin;
  const jar = new Map<string, string>();
  let url = authorizationUrl;
  for (let hop = 0; hop < MAX_HOPS; hop++) {
    if (new URL(url).origin !== origin) throw new UserAgentRefused(`the user agent opens only the authorization server (${origin}), not ${url}`);
    const cookie = [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
    const response = await fetch(url, { redirect: 'manual', headers: cookie === '' ? {} : { cookie } });
    for (const set of response.headers.getSetCookie()) {
      const [pair = ''] = set.split(';');
      const at = pair.indexOf('=');
      if (at > 0) jar.set(pair.slice(0, at).trim(), pair.slice(at + 1).trim());
    }
    const location = response.headers.get('location');
    await response.body?.cancel();
    if (location === null) throw new UserAgentRefused(`the authorization server answered ${response.status} without a redirect at ${url}`);
    const next = new URL(location, url).toString();
    if (next.split(/[?#]/)[0] === redirectUri.split(/[?#]/)[0]) return next;
    url = next;
  }
  throw new UserAgentRefused(`no redirect to ${redirectUri} after ${MAX_HOPS} hops`);
}

/**
 * The same user agent over HTTP, for a client in another process (the line protocol): POST a JSON body
 * `{"authorizationUrl": …, "redirectUri": …}`, get `{"redirect": …}` (or 400 `{"error": …}`). Loopback only.
 */
export async function startUserAgentEndpoint(issuer: string): Promise<{ url: string; close(): Promise<void> }> {
  const app = express();
  app.disable('x-powered-by');
  app.use(express.json());
  app.post('/authorize', async (req, res) => {
    const { authorizationUrl, redirectUri } = (req.body ?? {}) as { authorizationUrl?: unknown; redirectUri?: unknown };
    if (typeof authorizationUrl !== 'string' || typeof redirectUri !== 'string') {
      res.status(400).json({ error: 'the body needs authorizationUrl and redirectUri (strings)' });
      return;
    }
    try {
      res.json({ redirect: await followAuthorization(authorizationUrl, redirectUri, issuer) });
    } catch (error) {
      res.status(400).json({ error: error instanceof Error ? error.message : String(error) });
    }
  });
  const listening = await listenOnLoopback(app);
  return { url: `${listening.origin}/authorize`, close: () => listening.close() };
}
