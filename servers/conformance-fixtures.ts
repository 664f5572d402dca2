// The standard conformance fixtures: the tools, resources and prompts the official conformance harness
// (@modelcontextprotocol/conformance) calls by name in its *server* scenarios, with the answers its
// scenario descriptions specify (src/scenarios/server/{tools,resources,prompts,utils,elicitation-*,sse-polling,
// json-schema-2020-12,input-required-result,stateless}.ts). Running the harness against our servers checks the
// servers, not a client.
//
// The multi-round-trip tools (`test_input_required_result_*`) are written once with the SDK's `inputRequired`
// results: a 2026-07-28 client fulfils them itself and retries; on a 2025 session the SDK's legacy shim sends
// the embedded requests to the client as real server-to-client requests and re-enters the handler.
import { randomBytes } from 'node:crypto';
import {
  acceptedContent,
  type CallToolResult,
  CLIENT_CAPABILITIES_META_KEY,
  type ClientCapabilities,
  completable,
  createRequestStateCodec,
  fromJsonSchema,
  inputRequired,
  inputResponse,
  type InputRequest,
  type InputRequiredResult,
  type McpServer,
  ResourceTemplate,
  type ServerContext,
} from '@modelcontextprotocol/server';
import * as z from 'zod';
import { closeOwnStream, type FixtureState, notClosable, pause } from './fixture-state.ts';

/** A 1x1 red PNG. */
export const TEST_IMAGE_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
/** A minimal WAV file. */
export const TEST_AUDIO_BASE64 = 'UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=';

/** SEP-1613 / SEP-2106: a JSON Schema 2020-12 inputSchema whose keywords must survive tools/list untouched. */
export const JSON_SCHEMA_2020_12_INPUT_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  $defs: {
    address: { $anchor: 'addressDef', type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } },
  },
  properties: {
    name: { type: 'string' },
    address: { $ref: '#/$defs/address' },
    contactMethod: { type: 'string', enum: ['phone', 'email'] },
    phone: { type: 'string' },
    email: { type: 'string' },
  },
  allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
  if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
  then: { required: ['phone'] },
  else: { required: ['email'] },
  additionalProperties: false,
} as const;

/** SEP-2243: `x-mcp-header` names the header (`Mcp-Param-Region`) that mirrors the argument. */
const CUSTOM_HEADER_INPUT_SCHEMA = {
  type: 'object' as const,
  properties: { region: { type: 'string' as const, description: 'Any region name', 'x-mcp-header': 'Region' } },
  required: ['region'],
};

/** Every name the harness calls, and what each answers. */
export const CONFORMANCE_TEXT = {
  simpleText: 'This is a simple text response for testing.',
  embeddedResource: 'This is an embedded resource content.',
  multipleContentTypes: 'Multiple content types test:',
  logs: ['Tool execution started', 'Tool processing data', 'Tool execution completed'],
  loggingDone: 'Tool with logging executed successfully',
  error: 'This tool intentionally returns an error for testing',
  reconnection:
    'Reconnection test completed successfully. If you received this, the client properly reconnected after stream closure.',
  staticText: 'This is the content of the static text resource.',
  watched: 'Watched resource content',
  simplePrompt: 'This is a simple prompt for testing.',
  embeddedPromptResource: 'Embedded resource content for testing.',
  embeddedPromptText: 'Please process the embedded resource above.',
  imagePromptText: 'Please analyze the image above.',
} as const;

/** The pause between the notifications of the logging and progress tools (~50 ms, as the scenarios describe). */
const STEP_MS = 50;

/** What `completion/complete` offers for `test_prompt_with_arguments`' arg1. */
export const ARG1_COMPLETIONS = ['paris', 'park', 'party', 'test', 'testing'];

