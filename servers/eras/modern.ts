// 2026-07-28 only: the official SDK v2 entry `createMcpHandler` in its modern-only posture (`legacy: 'reject'`).
// Every answer on the wire (discover, envelope and header rejections, 405 for GET/DELETE) is the SDK's own.
// By default a request is answered with one JSON body, and with an SSE stream only when its handler sends a related
// notification first (the entry's `responseMode: 'auto'`); `streamEveryAnswer()` makes it answer every request with an
// SSE stream (`responseMode: 'sse'`), which the transport lets a server choose (Sending Messages: JSON or SSE).
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler } from '@modelcontextprotocol/server';
import type { EraBackend, EraFactory } from '../era.ts';
import { createFixtureServer } from '../fixtures.ts';
import type { HttpContext } from '../http.ts';
import { MCP_PATH } from './streamable-http.ts';

export const MODERN_REVISION = '2026-07-28';

/** The backend this era factory returns: an EraBackend plus what a personality may set before clients connect. */
export interface ModernBackend extends EraBackend {
  /** Every request is answered with an SSE stream (set before the first request). */
  streamEveryAnswer(): void;
}

export function modernEra(): EraFactory {
  return async ({ fixtures }) => {
    let responseMode: 'auto' | 'sse' = 'auto';
    // Made at the first request, once personalities have chosen the response mode.
    let entry: { handler: ReturnType<typeof createMcpHandler>; serve: ReturnType<typeof toNodeHandler> } | undefined;
    const built = () => {
      if (entry) return entry;
      // One fresh McpServer per request, as the entry requires; the fixture state is shared.
      const handler = createMcpHandler(() => createFixtureServer(fixtures, [MODERN_REVISION]), { legacy: 'reject', responseMode });
      entry = { handler, serve: toNodeHandler(handler) };
      return entry;
    };

    const backend: ModernBackend = {
      entryPath: MCP_PATH,
      revisions: [MODERN_REVISION],
      async handle({ req, res, body }: HttpContext) {
        if (req.url?.split('?')[0] !== MCP_PATH) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('Not Found');
        // The wire record has read the request: the adapter gets the parsed body and never reads `req` again.
        // (A body that is not JSON arrives as undefined: the adapter then reads the drained stream, finds it empty,
        // and the entry answers it as a body that is not JSON, exactly as for the original bytes.)
        await built().serve(req, res, body);
      },
      // No sessions in this era: nothing is ever issued, so nothing can be expired.
      issuedSessions: () => [],
      liveSessions: () => [],
      async expireSession() {},
      // Aborts in-flight exchanges (their handlers' signals fire) and closes their per-request servers.
      close: async () => {
        await entry?.handler.close();
      },
      streamEveryAnswer() {
        if (entry) throw new Error('streamEveryAnswer() must be called before the first request');
        responseMode = 'sse';
      },
    };
    return backend;
  };
}
