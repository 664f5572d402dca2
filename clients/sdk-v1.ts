// Official TypeScript SDK v1 (@modelcontextprotocol/sdk), used as its documentation shows:
// Streamable HTTP (2025-03-26 … 2025-11-25) and, as its own adapter, HTTP+SSE (2024-11-05).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { stateless, type ClientAdapter, type ClientConnection, type OperationOptions, type ToolResult } from './adapter.ts';

const CLIENT_INFO = { name: 'mcp-client-conformance', version: '0.1.0' };

/** The operations both transports share: the v1 Client's own calls. */
function operations(client: Client): Pick<ClientConnection, 'listTools' | 'callTool'> {
  const requestOptions = (options: OperationOptions = {}) => ({ signal: options.signal, timeout: options.timeoutMs });
  return {
    async listTools(options) {
      const { tools } = await client.listTools({}, requestOptions(options));
      return tools.map(({ name }) => ({ name }));
    },
    async callTool(name, args, options) {
      return (await client.callTool({ name, arguments: args }, undefined, requestOptions(options))) as ToolResult;
    },
  };
}

export const sdkV1StreamableHttp: ClientAdapter = {
  name: 'sdk-v1',
  description: '@modelcontextprotocol/sdk v1 Client + StreamableHTTPClientTransport',
  revisions: ['2025-03-26', '2025-06-18', '2025-11-25'],
  features: ['mode-legacy', 'resume', 'keep-session', 'cancellation', 'request-timeout'],
  start: stateless(async (url, options) => {
    const client = new Client(CLIENT_INFO);
    // v1 resumes with the `sessionId` transport option (connect then skips `initialize`); it has no option
    // for the negotiated version.
    const transport = new StreamableHTTPClientTransport(new URL(url), options.resume?.sessionId ? { sessionId: options.resume.sessionId } : {});
    await client.connect(transport, { timeout: options.timeoutMs });
    return {
      async info() {
        const protocolVersion = transport.protocolVersion;
        const sessionId = transport.sessionId;
        return { negotiatedVersion: protocolVersion, era: 'legacy', sessionId, resumeState: protocolVersion ? { protocolVersion, sessionId } : undefined };
      },
      ...operations(client),
      async close() {
        // The documented clean disconnect: end the server's session, then close the client.
        if (!options.keepSessionOnClose) await transport.terminateSession();
        await client.close();
      },
    };
  }),
};

export const sdkV1Sse: ClientAdapter = {
  name: 'sdk-v1-sse',
  description: '@modelcontextprotocol/sdk v1 Client + SSEClientTransport (HTTP+SSE)',
  revisions: ['2024-11-05'],
  features: ['mode-legacy', 'cancellation', 'request-timeout'],
  start: stateless(async (url, options) => {
    const client = new Client(CLIENT_INFO);
    const transport = new SSEClientTransport(new URL(url));
    await client.connect(transport, { timeout: options.timeoutMs });
    return {
      // v1 exposes no negotiated version for HTTP+SSE (the transport keeps it privately): report none.
      info: async () => ({ era: 'legacy' }),
      ...operations(client),
      close: () => client.close(),
    };
  }),
};
