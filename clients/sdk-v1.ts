// Official TypeScript SDK v1 (@modelcontextprotocol/sdk), Streamable HTTP, used as its documentation shows.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { ClientAdapter, ClientConnection, ToolResult } from './adapter.ts';

const CLIENT_INFO = { name: 'mcp-client-conformance', version: '0.1.0' };

export const sdkV1StreamableHttp: ClientAdapter = {
  name: 'sdk-v1',
  description: '@modelcontextprotocol/sdk v1 Client + StreamableHTTPClientTransport',
  revisions: ['2025-03-26', '2025-06-18', '2025-11-25'],
  features: ['streamable-http', 'cancellation'],
  async connect(url) {
    const client = new Client(CLIENT_INFO);
    const transport = new StreamableHTTPClientTransport(new URL(url));
    await client.connect(transport);
    const connection: ClientConnection = {
      negotiatedVersion: () => transport.protocolVersion,
      sessionId: () => transport.sessionId,
      async listTools(options = {}) {
        const { tools } = await client.listTools({}, { signal: options.signal, timeout: options.timeoutMs });
        return tools.map(({ name }) => ({ name }));
      },
      async callTool(name, args, options = {}) {
        const result = await client.callTool({ name, arguments: args }, undefined, { signal: options.signal, timeout: options.timeoutMs });
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
