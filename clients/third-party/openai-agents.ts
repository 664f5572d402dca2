// OpenAI Agents SDK's MCP servers (@openai/agents-core), used as its documentation shows: `MCPServerStreamableHttp`
// (the official SDK v2 Client in `auto` negotiation: it probes `server/discover`, falls back to `initialize`) or
// `MCPServerSSE` (the v2 Client over HTTP+SSE, `initialize` only), or, from the Streamable HTTP row, `MCPServerStdio`
// (the v2 Client in `auto` over its StdioClientTransport: it launches the server, and probes on a sibling process);
// `connect()`, `listTools()`, `callToolResult()`, `close()`.
import { getLogger, MCPServerSSE, MCPServerStdio, MCPServerStreamableHttp, setTracingDisabled } from '@openai/agents-core';
import { L, STREAMABLE_REVISIONS } from '../../protocol/revisions.ts';
import { isStdioTarget, stateless, type ClientAdapter, type ServerTarget, type ToolResult } from '../adapter.ts';
import { installedLabel, installedWraps, localServer, readOptions, type ThirdPartyOptions } from './support.ts';

const PACKAGE = '@openai/agents-core';

/** The SDK's logger with its errors and warnings on its debug channel (DEBUG=openai-agents:*), not the console: the verdicts say what went wrong. */
function debugOnlyLogger(): ReturnType<typeof getLogger> {
  const logger = getLogger('openai-agents:mcp');
  return { ...logger, error: logger.debug, warn: logger.debug };
}

export default function openAiAgentsAdapter(options?: Partial<ThirdPartyOptions>): ClientAdapter {
  const { name, transport } = readOptions('openai-agents', options, ['streamable-http', 'sse']);
  // Nothing may leave the machine: the SDK's documented switch for trace export.
  setTracingDisabled(true);
  const http = transport === 'streamable-http';
  return {
    name,
    description: `${installedLabel(PACKAGE)} ${http ? 'MCPServerStreamableHttp or MCPServerStdio' : 'MCPServerSSE'} over ${installedLabel('@modelcontextprotocol/client', PACKAGE)}`,
    revisions: http ? [...STREAMABLE_REVISIONS, '2026-07-28'] : ['2024-11-05'],
    // Over stdio, which has no HTTP era, the SDK's `initialize` accepts 2024-11-05 too.
    ...(http ? { stdioRevisions: [...L, '2026-07-28'] as const } : {}),
    // Negotiation is fixed: `auto` for Streamable HTTP, `initialize` for HTTP+SSE. The per-call AbortSignal reaches the
    // v2 Client's request; its timeouts are per server (`timeout`, `clientSessionTimeoutSeconds`), not per call. No
    // `resume` or `keep-session`: the `sessionId` option takes no negotiated version and close() always ends the session.
    // The same over stdio (MCPServerStdio has the same `auto` Client, signal and per-server timeouts).
    features: [http ? 'mode-auto' : 'mode-legacy', 'cancellation'],
    // The Streamable HTTP row also launches stdio servers; the HTTP+SSE row stays HTTP only, so no stdio cell is doubled.
    transports: http ? ['http', 'stdio'] : ['http'],
    // Its package.json names the SDK v2 client (`optionalDependencies`, the one its MCP servers load): the copy Node resolves for it.
    wraps: installedWraps('@modelcontextprotocol/client', PACKAGE),
    start: stateless<ServerTarget>(async (target, connectOptions) => {
      // clientSessionTimeoutSeconds bounds the connect (and each list); tools keep the SDK's own call timeout.
      const common = { clientSessionTimeoutSeconds: connectOptions.timeoutMs / 1_000, logger: debugOnlyLogger() };
      // A stdio server as the docs configure one: command, args, env (merged onto the SDK's default environment), cwd.
      // MCPServerStdio takes no stderr option, so the server's stderr is the SDK's default, inherited (the harness's
      // output), and no shutdown graces: the SDK's own.
      const server = isStdioTarget(target)
        ? new MCPServerStdio({ ...localServer(target), ...common })
        : http
          ? new MCPServerStreamableHttp({ url: target, ...common })
          : new MCPServerSSE({ url: target, ...common });
      await server.connect();
      return {
        // The Streamable HTTP server exposes its session id, and neither exposes the negotiated version or era.
        info: async () => ({ sessionId: server instanceof MCPServerStreamableHttp ? server.sessionId : undefined }),
        listTools: async () => (await server.listTools()).map(({ name: tool }) => ({ name: tool })),
        callTool: async (tool, args, operation = {}) => (await server.callToolResult(tool, args, null, { signal: operation.signal })) as ToolResult,
        close: () => server.close(),
      };
    }),
  };
}