/** A tool result with one text content. */
// Built once, not per server: see INPUT_SCHEMAS in fixtures.ts (servers built per request in 2026-07-28).
const CONFORMANCE_SCHEMAS = {
  sampling: z.object({ prompt: z.string().describe('The prompt to send to the LLM') }),
  elicitation: z.object({ message: z.string().describe('The message to show the user') }),
  none: z.object({}),
  jsonSchema2020: fromJsonSchema(JSON_SCHEMA_2020_12_INPUT_SCHEMA),
  customHeader: fromJsonSchema<{ region: string }>(CUSTOM_HEADER_INPUT_SCHEMA),
  promptArguments: z.object({
    arg1: completable(z.string().describe('First test argument'), (value) => ARG1_COMPLETIONS.filter((word) => word.startsWith(value))),
    arg2: z.string().describe('Second test argument'),
  }),
  embeddedResourcePrompt: z.object({ resourceUri: z.string().describe('URI of the resource to embed') }),
};

const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] });

/** Registers a tool without arguments whose runs are counted in the fixture state like every fixture's. */
function noArgumentTool(
  server: McpServer,
  state: FixtureState,
  name: string,
  description: string,
  answer: (ctx: ServerContext) => CallToolResult | InputRequiredResult | Promise<CallToolResult | InputRequiredResult>,
): void {
  server.registerTool(name, { description }, async (ctx: ServerContext) => {
    const run = state.start(name, ctx.mcpReq.id);
    try {
      return await answer(ctx);
    } finally {
      run.finishedAt = performance.now();
    }
  });
}

