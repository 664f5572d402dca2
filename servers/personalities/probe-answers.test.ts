// Raw-HTTP self-tests of probe-answers: exact status, headers and bodies of each answer, the notes, counts and
// conditions of armed rules, normal service for everything else, and HTTP+SSE answers on the session's stream.
import { describe, expect, test } from 'vitest';
import type { Era } from '../era.ts';
import type { ReferenceServer } from '../reference-server.ts';
import { closedAfterEach, INITIALIZED, initializeRequest, MODERN, modernRequest, RawClient, SERVER_INFO, toolsList, type RequestHeaders } from '../test-support.ts';
import { ANSWERS, PROBE_ANSWER_NOTE, probeAnswers, type ProbeAnswer, type ProbeAnswers } from './probe-answers.ts';

const opened = closedAfterEach();

async function serve(era: Era, answers: ProbeAnswers): Promise<{ server: ReferenceServer; raw: RawClient }> {
  return opened.serve({ era, personalities: [answers] }, era === '2024-11-05' ? { postHeaders: { 'content-type': 'application/json' } } : {});
}

/** A probe as a 2026-07-28 client sends it, asking for `version`. */
function probe(id: number, version = MODERN): { body: unknown; headers: RequestHeaders } {
  const { body, headers } = modernRequest(id, 'server/discover');
  const params = (body as { params: { _meta: Record<string, unknown> } }).params;
  params._meta['io.modelcontextprotocol/protocolVersion'] = version;
  return { body, headers: { ...headers, 'mcp-protocol-version': version } };
}

const notes = (server: ReferenceServer) => server.record.exchanges.map((exchange) => exchange.notes);

