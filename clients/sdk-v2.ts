// Official TypeScript SDK v2 (@modelcontextprotocol/client), Streamable HTTP, used as its documentation shows.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { ClientAdapter, ClientConnection, ToolResult } from './adapter.ts';

const CLIENT_INFO = { name: 'mcp-client-conformance', version: '0.1.0' };

/** v2 in its default `legacy` negotiation mode: the `initialize` handshake, no probe. */
export const sdkV2Legacy: ClientAdapter = {
  name: 'sdk-v2-legacy',
  description: "@modelcontextprotocol/client v2 Client, versionNegotiation { mode: 'legacy' } + StreamableHTTPClientTransport",
  revisions: ['2025-03-26', '2025-06-18', '2025-11-25'],
  features: ['streamable-http', 'cancellation'],
  async connect(url) {
    const client = new Client(CLIENT_INFO, { versionNegotiation: { mode: 'legacy' } });
    const transport = new StreamableHTTPClientTransport(new URL(url));
    await client.connect(transport);
    const connection: ClientConnection = {
      negotiatedVersion: () => client.getNegotiatedProtocolVersion(),
      sessionId: () => transport.sessionId,
      async listTools(options = {}) {
        const { tools } = await client.listTools({}, { signal: options.signal, timeout: options.timeoutMs });
        return tools.map(({ name }) => ({ name }));
      },
      async callTool(name, args, options = {}) {
        const result = await client.callTool({ name, arguments: args }, { signal: options.signal, timeout: options.timeoutMs });
        return result as ToolResult;
      },
      async close() {
        // The documented clean disconnect: end the server's session, then close the client.
        await transport.terminateSession();
        await client.close();
      },
    };
    return connection;
  },
};