export function registerConformanceFixtures(server: McpServer, state: FixtureState, { legacy }: { legacy: boolean }): void {
  const tool = noArgumentTool.bind(null, server, state);

  // ===== tools (tools.ts) =====
  tool('test_simple_text', 'Tests simple text content response', () => text(CONFORMANCE_TEXT.simpleText));
  tool('test_image_content', 'Tests image content response', () => ({
    content: [{ type: 'image', data: TEST_IMAGE_BASE64, mimeType: 'image/png' }],
  }));
  tool('test_audio_content', 'Tests audio content response', () => ({
    content: [{ type: 'audio', data: TEST_AUDIO_BASE64, mimeType: 'audio/wav' }],
  }));
  tool('test_embedded_resource', 'Tests embedded resource content response', () => ({
    content: [{ type: 'resource', resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: CONFORMANCE_TEXT.embeddedResource } }],
  }));
  tool('test_multiple_content_types', 'Tests response with multiple content types (text, image, resource)', () => ({
    content: [
      { type: 'text', text: CONFORMANCE_TEXT.multipleContentTypes },
      { type: 'image', data: TEST_IMAGE_BASE64, mimeType: 'image/png' },
      {
        type: 'resource',
        resource: { uri: 'test://mixed-content-resource', mimeType: 'application/json', text: JSON.stringify({ test: 'data', value: 123 }) },
      },
    ],
  }));
  tool('test_tool_with_logging', 'Tests tool that emits log messages during execution', async (ctx) => {
    for (const [index, message] of CONFORMANCE_TEXT.logs.entries()) {
      if (index > 0) await pause(STEP_MS, ctx.mcpReq.signal);
      await ctx.mcpReq.log('info', message);
    }
    return text(CONFORMANCE_TEXT.loggingDone);
  });
  tool('test_tool_with_progress', 'Tests tool that reports progress notifications', async (ctx) => {
    const progressToken = ctx.mcpReq._meta?.progressToken;
    for (const [index, progress] of [0, 50, 100].entries()) {
      if (index > 0) await pause(STEP_MS, ctx.mcpReq.signal);
      if (progressToken !== undefined) {
        await ctx.mcpReq.notify({
          method: 'notifications/progress',
          params: { progressToken, progress, total: 100, message: `Completed step ${progress} of 100` },
        });
      }
    }
    return text(progressToken === undefined ? 'no progressToken' : String(progressToken));
  });
  tool('test_error_handling', 'Tests error response handling', () => ({
    isError: true,
    content: [{ type: 'text', text: CONFORMANCE_TEXT.error }],
  }));
  // SEP-1699 (sse-polling.ts): the stream closes mid-call; the result reaches the client after it reconnects.
  tool(
    'test_reconnection',
    'Tests SSE stream disconnection and client reconnection (SEP-1699). Server will close the stream mid-call and send the result after client reconnects.',
    (ctx) => (closeOwnStream(ctx) ? text(CONFORMANCE_TEXT.reconnection) : notClosable()),
  );

  server.registerTool(
    'test_sampling',
    { description: 'Tests server-initiated sampling (LLM completion request)', inputSchema: CONFORMANCE_SCHEMAS.sampling },
    async ({ prompt }, ctx) => {
      const run = state.start('test_sampling', ctx.mcpReq.id);
      try {
        const result = await ctx.mcpReq.requestSampling({ messages: [{ role: 'user', content: { type: 'text', text: prompt } }], maxTokens: 100 });
        const content = Array.isArray(result.content) ? result.content[0] : result.content;
        return text(`LLM response: ${content?.type === 'text' ? content.text : 'No response'}`);
      } catch (error) {
        return { isError: true, content: [{ type: 'text', text: `Sampling not supported or error: ${messageOf(error)}` }] };
      } finally {
        run.finishedAt = performance.now();
      }
    },
  );

  /** A tool that asks the client for input with a 2025 elicitation request and reports the answer after `label`. */
  const elicitingTool = (
    name: string,
    description: string,
    inputSchema: z.ZodObject,
    request: (args: Record<string, unknown>) => Parameters<ServerContext['mcpReq']['elicitInput']>[0],
    label: string,
  ) =>
    server.registerTool(name, { description, inputSchema }, async (args: Record<string, unknown>, ctx: ServerContext) => {
      const run = state.start(name, ctx.mcpReq.id);
      try {
        const result = await ctx.mcpReq.elicitInput(request(args));
        return text(`${label}: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`);
      } catch (error) {
        return { isError: true, content: [{ type: 'text', text: `Elicitation not supported or error: ${messageOf(error)}` }] };
      } finally {
        run.finishedAt = performance.now();
      }
    });

  elicitingTool(
    'test_elicitation',
    'Tests server-initiated elicitation (user input request)',
    CONFORMANCE_SCHEMAS.elicitation,
    (args) => ({
      message: String(args.message),
      requestedSchema: {
        type: 'object',
        properties: {
          username: { type: 'string', description: "User's response" },
          email: { type: 'string', description: "User's email address" },
        },
        required: ['username', 'email'],
      },
    }),
    'User response',
  );
  // SEP-1034 (elicitation-defaults.ts): a default for every primitive type.
  elicitingTool(
    'test_elicitation_sep1034_defaults',
    'Tests elicitation with default values per SEP-1034',
    CONFORMANCE_SCHEMAS.none,
    () => ({
      message: 'Please review and update the form fields with defaults',
      requestedSchema: {
        type: 'object',
        properties: {
          name: { type: 'string', description: 'User name', default: 'John Doe' },
          age: { type: 'integer', description: 'User age', default: 30 },
          score: { type: 'number', description: 'User score', default: 95.5 },
          status: { type: 'string', description: 'User status', enum: ['active', 'inactive', 'pending'], default: 'active' },
          verified: { type: 'boolean', description: 'Verification status', default: true },
        },
        required: [],
      },
    }),
    'Elicitation completed',
  );
  // SEP-1330 (elicitation-enums.ts): all five enum schema variants.
  elicitingTool(
    'test_elicitation_sep1330_enums',
    'Tests elicitation with enum schema improvements per SEP-1330',
    CONFORMANCE_SCHEMAS.none,
    () => ({
      message: 'Please select options from the enum fields',
      requestedSchema: {
        type: 'object',
        properties: {
          untitledSingle: { type: 'string', description: 'Select one option', enum: ['option1', 'option2', 'option3'] },
          titledSingle: {
            type: 'string',
            description: 'Select one option with titles',
            oneOf: [
              { const: 'value1', title: 'First Option' },
              { const: 'value2', title: 'Second Option' },
              { const: 'value3', title: 'Third Option' },
            ],
          },
          legacyEnum: {
            type: 'string',
            description: 'Select one option (legacy)',
            enum: ['opt1', 'opt2', 'opt3'],
            enumNames: ['Option One', 'Option Two', 'Option Three'],
          },
          untitledMulti: {
            type: 'array',
            description: 'Select multiple options',
            minItems: 1,
            maxItems: 3,
            items: { type: 'string', enum: ['option1', 'option2', 'option3'] },
          },
          titledMulti: {
            type: 'array',
            description: 'Select multiple options with titles',
            minItems: 1,
            maxItems: 3,
            items: {
              anyOf: [
                { const: 'value1', title: 'First Choice' },
                { const: 'value2', title: 'Second Choice' },
                { const: 'value3', title: 'Third Choice' },
              ],
            },
          },
        },
        required: [],
      },
    }),
    'Elicitation completed',
  );

  // SEP-1613 / SEP-2106 (json-schema-2020-12.ts): the raw schema is listed as written.
  server.registerTool(
    'json_schema_2020_12_tool',
    { description: 'Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613)', inputSchema: CONFORMANCE_SCHEMAS.jsonSchema2020 },
    async (args, ctx) => {
      const run = state.start('json_schema_2020_12_tool', ctx.mcpReq.id);
      run.finishedAt = performance.now();
      return text(`JSON Schema 2020-12 tool called with: ${JSON.stringify(args)}`);
    },
  );

  // SEP-2243 (http-standard-headers.ts): a parameter mirrored in a custom header; from 2026-07-28 a client sends
  // `Mcp-Param-Region` with it and the SDK checks header against body before the handler runs.
  server.registerTool(
    'test_custom_header',
    {
      description: 'SEP-2243: its region argument is also sent in the Mcp-Param-Region header (2026-07-28)',
      inputSchema: CONFORMANCE_SCHEMAS.customHeader,
    },
    async ({ region }, ctx) => {
      const run = state.start('test_custom_header', ctx.mcpReq.id);
      run.finishedAt = performance.now();
      return text(`region: ${region}`);
    },
  );

  // ===== resources (resources.ts) =====
  server.registerResource(
    'static-text',
    'test://static-text',
    { title: 'Static Text Resource', description: 'A static text resource for testing', mimeType: 'text/plain' },
    async () => ({ contents: [{ uri: 'test://static-text', mimeType: 'text/plain', text: CONFORMANCE_TEXT.staticText }] }),
  );
  server.registerResource(
    'static-binary',
    'test://static-binary',
    { title: 'Static Binary Resource', description: 'A static binary resource (image) for testing', mimeType: 'image/png' },
    async () => ({ contents: [{ uri: 'test://static-binary', mimeType: 'image/png', blob: TEST_IMAGE_BASE64 }] }),
  );
  server.registerResource(
    'template',
    new ResourceTemplate('test://template/{id}/data', { list: undefined }),
    { title: 'Resource Template', description: 'A resource template with parameter substitution', mimeType: 'application/json' },
    async (uri, { id }) => ({
      contents: [{ uri: uri.toString(), mimeType: 'application/json', text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${String(id)}` }) }],
    }),
  );
  server.registerResource(
    'watched-resource',
    'test://watched-resource',
    { title: 'Watched Resource', description: 'A resource clients may subscribe to', mimeType: 'text/plain' },
    async () => ({ contents: [{ uri: 'test://watched-resource', mimeType: 'text/plain', text: CONFORMANCE_TEXT.watched }] }),
  );
  if (legacy) {
    // Subscriptions are accepted and answered `{}`; the fixtures never change, so no update is ever sent.
    server.server.setRequestHandler('resources/subscribe', async () => ({}));
    server.server.setRequestHandler('resources/unsubscribe', async () => ({}));
  }

  // ===== prompts (prompts.ts; utils.ts for completion) =====
  server.registerPrompt('test_simple_prompt', { title: 'Simple Test Prompt', description: 'A simple prompt without arguments' }, async () => ({
    messages: [{ role: 'user', content: { type: 'text', text: CONFORMANCE_TEXT.simplePrompt } }],
  }));
  server.registerPrompt(
    'test_prompt_with_arguments',
    {
      title: 'Prompt With Arguments',
      description: 'A prompt with required arguments',
      argsSchema: CONFORMANCE_SCHEMAS.promptArguments,
    },
    async ({ arg1, arg2 }) => ({
      messages: [{ role: 'user', content: { type: 'text', text: `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'` } }],
    }),
  );
  server.registerPrompt(
    'test_prompt_with_embedded_resource',
    {
      title: 'Prompt With Embedded Resource',
      description: 'A prompt that includes an embedded resource',
      argsSchema: CONFORMANCE_SCHEMAS.embeddedResourcePrompt,
    },
    async ({ resourceUri }) => ({
      messages: [
        { role: 'user', content: { type: 'resource', resource: { uri: resourceUri, mimeType: 'text/plain', text: CONFORMANCE_TEXT.embeddedPromptResource } } },
        { role: 'user', content: { type: 'text', text: CONFORMANCE_TEXT.embeddedPromptText } },
      ],
    }),
  );
  server.registerPrompt('test_prompt_with_image', { title: 'Prompt With Image', description: 'A prompt that includes image content' }, async () => ({
    messages: [
      { role: 'user', content: { type: 'image', data: TEST_IMAGE_BASE64, mimeType: 'image/png' } },
      { role: 'user', content: { type: 'text', text: CONFORMANCE_TEXT.imagePromptText } },
    ],
  }));

  registerMultiRoundTripFixtures(server, state);
}

/**
 * The `requestState` integrity codec every fixture server shares (SEP-2322: state that influences the answer MUST
 * be integrity-protected and tampered state rejected). One key per process: in 2026-07-28 every round of a flow
 * reaches a fresh server instance, and all of them must verify what another minted.
 */
export const REQUEST_STATE_CODEC = createRequestStateCodec<Record<string, unknown>>({ key: randomBytes(32) });

const nameSchema = { type: 'object' as const, properties: { name: { type: 'string' as const } }, required: ['name'] };
const askName = (message = 'What is your name?') => inputRequired.elicit({ message, requestedSchema: nameSchema });
const confirm = () =>
  inputRequired.elicit({ message: 'Please confirm', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] } });

