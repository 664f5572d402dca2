// A complete adapter to copy and change: it drives the official MCP TypeScript SDK v2 client.
// Replace the three marked places with your client's calls. Guide: clients/WRITING-AN-ADAPTER.md.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { ClientAdapter, ClientConnection, ToolResult } from '../adapter.ts'; // in your copy (e.g. adapters/my-adapter.ts): '../clients/adapter.ts'

export const adapter: ClientAdapter = {
  name: 'my-client',
  description: 'template: @modelcontextprotocol/client v2 in legacy mode',
  revisions: ['2025-03-26', '2025-06-18', '2025-11-25'],
  features: ['mode-legacy', 'cancellation', 'request-timeout'],

  async start() {
    return {
      async connect(url, options): Promise<ClientConnection> {
        // (1) Create and connect your client the way your documentation shows.
        const client = new Client({ name: 'my-client', version: '1.0.0' });
        const transport = new StreamableHTTPClientTransport(new URL(url));
        await client.connect(transport, { timeout: options.timeoutMs });

        return {
          // (2) What your client says it negotiated (leave a field out if your client cannot tell).
          info: async () => ({ negotiatedVersion: client.getNegotiatedProtocolVersion(), era: 'legacy', sessionId: transport.sessionId }),
          listTools: async (operation = {}) =>
            (await client.listTools({}, { signal: operation.signal, timeout: operation.timeoutMs })).tools.map(({ name }) => ({ name })),
          callTool: async (name, args, operation = {}) =>
            (await client.callTool({ name, arguments: args }, { signal: operation.signal, timeout: operation.timeoutMs })) as ToolResult,
          // (3) Close the way your documentation says to: here, end the session, then close.
          async close() {
            await transport.terminateSession();
            await client.close();
          },
        };
      },
      async dispose() {},
    };
  },
};
