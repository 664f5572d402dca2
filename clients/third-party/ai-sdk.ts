// Vercel AI SDK's MCP client (@ai-sdk/mcp), used as its documentation shows: `createMCPClient` with the `http`
// transport (Streamable HTTP; by default it probes `server/discover` first and falls back to `initialize`,
// `protocolVersionDiscovery: false` runs `initialize` only), or with the `sse` transport (HTTP+SSE, 2024-11-05), or,
// from the Streamable HTTP row, with a `StdioMCPTransport` from `@ai-sdk/mcp/mcp-stdio` (it launches the server).
import { createMCPClient, type MCPClientConfig } from '@ai-sdk/mcp';
import { StdioMCPTransport } from '@ai-sdk/mcp/mcp-stdio';
import { L, STREAMABLE_REVISIONS } from '../../protocol/revisions.ts';
import { isStdioTarget, stateless, type ClientAdapter, type ConnectOptions, type OperationOptions, type ServerTarget, type StdioTarget, type ToolResult } from '../adapter.ts';
import { installedLabel, localServer, readOptions, type ThirdPartyOptions } from './support.ts';

const PACKAGE = '@ai-sdk/mcp';

const requestOptions = ({ signal, timeoutMs }: OperationOptions = {}) => ({ signal, timeout: timeoutMs });

/**
 * Session hooks are the `http` transport's only: `terminateSessionOnClose: false` detaches at close (no DELETE), and
 * `onSessionIdChange` is how the client tells the application its session id.
 */
function transportConfig(url: string, transport: 'http' | 'sse', options: ConnectOptions, onSessionIdChange: (id: string | undefined) => void): MCPClientConfig['transport'] {
  if (transport === 'sse') return { type: 'sse', url };
  return { type: 'http', url, terminateSessionOnClose: !options.keepSessionOnClose, onSessionIdChange };
}

/**
 * The stdio transport, as a host configures a local server: command, args, env (merged onto the client's default
 * environment), cwd; stderr `ignore`, one of its documented choices, so server logs stay out of the harness's output
 * (the default, `inherit`, would not). It has no shutdown graces to pass: its close aborts the spawn (SIGTERM). Over
 * stdio the probe waits a fixed 1 s for `server/discover` on the same process before it falls back to `initialize`.
 */
function stdioTransport(target: StdioTarget): StdioMCPTransport {
  return new StdioMCPTransport({ ...localServer(target), stderr: 'ignore' });
}

export default function aiSdkAdapter(options?: Partial<ThirdPartyOptions>): ClientAdapter {
  const { name, transport } = readOptions('ai-sdk', options, ['streamable-http', 'sse']);
  const http = transport === 'streamable-http';
  return {
    name,
    description: `${installedLabel(PACKAGE)} createMCPClient, ${http ? 'http transport (Streamable HTTP) or StdioMCPTransport (stdio)' : 'sse transport (HTTP+SSE)'}`,
    // `http` offers 2026-07-28 to `server/discover` and accepts 2025-03-26 … 2025-11-25 from `initialize`; over stdio,
    // which has no HTTP era, its `initialize` accepts 2024-11-05 too.
    revisions: http ? [...STREAMABLE_REVISIONS, '2026-07-28'] : ['2024-11-05'],
    ...(http ? { stdioRevisions: [...L, '2026-07-28'] as const } : {}),
    // No `resume`: reattaching without a new initialize needs `initialInitializeResult` (the earlier session's whole
    // InitializeResult) besides `initialSessionId` and `initialProtocolVersion`; a session id and a version cannot.
    // Over stdio too: the negotiation switch, the AbortSignal and the timeout are the client's, not the transport's.
    features: http ? ['mode-legacy', 'mode-auto', 'keep-session', 'cancellation', 'request-timeout'] : ['mode-legacy', 'cancellation', 'request-timeout'],
    // The Streamable HTTP row also launches stdio servers; the HTTP+SSE row stays HTTP only, so no stdio cell is doubled.
    transports: http ? ['http', 'stdio'] : ['http'],
    start: stateless<ServerTarget>(async (target, connectOptions) => {
      let sessionId: string | undefined;
      const client = await createMCPClient({
        transport: isStdioTarget(target) ? stdioTransport(target) : transportConfig(target, http ? 'http' : 'sse', connectOptions, (id) => (sessionId = id)),
        // The `http` and stdio transports probe; `legacy` turns the probe off.
        protocolVersionDiscovery: connectOptions.negotiation !== 'legacy',
        initializationOptions: { timeout: connectOptions.timeoutMs },
      });
      return {
        // The client exposes the InitializeResult it uses (from `initialize`, or built from `server/discover`), not its era.
        info: async () => ({ negotiatedVersion: client.initializeResult.protocolVersion, sessionId }),
        async listTools(operation) {
          const { tools } = await client.listTools({ options: requestOptions(operation) });
          return tools.map(({ name: tool }) => ({ name: tool }));
        },
        callTool: async (tool, args, operation) => (await client.callTool({ name: tool, arguments: args, options: requestOptions(operation) })) as ToolResult,
        // The documented close: with the `http` transport it DELETEs the session unless told to detach; over stdio it
        // ends the process it launched.
        close: () => client.close(),
      };
    }),
  };
}
