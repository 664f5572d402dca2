// The tools every reference server offers, and what the suites learn from them:
// how many times each tool ran and which calls saw their abort signal fire.
//
// Two sets on one McpServer: the suite's own fixture tools (below) and the standard conformance
// fixtures the official harness calls by name (conformance-fixtures.ts). The same factory serves every
// era: the sessionful 2025 revisions (one server per session) and 2026-07-28 (one server per request).
import { randomBytes } from 'node:crypto';
import { type CallToolResult, inputRequired, type InputRequest, type InputRequiredResult, McpServer, type ServerCapabilities } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { registerConformanceFixtures, REQUEST_STATE_CODEC } from './conformance-fixtures.ts';
import { closeOwnStream, FixtureState, notClosable, pause } from './fixture-state.ts';

// What the suites read of a server's tool runs lives in fixture-state.ts; it is named here too for the files that import the fixtures.
export { FixtureState, type ToolRun } from './fixture-state.ts';

export const FIXTURE_TOOLS = {
  /** Answers at once with its input. */
  echo: 'echo',
  /** Waits `ms` (default 30 s) unless aborted first, then reports whether it was aborted. */
  slow: 'slow',
  /** Counts executions; no `idempotentHint`, so a client must never run it twice for one call. */
  count: 'count',
  /** Counts executions; annotated `idempotentHint: true`. */
  idempotentCount: 'idempotent_count',
  /** Sends `steps` progress notifications `intervalMs` apart (when the call carries a progressToken), then answers. */
  progress: 'progress',
  /**
   * Closes its own SSE stream right after the priming event, then answers: the answer reaches the client only
   * through `GET` + `Last-Event-ID` (a re-POST shows as a second run). 2025-11-25 only; elsewhere it answers
   * `isError` without closing anything.
   */
  closeStream: 'close_stream',
  /**
   * Pings the client `times` times during the call (a request related to it: on its own stream), each answer awaited at
   * most `timeoutMs`, then answers with what came back. Legacy sessions: a 2026-07-28 server sends no requests.
   */
  ping: 'ping_client',
  /**
   * Sends the client one request of `method` (roots/list, sampling/createMessage or elicitation/create, whatever it
   * declared; with `mode: "url"` a URL mode elicitation) during the call, on its own stream, waits at most `timeoutMs`,
   * then answers with what came back.
   * Legacy sessions only.
   */
  ask: 'ask_client',
  /**
   * Answers at once, then sends the client one request of `method` (ping, or a request `ask_client` sends) unrelated to
   * any call: over Streamable HTTP on the standalone GET stream (dropped by the transport when none is open), over
   * HTTP+SSE and stdio where every server message goes. What came back is on the wire. Legacy sessions only.
   */
  askLater: 'ask_client_later',
  /**
   * Before it answers, sends the client the notifications a server may send during a call, on its own stream: a log
   * message, tools/resources/prompts list changed, and one of a method no revision defines. Legacy sessions only.
   */
  notify: 'notify_client',
  /**
   * 2026-07-28's multi-round-trip pattern: answers an InputRequiredResult asking for one request of `method` (key
   * `first`) with a requestState, then, retried with that input, another (key `second`) without one, and answers with
   * a result once retried with the second input. On a legacy session the SDK sends each as a real request instead.
   */
  input: 'input_client',
} as const;

/** The id `ask_client` with `cancel` names in its cancellation of a request it never sent. */
export const UNKNOWN_REQUEST_ID = 'never-sent';

/** The rounds of `input_client`: the key each asks for, and whether it carries a requestState. */
export const INPUT_ROUNDS = [
  { key: 'first', requestState: true },
  { key: 'second', requestState: false },
] as const;

/** What `input_client` answers once it has every input. */
export const INPUT_ANSWER = 'answered after every round of input';

/** The notifications `notify_client` sends, in order. */
export const SERVER_NOTIFICATIONS = [
  { method: 'notifications/message', params: { level: 'info', logger: 'conformance', data: 'a log message during the call' } },
  { method: 'notifications/tools/list_changed' },
  { method: 'notifications/resources/list_changed' },
  { method: 'notifications/prompts/list_changed' },
  { method: 'notifications/conformance/unknown', params: { note: 'a notification of a method no revision defines' } },
] as const;

/** What `notify_client` answers once its notifications are out. */
export const NOTIFY_ANSWER = 'answered after the notifications';

/** The server requests `ask_client` sends, each with the params it sends. */
export const SERVER_REQUEST_PARAMS = {
  'roots/list': {},
  'sampling/createMessage': { messages: [{ role: 'user', content: { type: 'text', text: 'Say hello.' } }], maxTokens: 16 },
  'elicitation/create': { message: 'Your name, please.', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } },
} as const;
export type ServerRequestMethod = keyof typeof SERVER_REQUEST_PARAMS;

