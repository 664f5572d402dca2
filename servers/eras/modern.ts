// 2026-07-28 only: the official SDK v2 entry `createMcpHandler` in its modern-only posture (`legacy: 'reject'`).
// Every answer on the wire (discover, envelope and header rejections, 405 for GET/DELETE) is the SDK's own.
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler } from '@modelcontextprotocol/server';
import type { EraBackend, EraFactory } from '../era.ts';
import { createFixtureServer } from '../fixtures.ts';
import type { HttpContext } from '../http.ts';
import { MCP_PATH } from './streamable-http.ts';

export const MODERN_REVISION = '2026-07-28';

export function modernEra(): EraFactory {
  return async ({ fixtures }) => {
    // One fresh McpServer per request, as the entry requires; the fixture state is shared.
    const handler = createMcpHandler(() => createFixtureServer(fixtures, [MODERN_REVISION]), { legacy: 'reject' });
    const serve = toNodeHandler(handler);

    const backend: EraBackend = {
      entryPath: MCP_PATH,
      revisions: [MODERN_REVISION],
      async handle({ req, res, body }: HttpContext) {
        if (req.url?.split('?')[0] !== MCP_PATH) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('Not Found');
        // The wire record has read the request: the adapter gets the parsed body and never reads `req` again.
        // (A body that is not JSON arrives as undefined: the adapter then reads the drained stream, finds it empty,
        // and the entry answers it as a body that is not JSON, exactly as for the original bytes.)
        await serve(req, res, body);
      },
      // No sessions in this era: nothing is ever issued, so nothing can be expired.
      issuedSessions: () => [],
      liveSessions: () => [],
      async expireSession() {},
      // Aborts in-flight exchanges (their handlers' signals fire) and closes their per-request servers.
      close: () => handler.close(),
    };
    return backend;
  };
}
