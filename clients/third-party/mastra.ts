// Mastra's MCP client (@mastra/mcp 2.x `MCPClient`), used as its documentation shows. Its 2.0 client wraps the
// official SDK v2 Client and maps the per-server `protocolVersion` option onto the SDK's negotiation modes: omitted
// probes with `server/discover` and falls back to `initialize` (auto), `'legacy'` skips the probe, `'2026-07-28'`
// pins the modern revision. It has no HTTP+SSE fallback (removed in 2.0), no session resume (the `sessionId` option
// is gone) and one request timeout per server, fixed when the client is built. A server with a `command` instead of a
// `url` is launched over stdio (the SDK's StdioClientTransport), with the same `protocolVersion` modes.
import { randomUUID } from 'node:crypto';
import type { MastraMCPServerDefinition, MCPClientProtocolVersion, SerializableMCPToolDefinition } from '@mastra/mcp';
import { L, STREAMABLE_REVISIONS } from '../../protocol/revisions.ts';
import { isStdioTarget, stateless, type ClientAdapter, type ConnectOptions, type Negotiation, type ServerTarget, type ToolResult } from '../adapter.ts';
import { installedLabel, installedWraps, localServer, readOptions, type ThirdPartyOptions } from './support.ts';

const PACKAGE = '@mastra/mcp';
/** The one server each MCPClient is configured with; tools are namespaced under it. */
const SERVER = 'conformance';

/** Mastra's `protocolVersion` option for a negotiation mode (undefined: the default, which probes). */
function protocolVersionFor(negotiation: Negotiation | undefined): MCPClientProtocolVersion | undefined {
  if (negotiation === undefined || negotiation === 'auto') return undefined;
  if (negotiation === 'legacy') return 'legacy';
  if (negotiation.pin === '2026-07-28') return '2026-07-28';
  throw new Error(`${PACKAGE} pins only 2026-07-28, not ${negotiation.pin}`);
}

/**
 * The one server's definition. Over HTTP its `connectTimeout` bounds the connect. A stdio server (command, args, env
 * merged onto the SDK's default environment, `inheritDefaultEnv` left at its default, cwd; stderr `ignore`, a
 * documented choice that keeps server logs out of the harness's output) has no connect bound of its own: its connect
 * is bounded by `timeout`, which also bounds every request, so the connect's bound is not passed (the calls the
 * scenarios hold run longer than it) and the connect keeps the client's default. Its shutdown graces are the SDK's.
 */
function serverDefinition(target: ServerTarget, options: ConnectOptions): MastraMCPServerDefinition {
  const protocolVersion = protocolVersionFor(options.negotiation);
  const mode = protocolVersion ? { protocolVersion } : {};
  if (isStdioTarget(target)) return { ...localServer(target), stderr: 'ignore', ...mode };
  return { url: new URL(target), connectTimeout: options.timeoutMs, ...mode };
}

/**
 * A tool definition for `toolFromDefinition`, the documented way to get an executable tool without listing the
 * catalogue first (definitions are plain JSON, meant to be cached): so a call puts only `tools/call` on the wire.
 */
function definitionOf(name: string): SerializableMCPToolDefinition {
  return { name, inputSchema: { type: 'object' }, server: { name: SERVER } };
}

export default async function mastraAdapter(options?: Partial<ThirdPartyOptions>): Promise<ClientAdapter> {
  // Streamable HTTP (2.0 dropped the HTTP+SSE fallback), and stdio.
  const { name } = readOptions('mastra', options, ['streamable-http']);
  // @mastra/core's documented switch for its PostHog telemetry, set before the package loads.
  process.env.MASTRA_TELEMETRY_DISABLED = 'true';
  const [{ MCPClient }, { noopObserve }] = await Promise.all([import('@mastra/mcp'), import('@mastra/core/tools')]);
  return {
    name,
    description: `${installedLabel(PACKAGE)} MCPClient (Streamable HTTP or stdio; protocolVersion omitted = auto, 'legacy', '2026-07-28'), over ${installedLabel('@modelcontextprotocol/client', PACKAGE)}`,
    revisions: [...STREAMABLE_REVISIONS, '2026-07-28'],
    // Over stdio, which has no HTTP era, the SDK's `initialize` accepts 2024-11-05 too.
    stdioRevisions: [...L, '2026-07-28'],
    // The modes and the AbortSignal are the client's over either transport.
    features: ['mode-legacy', 'mode-auto', 'mode-pin', 'cancellation'],
    transports: ['http', 'stdio'],
    // Its package.json pins the SDK v2 client (`dependencies`, an exact version): the copy Node resolves for it.
    wraps: installedWraps('@modelcontextprotocol/client', PACKAGE),
    start: stateless<ServerTarget>(async (target, connectOptions) => {
      // A fresh id per connection: MCPClient refuses two live instances with the same configuration and no id.
      const mcp = new MCPClient({ id: randomUUID(), servers: { [SERVER]: serverDefinition(target, connectOptions) } });
      try {
        // MCPClient connects lazily; reconnectServer is its documented way to connect a server that never was.
        await mcp.reconnectServer(SERVER);
      } catch (error) {
        await mcp.disconnect().catch(() => {});
        throw error;
      }
      return {
        // Mastra reports the negotiated revision per server; it exposes no era, session id or resume state.
        info: async () => ({ negotiatedVersion: mcp.getServerProtocolVersions()[SERVER] }),
        async listTools() {
          // listToolsets reports a failing server in `errors` instead of throwing: surface it as the failure it is.
          const { toolsets, errors } = await mcp.listToolsetsWithErrors();
          if (errors[SERVER] !== undefined) throw new Error(errors[SERVER]);
          return Object.keys(toolsets[SERVER] ?? {}).map((name) => ({ name }));
        },
        async callTool(name, args, operation = {}) {
          const tool = await mcp.toolFromDefinition({ serverName: SERVER, definition: definitionOf(name) });
          // The documented execution context carries the AbortSignal, which Mastra hands to the SDK's callTool;
          // `observe` is core's own no-op, the default outside an agent run.
          return (await tool.execute!(args, { abortSignal: operation.signal, observe: noopObserve })) as ToolResult;
        },
        // The documented teardown; it closes the transport (no DELETE; over stdio the SDK's shutdown of the process)
        // and is safe to call twice.
        close: () => mcp.disconnect(),
      };
    }),
  };
}