/** The text an accepted elicitation put in `field`, if any. */
function elicited(ctx: ServerContext, key: string, field: string): string | undefined {
  const value = acceptedContent(ctx.mcpReq.inputResponses, key)?.[field];
  return typeof value === 'string' ? value : undefined;
}

function sampledText(ctx: ServerContext, key: string): string | undefined {
  const view = inputResponse(ctx.mcpReq.inputResponses, key);
  if (view.kind !== 'sampling') return undefined;
  const content = Array.isArray(view.result.content) ? view.result.content[0] : view.result.content;
  return content?.type === 'text' ? content.text : undefined;
}

function rootsOf(ctx: ServerContext, key: string): string[] | undefined {
  const view = inputResponse(ctx.mcpReq.inputResponses, key);
  return view.kind === 'roots' ? view.roots.map((root) => root.uri) : undefined;
}

/** SEP-2322 multi-round-trip tools and prompt (input-required-result.ts), and the SEP-2575 diagnostics (stateless.ts). */
function registerMultiRoundTripFixtures(server: McpServer, state: FixtureState): void {
  /** The capabilities the client declared: in the request's envelope (2026-07-28) or at initialize (2025). */
  const clientCapabilities = (ctx: ServerContext): ClientCapabilities =>
    ((ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined) ??
    server.server.getClientCapabilities() ??
    {};
  const mint = (payload: Record<string, unknown>) => REQUEST_STATE_CODEC.mint({ ...payload, nonce: randomBytes(8).toString('hex') });
  const tool = noArgumentTool.bind(null, server, state);

  // A1 (also A7 missing-input-response, A9 result-type, A14 ignore-extra-params, A15 validate-input): anything but
  // an accepted `user_name` response is asked again.
  tool('test_input_required_result_elicitation', 'MRTR: returns InputRequiredResult with elicitation request', async (ctx) => {
    const name = elicited(ctx, 'user_name', 'name');
    return name === undefined ? inputRequired({ inputRequests: { user_name: askName() } }) : text(`Hello, ${name}!`);
  });
  tool('test_input_required_result_sampling', 'MRTR: returns InputRequiredResult with sampling request', async (ctx) => {
    const answer = sampledText(ctx, 'capital_question');
    if (answer !== undefined) return text(`Sampling result: ${answer}`);
    return inputRequired({
      inputRequests: {
        capital_question: inputRequired.createMessage({
          messages: [{ role: 'user', content: { type: 'text', text: 'What is the capital of France?' } }],
          maxTokens: 100,
        }),
      },
    });
  });
  tool('test_input_required_result_list_roots', 'MRTR: returns InputRequiredResult with roots/list request', async (ctx) => {
    const roots = rootsOf(ctx, 'client_roots');
    if (roots === undefined) return inputRequired({ inputRequests: { client_roots: inputRequired.listRoots() } });
    return text(`Found ${roots.length} root(s)${roots.length > 0 ? `: ${roots.join(', ')}` : ''}`);
  });
  tool('test_input_required_result_request_state', 'MRTR: returns InputRequiredResult with requestState', async (ctx) => {
    const previous = ctx.mcpReq.requestState<Record<string, unknown>>();
    if (previous?.kind === 'request-state' && acceptedContent(ctx.mcpReq.inputResponses, 'confirm')?.ok === true) {
      return text('state-ok: requestState validated');
    }
    return inputRequired({ inputRequests: { confirm: confirm() }, requestState: await mint({ kind: 'request-state' }) });
  });
  tool('test_input_required_result_multiple_inputs', 'MRTR: returns InputRequiredResult with multiple input requests', async (ctx) => {
    const previous = ctx.mcpReq.requestState<Record<string, unknown>>();
    const name = elicited(ctx, 'user_name', 'name');
    const greeting = sampledText(ctx, 'greeting');
    const roots = rootsOf(ctx, 'client_roots');
    if (previous?.kind === 'multiple-inputs' && name !== undefined && greeting !== undefined && roots !== undefined) {
      return text(`Name: ${name}; Greeting: ${greeting}; Roots: ${roots.length}`);
    }
    return inputRequired({
      inputRequests: {
        user_name: askName(),
        greeting: inputRequired.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: 'Generate a greeting' } }], maxTokens: 50 }),
        client_roots: inputRequired.listRoots(),
      },
      requestState: await mint({ kind: 'multiple-inputs' }),
    });
  });
  tool('test_input_required_result_multi_round', 'MRTR: multi-round InputRequiredResult workflow', async (ctx) => {
    const previous = ctx.mcpReq.requestState<Record<string, unknown>>();
    const name = elicited(ctx, 'step1', 'name');
    if (previous?.round === 1 && name !== undefined) {
      const favourite = { type: 'object' as const, properties: { color: { type: 'string' as const } }, required: ['color'] };
      return inputRequired({
        inputRequests: { step2: inputRequired.elicit({ message: 'Step 2: What is your favorite color?', requestedSchema: favourite }) },
        requestState: await mint({ round: 2, name }),
      });
    }
    const color = elicited(ctx, 'step2', 'color');
    if (previous?.round === 2 && color !== undefined) return text(`Multi-round complete for ${String(previous.name)} who likes ${color}`);
    return inputRequired({ inputRequests: { step1: askName('Step 1: What is your name?') }, requestState: await mint({ round: 1 }) });
  });
  // A tampered requestState never reaches the handler: the codec's verify fails and the SDK answers -32602.
  tool('test_input_required_result_tampered_state', 'MRTR: HMAC-signed requestState integrity test', async (ctx) => {
    const previous = ctx.mcpReq.requestState<Record<string, unknown>>();
    if (previous?.kind === 'tamper-test' && acceptedContent(ctx.mcpReq.inputResponses, 'confirm') !== undefined) {
      return text('integrity-ok: state verified');
    }
    return inputRequired({ inputRequests: { confirm: confirm() }, requestState: await mint({ kind: 'tamper-test' }) });
  });
  // Asks only for what the client declared it can answer.
  tool('test_input_required_result_capabilities', 'MRTR: respects client capabilities in inputRequests', async (ctx) => {
    const received = Object.keys(ctx.mcpReq.inputResponses ?? {});
    if (received.length > 0) return text(`capabilities-ok: received ${received.join(',')}`);
    const capabilities = clientCapabilities(ctx);
    const inputRequests: Record<string, InputRequest> = {};
    if (capabilities.elicitation) {
      inputRequests.elicit_input = inputRequired.elicit({
        message: 'Elicitation input',
        requestedSchema: { type: 'object', properties: { value: { type: 'string' } }, required: ['value'] },
      });
    }
    if (capabilities.sampling) {
      inputRequests.sample_input = inputRequired.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: 'Sample request' } }], maxTokens: 50 });
    }
    if (Object.keys(inputRequests).length === 0) return text('No supported capabilities declared');
    return inputRequired({ inputRequests, requestState: await mint({ kind: 'capabilities-test' }) });
  });
  server.registerPrompt('test_input_required_result_prompt', { description: 'MRTR: prompt that requires elicitation input' }, async (ctx) => {
    const context = elicited(ctx, 'user_context', 'context');
    if (context === undefined) {
      return inputRequired({
        inputRequests: {
          user_context: inputRequired.elicit({
            message: 'What context should the prompt use?',
            requestedSchema: { type: 'object', properties: { context: { type: 'string' } }, required: ['context'] },
          }),
        },
      });
    }
    return { messages: [{ role: 'user', content: { type: 'text', text: `Prompt with context: ${context}` } }] };
  });

  // SEP-2575 diagnostics (stateless.ts).
  // Needs sampling: its input_required result embeds a sampling request, which the SDK refuses to send to a
  // client that did not declare sampling (-32021 MissingRequiredClientCapability, HTTP 400 in 2026-07-28).
  tool('test_missing_capability', 'Requires the sampling client capability: samples one message, then answers', async (ctx) => {
    const sampled = sampledText(ctx, 'required_sample');
    if (sampled !== undefined) return text(`Success: ${sampled}`);
    return inputRequired({
      inputRequests: {
        required_sample: inputRequired.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: 'Say anything' } }], maxTokens: 20 }),
      },
    });
  });
  // Its response stream carries an input_required result, never an independent server-to-client request.
  tool('test_streaming_elicitation', 'Asks for elicitation input through an input_required result, then completes', async (ctx) => {
    const value = elicited(ctx, 'stream_input', 'value');
    if (value !== undefined) return text(`Streaming complete: ${value}`);
    return inputRequired({
      inputRequests: {
        stream_input: inputRequired.elicit({
          message: 'Streaming input',
          requestedSchema: { type: 'object', properties: { value: { type: 'string' } }, required: ['value'] },
        }),
      },
    });
  });
  // Logs through the SDK, which sends nothing to a 2026-07-28 request without an io.modelcontextprotocol/logLevel.
  tool('test_logging_tool', 'Logs one info message, subject to the requested log level', async (ctx) => {
    await ctx.mcpReq.log('info', 'Diagnostic trace logging activated');
    return text('Logging evaluated');
  });
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
