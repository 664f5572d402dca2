// mcp-remote (npm), the stdio↔remote proxy an MCP host launches as `mcp-remote <url>`: the host speaks stdio to it,
// it speaks HTTP to the server, and that HTTP side is what the suites judge. Each connect spawns the proxy the way a
// host does (`node <its bin> <url> [flags]`) and drives it over stdio with the official SDK v1 Client, as a host
// would: connect, list, call (an AbortSignal makes the host send notifications/cancelled, which the proxy must carry
// to the server), close stdin. The proxy falls back from Streamable HTTP to HTTP+SSE by itself (`--transport`
// defaults to http-first) and, with `--protocol auto`, probes server/discover and bridges to 2026-07-28.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { ClientAdapter, ClientConnection, Negotiation, ToolResult } from '../adapter.ts';
import { bundledWraps, installedLabel, readOptions, type ThirdPartyOptions } from './support.ts';

const PACKAGE = 'mcp-remote';
/** The temp dir the proxy keeps its token store and lock files in (MCP_REMOTE_CONFIG_DIR), one per adapter. */
export const CONFIG_DIR_PREFIX = 'mcp-remote-config-';
const HOST_INFO = { name: 'mcp-client-conformance', version: '0.1.0' };
/** After the SDK's close (stdin ended, then SIGTERM, then SIGKILL, ~4 s at most) the exit must be seen this soon. */
const EXIT_AFTER_CLOSE_MS = 1_000;
/** How much of the proxy's stderr a failed connect quotes. */
const STDERR_TAIL_CHARS = 800;

/** The proxy's entry point, from its package.json `bin`. */
function proxyScript(): string {
  const manifestPath = createRequire(import.meta.url).resolve(`${PACKAGE}/package.json`);
  const { bin } = JSON.parse(readFileSync(manifestPath, 'utf8')) as { bin: string | Record<string, string> };
  const script = typeof bin === 'string' ? bin : bin[PACKAGE];
  if (script === undefined) throw new Error(`${PACKAGE}'s package.json names no "${PACKAGE}" bin`);
  return join(dirname(manifestPath), script);
}

/**
 * The proxy's flags for a connect. `--device-code` is its documented sign-in for a machine without a browser: it
 * binds no OAuth callback port and never opens a browser (our servers have no authorization server, so a 401 ends
 * the connect instead of waiting for a browser sign-in).
 */
function proxyFlags(negotiation: Negotiation | undefined): string[] {
  if (typeof negotiation === 'object') throw new Error(`${PACKAGE} has no pinned mode (its --protocol is legacy or auto)`);
  return ['--protocol', negotiation ?? 'legacy', '--device-code'];
}

function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  return Promise.race([promise.then(() => true), expired]).finally(() => clearTimeout(timer));
}

/** The SDK's stdio transport, remembering the proxy's pid from the moment it is spawned (the SDK forgets it at close). */
class ProxyProcess extends StdioClientTransport {
  spawnedPid: number | undefined;
  override async start(): Promise<void> {
    await super.start();
    this.spawnedPid = this.pid ?? undefined;
  }
}

/** One proxy process and the host side of its stdio. */
function spawnProxy(script: string, url: string, negotiation: Negotiation | undefined, configDir: string) {
  const transport = new ProxyProcess({
    command: process.execPath,
    args: [script, url, ...proxyFlags(negotiation)],
    // Its token store and lock files go to a temp dir; nothing else of ours is passed on.
    env: { MCP_REMOTE_CONFIG_DIR: configDir },
    stderr: 'pipe',
  });
  let stderrTail = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderrTail = (stderrTail + chunk.toString()).slice(-STDERR_TAIL_CHARS)));
  const client = new Client(HOST_INFO);
  // The SDK calls onclose when the proxy process has closed (exited, its pipes done).
  const exited = new Promise<void>((resolve) => (client.onclose = () => resolve()));
  let stopping: Promise<void> | undefined;
  return {
    client,
    transport,
    stderrTail: () => stderrTail.trim(),
    /** Ends the proxy the way a host does (the SDK closes stdin, then signals), and makes sure it is gone. */
    stop(): Promise<void> {
      stopping ??= (async () => {
        await client.close();
        const pid = transport.spawnedPid;
        if (pid === undefined || (await settlesWithin(exited, EXIT_AFTER_CLOSE_MS))) return;
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          return; // already gone
        }
        if (!(await settlesWithin(exited, EXIT_AFTER_CLOSE_MS))) throw new Error(`${PACKAGE} (pid ${pid}) did not exit after SIGKILL`);
      })();
      return stopping;
    },
  };
}

