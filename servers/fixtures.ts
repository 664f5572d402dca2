// The tools every reference server offers, and what the suites learn from them:
// how many times each tool ran and which calls saw their abort signal fire.
import { McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod';

export interface ToolRun {
  tool: string;
  /** The JSON-RPC id of the request that ran it. */
  requestId: string | number;
  /** Set when the handler's abort signal fired. */
  abortedAt?: number;
  finishedAt?: number;
}

/** What the fixture tools observed, shared by every session of one server. */
export class FixtureState {
  readonly runs: ToolRun[] = [];

  runsOf(tool: string): number {
    return this.runs.filter((run) => run.tool === tool).length;
  }

  aborted(): ToolRun[] {
    return this.runs.filter((run) => run.abortedAt !== undefined);
  }
}

export const FIXTURE_TOOLS = {
  /** Answers at once with its input. */
  echo: 'echo',
  /** Waits `ms` (default 30 s) unless aborted first, then reports whether it was aborted. */
  slow: 'slow',
  /** Counts executions; no `idempotentHint`, so a client must never run it twice for one call. */
  count: 'count',
  /** Counts executions; annotated `idempotentHint: true`. */
  idempotentCount: 'idempotent_count',
} as const;

const SLOW_DEFAULT_MS = 30_000;

/** A fresh McpServer (one per session) with the fixture tools, pinned to the given revisions. */
export function createFixtureServer(state: FixtureState, supportedProtocolVersions: string[]): McpServer {
  const server = new McpServer(
    { name: 'mcp-client-conformance-reference', version: '0.1.0' },
    { supportedProtocolVersions, capabilities: { tools: {} } },
  );
  const start = (tool: string, requestId: string | number): ToolRun => {
    const run: ToolRun = { tool, requestId };
    state.runs.push(run);
    return run;
  };

  server.registerTool(
    FIXTURE_TOOLS.echo,
    { description: 'Echoes its text argument.', inputSchema: z.object({ text: z.string().default('') }) },
    async ({ text }, ctx) => {
      const run = start(FIXTURE_TOOLS.echo, ctx.mcpReq.id);
      run.finishedAt = performance.now();
      return { content: [{ type: 'text', text }] };
    },
  );

  server.registerTool(
    FIXTURE_TOOLS.slow,
    {
      description: 'Waits until aborted or until ms milliseconds pass; reports which.',
      inputSchema: z.object({ ms: z.number().int().min(0).max(120_000).default(SLOW_DEFAULT_MS) }),
    },
    async ({ ms }, ctx) => {
      const run = start(FIXTURE_TOOLS.slow, ctx.mcpReq.id);
      const signal = ctx.mcpReq.signal;
      const aborted = await new Promise<boolean>((resolve) => {
        if (signal.aborted) return resolve(true);
        const timer = setTimeout(() => {
          signal.removeEventListener('abort', onAbort);
          resolve(false);
        }, ms);
        const onAbort = () => {
          clearTimeout(timer);
          resolve(true);
        };
        signal.addEventListener('abort', onAbort, { once: true });
      });
      if (aborted) run.abortedAt = performance.now();
      run.finishedAt = performance.now();
      return { content: [{ type: 'text', text: aborted ? 'aborted' : 'completed' }] };
    },
  );

  server.registerTool(
    FIXTURE_TOOLS.count,
    { description: 'Counts its executions. Not idempotent.', inputSchema: z.object({}) },
    async (_args, ctx) => {
      const run = start(FIXTURE_TOOLS.count, ctx.mcpReq.id);
      run.finishedAt = performance.now();
      return { content: [{ type: 'text', text: String(state.runsOf(FIXTURE_TOOLS.count)) }] };
    },
  );

  server.registerTool(
    FIXTURE_TOOLS.idempotentCount,
    {
      description: 'Counts its executions. Idempotent.',
      inputSchema: z.object({}),
      annotations: { idempotentHint: true },
    },
    async (_args, ctx) => {
      const run = start(FIXTURE_TOOLS.idempotentCount, ctx.mcpReq.id);
      run.finishedAt = performance.now();
      return { content: [{ type: 'text', text: String(state.runsOf(FIXTURE_TOOLS.idempotentCount)) }] };
    },
  );

  return server;
}
