// Raw-HTTP self-tests of the affinity-gateway front: routing by Mcp-Session-Id across two real instances.
import { beforeEach, describe, expect, test } from 'vitest';
import type { Era } from '../era.ts';
import type { Front } from '../personality.ts';
import type { ReferenceServer } from '../reference-server.ts';
import { startReferenceServer } from '../server.ts';
import { closedAfterEach, MODERN, modernRequest, RawClient, toolCall, toolsList, type RequestHeaders } from '../test-support.ts';
import { affinityGateway, hashInstance, type AffinityGateway } from './affinity-gateway.ts';

const REVISION = '2025-06-18';
/** The raw client, servers and fronts a test opened; closed after it, last opened first. */
const opened = closedAfterEach();
let raw: RawClient;

beforeEach(() => {
  raw = opened.keep(new RawClient());
});

/** The gateway in front of two plain reference servers the test holds, so each instance's own record is readable. */
async function gatewayOverTwoServers(gateway: AffinityGateway, era: Era = REVISION) {
  const a = opened.keep(await startReferenceServer({ era }));
  const b = opened.keep(await startReferenceServer({ era }));
  const front: Front = opened.keep(await gateway.front!({ backendUrl: a.url, backendRecord: a.record, recording: true, startInstance: async () => b }));
  return { a, b, front };
}

const post = (url: string, body: unknown, headers?: RequestHeaders) => raw.post(url, body, headers);
const sessionHeaders = (sessionId: string) => ({ 'mcp-session-id': sessionId, 'mcp-protocol-version': REVISION });

/** A 2026-07-28 request with the client-minted affinity key on `Mcp-Session-Id`. */
function modern(url: string, key: string, id: number, method: string, params: Record<string, unknown> = {}) {
  const call = modernRequest(id, method, params);
  return post(url, call.body, { ...call.headers, 'mcp-session-id': key });
}

const openSession = async (url: string) => (await raw.openSession(url, REVISION)).sessionId;

