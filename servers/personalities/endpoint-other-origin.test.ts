// Self-tests of the endpoint-other-origin personality: the endpoint event names another origin, nothing else changes.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { describe, expect, test } from 'vitest';
import type { ReferenceServer } from '../reference-server.ts';
import { startReferenceServer } from '../server.ts';
import { closedAfterEach, initializeRequest, type RawClient, SERVER_INFO } from '../test-support.ts';
import { endpointOtherOrigin, type EndpointOtherOrigin } from './endpoint-other-origin.ts';

const opened = closedAfterEach();
let server: ReferenceServer | undefined;
let raw: RawClient;
let personality: EndpointOtherOrigin;

async function start(origin?: string) {
  personality = endpointOtherOrigin(origin);
  // An HTTP+SSE client POSTs JSON without the Streamable HTTP Accept header.
  ({ server, raw } = await opened.serve({ era: '2024-11-05', personalities: [personality] }, { postHeaders: { 'content-type': 'application/json' } }));
  return server;
}

/** A POST's status and body text (what these checks compare exactly). */
async function post(url: string, body: unknown) {
  const { status, text } = await raw.post(url, body);
  return { status, text };
}

const initialize = initializeRequest('2024-11-05');

describe('endpoint-other-origin', () => {
  test('the endpoint event names the other origin; the stream and the real POST endpoint are otherwise unchanged', async () => {
    const { url, record } = await start();
    const stream = await raw.openStream(url);
    expect(stream.status).toBe(200);
    const endpoint = await stream.next('the endpoint event');
    const [sessionId] = server!.issuedSessions();
    const decoy = personality.origin();
    expect(decoy).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(decoy).not.toBe(new URL(url).origin);
    expect(endpoint).toEqual({ event: 'endpoint', data: `${decoy}/messages?sessionId=${sessionId}` });

    // The session still works at the server's own origin, with the era's exact answers.
    const realEndpoint = new URL(`/messages?sessionId=${sessionId}`, url).href;
    expect(await post(realEndpoint, initialize)).toEqual({ status: 202, text: 'Accepted' });
    const answer = await stream.next('the initialize result');
    expect(answer.event).toBe('message');
    expect(JSON.parse(answer.data)).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: {
        protocolVersion: '2024-11-05',
        capabilities: expect.objectContaining({ tools: { listChanged: true } }),
        serverInfo: SERVER_INFO,
      },
    });
    expect(await post(new URL('/messages?sessionId=unknown', url).href, initialize)).toEqual({ status: 404, text: 'Session not found' });

    // The record holds what the client received, and labels only the rewritten stream.
    const [get, initPost, unknownPost] = record.exchanges;
    expect(get!.sseEvents.map(({ event, data }) => ({ event, data }))).toEqual([endpoint, { event: 'message', data: answer.data }]);
    expect(get!.notes).toEqual(['endpoint-other-origin']);
    expect(initPost).toMatchObject({ method: 'POST', status: 202, notes: [] });
    expect(unknownPost).toMatchObject({ method: 'POST', status: 404, notes: [] });
  });

  test('a client that obeys the endpoint shows up in the decoy record, not in the server record', async () => {
    const { url, record } = await start();
    const endpoint = await (await raw.openStream(url)).next('the endpoint event');
    expect(await post(endpoint.data, initialize)).toEqual({ status: 404, text: 'Not Found' });
    expect(personality.decoyRecord.exchanges.map((e) => [e.method, e.path, e.requestMessages[0]!.method])).toEqual([
      ['POST', `/messages?sessionId=${server!.issuedSessions()[0]}`, 'initialize'],
    ]);
    expect(record.exchanges.map((e) => e.method)).toEqual(['GET']);
  });

  test('the other origin is a parameter', async () => {
    const { url } = await start('http://localhost:4567');
    const endpoint = await (await raw.openStream(url)).next('the endpoint event');
    expect(endpoint.data).toBe(`http://localhost:4567/messages?sessionId=${server!.issuedSessions()[0]}`);
  });

  test('the official SDK v1 client refuses the endpoint and POSTs nothing', async () => {
    const { url, record } = await start();
    const client = new Client({ name: 'sdk-v1-self-test', version: '0' });
    try {
      await expect(client.connect(new SSEClientTransport(new URL(url)))).rejects.toThrow(
        `Endpoint origin does not match connection origin: ${personality.origin()}`,
      );
    } finally {
      await client.close();
    }
    await record.waitFor((r) => r.exchanges[0]?.endedBy !== undefined, 'the client to close its stream');
    expect(record.exchanges.map((e) => [e.method, e.path, e.endedBy])).toEqual([['GET', '/sse', 'client']]);
    expect(personality.decoyRecord.exchanges).toEqual([]);
  });

  test('applies to the 2024-11-05 era only', async () => {
    await expect(startReferenceServer({ era: '2025-06-18', personalities: [endpointOtherOrigin()] })).rejects.toThrow(
      'personality endpoint-other-origin does not apply to era 2025-06-18 (only 2024-11-05)',
    );
  });
});
