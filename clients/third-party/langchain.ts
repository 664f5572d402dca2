// LangChain.js MCP adapters (@langchain/mcp-adapters), used as its README shows: a `MultiServerMCPClient` with one
// server, `getTools()` for the LangChain tools, `tool.invoke(args, { signal, timeout })`, `close()`; tools are listed
// again with `loadMcpTools` on the client `getClient()` returns. Underneath is the official SDK v1 Client: Streamable
// HTTP that falls back to HTTP+SSE by itself (`automaticSSEFallback`, on by default), or HTTP+SSE only (`transport: "sse"`).
import { loadMcpTools, MultiServerMCPClient } from '@langchain/mcp-adapters';
import { STREAMABLE_REVISIONS } from '../../protocol/revisions.ts';
import { stateless, type ClientAdapter, type ToolResult } from '../adapter.ts';
import { installedLabel, readOptions, type ThirdPartyOptions } from './support.ts';

const PACKAGE = '@langchain/mcp-adapters';
/** The one server the client is configured with. */
const SERVER = 'conformance';
/** Every switch @langchain/core reads to send traces to LangSmith; each is on only when "true". */
const TRACING_SWITCHES = ['LANGSMITH_TRACING_V2', 'LANGCHAIN_TRACING_V2', 'LANGSMITH_TRACING', 'LANGCHAIN_TRACING'];

/** A tool's output as the tool returns it (text alone becomes a string), back in MCP content blocks. */
function toolResult(output: unknown): ToolResult {
  return { content: typeof output === 'string' ? [{ type: 'text', text: output }] : Array.isArray(output) ? output : [output] };
}

export default function langchainAdapter(options?: Partial<ThirdPartyOptions>): ClientAdapter {
  const { name, transport } = readOptions('langchain', options, ['streamable-http', 'sse']);
  // Nothing may leave the machine: LangChain's documented environment switches for LangSmith tracing.
  for (const key of TRACING_SWITCHES) process.env[key] = 'false';
  const http = transport === 'streamable-http';
  return {
    name,
    description: `${installedLabel(PACKAGE)} MultiServerMCPClient, ${http ? 'http (Streamable HTTP, automatic SSE fallback)' : 'sse (HTTP+SSE)'} over ${installedLabel('@modelcontextprotocol/sdk', PACKAGE)}`,
    // The fallback reaches HTTP+SSE (2024-11-05) servers from the Streamable HTTP configuration too.
    revisions: http ? ['2024-11-05', ...STREAMABLE_REVISIONS] : ['2024-11-05'],
    // A tool call takes an AbortSignal and a timeout (RunnableConfig), both handed to the SDK's request. No `resume`:
    // the client has no session option; and no `keep-session`: close() never ends a session, and none can be resumed.
    features: ['mode-legacy', 'cancellation', 'request-timeout', ...(http ? (['transport-fallback'] as const) : [])],
    start: stateless(async (url) => {
      const client = new MultiServerMCPClient({ mcpServers: { [SERVER]: { transport: http ? 'http' : 'sse', url } } });
      try {
        // Connects and loads the tools (initialize, then tools/list).
        await client.initializeConnections();
      } catch (error) {
        // As the README's try/finally does: a failed connect is closed by its owner.
        await client.close();
        throw error;
      }
      // getClient() hands out the SDK Client the server's tools run on (the README's way to reach the rest of MCP).
      const sdkClient = async () => {
        const found = await client.getClient(SERVER);
        if (found === undefined) throw new Error(`${SERVER} is not connected`);
        return found;
      };
      return {
        async info() {
          // What the SDK's Streamable HTTP transport tells (its HTTP+SSE transport keeps the version to itself).
          const { sessionId, protocolVersion } = ((await sdkClient()).transport ?? {}) as { sessionId?: string; protocolVersion?: string };
          return { negotiatedVersion: protocolVersion, sessionId };
        },
        // getTools() would serve the tools loaded at connect without asking again; loadMcpTools (the README's loader for
        // a client) lists them on the wire, on the same SDK Client and session.
        listTools: async () => (await loadMcpTools(SERVER, await sdkClient())).map(({ name: tool }) => ({ name: tool })),
        async callTool(tool, args, operation = {}) {
          const found = (await client.getTools(SERVER)).find((candidate) => candidate.name === tool);
          if (found === undefined) throw new Error(`${SERVER} has no tool named ${tool}`);
          const output: unknown = await found.invoke(args, { signal: operation.signal, ...(operation.timeoutMs !== undefined ? { timeout: operation.timeoutMs } : {}) });
          return toolResult(output);
        },
        close: () => client.close(),
      };
    }),
  };
}
