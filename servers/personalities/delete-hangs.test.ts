// Raw-HTTP self-test of delete-hangs: a DELETE is held unanswered (noted) until the client hangs up, the server closes
// or the hold runs out (then the era answers it); every other request is served as usual.
import { expect, test } from 'vitest';
import { startReferenceServer } from '../server.ts';
import { closedAfterEach, toolsList } from '../test-support.ts';
import { DELETE_HELD, DELETE_HOLD_ELAPSED, deleteHangs } from './delete-hangs.ts';

const opened = closedAfterEach();
const REVISION = '2025-06-18';

/** A request left in flight: if the test fails before awaiting it, its rejection is not reported as unhandled. */
function inFlight<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => {});
  return promise;
}

test('a DELETE is held unanswered and noted; the client hanging up ends the hold unanswered, and the session stays alive', async () => {
  const hangs = deleteHangs();
  const { server, raw } = await opened.serve({ era: REVISION, personalities: [hangs] });
  const session = await raw.openSession(server.url, REVISION);
  // Other requests pass through untouched.
  const listed = await raw.post(server.url, toolsList(2), session.headers);
  expect(listed.status).toBe(200);

  const controller = new AbortController();
  const deleting = inFlight(raw.send('DELETE', server.url, { headers: session.headers, signal: controller.signal }));
  await server.record.waitFor((r) => r.exchanges.some((x) => x.notes.includes(DELETE_HELD)), 'the DELETE to be held');
  const held = server.record.exchanges.find((x) => x.method === 'DELETE')!;
  expect(held.notes).toEqual([DELETE_HELD]);
  expect(held.status).toBeUndefined();
  expect(hangs.heldCount()).toBe(1);
  expect(server.liveSessions()).toEqual([session.sessionId]);

  controller.abort();
  await expect(deleting).rejects.toThrow();
  await server.record.waitFor(() => held.endedBy !== undefined, 'the abandoned DELETE to end');
  expect(held.endedBy).toBe('client');
  expect(held.status).toBeUndefined();
  expect(held.notes).toEqual([DELETE_HELD]);
  expect(hangs.heldCount()).toBe(0);
  expect(server.liveSessions()).toEqual([session.sessionId]);
});

test('a hold is bounded: after holdMs the era answers the DELETE (200, the session ended), noted', async () => {
  const { server, raw } = await opened.serve({ era: REVISION, personalities: [deleteHangs({ holdMs: 50 })] });
  const session = await raw.openSession(server.url, REVISION);
  const deleted = await raw.send('DELETE', server.url, { headers: session.headers });
  expect(deleted.status).toBe(200);
  const held = server.record.exchanges.find((x) => x.method === 'DELETE')!;
  expect(held.notes).toEqual([DELETE_HELD, DELETE_HOLD_ELAPSED]);
  expect(held.endedBy).toBe('server');
  expect(server.liveSessions()).toEqual([]);
});

test('the server closing ends a hold without answering it', async () => {
  const hangs = deleteHangs();
  const { server, raw } = await opened.serve({ era: REVISION, personalities: [hangs] });
  const session = await raw.openSession(server.url, REVISION);
  const deleting = inFlight(raw.send('DELETE', server.url, { headers: session.headers }));
  await server.record.waitFor((r) => r.exchanges.some((x) => x.notes.includes(DELETE_HELD)), 'the DELETE to be held');
  await server.close();
  await expect(deleting).rejects.toMatchObject({ code: 'UND_ERR_SOCKET' });
  expect(hangs.heldCount()).toBe(0);
  const held = server.record.exchanges.find((x) => x.method === 'DELETE')!;
  expect(held.status).toBeUndefined();
  expect(held.notes).toEqual([DELETE_HELD]);
});

test('applies only to the Streamable HTTP eras with sessions', async () => {
  for (const era of ['2024-11-05', '2026-07-28', 'stateless'] as const) {
    await expect(startReferenceServer({ era, personalities: [deleteHangs()] })).rejects.toThrow(`personality delete-hangs does not apply to era ${era}`);
  }
});
