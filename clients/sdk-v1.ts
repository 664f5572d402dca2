// Official TypeScript SDK v1 (@modelcontextprotocol/sdk), used as its documentation shows:
// Streamable HTTP (2025-03-26 … 2025-11-25) or stdio (StdioClientTransport: it launches the server) and, as its own
// adapter, HTTP+SSE (2024-11-05).
// One builder serves every installed version: the built-in adapters apply it to the statically imported root
// package, the default export (the compatibility matrix's factory) to any version imported by package name.
import * as rootAuth from '@modelcontextprotocol/sdk/client/auth.js';
import * as rootClient from '@modelcontextprotocol/sdk/client/index.js';
import * as rootSse from '@modelcontextprotocol/sdk/client/sse.js';
import * as rootStdio from '@modelcontextprotocol/sdk/client/stdio.js';
import * as rootStreamableHttp from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import * as rootTypes from '@modelcontextprotocol/sdk/types.js';
import { installedPackage } from './installed.ts';
import { afterAuthorization, HeadlessOAuthProvider } from './sdk-oauth.ts';
import { L, STREAMABLE_REVISIONS, type Revision } from '../protocol/revisions.ts';
import { isStdioTarget, stateless, type ClientAdapter, type ClientConnection, type ClientHandlers, type Feature, type OperationOptions, type ServerTarget, type StdioTarget, type ToolResult } from './adapter.ts';

export const CLIENT_INFO = { name: 'mcp-client-conformance', version: '0.1.0' };

/** One installed version's modules, typed as the root package's: older versions offer a subset, detected where it matters. */
interface SdkV1Modules {
  client: typeof rootClient;
  streamableHttp: typeof rootStreamableHttp;
  sse: typeof rootSse;
  stdio: typeof rootStdio;
  types: typeof rootTypes;
  /** Its OAuth (client/auth.js), absent from versions before it. */
  auth: typeof rootAuth | undefined;
}

const V1_TRANSPORTS = ['streamable-http', 'sse'] as const;
export type SdkV1Transport = (typeof V1_TRANSPORTS)[number];

/**
 * The installed version of a package and a label for descriptions: "@modelcontextprotocol/sdk 1.12.3 (mcp-sdk-1.12)",
 * the published name, the installed version and the npm alias it is installed as.
 */
export function installedSdk(packageName: string): { version: string; label: string } {
  const installed = installedPackage(packageName, import.meta.filename);
  if (installed === undefined) throw new Error(`package ${packageName} is not installed (npm ci)`);
  return { version: installed.version, label: `${installed.package} ${installed.version}${installed.package === packageName ? '' : ` (${packageName})`}` };
}

/** The revisions among `candidates` this version accepts in an initialize answer. */
function accepted(types: SdkV1Modules['types'], candidates: readonly Revision[]): Revision[] {
  return candidates.filter((revision) => types.SUPPORTED_PROTOCOL_VERSIONS.includes(revision));
}

/** The handlers this version's Client can register (elicitation came with 1.13). */
function handlerFeatures(types: SdkV1Modules['types']): Feature[] {
  return [...('ListRootsRequestSchema' in types ? (['roots'] as const) : []), ...('CreateMessageRequestSchema' in types ? (['sampling'] as const) : []), ...('ElicitRequestSchema' in types ? (['elicitation'] as const) : [])];
}

/**
 * A v1 Client with the handlers it is given, as the documentation shows: each capability declared in the constructor
 * (the SDK refuses a handler without it) and its handler registered with setRequestHandler.
 */
function newClient(sdk: SdkV1Modules, handlers: ClientHandlers = {}): rootClient.Client {
  const { roots, sampling, elicitation } = handlers;
  const capabilities = { ...(roots ? { roots: {} } : {}), ...(sampling ? { sampling: {} } : {}), ...(elicitation ? { elicitation: {} } : {}) };
  const client = new sdk.client.Client(CLIENT_INFO, { capabilities });
  if (roots) client.setRequestHandler(sdk.types.ListRootsRequestSchema, async () => ({ roots }));
  if (sampling) client.setRequestHandler(sdk.types.CreateMessageRequestSchema, async () => sampling);
  if (elicitation) client.setRequestHandler(sdk.types.ElicitRequestSchema, async () => elicitation);
  return client;
}

/** Most pages one listTools() walks. */
const MAX_PAGES = 50;