/** What `ask_client` sends for elicitation/create with `mode: "url"` (2025-11-25): a URL mode elicitation. */
export const URL_ELICITATION_PARAMS = {
  mode: 'url',
  message: 'Open this page to go on, please.',
  url: 'https://conformance.invalid/authorize',
  elicitationId: 'conformance-url-elicitation',
} as const;

const SLOW_DEFAULT_MS = 30_000;

/** The text `close_stream` answers with once it has closed its stream. */
export const CLOSE_STREAM_ANSWER = 'answered after closing the stream';

/** The serverInfo every reference server answers with. */
export const REFERENCE_SERVER_INFO = { name: 'mcp-client-conformance-reference', version: '0.1.0' };

// Input schemas are built once: the 2026-07-28, dual and stateless eras build a server per request, and rebuilding
// every zod schema each time was most of its cost (allocation and garbage collection).
const INPUT_SCHEMAS = {
  echo: z.object({ text: z.string().default('') }),
  slow: z.object({ ms: z.number().int().min(0).max(3_600_000).default(SLOW_DEFAULT_MS) }),
  none: z.object({}),
  progress: z.object({
    steps: z.number().int().min(1).max(1_000).default(3),
    intervalMs: z.number().int().min(0).max(60_000).default(0),
  }),
  ping: z.object({
    times: z.number().int().min(1).max(100).default(1),
    timeoutMs: z.number().int().min(1).max(3_600_000).default(5_000),
  }),
  ask: z.object({
    method: z.enum(Object.keys(SERVER_REQUEST_PARAMS) as [ServerRequestMethod, ...ServerRequestMethod[]]),
    timeoutMs: z.number().int().min(1).max(3_600_000).default(5_000),
    /** Cancel the request at once (notifications/cancelled naming it), then cancel one the server never sent. */
    cancel: z.boolean().default(false),
    /** elicitation/create only: "url" sends a URL mode elicitation (URL_ELICITATION_PARAMS) instead of a form. */
    mode: z.enum(['url']).optional(),
  }),
  askLater: z.object({
    method: z.enum(['ping', ...Object.keys(SERVER_REQUEST_PARAMS)] as ['ping', ...ServerRequestMethod[]]),
    timeoutMs: z.number().int().min(1).max(3_600_000).default(5_000),
  }),
  input: z.object({
    method: z.enum(Object.keys(SERVER_REQUEST_PARAMS) as [ServerRequestMethod, ...ServerRequestMethod[]]),
  }),
};

/** One input request of `method`, as an InputRequiredResult carries it. */
function inputRequestOf(method: ServerRequestMethod): InputRequest {
  if (method === 'roots/list') return inputRequired.listRoots();
  if (method === 'sampling/createMessage') return inputRequired.createMessage(structuredClone(SERVER_REQUEST_PARAMS[method]) as unknown as Parameters<typeof inputRequired.createMessage>[0]);
  return inputRequired.elicit(structuredClone(SERVER_REQUEST_PARAMS[method]) as unknown as Parameters<typeof inputRequired.elicit>[0]);
}

/** How a fixture server is shaped beyond its revisions. */
export interface FixtureServerOptions {
  /**
   * Advertise and serve tools only (personality tools-only): the InitializeResult's capabilities are `tools` alone, and
   * nothing else is served (resources/*, prompts/*, logging/setLevel and completion/complete get -32601, as from a
   * server that has none). The suite's own fixture tools but `notify_client` (which sends log messages and resource and
   * prompt list changes a tools-only server never sends); none of the official harness's fixtures, whose resources,
   * prompts and logging tools need what is not advertised.
   */
  toolsOnly?: boolean;
}

