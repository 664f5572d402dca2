// Legacy Streamable HTTP without sessions: the SDK's stateless idiom, a fresh McpServer and a transport with
// `sessionIdGenerator: undefined` (servers/streamable-transport.ts) for every POST, torn down when the
// exchange ends (as the SDK's own stateless fallback does). No Mcp-Session-Id is ever sent.
//
// Consequences a suite relies on:
// - GET and DELETE (session operations) get 405, with the body and `Allow` header of the SDK's stateless posture.
// - A `notifications/cancelled` POST reaches a fresh instance that never saw the request: 202, and the running
//   handler is NOT cancelled.
// - A client that closes the response of a running call ends the exchange, and the teardown closes that call's
//   instance, which aborts its handler: here a disconnect does stop the work, unlike the sessionful eras.
import { StreamableTransport } from '../streamable-transport.ts';
import type { McpServer } from '@modelcontextprotocol/server';
import type { EraBackend, EraFactory } from '../era.ts';
import { createFixtureServer, type FixtureServerOptions } from '../fixtures.ts';
import { sendJsonRpcError, type HttpContext } from '../http.ts';
import { STREAMABLE_REVISIONS, type StreamableRevision } from '../../protocol/revisions.ts';
import { MCP_PATH } from './streamable-http.ts';

// It speaks every legacy Streamable HTTP revision (answering the one the client asks for), so a scenario can put
// a stateless server behind a client of any of them.
export function statelessEra(revisions: readonly StreamableRevision[] = STREAMABLE_REVISIONS): EraFactory {
  return async ({ fixtures }) => {
    /** The instance of each exchange still open: closed with the backend. */
    const open = new Set<McpServer>();
    let shape: FixtureServerOptions = {};

    const backend: EraBackend = {
      entryPath: MCP_PATH,
      revisions: [...revisions],
      async handle({ req, res, body }: HttpContext) {
        if (req.url?.split('?')[0] !== MCP_PATH) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('Not Found');
        if (req.method !== 'POST') return sendJsonRpcError(res, 405, -32000, 'Method not allowed.', { allow: 'POST' });
        const server = createFixtureServer(fixtures, [...revisions], shape);
        const transport = new StreamableTransport({ sessionIdGenerator: undefined });
        open.add(server);
        res.on('close', () => {
          open.delete(server);
          void server.close();
        });
        await server.connect(transport);
        await transport.handleNodeRequest(req, res, body);
      },
      issuedSessions: () => [],
      liveSessions: () => [],
      async expireSession() {},
      serveToolsOnly() {
        shape = { toolsOnly: true };
      },
      async close() {
        const closing = [...open].map((server) => server.close());
        open.clear();
        await Promise.all(closing);
      },
    };
    return backend;
  };
}