describe('answers to server/discover', () => {
  const cases: { what: string; answer: ProbeAnswer; status: number; type: string | undefined; body: unknown }[] = [
    {
      what: '-32022 naming the supported versions and the requested one',
      answer: ANSWERS.unsupportedVersion(['2099-01-01']),
      status: 400,
      type: 'application/json',
      body: { jsonrpc: '2.0', id: 7, error: { code: -32022, message: 'Unsupported protocol version', data: { supported: ['2099-01-01'], requested: MODERN } } },
    },
    {
      what: '-32020 HeaderMismatch',
      answer: ANSWERS.headerMismatch(),
      status: 400,
      type: 'application/json',
      body: { jsonrpc: '2.0', id: 7, error: { code: -32020, message: expect.stringContaining('Header mismatch') } },
    },
    {
      what: '-32021 naming the required capabilities',
      answer: ANSWERS.missingCapability({ elicitation: {} }),
      status: 400,
      type: 'application/json',
      body: { jsonrpc: '2.0', id: 7, error: { code: -32021, message: 'Missing required client capability', data: { requiredCapabilities: { elicitation: {} } } } },
    },
    {
      what: '200 -32601 Method not found',
      answer: ANSWERS.methodNotFound(),
      status: 200,
      type: 'application/json',
      body: { jsonrpc: '2.0', id: 7, error: { code: -32601, message: 'Method not found' } },
    },
    {
      what: 'a legacy implementation-defined error',
      answer: ANSWERS.legacyError(-32602, 'Invalid params', 400),
      status: 400,
      type: 'application/json',
      body: { jsonrpc: '2.0', id: 7, error: { code: -32602, message: 'Invalid params' } },
    },
    {
      what: '400 -32000 with a null id, as a sessionful legacy server',
      answer: ANSWERS.sessionRequired(),
      status: 400,
      type: 'application/json',
      body: { jsonrpc: '2.0', error: { code: -32000, message: 'Bad Request: Mcp-Session-Id header is required' }, id: null },
    },
    { what: '202 with an empty body', answer: ANSWERS.empty(), status: 202, type: undefined, body: '' },
    { what: '400 with a text body', answer: ANSWERS.text(), status: 400, type: 'text/plain', body: 'Bad Request' },
    {
      what: '500 with a JSON-RPC body',
      answer: ANSWERS.serverError(),
      status: 500,
      type: 'application/json',
      body: { jsonrpc: '2.0', id: 7, error: { code: -32603, message: 'Internal error' } },
    },
  ];
  for (const { what, answer, status, type, body } of cases) {
    test(what, async () => {
      const { server, raw } = await serve(MODERN, probeAnswers(answer));
      const { body: request, headers } = probe(7);
      const answered = await raw.post(server.url, request, headers);
      expect(answered.status).toBe(status);
      expect(answered.headers['content-type']).toBe(type);
      if (typeof body === 'string') expect(answered.text).toBe(body);
      else expect(answered.messages).toEqual([body]);
      expect(notes(server)).toEqual([[PROBE_ANSWER_NOTE]]);
    });
  }

  test('an armed count answers that many probes; the next one reaches the era, and other methods always do', async () => {
    const answers = probeAnswers({ ...ANSWERS.unsupportedVersion([MODERN]), count: 1 });
    const { server, raw } = await serve(MODERN, answers);
    expect(answers.pending()).toBe(1);
    expect((await raw.post(server.url, probe(1).body, probe(1).headers)).status).toBe(400);
    const list = modernRequest(2, 'tools/list');
    expect((await raw.post(server.url, list.body, list.headers)).messages[0]).toMatchObject({ id: 2, result: { tools: expect.any(Array) } });
    const second = await raw.post(server.url, probe(3).body, probe(3).headers);
    expect(second.status).toBe(200);
    expect(second.messages[0]).toMatchObject({ id: 3, result: { supportedVersions: [MODERN] } });
    expect([answers.pending(), answers.answered()]).toEqual([0, 1]);
    expect(notes(server)).toEqual([[PROBE_ANSWER_NOTE], [], []]);
  });

  test('rules answer in the order they were armed; `when`, `note` and extra headers apply', async () => {
    const answers = probeAnswers();
    answers.answerNext(1, { ...ANSWERS.headerMismatch(), when: (request) => request.headers['mcp-protocol-version'] === '2099-01-01', note: 'mismatch' });
    answers.answerNext(2, { ...ANSWERS.methodNotFound(), headers: { 'x-answer': 'scripted' } });
    const { server, raw } = await serve('2025-11-25', answers);
    const first = await raw.post(server.url, probe(1).body, probe(1).headers);
    expect([first.status, first.messages[0].error.code, first.headers['x-answer']]).toEqual([200, -32601, 'scripted']);
    const second = await raw.post(server.url, probe(2, '2099-01-01').body, probe(2, '2099-01-01').headers);
    expect([second.status, second.messages[0].error.code]).toEqual([400, -32020]);
    const third = await raw.post(server.url, probe(3).body, probe(3).headers);
    expect([third.status, third.messages[0].error.code]).toEqual([200, -32601]);
    // Every rule spent: the sessionful era answers a probe without a session id itself.
    const fourth = await raw.post(server.url, probe(4).body, probe(4).headers);
    expect([fourth.status, fourth.messages[0].error.code]).toEqual([400, -32000]);
    expect(notes(server)).toEqual([[PROBE_ANSWER_NOTE], ['mismatch'], [PROBE_ANSWER_NOTE], []]);
    expect(answers.answered()).toBe(3);
  });

  test('a body function sees the request; a batch is never answered', async () => {
    const { server, raw } = await serve(
      '2025-11-25',
      probeAnswers({ status: 200, body: (request: { message: { id?: unknown }; path: string }) => ({ jsonrpc: '2.0', id: request.message.id, result: { path: request.path } }) }),
    );
    const answered = await raw.post(server.url, probe(9).body, probe(9).headers);
    expect(answered.messages).toEqual([{ jsonrpc: '2.0', id: 9, result: { path: '/mcp' } }]);
    const batch = await raw.post(server.url, [probe(10).body, probe(11).body], probe(10).headers);
    expect(batch.status).toBe(400);
    expect(notes(server)).toEqual([[PROBE_ANSWER_NOTE], []]);
  });

  test('arming for no request is refused', () => {
    expect(() => probeAnswers().answerNext(0, ANSWERS.empty())).toThrow('at least one request');
  });
});

