// Stateful Streamable HTTP reference server (2025-03-26 … 2025-11-25), pinned to exactly one revision.
// Built on the official SDK v2 transport; the session router around it is ours, as in any real deployment.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import express from 'express';
import { localhostOriginValidation, NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import type { McpServer } from '@modelcontextprotocol/server';
import { createFixtureServer, FixtureState } from './fixtures.ts';
import { listenOnLoopback } from './listen.ts';
import type { ReferenceServer } from './reference-server.ts';
import type { StreamableRevision } from './revisions.ts';
import { WireRecord, type WireExchange } from './wire-record.ts';

export const MCP_PATH = '/mcp';

export interface StreamableHttpOptions {
  revision: StreamableRevision;
  /** 0 (default): a free port. */
  port?: number;
}

interface Session {
  id: string;
  transport: NodeStreamableHTTPServerTransport;
  server: McpServer;
}

export async function startStreamableHttpServer(options: StreamableHttpOptions): Promise<ReferenceServer> {
  const record = new WireRecord();
  const fixtures = new FixtureState();
  const live = new Map<string, Session>();
  const issued: string[] = [];
  const pending = new Set<Session>();
  const validateOrigin = localhostOriginValidation();

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
    session.server = createFixtureServer(fixtures, [options.revision]);
    await session.server.connect(session.transport);
    pending.add(session);
    return session;
  };

  const route = async (req: IncomingMessage, res: ServerResponse, exchange: WireExchange, body: unknown) => {
    const sessionId = exchange.requestHeaders['mcp-session-id'];
    if (sessionId !== undefined) {
      const session = live.get(sessionId);
      if (!session) return sendJsonRpcError(res, 404, -32001, 'Session not found');
      return session.transport.handleRequest(req, res, body);
    }
    if (req.method === 'POST' && containsInitialize(body)) {
      const session = await newSession();
      await session.transport.handleRequest(req, res, body);
      // An initialize that failed validation never gets an id: do not keep its server around.
      if (!session.id) await closeSession(session, pending);
      return;
    }
    return sendJsonRpcError(res, 400, -32000, 'Bad Request: Mcp-Session-Id header is required');
  };

  const app = express();
  app.disable('x-powered-by');
  app.use(async (req, res, next) => {
    const { exchange, parsedBody } = await record.begin(req, res);
    if (!validateOrigin(req, res)) return;
    if (req.path !== MCP_PATH) return void res.status(404).type('text/plain').send('Not Found');
    try {
      await route(req, res, exchange, parsedBody);
    } catch (error) {
      next(error);
    }
  });

  const listening = await listenOnLoopback(app, options.port);
  let closed: Promise<void> | undefined;
  return {
    url: `${listening.origin}${MCP_PATH}`,
    revision: options.revision,
    record,
    fixtures,
    issuedSessions: () => [...issued],
    liveSessions: () => [...live.keys()],
    async expireSession(sessionId) {
      const targets = sessionId === undefined ? [...live.values()] : [live.get(sessionId)].filter((s) => s !== undefined);
      for (const session of targets) await closeSession(session, live);
    },
    close() {
      closed ??= (async () => {
        await listening.close();
        for (const session of [...live.values()]) await closeSession(session, live);
        for (const session of [...pending]) await closeSession(session, pending);
      })();
      return closed;
    },
  };
}

async function closeSession(session: Session, from: Map<string, Session> | Set<Session>): Promise<void> {
  if (from instanceof Map) from.delete(session.id);
  else from.delete(session);
  await session.server.close();
}

function containsInitialize(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.some((m) => typeof m === 'object' && m !== null && (m as { method?: unknown }).method === 'initialize');
}

export function sendJsonRpcError(res: ServerResponse, status: number, code: number, message: string): void {
  const body = JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null });
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(body);
}
