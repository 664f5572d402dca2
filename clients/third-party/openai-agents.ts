// OpenAI Agents SDK's MCP servers (@openai/agents-core), used as its documentation shows: `MCPServerStreamableHttp`
// (the official SDK v2 Client in `auto` negotiation: it probes `server/discover`, falls back to `initialize`) or
// `MCPServerSSE` (the v2 Client over HTTP+SSE, `initialize` only); `connect()`, `listTools()`, `callToolResult()`,
// `close()`.
import { getLogger, MCPServerSSE, MCPServerStreamableHttp, setTracingDisabled } from '@openai/agents-core';
import { STREAMABLE_REVISIONS } from '../../protocol/revisions.ts';
import { stateless, type ClientAdapter, type ToolResult } from '../adapter.ts';
import { installedLabel, readOptions, type ThirdPartyOptions } from './support.ts';

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
    description: `${installedLabel(PACKAGE)} ${http ? 'MCPServerStreamableHttp' : 'MCPServerSSE'} over ${installedLabel('@modelcontextprotocol/client', PACKAGE)}`,
    revisions: http ? [...STREAMABLE_REVISIONS, '2026-07-28'] : ['2024-11-05'],
    // Negotiation is fixed: `auto` for Streamable HTTP, `initialize` for HTTP+SSE. The per-call AbortSignal reaches the
    // v2 Client's request; its timeouts are per server (`timeout`, `clientSessionTimeoutSeconds`), not per call. No
    // `resume` or `keep-session`: the `sessionId` option takes no negotiated version and close() always ends the session.
    features: [http ? 'mode-auto' : 'mode-legacy', 'cancellation'],
    start: stateless(async (url, connectOptions) => {
      // clientSessionTimeoutSeconds bounds the connect (and each list); tools keep the SDK's own call timeout.
      const serverOptions = { url, clientSessionTimeoutSeconds: connectOptions.timeoutMs / 1_000, logger: debugOnlyLogger() };
      const server = http ? new MCPServerStreamableHttp(serverOptions) : new MCPServerSSE(serverOptions);
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
