// Self-tests of the sse-comments personality: comment lines before, between and after the events of every event
// stream, at every era it applies to, the events themselves unchanged; JSON and plain answers untouched.
import { request } from 'undici';
import { describe, expect, test } from 'vitest';
import { startReferenceServer } from '../server.ts';
import { CONFORMANCE_TEXT } from '../conformance-fixtures.ts';
import { SseParser } from '../sse.ts';
import type { WireExchange } from '../wire-record.ts';
import { closedAfterEach, INITIALIZED, initializeRequest, modernRequest, RESULT_META, toolCall, toolsList, within } from '../test-support.ts';
import { BETWEEN, OPENING, SSE_COMMENT_NOTES, sseComments } from './sse-comments.ts';

const opened = closedAfterEach();
const ALL_NOTES = Object.values(SSE_COMMENT_NOTES);

/** The body with the personality's comment blocks taken out: what the era wrote. */
const withoutComments = (text: string) => text.split(OPENING).join('').split(BETWEEN).join('');

/** A stream's text as the personality shapes it: OPENING, then the era's events with BETWEEN after each one. */
function shaped(events: string[]): string {
  return `${OPENING}${events.map((event) => `${event}${BETWEEN}`).join('')}`;
}

/** The raw events of an era's SSE body: each `…\n\n` block. */
const eventBlocks = (text: string) => text.split(/(?<=\n\n)/).filter((block) => block !== '');

/** What a standard parser makes of a body: the events, comments dropped. */
const parsed = (text: string) => new SseParser().push(text);

const notesOf = (exchange: WireExchange | undefined) => exchange?.notes ?? [];

