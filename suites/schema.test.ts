// messages-match-schema: real traffic of the official SDK clients and the reference client passes at every
// revision; doctored copies of it fail with a detail that names the exchange, the message and the first issue.
import { Client as V2Client, StreamableHTTPClientTransport as V2Transport } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { Ajv } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import type { Negotiation } from '../clients/adapter.ts';
import { createReferenceClient } from '../clients/reference/index.ts';
import type { Era } from '../servers/era.ts';
import { REVISIONS, type Revision } from '../protocol/revisions.ts';
import { startReferenceServer } from '../servers/server.ts';
import { closedAfterEach, within } from '../servers/test-support.ts';
import type { JsonRpcMessage, WireExchange } from '../servers/wire-record.ts';
import { clientMethods, SCHEMA_CHECK, schemaCheck, schemaSpec, validateClientMessage } from './schema.ts';

const MODERN: Revision = '2026-07-28';
const opened = closedAfterEach();

/** Starts a reference server of `era`, lets `drive` talk to it, and returns what the server recorded. */
async function record(era: Era, drive: (url: string) => Promise<void>): Promise<WireExchange[]> {
  const server = opened.keep(await startReferenceServer({ era }));
  await within(drive(server.url), `the client to finish with the ${era} server`, 20_000);
  return structuredClone(server.record.exchanges);
}

const ELICITED: Record<string, string> = { username: 'ada', email: 'ada@example.com', name: 'Ada' };

/** The official v2 client with sampling, elicitation and roots handlers, so servers can ask it things. */
function v2Client(negotiation: 'legacy' | 'auto' | { pin: string }): V2Client {
  const client = new V2Client({ name: 'schema-test', version: '0' }, { capabilities: { sampling: {}, elicitation: {}, roots: { listChanged: true } }, versionNegotiation: { mode: negotiation } });
  client.setRequestHandler('elicitation/create', async ({ params }) => {
    const wanted = Object.keys((params as { requestedSchema?: { properties?: object } }).requestedSchema?.properties ?? {});
    return { action: 'accept', content: Object.fromEntries(wanted.map((key) => [key, ELICITED[key] ?? 'x'])) };
  });
  client.setRequestHandler('sampling/createMessage', async () => ({ role: 'assistant', content: { type: 'text', text: 'Paris' }, model: 'test-model', stopReason: 'endTurn' }));
  client.setRequestHandler('roots/list', async () => ({ roots: [{ uri: 'file:///root', name: 'root' }] }));
  return client;
}