describe('answers to initialize', () => {
  test('the error form names the supported versions and the offered one; a retry offering a listed version reaches the era', async () => {
    const answers = probeAnswers({ ...ANSWERS.initializeErrorForm(['2025-06-18']), when: (request) => request.message.params !== undefined && (request.message.params as { protocolVersion?: string }).protocolVersion !== '2025-06-18' });
    const { server, raw } = await serve('2025-06-18', answers);
    const refused = await raw.post(server.url, initializeRequest('2025-11-25', 1));
    expect(refused.status).toBe(200);
    expect(refused.messages).toEqual([
      { jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'Unsupported protocol version', data: { supported: ['2025-06-18'], requested: '2025-11-25' } } },
    ]);
    expect(refused.headers['mcp-session-id']).toBeUndefined();
    const retried = await raw.post(server.url, initializeRequest('2025-06-18', 2));
    expect(retried.messages[0]).toMatchObject({ id: 2, result: { protocolVersion: '2025-06-18' } });
    expect(server.issuedSessions()).toHaveLength(1);
  });

  test('a result naming any revision', async () => {
    const { server, raw } = await serve('2025-03-26', probeAnswers(ANSWERS.initializeResult('1999-01-01')));
    const answered = await raw.post(server.url, initializeRequest('2025-03-26', 4));
    expect(answered.messages).toEqual([{ jsonrpc: '2.0', id: 4, result: { protocolVersion: '1999-01-01', capabilities: { tools: {} }, serverInfo: SERVER_INFO } }]);
    expect(server.issuedSessions()).toEqual([]);
  });
});

describe('HTTP+SSE (2024-11-05)', () => {
  test('a POST in a stream session is accepted with 202 and answered as a message event on the stream', async () => {
    const { server, raw } = await serve('2024-11-05', probeAnswers(ANSWERS.initializeResult('1999-01-01')));
    const stream = await raw.openStream(server.url);
    const endpoint = (await stream.next('the endpoint event')).data;
    const posted = await raw.post(new URL(endpoint, server.url), initializeRequest('2024-11-05', 5));
    expect([posted.status, posted.text]).toEqual([202, 'Accepted']);
    expect(await stream.nextMessage('the scripted initialize answer')).toEqual({
      jsonrpc: '2.0',
      id: 5,
      result: { protocolVersion: '1999-01-01', capabilities: { tools: {} }, serverInfo: SERVER_INFO },
    });
    // The wire record sees the answer on the GET exchange, and the note on the POST.
    const [get, post] = server.record.exchanges;
    expect(get!.responseMessages.map(({ message }) => message.id)).toEqual([5]);
    expect(post!.notes).toEqual([PROBE_ANSWER_NOTE]);
    // Other messages still reach the era (which never saw the initialize: it refuses to serve before it).
    expect((await raw.post(new URL(endpoint, server.url), INITIALIZED)).status).toBe(202);
  });

  test('a probe POSTed to the SSE URL, outside any stream, is answered on the POST; an error status too', async () => {
    const answers = probeAnswers(ANSWERS.methodNotFound());
    answers.answerNext(1, { ...ANSWERS.serverError(503), method: 'tools/list' });
    const { server, raw } = await serve('2024-11-05', answers);
    const probed = await raw.post(server.url, probe(1).body);
    expect([probed.status, probed.messages[0].error.code]).toEqual([200, -32601]);
    const stream = await raw.openStream(server.url);
    const endpoint = (await stream.next('the endpoint event')).data;
    const failed = await raw.post(new URL(endpoint, server.url), toolsList(2));
    expect([failed.status, failed.messages[0].error.code]).toEqual([503, -32603]);
  });
});
