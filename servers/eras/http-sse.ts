// 2024-11-05 HTTP+SSE: a GET stream whose first event names the URL to POST messages to.
// Built on the official SDK v1 SSEServerTransport (v2 does not ship it); the session router around
// it is ours and answers as the SDK example `simpleSseServer` does.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { InitializeRequestSchema, type ServerCapabilities } from '@modelcontextprotocol/sdk/types.js';
import type { ServerResponse } from 'node:http';
import * as z from 'zod';
import type { EraBackend, EraFactory } from '../era.ts';
import { FIXTURE_TOOLS, type FixtureState, type ToolRun } from '../fixtures.ts';
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

    const openStream = async (res: ServerResponse) => {
      // The transport writes the 200 head and the `endpoint` event when the server connects it.
      const transport = new SSEServerTransport(MESSAGES_PATH, res);
      const session: Session = { id: transport.sessionId, transport, server: createV1FixtureServer(fixtures) };
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
      async handle({ req, res, exchange, body }: HttpContext) {
        const url = new URL(req.url ?? '/', 'http://localhost');
        if (req.method === 'GET' && url.pathname === SSE_PATH) return openStream(res);
        if (req.method === 'POST' && url.pathname === MESSAGES_PATH) {
          const sessionId = url.searchParams.get('sessionId');
          if (!sessionId) return sendText(res, 400, 'Missing sessionId parameter');
          const session = live.get(sessionId);
          if (!session) return sendText(res, 404, 'Session not found');
          // The record has read the body already: hand over the parsed JSON, or the raw text so the
          // transport gives its own answer to a body that is not JSON (400 `Invalid message: …`).
          try {
            await session.transport.handlePostMessage(req, res, body ?? exchange.requestBody);
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
      async close() {
        await backend.expireSession();
      },
    };
    return backend;
  };
}

// --- The fixture tools on a v1 McpServer ---
// DUPLICATED from servers/fixtures.ts (which builds them on the v2 McpServer): same names, schemas,
// annotations and behaviour, recording into the same FixtureState. Unify when fixtures.ts settles.

const SLOW_DEFAULT_MS = 30_000;
const SERVER_INFO = { name: 'mcp-client-conformance-reference', version: '0.1.0' };
const CAPABILITIES: ServerCapabilities = { tools: { listChanged: true } };

/** A fresh v1 McpServer (one per stream) with the fixture tools, answering 2024-11-05 to any initialize. */
export function createV1FixtureServer(state: FixtureState): McpServer {
  const server = new McpServer(SERVER_INFO, { capabilities: CAPABILITIES });
  // v1 has no option to pin the revision: its own initialize handler echoes any version it knows
  // (up to 2025-11-25). A 2024-11-05 server knows only 2024-11-05, so it answers that to everyone.
  // setRequestHandler replaces the SDK's handler (documented: "this will replace any previous handler").
  server.server.setRequestHandler(InitializeRequestSchema, () => ({
    protocolVersion: REVISION,
    capabilities: CAPABILITIES,
    serverInfo: SERVER_INFO,
  }));

  const start = (tool: string, requestId: string | number): ToolRun => {
    const run: ToolRun = { tool, requestId };
    state.runs.push(run);
    return run;
  };

  server.registerTool(
    FIXTURE_TOOLS.echo,
    { description: 'Echoes its text argument.', inputSchema: z.object({ text: z.string().default('') }) },
    async ({ text }, extra) => {
      const run = start(FIXTURE_TOOLS.echo, extra.requestId);
      run.finishedAt = performance.now();
      return { content: [{ type: 'text', text }] };
    },
  );

  server.registerTool(
    FIXTURE_TOOLS.slow,
    {
      description: 'Waits until aborted or until ms milliseconds pass; reports which.',
      inputSchema: z.object({ ms: z.number().int().min(0).max(120_000).default(SLOW_DEFAULT_MS) }),
    },
    async ({ ms }, extra) => {
      const run = start(FIXTURE_TOOLS.slow, extra.requestId);
      const signal = extra.signal;
      const aborted = await new Promise<boolean>((resolve) => {
        if (signal.aborted) return resolve(true);
        const timer = setTimeout(() => {
          signal.removeEventListener('abort', onAbort);
          resolve(false);
        }, ms);
        const onAbort = () => {
          clearTimeout(timer);
          resolve(true);
        };
        signal.addEventListener('abort', onAbort, { once: true });
      });
      if (aborted) run.abortedAt = performance.now();
      run.finishedAt = performance.now();
      return { content: [{ type: 'text', text: aborted ? 'aborted' : 'completed' }] };
    },
  );

  server.registerTool(
    FIXTURE_TOOLS.count,
    { description: 'Counts its executions. Not idempotent.', inputSchema: z.object({}) },
    async (_args, extra) => {
      const run = start(FIXTURE_TOOLS.count, extra.requestId);
      run.finishedAt = performance.now();
      return { content: [{ type: 'text', text: String(state.runsOf(FIXTURE_TOOLS.count)) }] };
    },
  );

  server.registerTool(
    FIXTURE_TOOLS.idempotentCount,
    {
      description: 'Counts its executions. Idempotent.',
      inputSchema: z.object({}),
      annotations: { idempotentHint: true },
    },
    async (_args, extra) => {
      const run = start(FIXTURE_TOOLS.idempotentCount, extra.requestId);
      run.finishedAt = performance.now();
      return { content: [{ type: 'text', text: String(state.runsOf(FIXTURE_TOOLS.idempotentCount)) }] };
    },
  );

  return server;
}