/** The operations both transports share: the v1 Client's own calls. */
function operations(client: rootClient.Client): Pick<ClientConnection, 'listTools' | 'callTool'> {
  const requestOptions = (options: OperationOptions = {}) => ({ signal: options.signal, timeout: options.timeoutMs });
  return {
    // v1's listTools() is one page (client/index.js listTools: one tools/list request, nextCursor returned): walking the
    // pages is left to its caller, so the adapter walks them as the spec asks a caller to, while a nextCursor is present
    // (the empty string included), and bounds a server that never stops paging with an error, never a short list.
    async listTools(options) {
      const tools: { name: string }[] = [];
      let cursor: string | undefined;
      for (let page = 0; ; page++) {
        if (page === MAX_PAGES) throw new Error(`tools/list: ${MAX_PAGES} pages and the server still names a nextCursor`);
        const result = await client.listTools(cursor === undefined ? {} : { cursor }, requestOptions(options));
        tools.push(...result.tools.map(({ name }) => ({ name })));
        if (result.nextCursor === undefined) return tools;
        cursor = result.nextCursor;
      }
    },
    async callTool(name, args, options) {
      return (await client.callTool({ name, arguments: args }, undefined, requestOptions(options))) as ToolResult;
    },
  };
}

/**
 * The SDK's stdio transport for a target, as a host configures a local server: the command, its arguments, the
 * variables it needs (the SDK adds its default environment) and the directory. stderr is `ignore`, one of the SDK's
 * documented choices (the spec lets a client ignore it), so a chatty server does not write into the harness's output
 * (the default, `inherit`, would). Everything else (the spawn, the framing, the shutdown) is the SDK's.
 */
function stdioTransport(sdk: SdkV1Modules, target: StdioTarget): rootStdio.StdioClientTransport {
  return new sdk.stdio.StdioClientTransport({
    command: target.command,
    args: target.args,
    ...(target.env !== undefined ? { env: target.env } : {}),
    ...(target.cwd !== undefined ? { cwd: target.cwd } : {}),
    stderr: 'ignore',
  });
}

/** A v1 Client over stdio: it launches the server, and close() is the SDK's own shutdown of it. */
async function connectStdio(sdk: SdkV1Modules, target: StdioTarget, timeoutMs: number, handlers: ClientHandlers | undefined): Promise<ClientConnection> {
  const client = newClient(sdk, handlers);
  await client.connect(stdioTransport(sdk, target), { timeout: timeoutMs });
  return {
    // v1 keeps the negotiated version of a stdio connection nowhere public: report none.
    info: async () => ({ era: 'legacy' }),
    ...operations(client),
    close: () => client.close(),
  };
}

function streamableHttpAdapter(name: string, label: string, sdk: SdkV1Modules): ClientAdapter {
  const { StreamableHTTPClientTransport } = sdk.streamableHttp;
  // A resume state needs the negotiated version; before the transport's `protocolVersion` getter (1.12) the
  // version keeps it nowhere public, so it can take a session id but cannot export what a resume needs.
  const exportsVersion = 'protocolVersion' in StreamableHTTPClientTransport.prototype;
  // OAuth: an authProvider option on the transport and finishAuth for the interactive flow's code.
  const { auth } = sdk;
  const oauthFeature = auth !== undefined && 'finishAuth' in StreamableHTTPClientTransport.prototype;
  const features: Feature[] = ['mode-legacy', ...(exportsVersion ? (['resume'] as const) : []), 'keep-session', 'cancellation', 'request-timeout', ...handlerFeatures(sdk.types), ...(oauthFeature ? (['oauth'] as const) : [])];
  return {
    name,
    description: `${label} Client + StreamableHTTPClientTransport or StdioClientTransport`,
    revisions: accepted(sdk.types, STREAMABLE_REVISIONS),
    features,
    transports: ['http', 'stdio'],
    // Its stdio transport has no HTTP era: it speaks every legacy revision the version accepts, 2024-11-05 too.
    stdioRevisions: accepted(sdk.types, L),
    start: stateless<ServerTarget>(async (target, options) => {
      if (isStdioTarget(target)) return connectStdio(sdk, target, options.timeoutMs, options.handlers);
      const url = target;
      const client = newClient(sdk, options.handlers);
      const oauth = oauthFeature && options.authorization ? new HeadlessOAuthProvider(options.authorization, CLIENT_INFO.name) : undefined;
      // v1 resumes with the `sessionId` transport option (connect then skips `initialize`); it has no option
      // for the negotiated version.
      const transportOptions = { ...(options.resume?.sessionId ? { sessionId: options.resume.sessionId } : {}), ...(oauth ? { authProvider: oauth as rootAuth.OAuthClientProvider } : {}) };
      let transport = new StreamableHTTPClientTransport(new URL(url), transportOptions);
      try {
        await client.connect(transport, { timeout: options.timeoutMs });
      } catch (error) {
        // The documented interactive flow (the SDK's examples/client/simpleOAuthClient): connect throws
        // UnauthorizedError once the user agent was sent to authorize; finishAuth redeems the code the callback
        // received, and the client connects again with a new transport. Everything after it is the SDK's own.
        if (oauth === undefined || !oauth.redirected || !(error instanceof auth!.UnauthorizedError)) throw error;
        await transport.finishAuth((await oauth.callback()).get('code') ?? '');
        transport = new StreamableHTTPClientTransport(new URL(url), transportOptions);
        await client.connect(transport, { timeout: options.timeoutMs });
      }
      const sdkOperations = operations(client);
      const authorized = <T,>(request: () => Promise<T>) => afterAuthorization(oauth, (error) => error instanceof auth!.UnauthorizedError, (callback) => transport.finishAuth(callback.get('code') ?? ''), request);
      return {
        async info() {
          const protocolVersion = transport.protocolVersion;
          const sessionId = transport.sessionId;
          return { negotiatedVersion: protocolVersion, era: 'legacy', sessionId, resumeState: protocolVersion ? { protocolVersion, sessionId } : undefined };
        },
        // A request refused after the SDK sent the user agent to authorize (its step-up) is finished as connect's is.
        listTools: (operation) => authorized(() => sdkOperations.listTools(operation)),
        callTool: (name, args, operation) => authorized(() => sdkOperations.callTool(name, args, operation)),
        async close() {
          // The documented clean disconnect: end the server's session, then close the client.
          if (!options.keepSessionOnClose) await transport.terminateSession();
          await client.close();
        },
      };
    }),
  };
}