describe('affinity-gateway', () => {
  test('two sessions land on different instances and each stays pinned; each instance sees only its own traffic', async () => {
    const gateway = affinityGateway();
    const { a, b, front } = await gatewayOverTwoServers(gateway);
    const first = await openSession(front.url);
    const second = await openSession(front.url);
    // Interleaved, so a gateway that alternated instead of routing would split each session.
    for (let id = 2; id <= 4; id++) {
      for (const sessionId of [first, second]) {
        const list = await post(front.url, toolsList(id), sessionHeaders(sessionId));
        expect(list.status).toBe(200);
        expect(list.messages[0].result.tools).toContainEqual(expect.objectContaining({ name: 'echo' }));
      }
    }
    expect(a.issuedSessions()).toEqual([first]);
    expect(b.issuedSessions()).toEqual([second]);
    expect(gateway.pins()).toEqual({ [first]: 'A', [second]: 'B' });

    const sessionOf = (headers: Record<string, string>, issued?: string) => headers['mcp-session-id'] ?? issued;
    const served = front.record.exchanges.map((e) => ({
      session: sessionOf(e.requestHeaders, e.responseHeaders['mcp-session-id']),
      instance: gateway.instanceOf(e.seq),
      notes: e.notes,
    }));
    expect(served).toHaveLength(10);
    for (const exchange of served) {
      expect([first, second]).toContain(exchange.session);
      const instance = exchange.session === first ? 'A' : 'B';
      expect(exchange).toEqual({ session: exchange.session, instance, notes: [`instance:${instance}`] });
    }
    expect(gateway.routes().map((r) => r.by)).toEqual(['round-robin', 'pin', 'round-robin', 'pin', 'pin', 'pin', 'pin', 'pin', 'pin', 'pin']);

    // Each instance's own record: exactly its session's exchanges, nothing of the other's.
    const sessionsSeen = (server: ReferenceServer) =>
      server.record.exchanges.map((e) => e.requestHeaders['mcp-session-id'] ?? e.responseHeaders['mcp-session-id']);
    expect(sessionsSeen(a)).toEqual(Array(5).fill(first));
    expect(sessionsSeen(b)).toEqual(Array(5).fill(second));
  });

  test('an unpinned key goes where its hash says, whatever came before, and stays there', async () => {
    // Keys chosen for their SHA-256 first byte: 156 (even, A) and 25 (odd, B).
    expect([hashInstance('minted-key-a'), hashInstance('minted-key-b')]).toEqual(['A', 'B']);
    const gateway = affinityGateway();
    const { a, b, front } = await gatewayOverTwoServers(gateway);
    const unknown = async (key: string, id: number) => {
      const answer = await post(front.url, toolsList(id), sessionHeaders(key));
      expect(answer.status).toBe(404);
      expect(answer.messages).toEqual([{ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null }]);
    };
    await unknown('minted-key-b', 1);
    await unknown('minted-key-a', 2);
    // A keyless request moves the round-robin turn (A), and is answered by that instance's 400.
    const keyless = await post(front.url, toolsList(3), { 'mcp-protocol-version': REVISION });
    expect(keyless.status).toBe(400);
    expect(keyless.messages[0].error).toEqual({ code: -32000, message: 'Bad Request: Mcp-Session-Id header is required' });
    await unknown('minted-key-b', 4);
    await unknown('minted-key-a', 5);

    expect(gateway.routes()).toEqual([
      { seq: 1, instance: 'B', key: 'minted-key-b', by: 'hash' },
      { seq: 2, instance: 'A', key: 'minted-key-a', by: 'hash' },
      { seq: 3, instance: 'A', by: 'round-robin' },
      { seq: 4, instance: 'B', key: 'minted-key-b', by: 'pin' },
      { seq: 5, instance: 'A', key: 'minted-key-a', by: 'pin' },
    ]);
    const keysSeen = (server: ReferenceServer) => server.record.exchanges.map((e) => e.requestHeaders['mcp-session-id'] ?? 'keyless');
    expect(keysSeen(a)).toEqual(['minted-key-a', 'keyless', 'minted-key-a']);
    expect(keysSeen(b)).toEqual(['minted-key-b', 'minted-key-b']);
  });

  test("a session sent to the instance that did not issue it gets that backend's 404: the routing is real", async () => {
    const gateway = affinityGateway();
    const { a, b, front } = await gatewayOverTwoServers(gateway);
    const onA = await openSession(front.url);
    const onB = await openSession(front.url);
    expect(gateway.pins()).toEqual({ [onA]: 'A', [onB]: 'B' });

    // A mismatched pin: B's session now continues on A, which never issued it.
    gateway.pin(onB, 'A');
    const misrouted = await post(front.url, toolsList(2), sessionHeaders(onB));
    expect(misrouted.status).toBe(404);
    expect(misrouted.messages).toEqual([{ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null }]);
    expect(front.record.exchanges.at(-1)!.notes).toEqual(['instance:A']);
    expect(a.record.exchanges.at(-1)!.requestHeaders['mcp-session-id']).toBe(onB);
    expect(a.record.exchanges.at(-1)!.status).toBe(404);
    expect(b.record.exchanges).toHaveLength(2);

    // Pinned back, the same request works: the session was alive on B all along.
    gateway.pin(onB, 'B');
    const routed = await post(front.url, toolsList(3), sessionHeaders(onB));
    expect(routed.status).toBe(200);
    expect(b.record.exchanges).toHaveLength(3);
    expect(b.liveSessions()).toEqual([onB]);
  });

  test('through startReferenceServer: the front record is the server record, sessions spread over both instances', async () => {
    const gateway = affinityGateway();
    const server = opened.keep(await startReferenceServer({ era: REVISION, personalities: [gateway] }));
    const first = await openSession(server.url);
    const second = await openSession(server.url);
    expect(server.issuedSessions()).toEqual([first, second]);
    expect(gateway.pins()).toEqual({ [first]: 'A', [second]: 'B' });
    const call = await post(server.url, toolCall(2, 'echo', { text: 'via B' }), sessionHeaders(second));
    expect(call.status).toBe(200);
    expect(call.messages).toEqual([{ jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'via B' }] } }]);
    expect(server.record.exchanges.map((e) => e.notes)).toEqual([['instance:A'], ['instance:A'], ['instance:B'], ['instance:B'], ['instance:B']]);

    // The server's controls reach every instance: expiring the session ends it on B, where it is still routed.
    await server.expireSession(second);
    const expired = await post(server.url, toolsList(3), sessionHeaders(second));
    expect(expired.status).toBe(404);
    expect(gateway.instanceOf(server.record.exchanges.at(-1)!.seq)).toBe('B');
    expect(server.liveSessions()).toEqual([first]);
  });

  test('2026-07-28: a client-minted affinity key pins every request, server/discover included, to one instance', async () => {
    const gateway = affinityGateway();
    const { a, b, front } = await gatewayOverTwoServers(gateway, MODERN);
    for (const [id, method, params] of [
      [1, 'server/discover', {}],
      [2, 'tools/list', {}],
      [3, 'tools/call', { name: 'echo', arguments: { text: 'pinned' } }],
    ] as const) {
      for (const key of ['minted-key-a', 'minted-key-b']) {
        const answer = await modern(front.url, key, id, method, params);
        expect(answer.status).toBe(200);
        expect(answer.messages[0]).toMatchObject({ jsonrpc: '2.0', id });
        expect(answer.messages[0].result).toBeDefined();
      }
    }
    expect(gateway.routes().map((r) => `${r.key}:${r.instance}:${r.by}`)).toEqual([
      'minted-key-a:A:hash',
      'minted-key-b:B:hash',
      ...Array(2).fill(['minted-key-a:A:pin', 'minted-key-b:B:pin']).flat(),
    ]);
    const seen = (server: ReferenceServer) => server.record.exchanges.map((e) => `${e.requestHeaders['mcp-session-id']} ${e.requestMessages[0]?.method}`);
    expect(seen(a)).toEqual(['minted-key-a server/discover', 'minted-key-a tools/list', 'minted-key-a tools/call']);
    expect(seen(b)).toEqual(['minted-key-b server/discover', 'minted-key-b tools/list', 'minted-key-b tools/call']);
    expect([a.fixtures.runsOf('echo'), b.fixtures.runsOf('echo')]).toEqual([1, 1]);
  });
});