describe('sse-comments', () => {
  test('2025-11-25 POST streams: OPENING before the priming event, BETWEEN between events and after the last; the events and the record unchanged', async () => {
    const { server, raw } = await opened.serve({ era: '2025-11-25', personalities: [sseComments()] });
    const init = await raw.post(server.url, initializeRequest('2025-11-25'));
    expect(init.status).toBe(200);
    expect(init.headers['content-type']).toBe('text/event-stream');
    const events = eventBlocks(withoutComments(init.text));
    expect(events).toHaveLength(2);
    expect(events[0]).toMatch(/^id: \S+\nretry: \d+\ndata: \n\n$/);
    expect(init.text).toBe(shaped(events));
    // A standard parser sees the era's events only: the comments are no events, the keep-alive frames dispatch nothing.
    expect(parsed(init.text)).toEqual(parsed(withoutComments(init.text)));
    expect(init.messages.at(-1)).toMatchObject({ id: 1, result: { protocolVersion: '2025-11-25' } });

    const headers = { 'mcp-session-id': String(init.headers['mcp-session-id']), 'mcp-protocol-version': '2025-11-25' };
    const initialized = await raw.post(server.url, INITIALIZED, headers);
    expect([initialized.status, initialized.text]).toEqual([202, '']);
    const logged = await raw.post(server.url, toolCall(2, 'test_tool_with_logging'), headers);
    // The priming event, three log messages and the answer, a comment block between each two.
    expect(eventBlocks(withoutComments(logged.text))).toHaveLength(5);
    expect(logged.text).toBe(shaped(eventBlocks(withoutComments(logged.text))));
    expect(logged.messages.map((m) => m.method ?? m.result.content[0].text)).toEqual([...CONFORMANCE_TEXT.logs.map(() => 'notifications/message'), CONFORMANCE_TEXT.loggingDone]);

    const [initExchange, initializedExchange, callExchange] = server.record.exchanges;
    expect(notesOf(initExchange)).toEqual(ALL_NOTES);
    expect(notesOf(initializedExchange)).toEqual([]);
    expect(notesOf(callExchange)).toEqual(ALL_NOTES);
    // The record parsed what the client received: the same events, no comment among them.
    expect(callExchange!.sseEvents.map(({ at: _at, ...event }) => event)).toEqual(parsed(logged.text));
  });

  test('2025-03-26: a stream written at once arrives whole, comments and all, with no Content-Length', async () => {
    const { server, raw } = await opened.serve({ era: '2025-03-26', personalities: [sseComments()] });
    const init = await raw.post(server.url, initializeRequest('2025-03-26'));
    expect(init.headers['content-length']).toBeUndefined();
    expect(server.record.exchanges[0]!.responseHeaders['content-length']).toBeUndefined();
    const events = eventBlocks(withoutComments(init.text));
    expect(events).toHaveLength(1);
    expect(init.text).toBe(shaped(events));
    expect(init.messages).toEqual([expect.objectContaining({ id: 1, result: expect.objectContaining({ protocolVersion: '2025-03-26' }) })]);
    // One event: nothing between events, comments before and after it.
    expect(notesOf(server.record.exchanges[0])).toEqual([SSE_COMMENT_NOTES.beforeFirstEvent, SSE_COMMENT_NOTES.afterLastEvent]);
  });

  test('2025-06-18 standalone GET: the comments go out with the head, before any event; errors in JSON are untouched', async () => {
    const { server, raw } = await opened.serve({ era: '2025-06-18', personalities: [sseComments()] });
    const session = await raw.openSession(server.url, '2025-06-18');
    const response = await request(server.url, { method: 'GET', headers: { ...session.headers, accept: 'text/event-stream' }, dispatcher: raw.agent });
    opened.defer(() => response.body.destroy());
    expect([response.statusCode, response.headers['content-type']]).toEqual([200, 'text/event-stream']);
    const first = await within(response.body[Symbol.asyncIterator]().next(), 'the first bytes of the GET stream');
    expect(Buffer.from(first.value as Uint8Array).toString('utf8')).toBe(OPENING);
    await server.record.waitFor((r) => notesOf(r.exchanges.at(-1)).length > 0, 'the GET stream noted');
    expect(notesOf(server.record.exchanges.at(-1))).toEqual([SSE_COMMENT_NOTES.beforeFirstEvent]);

    const unknown = await raw.post(server.url, toolsList(9), { 'mcp-session-id': 'unknown', 'mcp-protocol-version': '2025-06-18' });
    expect([unknown.status, unknown.headers['content-type'], unknown.messages[0].error.code]).toEqual([404, 'application/json', -32001]);
    expect(notesOf(server.record.exchanges.at(-1))).toEqual([]);
  });

  test('2024-11-05: the GET stream has OPENING before its endpoint event and BETWEEN before each answer; the POSTs are untouched', async () => {
    const { server, raw } = await opened.serve({ era: '2024-11-05', personalities: [sseComments()] }, { postHeaders: { 'content-type': 'application/json' } });
    const response = await request(server.url, { method: 'GET', headers: { accept: 'text/event-stream' }, dispatcher: raw.agent });
    opened.defer(() => response.body.destroy());
    const chunks = response.body[Symbol.asyncIterator]();
    let text = '';
    const parser = new SseParser();
    const events: ReturnType<SseParser['push']> = [];
    const readUntil = async (count: number, what: string) => {
      while (events.length < count) {
        const chunk = await within(chunks.next(), what);
        if (chunk.done) throw new Error(`the stream ended before ${what}`);
        const piece = Buffer.from(chunk.value as Uint8Array).toString('utf8');
        text += piece;
        events.push(...parser.push(piece));
      }
    };
    await readUntil(1, 'the endpoint event');
    expect(events[0]!.event).toBe('endpoint');
    const endpoint = new URL(events[0]!.data, server.url).href;
    const accepted = await raw.post(endpoint, initializeRequest('2024-11-05'));
    expect([accepted.status, accepted.text]).toEqual([202, 'Accepted']);
    await readUntil(2, 'the initialize answer');
    expect(JSON.parse(events[1]!.data)).toMatchObject({ id: 1, result: { protocolVersion: '2024-11-05' } });
    expect(text).toBe(`${OPENING}event: endpoint\ndata: ${events[0]!.data}\n\n${BETWEEN}event: message\ndata: ${events[1]!.data}\n\n`);
    const [get, post] = server.record.exchanges;
    expect(notesOf(get)).toEqual([SSE_COMMENT_NOTES.beforeFirstEvent, SSE_COMMENT_NOTES.betweenEvents]);
    expect(notesOf(post)).toEqual([]);
  });

  test('2026-07-28: every request is answered with a stream carrying the comments; a plain modern server answers JSON', async () => {
    const { server, raw } = await opened.serve({ era: '2026-07-28', personalities: [sseComments()] });
    const { body, headers } = modernRequest(1, 'tools/call', { name: 'echo', arguments: { text: 'hi' } });
    const answer = await raw.post(server.url, body, headers);
    expect([answer.status, answer.headers['content-type']]).toEqual([200, 'text/event-stream']);
    const events = eventBlocks(withoutComments(answer.text));
    expect(answer.text).toBe(shaped(events));
    expect(answer.messages).toEqual([{ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'hi' }], resultType: 'complete', _meta: RESULT_META } }]);
    expect(notesOf(server.record.exchanges[0])).toEqual([SSE_COMMENT_NOTES.beforeFirstEvent, SSE_COMMENT_NOTES.afterLastEvent]);

    const { server: plain, raw: plainRaw } = await opened.serve({ era: '2026-07-28' });
    expect((await plainRaw.post(plain.url, body, headers)).headers['content-type']).toBe('application/json');
  });

  test('applies to the five revisions’ eras only', async () => {
    for (const era of ['dual', 'stateless'] as const) {
      await expect(startReferenceServer({ era, personalities: [sseComments()] })).rejects.toThrow(`personality sse-comments does not apply to era ${era}`);
    }
  });
});
