#!/usr/bin/env node
// The minimal MCP client the official harness runs in client mode (scripts/bench/harness.ts):
//   conformance client --command "exec <node> scripts/bench/harness-client.ts" --scenario <initialize | tools_call>
// The harness appends its server's URL as the last argument and names the scenario in MCP_CONFORMANCE_SCENARIO.
// Official SDK v1 Client over Streamable HTTP, as the sdk-v1 adapter drives it: connect, tools/list, and for
// tools_call the call the harness checks (add_numbers with two numbers), then close. Only the SDK's two modules,
// so its process costs what a real minimal client costs. On success it prints one JSON line of epoch times (ms) —
// process start, modules loaded, done — which the harness keeps in stdout.txt under `-o`; on any error, exit code 1.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const now = () => performance.timeOrigin + performance.now();
const readyAt = now();
const url = process.argv.at(-1);
const scenario = process.env.MCP_CONFORMANCE_SCENARIO;
try {
  if (!url?.startsWith('http')) throw new Error(`expected the server URL as the last argument, got ${String(url)}`);
  const client = new Client({ name: 'mcp-client-conformance-bench', version: '0.1.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  await client.listTools();
  if (scenario === 'tools_call') await client.callTool({ name: 'add_numbers', arguments: { a: 2, b: 3 } });
  await client.close();
  console.log(JSON.stringify({ startedAt: performance.timeOrigin, readyAt, doneAt: now() }));
} catch (error) {
  console.error(error);
  process.exitCode = 1;
}
