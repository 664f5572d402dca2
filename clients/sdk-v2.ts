// Official TypeScript SDK v2 (@modelcontextprotocol/client), used as its documentation shows, one adapter
// per negotiation mode: `legacy` (the default: `initialize` only), `auto` (probe `server/discover`, fall back
// to `initialize`) and pinned to 2026-07-28; over Streamable HTTP, or over stdio (StdioClientTransport from
// `@modelcontextprotocol/client/stdio`: it launches the server; in auto mode the SDK probes on a sibling process).
// One builder serves every installed version: the built-in adapters apply it to the statically imported root
// package, the default export (the compatibility matrix's factory) to any version imported by package name.
import * as rootClient from '@modelcontextprotocol/client';
import type { VersionNegotiationOptions } from '@modelcontextprotocol/client';
import * as rootStdio from '@modelcontextprotocol/client/stdio';
import { STREAMABLE_REVISIONS, type Revision } from '../protocol/revisions.ts';
import { isStdioTarget, stateless, type ClientAdapter, type ClientConnection, type Feature, type OperationOptions, type ServerTarget, type ToolResult } from './adapter.ts';
import { afterAuthorization, HeadlessOAuthProvider } from './sdk-oauth.ts';
import { CLIENT_INFO, installedSdk } from './sdk-v1.ts';

/** One installed version's root module, typed as the root package's. */
type SdkV2Module = typeof rootClient;
/** Its `./stdio` entry. */
type SdkV2Stdio = typeof rootStdio;

const V2_MODES = ['legacy', 'auto', 'pinned'] as const;
export type SdkV2Mode = (typeof V2_MODES)[number];

/** The revision a pin targets: the first (and so far only) modern one. */
const MODERN: Revision = '2026-07-28';

const NEGOTIATION: Record<SdkV2Mode, { negotiation: VersionNegotiationOptions; feature: Feature; legacy: boolean; modern: boolean }> = {
  legacy: { negotiation: { mode: 'legacy' }, feature: 'mode-legacy', legacy: true, modern: false },
  auto: { negotiation: { mode: 'auto' }, feature: 'mode-auto', legacy: true, modern: true },
  pinned: { negotiation: { mode: { pin: MODERN } }, feature: 'mode-pin', legacy: false, modern: true },
};

