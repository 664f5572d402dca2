// Every fixture answers exactly, over real HTTP, driven by the official SDK v2 client: in a 2025-11-25 session
// and in 2026-07-28 (one fresh McpServer per request), since createFixtureServer serves both eras.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { describe, expect, test } from 'vitest';
import { ARG1_COMPLETIONS, CONFORMANCE_TEXT, JSON_SCHEMA_2020_12_INPUT_SCHEMA, TEST_AUDIO_BASE64, TEST_IMAGE_BASE64 } from './conformance-fixtures.ts';
import { CLOSE_STREAM_ANSWER, FixtureState } from './fixtures.ts';
import type { ReferenceServer } from './reference-server.ts';
import { startReferenceServer } from './server.ts';
import { closedAfterEach, MODERN, modernRequest, RawClient, RESULT_META } from './test-support.ts';

const LEGACY = '2025-11-25';
type FixtureEra = typeof LEGACY | typeof MODERN;

/** What the client's elicitation handler accepts: for each requested property, its value here. */
const ELICITED: Record<string, unknown> = {
  name: 'Ada',
  color: 'red',
  context: 'ctx',
  value: 'v',
  ok: true,
  username: 'testuser',
  email: 'test@example.com',
  age: 25,
  score: 88,
  status: 'inactive',
  verified: false,
  untitledSingle: 'option1',
  titledSingle: 'value2',
  legacyEnum: 'opt3',
  untitledMulti: ['option1', 'option2'],
  titledMulti: ['value1'],
};
const ROOT = { uri: 'file:///conformance/root', name: 'root' };

interface Connected {
  server: ReferenceServer;
  client: Client;
  /** The params of every server-to-client request the client answered, by method. */
  received: { method: string; params: Record<string, any> }[];
  logs: Record<string, unknown>[];
}

/** Servers and clients a test opened; closed after it, last opened first. */
const opened = closedAfterEach();

