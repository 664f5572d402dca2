// Official TypeScript SDK v2 (@modelcontextprotocol/client), used as its documentation shows, one adapter
// per negotiation mode: `legacy` (the default: `initialize` only), `auto` (probe `server/discover`, fall back
// to `initialize`) and pinned to 2026-07-28.
import { Client, StreamableHTTPClientTransport, type VersionNegotiationOptions } from '@modelcontextprotocol/client';
import { stateless, type ClientAdapter, type ClientConnection, type Feature, type OperationOptions, type ToolResult } from './adapter.ts';
import type { Revision } from '../servers/revisions.ts';

const CLIENT_INFO = { name: 'mcp-client-conformance', version: '0.1.0' };

function sdkV2Adapter(name: string, mode: VersionNegotiationOptions, revisions: readonly Revision[], modeFeature: Feature, legacySessions: boolean): ClientAdapter {
  const features: Feature[] = [modeFeature, 'cancellation', 'request-timeout'];
  if (legacySessions) features.push('resume', 'keep-session');
  return {
    name,
    description: `@modelcontextprotocol/client v2 Client, versionNegotiation ${JSON.stringify(mode)} + StreamableHTTPClientTransport`,
    revisions,
    features,
    start: stateless(async (url, options) => {
      const client = new Client(CLIENT_INFO, { versionNegotiation: mode });
      // The documented resume: the preserved session id and the version negotiated when it began.
      const transport = new StreamableHTTPClientTransport(new URL(url), options.resume ? { sessionId: options.resume.sessionId, protocolVersion: options.resume.protocolVersion } : {});
      await client.connect(transport, { timeout: options.timeoutMs });
      const requestOptions = (operation: OperationOptions = {}) => ({ signal: operation.signal, timeout: operation.timeoutMs });
      const connection: ClientConnection = {
        async info() {
          const negotiatedVersion = client.getNegotiatedProtocolVersion();
          const sessionId = transport.sessionId;
          return {
            negotiatedVersion,
            era: client.getProtocolEra(),
            sessionId,
            resumeState: negotiatedVersion ? { protocolVersion: negotiatedVersion, sessionId } : undefined,
          };
        },
        async listTools(operation) {
          const { tools } = await client.listTools({}, requestOptions(operation));
          return tools.map(({ name }) => ({ name }));
        },
        async callTool(name, args, operation) {
          return (await client.callTool({ name, arguments: args }, requestOptions(operation))) as ToolResult;
        },
        async close() {
          // The documented clean disconnect: end the server's session (a no-op when none was issued), then close.
          if (!options.keepSessionOnClose) await transport.terminateSession();
          await client.close();
        },
      };
      return connection;
    }),
  };
}

const LEGACY: Revision[] = ['2025-03-26', '2025-06-18', '2025-11-25'];

export const sdkV2Legacy = sdkV2Adapter('sdk-v2-legacy', { mode: 'legacy' }, LEGACY, 'mode-legacy', true);
export const sdkV2Auto = sdkV2Adapter('sdk-v2-auto', { mode: 'auto' }, [...LEGACY, '2026-07-28'], 'mode-auto', true);
export const sdkV2Pinned = sdkV2Adapter('sdk-v2-pinned', { mode: { pin: '2026-07-28' } }, ['2026-07-28'], 'mode-pin', false);