/** A fresh McpServer (one per session, or per request in 2026-07-28) with every fixture, pinned to the given revisions. */
export function createFixtureServer(state: FixtureState, supportedProtocolVersions: string[], options: FixtureServerOptions = {}): McpServer {
  const legacy = supportedProtocolVersions.some((version) => version < '2026-07-28');
  const toolsOnly = options.toolsOnly === true;
  const capabilities: ServerCapabilities = toolsOnly
    ? { tools: {} }
    : {
        tools: {},
        // resources/subscribe exists up to 2025-11-25 only (removed in 2026-07-28).
        resources: legacy ? { subscribe: true } : {},
        prompts: {},
        logging: {},
        completions: {},
      };
  const server = new McpServer(
    REFERENCE_SERVER_INFO,
    // Every multi-round-trip requestState is minted and verified by one HMAC codec (conformance-fixtures.ts).
    { supportedProtocolVersions, capabilities, requestState: { verify: REQUEST_STATE_CODEC.verify } },
  );

  server.registerTool(
    FIXTURE_TOOLS.echo,
    { description: 'Echoes its text argument.', inputSchema: INPUT_SCHEMAS.echo },
    async ({ text }, ctx) => {
      const run = state.start(FIXTURE_TOOLS.echo, ctx.mcpReq.id);
      run.finishedAt = performance.now();
      return { content: [{ type: 'text', text }] };
    },
  );

  server.registerTool(
    FIXTURE_TOOLS.slow,
    {
      description: 'Waits until aborted or until ms milliseconds pass; reports which.',
      inputSchema: INPUT_SCHEMAS.slow,
    },
    async ({ ms }, ctx) => {
      const run = state.start(FIXTURE_TOOLS.slow, ctx.mcpReq.id);
      const aborted = !(await pause(ms, ctx.mcpReq.signal));
      if (aborted) state.markAborted(run);
      run.finishedAt = performance.now();
      return { content: [{ type: 'text', text: aborted ? 'aborted' : 'completed' }] };
    },
  );

  server.registerTool(
    FIXTURE_TOOLS.count,
    { description: 'Counts its executions. Not idempotent.', inputSchema: INPUT_SCHEMAS.none },
    async (_args, ctx) => {
      const run = state.start(FIXTURE_TOOLS.count, ctx.mcpReq.id);
      run.finishedAt = performance.now();
      return { content: [{ type: 'text', text: String(state.runsOf(FIXTURE_TOOLS.count)) }] };
    },
  );

  server.registerTool(
    FIXTURE_TOOLS.idempotentCount,
    {
      description: 'Counts its executions. Idempotent.',
      inputSchema: INPUT_SCHEMAS.none,
      annotations: { idempotentHint: true },
    },
    async (_args, ctx) => {
      const run = state.start(FIXTURE_TOOLS.idempotentCount, ctx.mcpReq.id);
      run.finishedAt = performance.now();
      return { content: [{ type: 'text', text: String(state.runsOf(FIXTURE_TOOLS.idempotentCount)) }] };
    },
  );

  server.registerTool(
    FIXTURE_TOOLS.progress,
    {
      description:
        'Sends steps progress notifications (progress 1..steps of total steps), intervalMs apart, when the call has a progressToken; then answers "completed <steps>/<steps>".',
      inputSchema: INPUT_SCHEMAS.progress,
    },
    async ({ steps, intervalMs }, ctx) => {
      const run = state.start(FIXTURE_TOOLS.progress, ctx.mcpReq.id);
      const progressToken = ctx.mcpReq._meta?.progressToken;
      for (let step = 1; step <= steps; step++) {
        if (!(await pause(intervalMs, ctx.mcpReq.signal))) {
          state.markAborted(run);
          run.finishedAt = run.abortedAt;
          return { content: [{ type: 'text', text: `aborted after ${step - 1} steps` }] };
        }
        if (progressToken !== undefined) {
          await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken, progress: step, total: steps } });
        }
      }
      run.finishedAt = performance.now();
      return { content: [{ type: 'text', text: `completed ${steps}/${steps}` }] };
    },
  );

  server.registerTool(
    FIXTURE_TOOLS.closeStream,
    {
      description:
        'Closes its own SSE stream after the priming event, then answers; the answer is replayed on GET with Last-Event-ID (2025-11-25).',
    },
    async (ctx) => {
      const run = state.start(FIXTURE_TOOLS.closeStream, ctx.mcpReq.id);
      run.finishedAt = performance.now();
      if (!closeOwnStream(ctx)) return notClosable();
      return { content: [{ type: 'text', text: CLOSE_STREAM_ANSWER }] };
    },
  );

  server.registerTool(
    FIXTURE_TOOLS.ping,
    { description: 'Pings the client `times` times during the call, each answer awaited at most `timeoutMs`; answers with what came back.', inputSchema: INPUT_SCHEMAS.ping },
    async ({ times, timeoutMs }, ctx) => {
      const run = state.start(FIXTURE_TOOLS.ping, ctx.mcpReq.id);
      const answers: string[] = [];
      for (let n = 1; n <= times && !ctx.mcpReq.signal.aborted; n++) {
        try {
          answers.push(`result ${JSON.stringify(await ctx.mcpReq.send({ method: 'ping' }, { timeout: timeoutMs, signal: ctx.mcpReq.signal }))}`);
        } catch (error) {
          answers.push(`error ${error instanceof Error ? error.message : String(error)}`);
        }
      }
      run.finishedAt = performance.now();
      return { content: [{ type: 'text', text: answers.join('; ') }] };
    },
  );

  server.registerTool(
    FIXTURE_TOOLS.ask,
    { description: 'Sends the client one request of `method` during the call, waits at most `timeoutMs`; answers with what came back.', inputSchema: INPUT_SCHEMAS.ask },
    async ({ method, timeoutMs, cancel, mode }, ctx) => {
      const run = state.start(FIXTURE_TOOLS.ask, ctx.mcpReq.id);
      let answer: string;
      // With `cancel` the server changes its mind at once: the SDK writes notifications/cancelled naming the request.
      const changedMind = new AbortController();
      try {
        // Sent whatever the client declared: how a client treats a request it did not declare is what is tested.
        const params = mode === 'url' && method === 'elicitation/create' ? URL_ELICITATION_PARAMS : SERVER_REQUEST_PARAMS[method];
        const asked = ctx.mcpReq.send({ method, params }, { timeout: timeoutMs, signal: AbortSignal.any([ctx.mcpReq.signal, changedMind.signal]) });
        if (cancel) setImmediate(() => changedMind.abort('the server no longer needs it'));
        answer = `result ${JSON.stringify(await asked)}`;
      } catch (error) {
        answer = `error ${error instanceof Error ? error.message : String(error)}`;
      }
      // A cancellation of a request never sent (Error Handling: the receiver SHOULD ignore it).
      if (cancel) await ctx.mcpReq.notify({ method: 'notifications/cancelled', params: { requestId: UNKNOWN_REQUEST_ID, reason: 'a request this server never sent' } });
      run.finishedAt = performance.now();
      return { content: [{ type: 'text', text: answer }] };
    },
  );

  server.registerTool(
    FIXTURE_TOOLS.askLater,
    { description: 'Answers at once, then sends the client one request of `method` unrelated to the call (Streamable HTTP: on the standalone GET stream).', inputSchema: INPUT_SCHEMAS.askLater },
    async ({ method, timeoutMs }, ctx) => {
      const run = state.start(FIXTURE_TOOLS.askLater, ctx.mcpReq.id);
      // Without a related request the transport routes it to the standalone GET stream: after this call has answered,
      // so it is unrelated to any request of the client's (Listening for Messages from the Server: SHOULD).
      setImmediate(() => {
        const params = method === 'ping' ? undefined : SERVER_REQUEST_PARAMS[method];
        server.server.request({ method, ...(params ? { params: params as Record<string, unknown> } : {}) }, { timeout: timeoutMs }).catch(() => {});
      });
      run.finishedAt = performance.now();
      return { content: [{ type: 'text', text: `${method} to be sent on the listening stream` }] };
    },
  );

  if (!toolsOnly) {
    server.registerTool(FIXTURE_TOOLS.notify, { description: 'Sends the client a log message, list changed notifications and an unknown one during the call, then answers.' }, async (ctx) => {
      const run = state.start(FIXTURE_TOOLS.notify, ctx.mcpReq.id);
      for (const notification of SERVER_NOTIFICATIONS) await ctx.mcpReq.notify(notification as Parameters<typeof ctx.mcpReq.notify>[0]);
      run.finishedAt = performance.now();
      return { content: [{ type: 'text', text: NOTIFY_ANSWER }] };
    });
  }

  server.registerTool(
    FIXTURE_TOOLS.input,
    { description: 'Asks for input of `method` in two rounds (InputRequiredResult: the first with a requestState, the second without), then answers.', inputSchema: INPUT_SCHEMAS.input },
    async ({ method }, ctx) => {
      const run = state.start(FIXTURE_TOOLS.input, ctx.mcpReq.id);
      const responses = ctx.mcpReq.inputResponses ?? {};
      const [first, second] = INPUT_ROUNDS;
      let result: CallToolResult | InputRequiredResult;
      if (second.key in responses) result = { content: [{ type: 'text', text: INPUT_ANSWER }] };
      else if (first.key in responses && ctx.mcpReq.requestState<Record<string, unknown>>()?.round === 1) result = inputRequired({ inputRequests: { [second.key]: inputRequestOf(method) } });
      else result = inputRequired({ inputRequests: { [first.key]: inputRequestOf(method) }, requestState: await REQUEST_STATE_CODEC.mint({ round: 1, nonce: randomBytes(8).toString('hex') }) });
      run.finishedAt = performance.now();
      return result;
    },
  );

  if (!toolsOnly) registerConformanceFixtures(server, state, { legacy });
  return server;
}
