// LangChain.js MCP adapters (@langchain/mcp-adapters), used as its README shows: a `MultiServerMCPClient` with one
// server, `getTools()` for the LangChain tools, `tool.invoke(args, { signal, timeout })`, `close()`; tools are listed
// again with `loadMcpTools` on the client `getClient()` returns. Underneath is the official SDK v1 Client: Streamable
// HTTP that falls back to HTTP+SSE by itself (`automaticSSEFallback`, on by default), or HTTP+SSE only (`transport: "sse"`),
// or, from the Streamable HTTP row, a stdio server it launches (`transport: "stdio"`, the SDK's StdioClientTransport).
import { loadMcpTools, MultiServerMCPClient, type Connection } from '@langchain/mcp-adapters';
import { STREAMABLE_REVISIONS } from '../../protocol/revisions.ts';
import { isStdioTarget, stateless, type ClientAdapter, type ServerTarget, type ToolResult } from '../adapter.ts';
import { installedLabel, installedWraps, localServer, readOptions, type ThirdPartyOptions } from './support.ts';

const PACKAGE = '@langchain/mcp-adapters';
/** The one server the client is configured with. */
const SERVER = 'conformance';
/** Every switch @langchain/core reads to send traces to LangSmith; each is on only when "true". */
const TRACING_SWITCHES = ['LANGSMITH_TRACING_V2', 'LANGCHAIN_TRACING_V2', 'LANGSMITH_TRACING', 'LANGCHAIN_TRACING'];

/**
 * The one server's connection, as the README configures one. A stdio server: command, args, env (the client adds PATH,
 * the SDK its default environment), cwd; stderr `ignore`, a documented choice, so server logs stay out of the harness's
 * output (the default, `inherit`, would not); `restart` left off (its default), so a server that exits stays down. The
 * graces of the shutdown are the SDK's own (no option): shutdownGraceMs is not passed.
 */
function serverConfig(target: ServerTarget, http: boolean): Connection {
  if (isStdioTarget(target)) return { transport: 'stdio', ...localServer(target), stderr: 'ignore' };
  return { transport: http ? 'http' : 'sse', url: target };
}

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
    description: `${installedLabel(PACKAGE)} MultiServerMCPClient, ${http ? 'http (Streamable HTTP, automatic SSE fallback) or stdio' : 'sse (HTTP+SSE)'} over ${installedLabel('@modelcontextprotocol/sdk', PACKAGE)}`,
    // The fallback reaches HTTP+SSE (2024-11-05) servers from the Streamable HTTP configuration too; over stdio,
    // 2024-11-05 is the initialize handshake, which the SDK speaks.
    revisions: http ? ['2024-11-05', ...STREAMABLE_REVISIONS] : ['2024-11-05'],
    // A tool call takes an AbortSignal and a timeout (RunnableConfig), both handed to the SDK's request. No `resume`:
    // the client has no session option; and no `keep-session`: close() never ends a session, and none can be resumed.
    // The same over stdio: the signal and the timeout go to the SDK's request whatever the transport.
    features: ['mode-legacy', 'cancellation', 'request-timeout', ...(http ? (['transport-fallback'] as const) : [])],
    // The Streamable HTTP row also launches stdio servers; the HTTP+SSE row stays HTTP only, so no stdio cell is doubled.
    transports: http ? ['http', 'stdio'] : ['http'],
    // Its package.json depends on the SDK v1 (`dependencies`): the copy Node resolves for it is the one it runs on.
    wraps: installedWraps('@modelcontextprotocol/sdk', PACKAGE),
    start: stateless<ServerTarget>(async (target) => {
      const client = new MultiServerMCPClient({ mcpServers: { [SERVER]: serverConfig(target, http) } });
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
          // What the SDK's Streamable HTTP transport tells (its HTTP+SSE and stdio transports keep the version to themselves).
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
