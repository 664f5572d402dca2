// An adapter module to copy and change: it drives the official MCP TypeScript SDK v2 client (@modelcontextprotocol/client).
//
//   npx mcp-client-conformance run --adapter ./my-adapter.mts
//
// `.mts`: an ES module whatever your package.json says ("type": "module" or CommonJS), run by Node's type stripping
// (Node >= 22.19; rename it `.mjs` and drop the types for plain JavaScript). Replace the three marked places with your
// client's calls, the way its documentation shows a user. Guide: node_modules/mcp-client-conformance/clients/WRITING-AN-ADAPTER.md.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { ClientAdapter, ClientConnection, ToolResult } from 'mcp-client-conformance/adapter';

export const adapter: ClientAdapter = {
  name: 'my-client', // stable: used in test titles and baselines
  description: 'template: @modelcontextprotocol/client v2 over Streamable HTTP and stdio',
  revisions: ['2025-03-26', '2025-06-18', '2025-11-25'],
  // Only what your client really does through its public API (the guide lists every feature).
  features: ['mode-legacy', 'cancellation', 'request-timeout'],
  transports: ['http', 'stdio'],

  async start() {
    return {
      async connect(target, options): Promise<ClientConnection> {
        // (1) Create and connect your client the way your documentation shows. A stdio target is a command your
        // client launches: pass it, and its environment, as your users configure a local server.
        const client = new Client({ name: 'my-client', version: '1.0.0' });
        const http = typeof target === 'string' ? new StreamableHTTPClientTransport(new URL(target)) : undefined;
        const stdio = typeof target === 'string' ? undefined : new StdioClientTransport({ command: target.command, args: target.args, env: target.env, cwd: target.cwd, stderr: 'ignore' });
        await client.connect((http ?? stdio)!, { timeout: options.timeoutMs }); // the contract's connect timeout

        return {
          // (2) What your client says it negotiated: leave out what it cannot tell. Never send anything to answer.
          info: async () => ({ negotiatedVersion: client.getNegotiatedProtocolVersion(), era: 'legacy', sessionId: http?.sessionId }),
          listTools: async (operation = {}) =>
            (await client.listTools({}, { signal: operation.signal, timeout: operation.timeoutMs })).tools.map(({ name }) => ({ name })),
          callTool: async (name, args, operation = {}) =>
            (await client.callTool({ name, arguments: args }, { signal: operation.signal, timeout: operation.timeoutMs })) as ToolResult,
          // (3) Close the way your documentation says: here, end the session (HTTP), then close.
          async close() {
            await http?.terminateSession();
            await client.close();
          },
        };
      },
      async dispose() {},
    };
  },
};
