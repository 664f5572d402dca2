// Self-tests of the endpoint-other-origin personality: the endpoint event names another origin, nothing else changes.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { Agent, request } from 'undici';
import { afterEach, describe, expect, test } from 'vitest';
import type { ReferenceServer } from '../reference-server.ts';
import { startReferenceServer } from '../server.ts';
import { SseParser, type SseEvent } from '../sse.ts';
import { endpointOtherOrigin, type EndpointOtherOrigin } from './endpoint-other-origin.ts';

let server: ReferenceServer | undefined;
let agent: Agent | undefined;
let hangUps: (() => void)[] = [];

afterEach(async () => {
  for (const hangUp of hangUps) hangUp();
  hangUps = [];
  await agent?.close();
  await server?.close();
  agent = server = undefined;
});

let personality: EndpointOtherOrigin;

async function start(origin?: string) {
  personality = endpointOtherOrigin(origin);
  server = await startReferenceServer({ era: '2024-11-05', personalities: [personality] });
  agent = new Agent();
  return server;
}

/** Rejects with `what` if `promise` has not settled within `ms`. */
async function within<T>(promise: Promise<T>, what: string, ms = 5_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** GETs the SSE URL; `next()` reads one event. */
async function openStream(url: string) {
  const response = await request(url, { method: 'GET', headers: { accept: 'text/event-stream' }, dispatcher: agent });
  hangUps.push(() => response.body.destroy());
  const chunks = response.body[Symbol.asyncIterator]();
  const decoder = new TextDecoder();
  const parser = new SseParser();
  const pending: SseEvent[] = [];
  return {
    status: response.statusCode,
    async next(what: string): Promise<SseEvent> {
      while (pending.length === 0) {
        const chunk = await within(chunks.next(), what);
        if (chunk.done) throw new Error(`the stream ended before ${what}`);
        pending.push(...parser.push(decoder.decode(chunk.value as Uint8Array, { stream: true })));
      }
      return pending.shift()!;
    },
  };
}

async function post(url: string, body: unknown) {
  const response = await request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    dispatcher: agent,
  });
  return { status: response.statusCode, text: await response.body.text() };
}

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
};

describe('endpoint-other-origin', () => {
  test('the endpoint event names the other origin; the stream and the real POST endpoint are otherwise unchanged', async () => {
    const { url, record } = await start();
    const stream = await openStream(url);
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
        serverInfo: { name: 'mcp-client-conformance-reference', version: '0.1.0' },
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
    const endpoint = await (await openStream(url)).next('the endpoint event');
    expect(await post(endpoint.data, initialize)).toEqual({ status: 404, text: 'Not Found' });
    expect(personality.decoyRecord.exchanges.map((e) => [e.method, e.path, e.requestMessages[0]!.method])).toEqual([
      ['POST', `/messages?sessionId=${server!.issuedSessions()[0]}`, 'initialize'],
    ]);
    expect(record.exchanges.map((e) => e.method)).toEqual(['GET']);
  });

  test('the other origin is a parameter', async () => {
    const { url } = await start('http://localhost:4567');
    const endpoint = await (await openStream(url)).next('the endpoint event');
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