async function connect(era: FixtureEra, capabilities: Record<string, object> = { sampling: {}, elicitation: {}, roots: {} }): Promise<Connected> {
  const server = opened.keep(await startReferenceServer({ era }));
  const client = new Client(
    { name: 'fixtures-test', version: '0' },
    { capabilities, ...(era === MODERN && { versionNegotiation: { mode: { pin: MODERN } } }) },
  );
  const connected: Connected = { server, client, received: [], logs: [] };
  // The SDK refuses a handler for a capability the client does not declare.
  if (capabilities.elicitation) client.setRequestHandler('elicitation/create', async ({ params }) => {
    connected.received.push({ method: 'elicitation/create', params });
    const wanted = Object.keys((params as { requestedSchema?: { properties?: object } }).requestedSchema?.properties ?? {});
    return { action: 'accept', content: Object.fromEntries(wanted.map((key) => [key, ELICITED[key]])) as Record<string, string> };
  });
  if (capabilities.sampling) client.setRequestHandler('sampling/createMessage', async ({ params }) => {
    connected.received.push({ method: 'sampling/createMessage', params });
    return { role: 'assistant', content: { type: 'text', text: 'Paris' }, model: 'test-model', stopReason: 'endTurn' };
  });
  if (capabilities.roots) client.setRequestHandler('roots/list', async ({ params }) => {
    connected.received.push({ method: 'roots/list', params: params ?? {} });
    return { roots: [ROOT] };
  });
  client.setNotificationHandler('notifications/message', ({ params }) => {
    connected.logs.push(params);
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
  opened.keep(client);
  return connected;
}

/** What a result looks like in an era: 2026-07-28 results also carry the server's identity in `_meta`. */
const inEra = (era: FixtureEra, result: object) => (era === MODERN ? { _meta: RESULT_META, ...result } : result);
const text = (value: string) => ({ content: [{ type: 'text', text: value }] });
/** Without the SDK's own `_meta` on a server-to-client request (a progress token on 2025 sessions). */
const withoutMeta = ({ _meta: _ignored, ...params }: Record<string, any>) => params;

const TOOLS = [
  'echo',
  'slow',
  'count',
  'idempotent_count',
  'progress',
  'close_stream',
  'ping_client',
  'ask_client',
  'ask_client_later',
  'notify_client',
  'input_client',
  'test_simple_text',
  'test_image_content',
  'test_audio_content',
  'test_embedded_resource',
  'test_multiple_content_types',
  'test_tool_with_logging',
  'test_tool_with_progress',
  'test_error_handling',
  'test_reconnection',
  'test_sampling',
  'test_elicitation',
  'test_elicitation_sep1034_defaults',
  'test_elicitation_sep1330_enums',
  'json_schema_2020_12_tool',
  'test_custom_header',
  'test_input_required_result_elicitation',
  'test_input_required_result_sampling',
  'test_input_required_result_list_roots',
  'test_input_required_result_request_state',
  'test_input_required_result_multiple_inputs',
  'test_input_required_result_multi_round',
  'test_input_required_result_tampered_state',
  'test_input_required_result_capabilities',
  'test_missing_capability',
  'test_streaming_elicitation',
  'test_logging_tool',
];

describe.each([LEGACY, MODERN] as const)('fixtures at %s', (era) => {
  test('lists every tool, resource, resource template and prompt', async () => {
    const { client } = await connect(era);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(TOOLS);
    expect((await client.listResources()).resources.map(({ uri, name, mimeType }) => [uri, name, mimeType])).toEqual([
      ['test://static-text', 'static-text', 'text/plain'],
      ['test://static-binary', 'static-binary', 'image/png'],
      ['test://watched-resource', 'watched-resource', 'text/plain'],
    ]);
    expect((await client.listResourceTemplates()).resourceTemplates.map(({ uriTemplate, name }) => [uriTemplate, name])).toEqual([
      ['test://template/{id}/data', 'template'],
    ]);
    expect((await client.listPrompts()).prompts.map((prompt) => [prompt.name, prompt.arguments?.map((argument) => [argument.name, argument.required])])).toEqual([
      ['test_simple_prompt', undefined],
      ['test_prompt_with_arguments', [['arg1', true], ['arg2', true]]],
      ['test_prompt_with_embedded_resource', [['resourceUri', true]]],
      ['test_prompt_with_image', undefined],
      ['test_input_required_result_prompt', undefined],
    ]);
  });

  test('the content tools answer exactly what the harness scenarios specify', async () => {
    const { client, server } = await connect(era);
    const expected: [string, object][] = [
      ['test_simple_text', text(CONFORMANCE_TEXT.simpleText)],
      ['test_image_content', { content: [{ type: 'image', data: TEST_IMAGE_BASE64, mimeType: 'image/png' }] }],
      ['test_audio_content', { content: [{ type: 'audio', data: TEST_AUDIO_BASE64, mimeType: 'audio/wav' }] }],
      [
        'test_embedded_resource',
        { content: [{ type: 'resource', resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: CONFORMANCE_TEXT.embeddedResource } }] },
      ],
      [
        'test_multiple_content_types',
        {
          content: [
            { type: 'text', text: 'Multiple content types test:' },
            { type: 'image', data: TEST_IMAGE_BASE64, mimeType: 'image/png' },
            { type: 'resource', resource: { uri: 'test://mixed-content-resource', mimeType: 'application/json', text: '{"test":"data","value":123}' } },
          ],
        },
      ],
      ['test_error_handling', { isError: true, content: [{ type: 'text', text: 'This tool intentionally returns an error for testing' }] }],
    ];
    for (const [name, result] of expected) expect(await client.callTool({ name, arguments: {} })).toEqual(inEra(era, result));
    expect(server.fixtures.runs.map((run) => run.tool)).toEqual(expected.map(([name]) => name));
  });

  test('the progress tools report progress on the call token, then answer', async () => {
    const { client, server } = await connect(era);
    const progress: object[] = [];
    const standard = await client.callTool({ name: 'test_tool_with_progress', arguments: {} }, { onprogress: (p) => void progress.push(p) });
    expect(progress).toEqual([0, 50, 100].map((step) => ({ progress: step, total: 100, message: `Completed step ${step} of 100` })));
    const token = server.record.requests('tools/call').at(-1)!.message.params!._meta as { progressToken: unknown };
    expect(standard).toEqual(inEra(era, text(String(token.progressToken))));

    progress.length = 0;
    expect(await client.callTool({ name: 'progress', arguments: { steps: 3 } }, { onprogress: (p) => void progress.push(p) })).toEqual(inEra(era, text('completed 3/3')));
    expect(progress).toEqual([1, 2, 3].map((step) => ({ progress: step, total: 3 })));
  });

  test('the multi-round-trip tools ask for input, then answer with it', async () => {
    const { client, received } = await connect(era);
    const answers: [string, string][] = [
      ['test_input_required_result_elicitation', 'Hello, Ada!'],
      ['test_input_required_result_sampling', 'Sampling result: Paris'],
      ['test_input_required_result_list_roots', `Found 1 root(s): ${ROOT.uri}`],
      ['test_input_required_result_request_state', 'state-ok: requestState validated'],
      ['test_input_required_result_multiple_inputs', 'Name: Ada; Greeting: Paris; Roots: 1'],
      ['test_input_required_result_multi_round', 'Multi-round complete for Ada who likes red'],
      ['test_input_required_result_tampered_state', 'integrity-ok: state verified'],
      ['test_input_required_result_capabilities', 'capabilities-ok: received elicit_input,sample_input'],
      ['test_missing_capability', 'Success: Paris'],
      ['test_streaming_elicitation', 'Streaming complete: v'],
    ];
    for (const [name, answer] of answers) expect(await client.callTool({ name, arguments: {} })).toEqual(inEra(era, text(answer)));
    const nameSchema = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] };
    const okSchema = { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] };
    expect(received.map(({ method, params }) => [method, withoutMeta(params)])).toEqual([
      ['elicitation/create', { mode: 'form', message: 'What is your name?', requestedSchema: nameSchema }],
      ['sampling/createMessage', { messages: [{ role: 'user', content: { type: 'text', text: 'What is the capital of France?' } }], maxTokens: 100 }],
      ['roots/list', {}],
      ['elicitation/create', { mode: 'form', message: 'Please confirm', requestedSchema: okSchema }],
      ['elicitation/create', { mode: 'form', message: 'What is your name?', requestedSchema: nameSchema }],
      ['sampling/createMessage', { messages: [{ role: 'user', content: { type: 'text', text: 'Generate a greeting' } }], maxTokens: 50 }],
      ['roots/list', {}],
      ['elicitation/create', { mode: 'form', message: 'Step 1: What is your name?', requestedSchema: nameSchema }],
      [
        'elicitation/create',
        { mode: 'form', message: 'Step 2: What is your favorite color?', requestedSchema: { type: 'object', properties: { color: { type: 'string' } }, required: ['color'] } },
      ],
      ['elicitation/create', { mode: 'form', message: 'Please confirm', requestedSchema: okSchema }],
      [
        'elicitation/create',
        { mode: 'form', message: 'Elicitation input', requestedSchema: { type: 'object', properties: { value: { type: 'string' } }, required: ['value'] } },
      ],
      ['sampling/createMessage', { messages: [{ role: 'user', content: { type: 'text', text: 'Sample request' } }], maxTokens: 50 }],
      ['sampling/createMessage', { messages: [{ role: 'user', content: { type: 'text', text: 'Say anything' } }], maxTokens: 20 }],
      [
        'elicitation/create',
        { mode: 'form', message: 'Streaming input', requestedSchema: { type: 'object', properties: { value: { type: 'string' } }, required: ['value'] } },
      ],
    ]);
  });

  test('the resources read exactly', async () => {
    const { client } = await connect(era);
    const read = async (uri: string) => client.readResource({ uri });
    const cacheable = (result: object) => (era === MODERN ? { ...inEra(era, result), ttlMs: 0, cacheScope: 'private' } : result);
    expect(await read('test://static-text')).toEqual(cacheable({ contents: [{ uri: 'test://static-text', mimeType: 'text/plain', text: CONFORMANCE_TEXT.staticText }] }));
    expect(await read('test://static-binary')).toEqual(cacheable({ contents: [{ uri: 'test://static-binary', mimeType: 'image/png', blob: TEST_IMAGE_BASE64 }] }));
    expect(await read('test://watched-resource')).toEqual(cacheable({ contents: [{ uri: 'test://watched-resource', mimeType: 'text/plain', text: 'Watched resource content' }] }));
    expect(await read('test://template/123/data')).toEqual(
      cacheable({ contents: [{ uri: 'test://template/123/data', mimeType: 'application/json', text: '{"id":"123","templateTest":true,"data":"Data for ID: 123"}' }] }),
    );
  });

  test('the prompts answer exactly, and arg1 of test_prompt_with_arguments completes', async () => {
    const { client } = await connect(era);
    const user = (content: object) => ({ role: 'user', content });
    expect(await client.getPrompt({ name: 'test_simple_prompt' })).toEqual(inEra(era, { messages: [user({ type: 'text', text: CONFORMANCE_TEXT.simplePrompt })] }));
    expect(await client.getPrompt({ name: 'test_prompt_with_arguments', arguments: { arg1: 'hello', arg2: 'world' } })).toEqual(
      inEra(era, { messages: [user({ type: 'text', text: "Prompt with arguments: arg1='hello', arg2='world'" })] }),
    );
    expect(await client.getPrompt({ name: 'test_prompt_with_embedded_resource', arguments: { resourceUri: 'test://example-resource' } })).toEqual(
      inEra(era, {
        messages: [
          user({ type: 'resource', resource: { uri: 'test://example-resource', mimeType: 'text/plain', text: 'Embedded resource content for testing.' } }),
          user({ type: 'text', text: 'Please process the embedded resource above.' }),
        ],
      }),
    );
    expect(await client.getPrompt({ name: 'test_prompt_with_image' })).toEqual(
      inEra(era, { messages: [user({ type: 'image', data: TEST_IMAGE_BASE64, mimeType: 'image/png' }), user({ type: 'text', text: 'Please analyze the image above.' })] }),
    );
    expect(await client.getPrompt({ name: 'test_input_required_result_prompt' })).toEqual(inEra(era, { messages: [user({ type: 'text', text: 'Prompt with context: ctx' })] }));
    const completion = await client.complete({ ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' }, argument: { name: 'arg1', value: 'pa' } });
    expect(completion).toEqual(inEra(era, { completion: { values: ['paris', 'park', 'party'], total: 3, hasMore: false } }));
    expect(ARG1_COMPLETIONS.filter((word) => word.startsWith('pa'))).toEqual(['paris', 'park', 'party']);
  });

  test('json_schema_2020_12_tool is listed with its JSON Schema 2020-12 input schema untouched; test_custom_header echoes its region', async () => {
    const { client } = await connect(era);
    const tool = (await client.listTools()).tools.find((t) => t.name === 'json_schema_2020_12_tool');
    expect(tool?.inputSchema).toEqual(JSON_SCHEMA_2020_12_INPUT_SCHEMA);
    const args = { name: 'Ada', contactMethod: 'email', email: 'ada@example.com' };
    expect(await client.callTool({ name: 'json_schema_2020_12_tool', arguments: args })).toEqual(
      inEra(era, text(`JSON Schema 2020-12 tool called with: ${JSON.stringify(args)}`)),
    );
    expect(await client.callTool({ name: 'test_custom_header', arguments: { region: 'eu-west' } })).toEqual(inEra(era, text('region: eu-west')));
  });
});

