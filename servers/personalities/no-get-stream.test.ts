import { expect, test } from 'vitest';
import { startReferenceServer } from '../server.ts';
import { closedAfterEach, initializeRequest } from '../test-support.ts';
import { noGetStream } from './no-get-stream.ts';

const opened = closedAfterEach();

test('the standalone GET gets 405 with Allow and is noted; the session and its POSTs go on', async () => {
  const { server, raw } = await opened.serve({ era: '2025-06-18', personalities: [noGetStream()] });
  const init = await raw.post(server.url, initializeRequest('2025-06-18'));
  const headers = { 'mcp-session-id': String(init.headers['mcp-session-id']), 'mcp-protocol-version': '2025-06-18' };
  const listen = await raw.send('GET', server.url, { headers: { ...headers, accept: 'text/event-stream' } });
  expect([listen.status, listen.headers.allow, listen.text]).toEqual([405, 'POST, DELETE', 'Method Not Allowed']);
  expect(server.record.exchanges.at(-1)!.notes).toEqual(['no-get-stream']);
  const list = await raw.post(server.url, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, headers);
  expect(list.status).toBe(200);
});

test('does not apply to eras without a standalone GET stream', async () => {
  await expect(startReferenceServer({ era: '2026-07-28', personalities: [noGetStream()] })).rejects.toThrow('personality no-get-stream does not apply to era 2026-07-28');
});
