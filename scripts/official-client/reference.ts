#!/usr/bin/env node
// The reference client (clients/reference/) as a client command of the official conformance harness
// (@modelcontextprotocol/conformance `client --command …`), which scripts/official-harness.ts runs with `--client`.
//
// The harness's contract: the server URL is the last argument; MCP_CONFORMANCE_SCENARIO names the scenario,
// MCP_CONFORMANCE_PROTOCOL_VERSION the revision to speak, MCP_CONFORMANCE_CONTEXT (JSON) what a scenario gives the client
// beforehand (pre-registered credentials). Exit code 0 when every operation succeeded.
//
// This program adds no lifecycle logic: it connects the reference client pinned to the asked revision (initialize up to
// 2025-11-25, per-request metadata at 2026-07-28), lists the tools, calls the first one, closes. Authorization is the
// reference client's own (clients/reference/oauth.ts); only the step a person would take is done here, headlessly:
// the authorization URL is followed with plain HTTP (servers/authorization/user-agent.ts, no browser), and the
// redirect to the client's redirect URI is handed back to the client, never fetched.
import type { AuthorizationOptions, Negotiation } from '../../clients/adapter.ts';
import { createReferenceClient } from '../../clients/reference/index.ts';
import type { Revision } from '../../protocol/revisions.ts';
import { followAuthorization } from '../../servers/authorization/user-agent.ts';

/** Where the authorization server sends the browser back: a loopback URL nothing listens on (never fetched). */
const REDIRECT_URI = 'http://127.0.0.1/callback';
/**
 * The Client ID Metadata Document URL the official auth scenarios accept as a client_id (their auth/basic-cimd checks
 * for exactly this one; the document itself is never fetched there).
 */
const OFFICIAL_CIMD_URL = 'https://conformance-test.local/client-metadata.json';
/** The connect's bound; the harness bounds the whole process (its --timeout). */
const CONNECT_TIMEOUT_MS = 20_000;

interface Context {
  client_id?: string;
  client_secret?: string;
}

function context(): Context {
  const raw = process.env['MCP_CONFORMANCE_CONTEXT'];
  return raw === undefined ? {} : (JSON.parse(raw) as Context);
}

async function main(): Promise<void> {
  const serverUrl = process.argv.at(-1);
  if (serverUrl === undefined || !/^https?:\/\//.test(serverUrl)) throw new Error(`usage: reference.ts <server-url> (got ${serverUrl ?? 'nothing'})`);
  const revision = (process.env['MCP_CONFORMANCE_PROTOCOL_VERSION'] ?? '2025-11-25') as Revision;
  const { client_id: clientId, client_secret: clientSecret } = context();
  const authorization: AuthorizationOptions = {
    redirectUri: REDIRECT_URI,
    // The user agent opens only the authorization endpoint's origin (the authorization server) and stops at the redirect URI.
    authorize: (authorizationUrl) => followAuthorization(authorizationUrl, REDIRECT_URI, authorizationUrl),
    // For clients in another process; the reference client runs here and calls `authorize`.
    userAgentUrl: 'about:blank',
    clientMetadataUrl: OFFICIAL_CIMD_URL,
    ...(clientId !== undefined ? { clientId } : {}),
    ...(clientSecret !== undefined ? { clientSecret } : {}),
  };
  const negotiation: Negotiation = { pin: revision };
  const client = createReferenceClient();
  try {
    const connection = await client.connect(serverUrl, { timeoutMs: CONNECT_TIMEOUT_MS, negotiation, authorization });
    try {
      const tools = await connection.listTools();
      if (tools[0] !== undefined) await connection.callTool(tools[0].name, { a: 2, b: 3 });
    } finally {
      await connection.close();
    }
  } finally {
    await client.dispose();
  }
}

try {
  await main();
} catch (error) {
  console.error(error instanceof Error ? `${error.name}: ${error.message}` : error);
  process.exitCode = 1;
}
