// 2024-11-05 HTTP+SSE: a GET stream whose first event names the URL to POST messages to.
// The official SDK v1 SSEServerTransport (v2 does not ship it) carries the same v2 McpServer and fixtures as
// every other era, pinned to 2024-11-05; the session router around it is ours and answers as the SDK
// example `simpleSseServer` does.
import type { ServerResponse } from 'node:http';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import type { McpServer } from '@modelcontextprotocol/server';
import type { EraBackend, EraFactory } from '../era.ts';
import { createFixtureServer, type FixtureServerOptions } from '../fixtures.ts';
import type { HttpContext } from '../http.ts';

export const SSE_PATH = '/sse';
export const MESSAGES_PATH = '/messages';
const REVISION = '2024-11-05';

interface Session {
  id: string;
  transport: SSEServerTransport;
  server: McpServer;
}

/** What express's `res.status(n).send(text)` writes, as the SDK example server answers. */
function sendText(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' }).end(text);
}

export function httpSseEra(): EraFactory {
  return async ({ fixtures }) => {
    const live = new Map<string, Session>();
    const issued: string[] = [];
    let shape: FixtureServerOptions = {};

    const openStream = async (res: ServerResponse) => {
      // The transport writes the 200 head and the `endpoint` event when the server connects it.
      const transport = new SSEServerTransport(MESSAGES_PATH, res);
      const session: Session = { id: transport.sessionId, transport, server: createFixtureServer(fixtures, [REVISION], shape) };
      issued.push(session.id);
      live.set(session.id, session);
      // Chained by connect(): runs when the client hangs up, on expireSession and on close.
      transport.onclose = () => {
        live.delete(session.id);
      };
      await session.server.connect(transport);
    };

    const backend: EraBackend = {
      entryPath: SSE_PATH,
      revisions: [REVISION],
      async handle({ req, res, exchange }: HttpContext) {
        const url = new URL(req.url ?? '/', 'http://localhost');
        if (req.method === 'GET' && url.pathname === SSE_PATH) return openStream(res);
        // RFC 9110 §15.5.6: the messages resource exists, only POST is served there (the SDK example's express
        // route would 404 any other method, which says the resource is missing).
        if (req.method !== 'POST' && url.pathname === MESSAGES_PATH) {
          return void res.writeHead(405, { 'content-type': 'text/plain', allow: 'POST' }).end('Method Not Allowed');
        }
        if (req.method === 'POST' && url.pathname === MESSAGES_PATH) {
          const sessionId = url.searchParams.get('sessionId');
          if (!sessionId) return sendText(res, 400, 'Missing sessionId parameter');
          const session = live.get(sessionId);
          if (!session) return sendText(res, 404, 'Session not found');
          // The record has read the body already: hand over its raw text, which the transport parses as it would
          // the bytes it read itself, so a bad body gets the transport's own answer verbatim (400 `Invalid message: <body>`;
          // a parsed object would print as `[object Object]` there).
          try {
            await session.transport.handlePostMessage(req, res, exchange.requestBody);
          } catch {
            // The stream closed under the POST: the transport has already answered 500.
          }
          return;
        }
        res.writeHead(404, { 'content-type': 'text/plain' }).end('Not Found');
      },
      issuedSessions: () => [...issued],
      liveSessions: () => [...live.keys()],
      async expireSession(sessionId) {
        const targets = sessionId === undefined ? [...live.values()] : [live.get(sessionId)].filter((s) => s !== undefined);
        // Closing the server closes its transport, which ends the stream and forgets the id.
        for (const session of targets) await session.server.close();
      },
      serveToolsOnly() {
        shape = { toolsOnly: true };
      },
      async close() {
        await backend.expireSession();
      },
    };
    return backend;
  };
}
