// Stateful Streamable HTTP (2025-03-26 … 2025-11-25), pinned to exactly one revision.
// Built on the official SDK v2 transport; the session router around it is ours, as in any real deployment.
//
// Per revision, on the wire:
// - every revision: `initialize` is answered with exactly the pinned revision, whatever the client offered;
//   `Mcp-Session-Id` is required after it (400 -32000 when missing, 404 -32001 when unknown or ended).
// - `MCP-Protocol-Version`: from 2025-06-18 (where the header is defined) any value but the pinned revision
//   gets 400 -32000; an absent header is accepted (2025-06-18 transports: the server SHOULD then assume
//   2025-03-26). 2025-03-26 defines no such header, so that server never reads it: any value, or none, is
//   served (the SDK alone would 400 every value but its own).
// - resumability (2025-03-26 transports, Resumability: event ids MAY be sent): every session has an event
//   store, so every SSE event carries an id at every revision, and `GET` + `Last-Event-ID` replays the
//   events the client missed on that stream (only that stream). Pass `resumable: false` for a server that
//   sends no ids (the SDK's default), where `Last-Event-ID` is ignored.
// - 2025-11-25 only (SEP-1699 SSE polling, as the SDK gates it): each POST stream opens with a priming event
//   (an id, `retry: <retryIntervalMs>` and empty data), and tools may close their own stream (`ctx.http.closeSSE`)
//   so the client must come back with `GET` + `Last-Event-ID`.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { StreamableTransport } from '../streamable-transport.ts';
import type { McpServer } from '@modelcontextprotocol/server';
import type { EraBackend, EraFactory } from '../era.ts';
import { MemoryEventStore } from '../event-store.ts';
import { createFixtureServer, type FixtureServerOptions } from '../fixtures.ts';
import { containsMethod, sendJsonRpcError, type HttpContext } from '../http.ts';
import { requiresProtocolVersionHeader, type StreamableRevision } from '../../protocol/revisions.ts';

export const MCP_PATH = '/mcp';

/** The HTTP methods of a sessionful Streamable HTTP endpoint (what the SDK transport's 405 lists in `Allow`). */
const SERVED_METHODS = ['GET', 'POST', 'DELETE'];

/** The `retry:` field of 2025-11-25 priming events unless set otherwise: small, so clients reconnect promptly. */
export const DEFAULT_RETRY_INTERVAL_MS = 50;

export interface StreamableHttpOptions {
  /** Milliseconds in the `retry:` field of priming events (2025-11-25 only). Default 50. */
  retryIntervalMs?: number;
  /** Every SSE event gets an id from a per-session event store and streams can be resumed. Default true. */
  resumable?: boolean;
}

/** The backend this era factory returns: an EraBackend plus what scenarios may tune before clients connect. */
export interface StreamableHttpBackend extends EraBackend {
  readonly revision: StreamableRevision;
  /** Sets `retry:` for sessions opened from now on. */
  setRetryInterval(ms: number): void;
  /** Sessions opened from now on answer each POST with one application/json body instead of an SSE stream. */
  answerWithJson(): void;
  /** The event store of a session (undefined when the server is not resumable or the session is unknown). */
  eventStore(sessionId: string): MemoryEventStore | undefined;
}

interface Session {
  id: string;
  transport: StreamableTransport;
  server: McpServer;
  store: MemoryEventStore | undefined;
}

export function streamableHttpEra(revision: StreamableRevision, options: StreamableHttpOptions = {}): EraFactory {
  const resumable = options.resumable ?? true;
  return async ({ fixtures }) => {
    let retryIntervalMs = options.retryIntervalMs ?? DEFAULT_RETRY_INTERVAL_MS;
    let enableJsonResponse = false;
    let shape: FixtureServerOptions = {};
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
      const session = { id: '', store: resumable ? new MemoryEventStore() : undefined } as Session;
      session.transport = new StreamableTransport({
        sessionIdGenerator: () => randomUUID(),
        enableJsonResponse,
        ...(session.store && { eventStore: session.store, retryInterval: retryIntervalMs }),
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
      session.server = createFixtureServer(fixtures, [revision], shape);
      await session.server.connect(session.transport);
      pending.add(session);
      return session;
    };

    const backend: StreamableHttpBackend = {
      entryPath: MCP_PATH,
      revisions: [revision],
      revision,
      async handle({ req, res, exchange, body }: HttpContext) {
        if (req.url?.split('?')[0] !== MCP_PATH) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('Not Found');
        // RFC 9110 §15.5.6: a method /mcp never serves gets 405 with or without a session id (the router would
        // otherwise 400 it for its missing id); the SDK transport's own answer, which only a live session reaches.
        if (!SERVED_METHODS.includes(req.method ?? '')) return sendJsonRpcError(res, 405, -32000, 'Method not allowed.', { allow: SERVED_METHODS.join(', ') });
        // The wire record already holds the header as sent; only the SDK is kept from judging it.
        if (!requiresProtocolVersionHeader(revision)) hideHeader(req, 'mcp-protocol-version');
        const sessionId = exchange.requestHeaders['mcp-session-id'];
        if (sessionId !== undefined) {
          const session = live.get(sessionId);
          if (!session) return sendJsonRpcError(res, 404, -32001, 'Session not found');
          return session.transport.handleNodeRequest(req, res, body);
        }
        if (req.method === 'POST' && containsMethod(body, 'initialize')) {
          const session = await newSession();
          await session.transport.handleNodeRequest(req, res, body);
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
      setRetryInterval(ms) {
        retryIntervalMs = ms;
      },
      answerWithJson() {
        enableJsonResponse = true;
      },
      serveToolsOnly() {
        shape = { toolsOnly: true };
      },
      eventStore: (sessionId) => live.get(sessionId)?.store,
    };
    return backend;
  };
}


/** Removes a request header before the SDK transport sees it (it reads `rawHeaders`). */
function hideHeader(req: IncomingMessage, name: string): void {
  delete req.headers[name];
  for (let i = req.rawHeaders.length - 2; i >= 0; i -= 2) {
    if (req.rawHeaders[i]!.toLowerCase() === name) req.rawHeaders.splice(i, 2);
  }
}