describe('fixtures only a 2025-11-25 session has', () => {
  test('logging: setLevel answers {}; test_tool_with_logging logs three info messages, filtered by the level', async () => {
    const { client, logs } = await connect(LEGACY);
    expect(await client.setLoggingLevel('debug')).toEqual({});
    expect(await client.callTool({ name: 'test_tool_with_logging', arguments: {} })).toEqual(text(CONFORMANCE_TEXT.loggingDone));
    expect(logs).toEqual(CONFORMANCE_TEXT.logs.map((data) => ({ level: 'info', data })));
    logs.length = 0;
    expect(await client.setLoggingLevel('warning')).toEqual({});
    expect(await client.callTool({ name: 'test_tool_with_logging', arguments: {} })).toEqual(text(CONFORMANCE_TEXT.loggingDone));
    expect(logs).toEqual([]);
  });

  test('test_sampling and the elicitation tools send their request to the client and report its answer', async () => {
    const { client, received } = await connect(LEGACY);
    expect(await client.callTool({ name: 'test_sampling', arguments: { prompt: 'Capital of France?' } })).toEqual(text('LLM response: Paris'));
    expect(await client.callTool({ name: 'test_elicitation', arguments: { message: 'Who are you?' } })).toEqual(
      text('User response: action=accept, content={"username":"testuser","email":"test@example.com"}'),
    );
    expect(await client.callTool({ name: 'test_elicitation_sep1034_defaults', arguments: {} })).toEqual(
      text('Elicitation completed: action=accept, content={"name":"Ada","age":25,"score":88,"status":"inactive","verified":false}'),
    );
    expect(await client.callTool({ name: 'test_elicitation_sep1330_enums', arguments: {} })).toEqual(
      text(
        'Elicitation completed: action=accept, content={"untitledSingle":"option1","titledSingle":"value2","legacyEnum":"opt3","untitledMulti":["option1","option2"],"titledMulti":["value1"]}',
      ),
    );
    const [sampling, elicitation, defaults, enums] = received.map(({ params }) => withoutMeta(params));
    expect(sampling).toEqual({ messages: [{ role: 'user', content: { type: 'text', text: 'Capital of France?' } }], maxTokens: 100 });
    expect(elicitation).toEqual({
      mode: 'form',
      message: 'Who are you?',
      requestedSchema: {
        type: 'object',
        properties: { username: { type: 'string', description: "User's response" }, email: { type: 'string', description: "User's email address" } },
        required: ['username', 'email'],
      },
    });
    const properties = (params: Record<string, any> | undefined) => params?.requestedSchema.properties as Record<string, Record<string, unknown>>;
    expect(Object.fromEntries(Object.entries(properties(defaults)).map(([key, schema]) => [key, [schema.type, schema.default]]))).toEqual({
      name: ['string', 'John Doe'],
      age: ['integer', 30],
      score: ['number', 95.5],
      status: ['string', 'active'],
      verified: ['boolean', true],
    });
    expect(properties(enums)).toMatchObject({
      untitledSingle: { type: 'string', enum: ['option1', 'option2', 'option3'] },
      titledSingle: { type: 'string', oneOf: [{ const: 'value1', title: 'First Option' }, { const: 'value2', title: 'Second Option' }, { const: 'value3', title: 'Third Option' }] },
      legacyEnum: { type: 'string', enum: ['opt1', 'opt2', 'opt3'], enumNames: ['Option One', 'Option Two', 'Option Three'] },
      untitledMulti: { type: 'array', items: { type: 'string', enum: ['option1', 'option2', 'option3'] } },
      titledMulti: { type: 'array', items: { anyOf: [{ const: 'value1', title: 'First Choice' }, { const: 'value2', title: 'Second Choice' }, { const: 'value3', title: 'Third Choice' }] } },
    });
  });

  test('resources/subscribe and resources/unsubscribe answer {}', async () => {
    const { client } = await connect(LEGACY);
    expect(await client.subscribeResource({ uri: 'test://watched-resource' })).toEqual({});
    expect(await client.unsubscribeResource({ uri: 'test://watched-resource' })).toEqual({});
  });

  test('test_reconnection and close_stream: the client resumes with GET + Last-Event-ID and gets the answer; each ran once', async () => {
    const { client, server } = await connect(LEGACY);
    expect(await client.callTool({ name: 'test_reconnection', arguments: {} })).toEqual(text(CONFORMANCE_TEXT.reconnection));
    expect(await client.callTool({ name: 'close_stream', arguments: {} })).toEqual(text(CLOSE_STREAM_ANSWER));
    const calls = server.record.requests('tools/call').map(({ exchange }) => exchange);
    expect(calls).toHaveLength(2);
    for (const call of calls) {
      const [priming] = call.sseEvents;
      expect(call.sseEvents.map(({ at: _at, ...event }) => event)).toEqual([{ id: priming!.id, retry: 50, data: '' }]);
      const resumes = server.record.exchanges.filter((exchange) => exchange.method === 'GET' && exchange.requestHeaders['last-event-id'] === priming!.id);
      expect(resumes).toHaveLength(1);
      expect(resumes[0]!.responseMessages.map(({ message }) => message.id)).toEqual([call.requestMessages[0]!.id]);
    }
    expect([server.fixtures.runsOf('test_reconnection'), server.fixtures.runsOf('close_stream')]).toEqual([1, 1]);
  });
});