function sseAdapter(name: string, label: string, sdk: SdkV1Modules): ClientAdapter {
  const { SSEClientTransport } = sdk.sse;
  return {
    name,
    description: `${label} Client + SSEClientTransport (HTTP+SSE)`,
    revisions: accepted(sdk.types, ['2024-11-05']),
    features: ['mode-legacy', 'cancellation', 'request-timeout', ...handlerFeatures(sdk.types)],
    start: stateless(async (url, options) => {
      const client = newClient(sdk, options.handlers);
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
}

const BUILDERS: Record<SdkV1Transport, (name: string, label: string, sdk: SdkV1Modules) => ClientAdapter> = {
  'streamable-http': streamableHttpAdapter,
  sse: sseAdapter,
};

const ROOT_PACKAGE = '@modelcontextprotocol/sdk';
const ROOT: SdkV1Modules = { client: rootClient, streamableHttp: rootStreamableHttp, sse: rootSse, stdio: rootStdio, types: rootTypes, auth: rootAuth };
const ROOT_LABEL = installedSdk(ROOT_PACKAGE).label;

export const sdkV1StreamableHttp: ClientAdapter = streamableHttpAdapter('sdk-v1', ROOT_LABEL, ROOT);
export const sdkV1Sse: ClientAdapter = sseAdapter('sdk-v1-sse', ROOT_LABEL, ROOT);

export interface SdkV1FactoryOptions {
  /** The matrix entry's name (default: sdk-v1[-sse]@<installed version>). */
  name?: string;
  /** The installed package to drive: `@modelcontextprotocol/sdk` or an npm alias of another version (`mcp-sdk-1.12`). */
  package: string;
  transport: SdkV1Transport;
}

/** The matrix's factory: the same adapter, built from the given installed version. */
export default async function sdkV1Factory(options: Partial<SdkV1FactoryOptions> = {}): Promise<ClientAdapter> {
  const { name, package: packageName, transport } = options;
  if (typeof packageName !== 'string' || packageName === '') throw new Error('sdk-v1: the "package" option names the installed SDK v1 package (e.g. "mcp-sdk-1.12")');
  if (transport === undefined || !V1_TRANSPORTS.includes(transport)) throw new Error(`sdk-v1: the "transport" option is one of ${V1_TRANSPORTS.join(', ')}, not ${JSON.stringify(transport)}`);
  const { version, label } = installedSdk(packageName);
  const load = async (path: string) => {
    try {
      return await import(`${packageName}/${path}`);
    } catch (error) {
      throw new Error(`sdk-v1: ${label} has no ${path} (${error instanceof Error ? error.message : String(error)})`);
    }
  };
  const [client, streamableHttp, sse, stdio, types] = await Promise.all(['client/index.js', 'client/streamableHttp.js', 'client/sse.js', 'client/stdio.js', 'types.js'].map(load));
  // OAuth came later than the rest: a version without it is driven without the feature oauth.
  const auth = await load('client/auth.js').catch(() => undefined);
  return BUILDERS[transport](name ?? `${transport === 'sse' ? 'sdk-v1-sse' : 'sdk-v1'}@${version}`, label, { client, streamableHttp, sse, stdio, types, auth });
}
