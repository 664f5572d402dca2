import { expect, test } from 'vitest';
import { startReferenceServer } from '../server.ts';
import { closedAfterEach, initializeRequest } from '../test-support.ts';
import { delete405 } from './delete-405.ts';

const opened = closedAfterEach();

test('DELETE gets 405 with Allow, is noted, and the session stays alive', async () => {
  const { server, raw } = await opened.serve({ era: '2025-06-18', personalities: [delete405()] });
  const init = await raw.post(server.url, initializeRequest('2025-06-18'));
  const sessionId = String(init.headers['mcp-session-id']);
  const deleted = await raw.send('DELETE', server.url, { headers: { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' } });
  expect([deleted.status, deleted.headers.allow, deleted.text]).toEqual([405, 'GET, POST', 'Method Not Allowed']);
  expect(server.record.exchanges.at(-1)!.notes).toEqual(['delete-405']);
  expect(server.liveSessions()).toEqual([sessionId]);
});

test('does not apply to eras that define no DELETE', async () => {
  await expect(startReferenceServer({ era: '2026-07-28', personalities: [delete405()] })).rejects.toThrow('personality delete-405 does not apply to era 2026-07-28');
});