describe('fixtures at 2026-07-28 only', () => {
  test('test_missing_capability without the sampling capability: HTTP 400, -32021 naming sampling', async () => {
    const { client, server } = await connect(MODERN, { elicitation: {} });
    await expect(client.callTool({ name: 'test_missing_capability', arguments: {} })).rejects.toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { sampling: {} } },
    });
    const call = server.record.requests('tools/call').at(-1)!.exchange;
    expect(call.status).toBe(400);
    expect(call.responseMessages[0]!.message.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { sampling: {} } } });
  });

  test('test_logging_tool sends no log without io.modelcontextprotocol/logLevel in the request', async () => {
    const { client, server, logs } = await connect(MODERN);
    expect(await client.callTool({ name: 'test_logging_tool', arguments: {} })).toEqual(inEra(MODERN, text('Logging evaluated')));
    expect(logs).toEqual([]);
    const call = server.record.requests('tools/call').at(-1)!.exchange;
    expect(call.responseMessages.map(({ message }) => message.method ?? 'result')).toEqual(['result']);
  });

  test('a tampered requestState is refused with -32602 before the tool runs', async () => {
    const { client, server } = await connect(MODERN);
    expect(await client.callTool({ name: 'echo', arguments: { text: 'warm-up' } })).toEqual(inEra(MODERN, text('warm-up')));
    const raw = opened.keep(new RawClient());
    const call = modernRequest(
      9,
      'tools/call',
      {
        name: 'test_input_required_result_tampered_state',
        arguments: {},
        inputResponses: { confirm: { action: 'accept', content: { ok: true } } },
        requestState: 'v1.tampered.state',
      },
      { elicitation: {} },
    );
    const [message] = (await raw.post(server.url, call.body, call.headers)).messages;
    expect(message).toMatchObject({ jsonrpc: '2.0', id: 9, error: { code: -32602, message: 'Invalid or expired requestState' } });
    expect(server.fixtures.runsOf('test_input_required_result_tampered_state')).toBe(0);
  });
});