function sdkV2Adapter(name: string, label: string, sdk: SdkV2Module, stdio: SdkV2Stdio, mode: SdkV2Mode): ClientAdapter {
  const { Client, StreamableHTTPClientTransport, SUPPORTED_PROTOCOL_VERSIONS, UnauthorizedError } = sdk;
  const { negotiation, feature, legacy, modern } = NEGOTIATION[mode];
  // The same handlers answer the legacy eras' server requests and 2026-07-28's multi-round-trip inputs (its driver).
  const features: Feature[] = [feature, 'cancellation', 'request-timeout', 'roots', 'sampling', 'elicitation'];
  // OAuth: an authProvider option on the transport and finishAuth for the interactive flow's callback.
  const oauthFeature = typeof UnauthorizedError === 'function' && 'finishAuth' in StreamableHTTPClientTransport.prototype;
  if (oauthFeature) features.push('oauth');
  // Sessions (and so resume and keeping one at close) exist only in the legacy era.
  if (legacy) features.push('resume', 'keep-session');
  const revisions: Revision[] = [...(legacy ? STREAMABLE_REVISIONS.filter((revision) => SUPPORTED_PROTOCOL_VERSIONS.includes(revision)) : []), ...(modern ? [MODERN] : [])];
  return {
    name,
    description: `${label} Client, versionNegotiation ${JSON.stringify(negotiation)} + StreamableHTTPClientTransport or StdioClientTransport`,
    revisions,
    features,
    transports: ['http', 'stdio'],
    start: stateless<ServerTarget>(async (target, options) => {
      // The handlers it is given, as the documentation shows: each capability declared, its handler registered.
      const { roots, sampling, elicitation } = options.handlers ?? {};
      const capabilities = { ...(roots ? { roots: {} } : {}), ...(sampling ? { sampling: {} } : {}), ...(elicitation ? { elicitation: {} } : {}) };
      const client = new Client(CLIENT_INFO, { versionNegotiation: negotiation, capabilities });
      if (roots) client.setRequestHandler('roots/list', async () => ({ roots }));
      if (sampling) client.setRequestHandler('sampling/createMessage', async () => sampling);
      if (elicitation) client.setRequestHandler('elicitation/create', async () => elicitation);
      const requestOptions = (operation: OperationOptions = {}) => ({ signal: operation.signal, timeout: operation.timeoutMs });
      const operations: Pick<ClientConnection, 'listTools' | 'callTool'> = {
        async listTools(operation) {
          const { tools } = await client.listTools({}, requestOptions(operation));
          return tools.map(({ name }) => ({ name }));
        },
        async callTool(name, args, operation) {
          return (await client.callTool({ name, arguments: args }, requestOptions(operation))) as ToolResult;
        },
      };
      if (isStdioTarget(target)) {
        // As a host configures a local server; stderr `ignore` (a documented choice; the default would write the
        // server's logs into the harness's output). The spawn, the framing and the shutdown are the SDK's.
        const transport = new stdio.StdioClientTransport({
          command: target.command,
          args: target.args,
          ...(target.env !== undefined ? { env: target.env } : {}),
          ...(target.cwd !== undefined ? { cwd: target.cwd } : {}),
          stderr: 'ignore',
        });
        await client.connect(transport, { timeout: options.timeoutMs });
        return {
          info: async () => ({ negotiatedVersion: client.getNegotiatedProtocolVersion(), era: client.getProtocolEra() }),
          ...operations,
          close: () => client.close(),
        };
      }
      const oauth = oauthFeature && options.authorization ? new HeadlessOAuthProvider(options.authorization, CLIENT_INFO.name) : undefined;
      // The documented resume: the preserved session id and the version negotiated when it began.
      const transportOptions = {
        ...(options.resume ? { sessionId: options.resume.sessionId, protocolVersion: options.resume.protocolVersion } : {}),
        ...(oauth ? { authProvider: oauth as rootClient.OAuthClientProvider } : {}),
      };
      let transport = new StreamableHTTPClientTransport(new URL(target), transportOptions);
      try {
        await client.connect(transport, { timeout: options.timeoutMs });
      } catch (error) {
        // The documented interactive flow (StreamableHTTPClientTransportOptions.authProvider): after UnauthorizedError
        // the user authorizes, finishAuth gets the callback's parameters (the SDK checks its iss), and the client
        // connects again. Everything after it is the SDK's own.
        if (oauth === undefined || !oauth.redirected || !(error instanceof UnauthorizedError)) throw error;
        await transport.finishAuth(await oauth.callback());
        transport = new StreamableHTTPClientTransport(new URL(target), transportOptions);
        await client.connect(transport, { timeout: options.timeoutMs });
      }
      const authorized = <T,>(request: () => Promise<T>) => afterAuthorization(oauth, (error) => error instanceof UnauthorizedError, (callback) => transport.finishAuth(callback), request);
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
        // A request refused after the SDK sent the user agent to authorize (its step-up) is finished as connect's is.
        listTools: (operation) => authorized(() => operations.listTools(operation)),
        callTool: (name, args, operation) => authorized(() => operations.callTool(name, args, operation)),
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

const ROOT_LABEL = installedSdk('@modelcontextprotocol/client').label;

export const sdkV2Legacy = sdkV2Adapter('sdk-v2-legacy', ROOT_LABEL, rootClient, rootStdio, 'legacy');
export const sdkV2Auto = sdkV2Adapter('sdk-v2-auto', ROOT_LABEL, rootClient, rootStdio, 'auto');
export const sdkV2Pinned = sdkV2Adapter('sdk-v2-pinned', ROOT_LABEL, rootClient, rootStdio, 'pinned');

export interface SdkV2FactoryOptions {
  /** The matrix entry's name (default: sdk-v2-<mode>@<installed version>). */
  name?: string;
  /** The installed package to drive: `@modelcontextprotocol/client` or an npm alias of another version (`mcp-client-2.0`). */
  package: string;
  mode: SdkV2Mode;
}

/** The matrix's factory: the same adapter, built from the given installed version. */
export default async function sdkV2Factory(options: Partial<SdkV2FactoryOptions> = {}): Promise<ClientAdapter> {
  const { name, package: packageName, mode } = options;
  if (typeof packageName !== 'string' || packageName === '') throw new Error('sdk-v2: the "package" option names the installed SDK v2 client package (e.g. "mcp-client-2.0")');
  if (mode === undefined || !V2_MODES.includes(mode)) throw new Error(`sdk-v2: the "mode" option is one of ${V2_MODES.join(', ')}, not ${JSON.stringify(mode)}`);
  const { version, label } = installedSdk(packageName);
  let sdk: SdkV2Module;
  let stdio: SdkV2Stdio;
  try {
    [sdk, stdio] = await Promise.all([import(packageName), import(`${packageName}/stdio`)]);
  } catch (error) {
    throw new Error(`sdk-v2: ${label} failed to load (${error instanceof Error ? error.message : String(error)})`);
  }
  // versionNegotiation came with the era getter: a version without it has no probing or pinned mode.
  if (mode !== 'legacy' && typeof sdk.Client.prototype.getProtocolEra !== 'function') throw new Error(`sdk-v2: ${label} has no versionNegotiation, so no "${mode}" mode`);
  return sdkV2Adapter(name ?? `sdk-v2-${mode}@${version}`, label, sdk, stdio, mode);
}