/** Every kind of client message a revision has, through the v2 client: requests, notifications, answers to the server. */
async function v2Workout(url: string, revision: Revision, negotiation: 'legacy' | 'auto' | { pin: string }): Promise<void> {
  const client = v2Client(negotiation);
  const transport = new V2Transport(new URL(url));
  await client.connect(transport);
  await client.listTools();
  await client.callTool({ name: 'echo', arguments: { text: 'hello' } });
  await client.callTool({ name: 'progress', arguments: { steps: 2 } }, { onprogress: () => {} });
  await client.listPrompts();
  await client.getPrompt({ name: 'test_prompt_with_arguments', arguments: { arg1: 'a', arg2: 'b' } });
  await client.listResources();
  await client.readResource({ uri: 'test://static-text' });
  await client.complete({ ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' }, argument: { name: 'arg1', value: 'p' } });
  if (revision === MODERN) {
    // Multi-round-trip: the client answers the server's input requests in a retried request.
    await client.callTool({ name: 'test_input_required_result_elicitation', arguments: {} });
    await client.callTool({ name: 'test_input_required_result_sampling', arguments: {} });
    await client.callTool({ name: 'test_input_required_result_list_roots', arguments: {} });
  } else {
    await client.ping();
    await client.setLoggingLevel('info');
    await client.subscribeResource({ uri: 'test://watched-resource' });
    await client.unsubscribeResource({ uri: 'test://watched-resource' });
    await client.sendRootsListChanged();
    // Server-to-client requests, answered by the client's handlers.
    await client.callTool({ name: 'test_sampling', arguments: { prompt: 'capital of France?' } });
    if (revision >= '2025-06-18') await client.callTool({ name: 'test_elicitation', arguments: { message: 'who are you?' } });
  }
  await transport.terminateSession().catch(() => {});
  await client.close();
}

/** The reference client of this project, through its adapter interface. */
async function referenceWorkout(url: string, negotiation: Negotiation): Promise<void> {
  const client = createReferenceClient();
  try {
    const connection = await client.connect(url, { timeoutMs: 5_000, negotiation });
    await connection.listTools();
    await connection.callTool('echo', { text: 'hello' });
    await connection.close();
  } finally {
    await client.dispose();
  }
}

/** The real traffic each test doctors: recorded once per revision (v2 client; v1 over HTTP+SSE for 2024-11-05). */
const traffic = new Map<Revision, WireExchange[]>();

beforeAll(async () => {
  traffic.set(
    '2024-11-05',
    await record('2024-11-05', async (url) => {
      const client = new V1Client({ name: 'schema-test', version: '0' }, { capabilities: { sampling: {}, roots: {} } });
      await client.connect(new SSEClientTransport(new URL(url)));
      await client.listTools();
      await client.callTool({ name: 'echo', arguments: { text: 'hello' } });
      await client.ping();
      await client.close();
    }),
  );
  for (const revision of ['2025-03-26', '2025-06-18', '2025-11-25'] as const) traffic.set(revision, await record(revision, (url) => v2Workout(url, revision, 'legacy')));
  traffic.set(MODERN, await record(MODERN, (url) => v2Workout(url, MODERN, { pin: MODERN })));
  await opened.closeAll();
}, 60_000);

const evidence = (revision: Revision, exchanges = traffic.get(revision)!) => ({ revision, exchanges });
const messagesOf = (exchanges: readonly WireExchange[]) => exchanges.flatMap((exchange) => exchange.requestMessages);

/** A copy of `revision`'s traffic with the first message matching `pick` changed by `change`; and the exchange it is in. */
function doctored(revision: Revision, pick: (message: JsonRpcMessage) => boolean, change: (message: Record<string, any>) => void) {
  const exchanges = structuredClone(traffic.get(revision)!);
  const exchange = exchanges.find((x) => x.requestMessages.some(pick));
  if (!exchange) throw new Error(`no such message in the ${revision} traffic`);
  change(exchange.requestMessages.find(pick) as Record<string, any>);
  return { evidence: evidence(revision, exchanges), seq: exchange.seq };
}

describe('real traffic passes', () => {
  test.each(REVISIONS.map((revision) => ({ revision })))('the official SDK client at $revision', ({ revision }) => {
    const result = schemaCheck(evidence(revision));
    expect(result.outcome, result.detail).toBe('pass');
    expect(result).toMatchObject({ name: SCHEMA_CHECK, spec: schemaSpec(revision), exchanges: [] });
    expect(result.detail).toMatch(new RegExp(`^all \\d+ messages the client sent match the ${revision} schema`));
  });

  test('the workouts cover requests, notifications and answers to server requests', () => {
    const legacy = messagesOf(traffic.get('2025-11-25')!);
    const methods = new Set(legacy.map((m) => m.method));
    for (const method of ['initialize', 'notifications/initialized', 'ping', 'tools/call', 'prompts/get', 'completion/complete', 'logging/setLevel', 'resources/subscribe', 'notifications/roots/list_changed']) {
      expect(methods, method).toContain(method);
    }
    // The client's answers to sampling/createMessage and elicitation/create.
    expect(legacy.filter((m) => m.method === undefined && m.result !== undefined).length).toBeGreaterThanOrEqual(2);
    // 2026-07-28: every request carries the envelope; the retried MRTR calls carry inputResponses.
    const modern = messagesOf(traffic.get(MODERN)!);
    expect(modern.filter((m) => m.params?.['inputResponses'] !== undefined).length).toBeGreaterThanOrEqual(3);
  });

  test.each(REVISIONS.map((revision) => ({ revision })))('the reference client at $revision', async ({ revision }) => {
    const exchanges = await record(revision, (url) => referenceWorkout(url, revision === MODERN ? { pin: MODERN } : 'legacy'));
    const result = schemaCheck(evidence(revision, exchanges));
    expect(result.outcome, result.detail).toBe('pass');
  });

  test.each(['2025-03-26', '2025-11-25'] as const)('a server/discover probe before initialize at %s (official SDK client, auto mode)', async (revision) => {
    const exchanges = await record(revision, async (url) => {
      const client = new V2Client({ name: 'schema-test', version: '0' }, { versionNegotiation: { mode: 'auto' } });
      await client.connect(new V2Transport(new URL(url)));
      await client.listTools();
      await client.close();
    });
    const sent = messagesOf(exchanges).map((m) => m.method);
    expect(sent.indexOf('server/discover')).toBeGreaterThanOrEqual(0);
    expect(sent.indexOf('server/discover')).toBeLessThan(sent.indexOf('initialize'));
    const result = schemaCheck(evidence(revision, exchanges));
    expect(result.outcome, result.detail).toBe('pass');
    expect(result.detail).toContain('(1 server/discover probe judged by the 2026-07-28 schema)');
  });

  test('a fallback to initialize in a 2026-07-28 case is judged by the era fallen back to, on every server of the case', async () => {
    // The official client in auto mode against a sessionful server: its probe is refused, it falls back to initialize.
    const exchanges = await record('2025-11-25', async (url) => {
      const client = new V2Client({ name: 'schema-test', version: '0' }, { versionNegotiation: { mode: 'auto' } });
      await client.connect(new V2Transport(new URL(url)));
      await client.callTool({ name: 'echo', arguments: { text: 'hello' } });
      await client.close();
    });
    expect(messagesOf(exchanges).map((m) => m.method)).toContain('initialize');
    const own = schemaCheck(evidence(MODERN, exchanges));
    expect(own.outcome, own.detail).toBe('pass');
    expect(own.detail).toMatch(/ message(s)? after a fallback to initialize judged by the legacy era's schema\)$/);
    // The same fallback on a second server of the case, with a broken message: named by its server.
    const broken = structuredClone(exchanges);
    const call = broken.find((x) => x.requestMessages.some((m) => m.method === 'tools/call'))!;
    delete (call.requestMessages.find((m) => m.method === 'tools/call') as Record<string, any>).params.name;
    const other = { url: 'http://127.0.0.1:1/mcp', era: '2025-11-25' as Era, personalities: [], exchanges: broken, issuedSessions: [] };
    const result = schemaCheck({ ...evidence(MODERN), otherServers: [other] });
    expect(result.outcome).toBe('fail');
    expect(result.detail).toBe(`server 2 #${call.seq} tools/call (fallback, judged by 2025-11-25): params.name: missing`);
    expect(result.exchanges).toEqual([]);
    // Without the probe before it, the initialize is no fallback: a 2026-07-28 client opened with a legacy message.
    const unprobed = exchanges.filter((x) => !x.requestMessages.some((m) => m.method === 'server/discover'));
    const opening = unprobed.find((x) => x.requestMessages.some((m) => m.method === 'initialize'))!;
    expect(schemaCheck(evidence(MODERN, unprobed)).detail).toMatch(new RegExp(`^#${opening.seq} initialize: not a client request at 2026-07-28`));
  });

  test('the reference client probing in auto mode at 2025-06-18', async () => {
    const exchanges = await record('2025-06-18', (url) => referenceWorkout(url, 'auto'));
    expect(messagesOf(exchanges)[0]?.method).toBe('server/discover');
    const result = schemaCheck(evidence('2025-06-18', exchanges));
    expect(result.outcome, result.detail).toBe('pass');
  });
});

describe('doctored messages fail with a precise detail', () => {
  test('a request without jsonrpc', () => {
    const { evidence: e, seq } = doctored('2025-06-18', (m) => m.method === 'tools/list', (m) => delete m.jsonrpc);
    const result = schemaCheck(e);
    expect(result.outcome).toBe('fail');
    expect(result.detail).toBe(`#${seq} tools/list: jsonrpc: missing`);
    expect(result.exchanges).toEqual([seq]);
  });

  test('a tools/call without params.name', () => {
    for (const revision of REVISIONS) {
      const { evidence: e, seq } = doctored(revision, (m) => m.method === 'tools/call', (m) => delete m.params.name);
      expect(schemaCheck(e).detail, revision).toBe(`#${seq} tools/call: params.name: missing`);
    }
  });

  test('a 2026-07-28 request without _meta clientCapabilities', () => {
    const { evidence: e, seq } = doctored(MODERN, (m) => m.method === 'tools/list', (m) => delete m.params._meta['io.modelcontextprotocol/clientCapabilities']);
    const result = schemaCheck(e);
    expect(result.detail).toBe(`#${seq} tools/list: params._meta["io.modelcontextprotocol/clientCapabilities"]: missing`);
    expect(result.exchanges).toEqual([seq]);
  });

  test('a 2026-07-28 request without any _meta, and one with a malformed envelope value', () => {
    const bare = doctored(MODERN, (m) => m.method === 'tools/call', (m) => delete m.params._meta);
    expect(schemaCheck(bare.evidence).detail).toBe(`#${bare.seq} tools/call: params._meta: missing`);
    const malformed = doctored(MODERN, (m) => m.method === 'tools/call', (m) => (m.params._meta['io.modelcontextprotocol/clientCapabilities'] = { roots: true }));
    expect(schemaCheck(malformed.evidence).detail).toBe(`#${malformed.seq} tools/call: params._meta["io.modelcontextprotocol/clientCapabilities"].roots: must be object, received boolean`);
    const unversioned = doctored(MODERN, (m) => m.method === 'tools/list', (m) => (m.params._meta['io.modelcontextprotocol/protocolVersion'] = 20260728));
    expect(schemaCheck(unversioned.evidence).detail).toBe(`#${unversioned.seq} tools/list: params._meta["io.modelcontextprotocol/protocolVersion"]: must be string, received integer`);
  });

  test('an unknown method at a legacy revision, and methods of another revision', () => {
    const unknown = doctored('2025-11-25', (m) => m.method === 'tools/list', (m) => (m.method = 'tools/enumerate'));
    expect(schemaCheck(unknown.evidence).detail).toBe(`#${unknown.seq} tools/enumerate: not a client request at 2025-11-25`);
    const modernOnly = doctored('2025-06-18', (m) => m.method === 'tools/list', (m) => (m.method = 'subscriptions/listen'));
    expect(schemaCheck(modernOnly.evidence).detail).toBe(`#${modernOnly.seq} subscriptions/listen: not a client request at 2025-06-18 (it exists at 2026-07-28)`);
    const tooEarly = doctored('2025-06-18', (m) => m.method === 'tools/list', (m) => Object.assign(m, { method: 'tasks/list', params: {} }));
    expect(schemaCheck(tooEarly.evidence).detail).toBe(`#${tooEarly.seq} tasks/list: not a client request at 2025-06-18 (it exists at 2025-11-25)`);
    const legacyOnly = doctored(MODERN, (m) => m.method === 'tools/list', (m) => (m.method = 'ping'));
    expect(schemaCheck(legacyOnly.evidence).detail).toBe(`#${legacyOnly.seq} ping: not a client request at 2026-07-28 (it exists at 2024-11-05 … 2025-11-25)`);
  });

  test('malformed params fail with the path the schema names', () => {
    const notAnObject = doctored('2025-06-18', (m) => m.method === 'tools/call', (m) => (m.params.arguments = 'hello'));
    expect(schemaCheck(notAnObject.evidence).detail).toBe(`#${notAnObject.seq} tools/call: params.arguments: must be object, received string`);
    const nested = doctored('2025-11-25', (m) => m.method === 'prompts/get', (m) => (m.params.arguments.arg1 = 5));
    expect(schemaCheck(nested.evidence).detail).toBe(`#${nested.seq} prompts/get: params.arguments.arg1: must be string, received integer`);
    const noScheme = doctored('2025-03-26', (m) => m.method === 'resources/read', (m) => (m.params.uri = 'static-text'));
    expect(schemaCheck(noScheme.evidence).detail).toBe(`#${noScheme.seq} resources/read: params.uri: must match format "uri"`);
    // Through a union (InputResponse: a sampling, roots or elicitation result): into the branch the value meant.
    let key = '';
    const retried = doctored(MODERN, (m) => m.params?.['inputResponses'] !== undefined, (m) => {
      key = Object.keys(m.params.inputResponses)[0]!;
      m.params.inputResponses[key] = { action: 'maybe' };
    });
    expect(schemaCheck(retried.evidence).detail).toBe(
      `#${retried.seq} tools/call: params.inputResponses${/^\w+$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`}.action: must be one of "accept" | "cancel" | "decline", received "maybe"`,
    );
  });

  test("a sampling answer's content: the content block it meant, or the types it could have", () => {
    const answer = (content: unknown) => ({ jsonrpc: '2.0', id: 3, result: { role: 'assistant', model: 'm', content } });
    const sampling = { method: 'sampling/createMessage', params: { messages: [], maxTokens: 10 } };
    expect(validateClientMessage(answer({ type: 'text' }), '2025-11-25', sampling).problem).toBe('result.content.text: missing');
    expect(validateClientMessage(answer({ type: 'video' }), '2025-03-26', sampling).problem).toBe('result.content.type: must be one of "text" | "image" | "audio", received "video"');
  });

  test('a message of a later revision fails at an earlier one', () => {
    // A tasks method (2025-11-25 on).
    const getTask = { jsonrpc: '2.0', id: 9, method: 'tasks/get', params: { taskId: 't1' } };
    expect(validateClientMessage(getTask, '2025-11-25')).toEqual({ label: 'tasks/get' });
    expect(validateClientMessage(getTask, '2025-03-26').problem).toBe('not a client request at 2025-03-26 (it exists at 2025-11-25)');
    // A sampling answer of several content blocks (2025-11-25's sampling with tools), in each revision's real traffic.
    const blocks = (revision: Revision) =>
      doctored(revision, (m) => m.method === undefined && (m.result as Record<string, unknown> | undefined)?.['model'] !== undefined, (m) => (m.result.content = [m.result.content]));
    expect(schemaCheck(blocks('2025-11-25').evidence).outcome).toBe('pass');
    const older = blocks('2025-03-26');
    expect(schemaCheck(older.evidence).detail).toBe(`#${older.seq} response to sampling/createMessage: result.content: must be object, received array`);
    // Audio content (2025-03-26 on).
    const audio = { jsonrpc: '2.0', id: 3, result: { role: 'assistant', model: 'm', content: { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' } } };
    const sampling = { method: 'sampling/createMessage', params: { messages: [], maxTokens: 10 } };
    expect(validateClientMessage(audio, '2025-03-26', sampling).problem).toBeUndefined();
    expect(validateClientMessage(audio, '2024-11-05', sampling).problem).toBe('result.content.type: must be one of "text" | "image", received "audio"');
  });

  test('a body that is not JSON, and JSON that is not JSON-RPC', () => {
    for (const [body, problem] of [
      ['{"jsonrpc":"2.0","id":7,"method":"tools/li', 'the body is not JSON: "{\\"jsonrpc\\":\\"2.0\\",\\"id\\":7,\\"method\\":\\"tools/…"'],
      ['"tools/list"', 'the body is JSON but not a JSON-RPC message (string)'],
      ['[]', 'the body is an empty JSON array, not a JSON-RPC message'],
    ] as const) {
      const exchanges = structuredClone(traffic.get('2025-06-18')!);
      const exchange = exchanges.find((x) => x.requestMessages.some((m) => m.method === 'tools/call'))!;
      Object.assign(exchange, { requestBody: body, requestMessages: [] });
      const result = schemaCheck(evidence('2025-06-18', exchanges));
      expect(result.detail).toBe(`#${exchange.seq} (not JSON-RPC): ${problem}`);
      expect(result.exchanges).toEqual([exchange.seq]);
    }
  });

  test('a notification with an id, and a request without one', () => {
    const withId = doctored('2025-03-26', (m) => m.method === 'notifications/initialized', (m) => (m.id = 99));
    expect(schemaCheck(withId.evidence).detail).toBe(`#${withId.seq} notifications/initialized: a notification must not have an id (id 99)`);
    const withoutId = doctored('2025-03-26', (m) => m.method === 'tools/list', (m) => delete m.id);
    expect(schemaCheck(withoutId.evidence).detail).toBe(`#${withoutId.seq} tools/list: a request without an id`);
  });

  test('a server/discover probe at a legacy revision is judged by the 2026-07-28 schema', () => {
    const probe = { jsonrpc: '2.0', id: 0, method: 'server/discover', params: {} };
    const probeAt = (revision: Revision, message: object) => {
      const exchanges = structuredClone(traffic.get(revision)!);
      exchanges.unshift({ ...structuredClone(exchanges[0]!), seq: 0, requestBody: JSON.stringify(message), requestMessages: [message as JsonRpcMessage], responseMessages: [] });
      return schemaCheck(evidence(revision, exchanges));
    };
    const envelope = { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {} };
    expect(probeAt('2024-11-05', { ...probe, params: { _meta: envelope } }).outcome).toBe('pass');
    expect(probeAt('2025-11-25', probe).detail).toBe('#0 server/discover (probe, judged by 2026-07-28): params._meta: missing');
    expect(probeAt('2025-11-25', { ...probe, params: { _meta: { 'io.modelcontextprotocol/clientCapabilities': {} } } }).detail).toBe(
      '#0 server/discover (probe, judged by 2026-07-28): params._meta["io.modelcontextprotocol/protocolVersion"]: missing',
    );
  });

  test("a client's answer to a server request is judged by that request's result schema", () => {
    const exchanges = structuredClone(traffic.get('2025-11-25')!);
    const elicitationId = exchanges.flatMap((x) => x.responseMessages).find(({ message }) => message.method === 'elicitation/create')!.message.id;
    const exchange = exchanges.find((x) => x.requestMessages.some((m) => m.method === undefined && m.id === elicitationId && m.result !== undefined))!;
    const answer = exchange.requestMessages.find((m) => m.id === elicitationId)!;
    answer.result = { action: 'maybe' };
    expect(schemaCheck(evidence('2025-11-25', exchanges)).detail).toBe(
      `#${exchange.seq} response to elicitation/create: result.action: must be one of "accept" | "cancel" | "decline", received "maybe"`,
    );
    delete answer.jsonrpc;
    expect(schemaCheck(evidence('2025-11-25', exchanges)).detail).toBe(`#${exchange.seq} response to elicitation/create: jsonrpc: missing`);
  });

  test('a JSON-RPC batch outside 2025-03-26', () => {
    const batchOf = (revision: Revision) => {
      const exchanges = structuredClone(traffic.get(revision)!);
      const exchange = exchanges.find((x) => x.requestMessages.some((m) => m.method === 'tools/list'))!;
      exchange.requestBody = JSON.stringify(exchange.requestMessages);
      return { result: schemaCheck(evidence(revision, exchanges)), seq: exchange.seq };
    };
    expect(batchOf('2025-03-26').result.outcome).toBe('pass');
    const { result, seq } = batchOf('2025-06-18');
    expect(result.detail).toBe(`#${seq} (batch): a JSON-RPC batch of 1: the 2025-06-18 schema has no batches (only 2025-03-26 does)`);
  });

  test('at most five violations are listed, then how many more; every offending exchange is named', () => {
    const exchanges = structuredClone(traffic.get('2025-11-25')!);
    const requests = exchanges.filter((x) => x.requestMessages.some((m) => m.method !== undefined && m.id !== undefined && m.method !== 'initialize'));
    for (const exchange of requests) for (const message of exchange.requestMessages) delete message.jsonrpc;
    const result = schemaCheck(evidence('2025-11-25', exchanges));
    expect(requests.length).toBeGreaterThan(6);
    expect(result.detail.split('; ').slice(0, 5).every((line) => /^#\d+ [\w/]+: jsonrpc: missing$/.test(line))).toBe(true);
    expect(result.detail).toMatch(new RegExp(`; and ${requests.length - 5} more$`));
    expect(result.exchanges).toEqual(requests.map((x) => x.seq));
  });
});

describe("the rules come from the spec's schemas", () => {
  test('client methods per revision', () => {
    const base = ['ping', 'initialize', 'completion/complete', 'logging/setLevel', 'prompts/get', 'prompts/list', 'resources/list', 'resources/templates/list', 'resources/read', 'resources/subscribe', 'resources/unsubscribe', 'tools/call', 'tools/list'];
    const tasks = ['tasks/get', 'tasks/result', 'tasks/list', 'tasks/cancel'];
    for (const revision of ['2024-11-05', '2025-03-26', '2025-06-18'] as const) expect(clientMethods(revision).requests.sort()).toEqual([...base].sort());
    expect(clientMethods('2025-11-25').requests.sort()).toEqual([...base, ...tasks].sort());
    expect(clientMethods('2025-11-25').notifications.sort()).toEqual(['notifications/cancelled', 'notifications/initialized', 'notifications/progress', 'notifications/roots/list_changed', 'notifications/tasks/status']);
    expect(clientMethods(MODERN).requests.sort()).toEqual(
      ['server/discover', 'completion/complete', 'prompts/get', 'prompts/list', 'resources/list', 'resources/templates/list', 'resources/read', 'subscriptions/listen', 'tools/call', 'tools/list'].sort(),
    );
    // 2026-07-28's ClientNotification is notifications/cancelled alone: a client has no progress to report (no server requests).
    expect(clientMethods(MODERN).notifications).toEqual(['notifications/cancelled']);
  });

  test("the schema files are the spec's (the digests protocol/schemas/SOURCE.md lists), each valid against the JSON Schema draft it declares", () => {
    const folder = join(import.meta.dirname, '..', 'protocol', 'schemas');
    const listed = new Map([...readFileSync(join(folder, 'SOURCE.md'), 'utf8').matchAll(/^([0-9a-f]{64}) {2}(\S+)$/gm)].map(([, digest, file]) => [file, digest]));
    for (const revision of REVISIONS) {
      const text = readFileSync(join(folder, `${revision}.schema.json`));
      expect(createHash('sha256').update(text).digest('hex'), revision).toBe(listed.get(`${revision}.schema.json`));
      const schema = JSON.parse(text.toString('utf8'));
      const draft2020 = revision >= '2025-11-25';
      expect(schema.$schema, revision).toBe(draft2020 ? 'https://json-schema.org/draft/2020-12/schema' : 'http://json-schema.org/draft-07/schema#');
      const ajv = draft2020 ? new Ajv2020() : new Ajv();
      expect(ajv.validateSchema(schema), `${revision}: ${ajv.errorsText()}`).toBe(true);
    }
  });

  test('one message at a time', () => {
    expect(validateClientMessage({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, '2025-06-18')).toEqual({ label: 'tools/list' });
    expect(validateClientMessage({ jsonrpc: '2.0', id: null, method: 'tools/list' }, '2025-06-18').problem).toBe('id: must be string | integer, received null');
    expect(validateClientMessage({ jsonrpc: '2.0' }, '2025-06-18')).toEqual({ label: '(not JSON-RPC)', problem: 'neither a request, a notification nor a response: no method, result or error' });
    expect(validateClientMessage({ jsonrpc: '2.0', method: 'notifications/cancelled', params: {} }, '2025-06-18').problem).toBe('params.requestId: missing');
    expect(validateClientMessage({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: true } }, MODERN).problem).toBe(
      'params.requestId: must be string | integer, received boolean',
    );
    expect(validateClientMessage({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } }, MODERN).problem).toBe(
      'not a client notification at 2026-07-28 (it exists at 2024-11-05 … 2025-11-25)',
    );
  });
});

describe('cost', () => {
  test('per evidence, over real traffic', () => {
    const cases = REVISIONS.map((revision) => evidence(revision));
    const messages = cases.reduce((sum, e) => sum + messagesOf(e.exchanges).length, 0);
    for (const e of cases) schemaCheck(e);
    const rounds = 200;
    const started = performance.now();
    for (let round = 0; round < rounds; round++) for (const e of cases) schemaCheck(e);
    const perEvidence = (performance.now() - started) / (rounds * cases.length);
    const perMessage = (perEvidence * cases.length) / messages;
    console.log(`messages-match-schema: ${(perEvidence * 1000).toFixed(0)} µs per evidence (${(messages / cases.length).toFixed(1)} messages on average), ${(perMessage * 1000).toFixed(1)} µs per message`);
    expect(perEvidence).toBeLessThan(5);
  });
});