describe('FixtureState', () => {
  test("emits 'run' when a run starts and 'aborted' when markAborted records its abort", () => {
    const state = new FixtureState();
    const seen: string[] = [];
    const offRun = state.on('run', (run) => seen.push(`run ${run.tool} ${run.requestId}`));
    state.on('aborted', (run) => seen.push(`aborted ${run.tool} ${run.requestId}`));
    const run = state.start('slow', 1);
    state.markAborted(run);
    offRun();
    state.start('echo', 2);
    expect(seen).toEqual(['run slow 1', 'aborted slow 1']);
    expect(run.abortedAt).toEqual(expect.any(Number));
    expect(state.aborted()).toEqual([run]);
    expect(state.runs.map((r) => r.tool)).toEqual(['slow', 'echo']);
  });

  test('waitForRun resolves with a run already recorded, or with the first later run or abort that matches', async () => {
    const state = new FixtureState();
    const earlier = state.start('echo', 1);
    expect(await state.waitForRun((run) => run.tool === 'echo', 'an echo run')).toBe(earlier);

    const slowStarts = state.waitForRun((run) => run.tool === 'slow', 'a slow run');
    state.start('count', 2);
    const slow = state.start('slow', 3);
    expect(await slowStarts).toBe(slow);

    const slowAborted = state.waitForRun((run) => run === slow && run.abortedAt !== undefined, 'the slow run to be aborted');
    state.start('slow', 4);
    state.markAborted(slow);
    expect(await slowAborted).toBe(slow);
  });

  test('waitForRun rejects after its timeout with what it waited for', async () => {
    const state = new FixtureState();
    await expect(state.waitForRun((run) => run.tool === 'slow', 'a slow run that never comes', 20)).rejects.toThrow(
      'timed out after 20 ms waiting for a slow run that never comes',
    );
    const late = state.start('slow', 1);
    expect(await state.waitForRun((run) => run.tool === 'slow', 'the slow run')).toBe(late);
  });
});
