import { Agent, request } from 'undici';
import { afterAll, afterEach, expect, test } from 'vitest';
import type { ReferenceServer } from '../reference-server.ts';
import { startReferenceServer } from '../server.ts';
import { delete405 } from './delete-405.ts';

let server: ReferenceServer | undefined;
const agent = new Agent();
afterEach(async () => {
  await server?.close();
});
afterAll(() => agent.close());

test('DELETE gets 405 with Allow, is noted, and the session stays alive', async () => {
  server = await startReferenceServer({ era: '2025-06-18', personalities: [delete405()] });
  const init = await request(server.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } }),
    dispatcher: agent,
  });
  await init.body.text();
  const sessionId = String(init.headers['mcp-session-id']);
  const deleted = await request(server.url, { method: 'DELETE', headers: { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' }, dispatcher: agent });
  expect([deleted.statusCode, deleted.headers.allow, await deleted.body.text()]).toEqual([405, 'GET, POST', 'Method Not Allowed']);
  expect(server.record.exchanges.at(-1)!.notes).toEqual(['delete-405']);
  expect(server.liveSessions()).toEqual([sessionId]);
});

test('does not apply to eras that define no DELETE', async () => {
  await expect(startReferenceServer({ era: '2026-07-28', personalities: [delete405()] })).rejects.toThrow('personality delete-405 does not apply to era 2026-07-28');
});
