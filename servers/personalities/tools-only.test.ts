import { describe, expect, test } from 'vitest';
import { startReferenceServer } from '../server.ts';
import { closedAfterEach, INITIALIZED, initializeRequest, SERVER_INFO, toolCall, toolsList } from '../test-support.ts';
import { TOOLS_ONLY_NOTE, toolsOnly } from './tools-only.ts';

const opened = closedAfterEach();

/** What a tools-only server answers initialize with: the revision, `tools` and nothing else. */
const toolsOnlyResult = (id: number, revision: string) => ({
  jsonrpc: '2.0',
  id,
  result: { protocolVersion: revision, capabilities: { tools: { listChanged: true } }, serverInfo: SERVER_INFO },
});

/** Requests for what a tools-only server does not advertise, each answered -32601. */
const UNADVERTISED = [
  { method: 'prompts/list', params: {} },
  { method: 'resources/list', params: {} },
  { method: 'logging/setLevel', params: { level: 'info' } },
  { method: 'completion/complete', params: { ref: { type: 'ref/prompt', name: 'test_simple_prompt' }, argument: { name: 'x', value: 'y' } } },
];

describe.each(['2025-03-26', '2025-06-18', '2025-11-25'] as const)('tools-only at %s', (revision) => {
  test('initialize advertises tools alone and is noted; tools are served, nothing else is', async () => {
    const { server, raw } = await opened.serve({ era: revision, personalities: [toolsOnly()] });
    const session = await raw.openSession(server.url, revision);
    expect(session.init.messages).toEqual([toolsOnlyResult(1, revision)]);
    expect(server.record.exchanges[0]!.notes).toEqual([TOOLS_ONLY_NOTE]);
    // Only the exchange carrying initialize is noted.
    expect(server.record.exchanges[1]!.notes).toEqual([]);

    const list = await raw.post(server.url, toolsList(2), session.headers);
    const names = (list.messages[0] as { result: { tools: { name: string }[] } }).result.tools.map((tool) => tool.name);
    expect(names).toContain('echo');
    expect(names).not.toContain('notify_client');
    expect(names).not.toContain('test_simple_text');
    const call = await raw.post(server.url, toolCall(3, 'echo', { text: 'hi' }), session.headers);
    expect(call.messages[0]).toMatchObject({ id: 3, result: { content: [{ type: 'text', text: 'hi' }] } });

    for (const [index, request] of UNADVERTISED.entries()) {
      const answer = await raw.post(server.url, { jsonrpc: '2.0', id: 10 + index, ...request }, session.headers);
      expect(answer.status, request.method).toBe(200);
      expect(answer.messages[0], request.method).toMatchObject({ id: 10 + index, error: { code: -32601 } });
    }
    expect(server.record.exchanges.filter((x) => x.notes.includes(TOOLS_ONLY_NOTE))).toHaveLength(1);
  });
});

test('2024-11-05 (HTTP+SSE): the initialize POST is noted, its answer on the stream advertises tools alone; prompts/list gets -32601', async () => {
  const { server, raw } = await opened.serve({ era: '2024-11-05', personalities: [toolsOnly()] }, { postHeaders: { 'content-type': 'application/json' } });
  const stream = await raw.openStream(server.url);
  const endpoint = new URL((await stream.next('the endpoint event')).data, server.url);
  expect(await raw.post(endpoint, initializeRequest('2024-11-05', 7))).toMatchObject({ status: 202 });
  expect(await stream.nextMessage('the initialize result')).toEqual(toolsOnlyResult(7, '2024-11-05'));
  expect(await raw.post(endpoint, INITIALIZED)).toMatchObject({ status: 202 });
  expect(await raw.post(endpoint, { jsonrpc: '2.0', id: 8, method: 'prompts/list', params: {} })).toMatchObject({ status: 202 });
  expect(await stream.nextMessage('the prompts/list answer')).toMatchObject({ id: 8, error: { code: -32601 } });
  expect(server.record.exchanges.map((x) => [x.method, x.notes])).toEqual([
    ['GET', []],
    ['POST', [TOOLS_ONLY_NOTE]],
    ['POST', []],
    ['POST', []],
  ]);
});

test('stateless: every initialize is answered tools-only', async () => {
  const { server, raw } = await opened.serve({ era: 'stateless', personalities: [toolsOnly()] });
  const init = await raw.post(server.url, initializeRequest('2025-06-18'));
  expect(init.messages).toEqual([toolsOnlyResult(1, '2025-06-18')]);
  expect(server.record.exchanges[0]!.notes).toEqual([TOOLS_ONLY_NOTE]);
});

test('without it the same servers advertise more than tools (what makes the personality matter)', async () => {
  const { server, raw } = await opened.serve({ era: '2025-11-25' });
  const init = await raw.post(server.url, initializeRequest('2025-11-25'));
  expect(Object.keys((init.messages[0] as { result: { capabilities: object } }).result.capabilities).sort()).toEqual(['completions', 'logging', 'prompts', 'resources', 'tools']);
});

test('does not apply to the 2026-07-28 and dual eras', async () => {
  await expect(startReferenceServer({ era: '2026-07-28', personalities: [toolsOnly()] })).rejects.toThrow('personality tools-only does not apply to era 2026-07-28');
  await expect(startReferenceServer({ era: 'dual', personalities: [toolsOnly()] })).rejects.toThrow('personality tools-only does not apply to era dual');
});