export default function mcpRemoteAdapter(options?: Partial<ThirdPartyOptions>): ClientAdapter {
  // No transport option: the proxy picks Streamable HTTP or HTTP+SSE itself.
  const { name } = readOptions(PACKAGE, options, ['streamable-http']);
  const script = proxyScript();
  let configDir: string | undefined;
  /** How to end each proxy not yet ended, so dispose and shutdown leave none running. */
  const live = new Set<() => Promise<void>>();

  return {
    name,
    description: `${installedLabel(PACKAGE)} (stdio proxy to Streamable HTTP, falling back to HTTP+SSE; --protocol legacy|auto), driven over stdio by ${installedLabel('@modelcontextprotocol/sdk')} Client`,
    revisions: ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28'],
    features: ['mode-legacy', 'mode-auto', 'cancellation', 'transport-fallback'],
    // The proxy's HTTP side is the SDK v2 client, bundled into its dist at its build: the range its package.json names.
    wraps: bundledWraps('@modelcontextprotocol/client', PACKAGE),
    async start() {
      const mine = new Set<() => Promise<void>>();
      return {
        async connect(url: string, connectOptions): Promise<ClientConnection> {
          configDir ??= mkdtempSync(join(tmpdir(), CONFIG_DIR_PREFIX));
          const proxy = spawnProxy(script, url, connectOptions.negotiation, configDir);
          const stop = () =>
            proxy.stop().finally(() => {
              live.delete(stop);
              mine.delete(stop);
            });
          live.add(stop);
          mine.add(stop);
          // The host bounds its own wait and, giving up, ends the proxy. Not the SDK's request timeout: that would
          // make the host send notifications/cancelled for initialize, which the proxy would carry to the server.
          let timer: NodeJS.Timeout | undefined;
          const timedOut = new Promise<never>((_, reject) => {
            timer = setTimeout(() => reject(new Error(`${PACKAGE} did not complete initialize within ${connectOptions.timeoutMs} ms`)), connectOptions.timeoutMs);
          });
          try {
            await Promise.race([proxy.client.connect(proxy.transport), timedOut]);
          } catch (error) {
            // Settles at once; dispose (or shutdown) waits for the proxy to be gone.
            void stop().catch(() => {});
            const reason = error instanceof Error ? error.message : String(error);
            const stderr = proxy.stderrTail();
            throw new Error(`${reason}${stderr ? `; ${PACKAGE} stderr: …${stderr}` : ''}`, { cause: error });
          } finally {
            clearTimeout(timer);
          }
          return {
            // The host's SDK exposes no negotiated version, era or session of the proxy's remote side.
            info: async () => ({}),
            async listTools() {
              const { tools } = await proxy.client.listTools();
              return tools.map(({ name }) => ({ name }));
            },
            async callTool(name, args, operation = {}) {
              return (await proxy.client.callTool({ name, arguments: args }, undefined, { signal: operation.signal })) as ToolResult;
            },
            close: stop,
          };
        },
        async dispose() {
          await Promise.all([...mine].map((stop) => stop()));
        },
      };
    },
    async shutdown() {
      await Promise.allSettled([...live].map((stop) => stop()));
      if (configDir !== undefined) rmSync(configDir, { recursive: true, force: true });
      configDir = undefined;
    },
  };
}
