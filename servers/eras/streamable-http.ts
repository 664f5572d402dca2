// Stateful Streamable HTTP (2025-03-26 … 2025-11-25), pinned to exactly one revision.
// Built on the official SDK v2 transport; the session router around it is ours, as in any real deployment.
import { randomUUID } from 'node:crypto';
import { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import type { McpServer } from '@modelcontextprotocol/server';
import type { EraBackend, EraFactory } from '../era.ts';
import { createFixtureServer } from '../fixtures.ts';
import { containsMethod, sendJsonRpcError, type HttpContext } from '../http.ts';
import type { StreamableRevision } from '../revisions.ts';

export const MCP_PATH = '/mcp';

interface Session {
  id: string;
  transport: NodeStreamableHTTPServerTransport;
  server: McpServer;
}

export function streamableHttpEra(revision: StreamableRevision): EraFactory {
  return async ({ fixtures }) => {
    const live = new Map<string, Session>();
    const issued: string[] = [];
    /** Servers whose initialize has not produced a session (yet): closed with the backend. */
    const pending = new Set<Session>();

    const closeSession = async (session: Session) => {
      live.delete(session.id);
      pending.delete(session);
      await session.server.close();
    };

    const newSession = async (): Promise<Session> => {
      const session = { id: '' } as Session;
      session.transport = new NodeStreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          session.id = id;
          issued.push(id);
          live.set(id, session);
          pending.delete(session);
        },
        onsessionclosed: (id) => {
          live.delete(id);
        },
      });
      session.server = createFixtureServer(fixtures, [revision]);
      await session.server.connect(session.transport);
      pending.add(session);
      return session;
    };

    const backend: EraBackend = {
      entryPath: MCP_PATH,
      revisions: [revision],
      async handle({ req, res, exchange, body }: HttpContext) {
        if (req.url?.split('?')[0] !== MCP_PATH) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('Not Found');
        const sessionId = exchange.requestHeaders['mcp-session-id'];
        if (sessionId !== undefined) {
          const session = live.get(sessionId);
          if (!session) return sendJsonRpcError(res, 404, -32001, 'Session not found');
          return session.transport.handleRequest(req, res, body);
        }
        if (req.method === 'POST' && containsMethod(body, 'initialize')) {
          const session = await newSession();
          await session.transport.handleRequest(req, res, body);
          // An initialize that failed validation never gets an id: do not keep its server around.
          if (!session.id) await closeSession(session);
          return;
        }
        return sendJsonRpcError(res, 400, -32000, 'Bad Request: Mcp-Session-Id header is required');
      },
      issuedSessions: () => [...issued],
      liveSessions: () => [...live.keys()],
      async expireSession(sessionId) {
        const targets = sessionId === undefined ? [...live.values()] : [live.get(sessionId)].filter((s) => s !== undefined);
        for (const session of targets) await closeSession(session);
      },
      async close() {
        for (const session of [...live.values(), ...pending]) await closeSession(session);
      },
    };
    return backend;
  };
}
