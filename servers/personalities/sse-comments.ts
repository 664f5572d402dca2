// SSE comment lines in every event stream the server sends, as keep-alive timers and proxies write them: a line
// beginning with a colon carries no event (WHATWG HTML › Server-sent events › event stream interpretation: "If the line
// starts with a U+003A COLON character (:) — Ignore the line."), and 2026-07-28 Streamable HTTP › Receiving Messages
// says so for MCP: clients must ignore such lines and must not treat them as malformed input.
//
// Every response whose content type is text/event-stream gets, written through the wire record's taps (so the record
// holds exactly what the client received; its parser, like any SSE parser, drops the comments):
// - OPENING as soon as its head is written, before the first event (also on a stream that stays silent: the
//   standalone GET, the HTTP+SSE stream before its endpoint event);
// - BETWEEN before every later event the server writes (at an event boundary, never inside an event);
// - BETWEEN again after the last event, just before the server ends the stream.
// The blocks hold `:` alone and `: keep-alive`, ended by `\r\n` and by `\n`, each as a bare comment line right before
// an event's fields and as a comment frame (the comment and a blank line, as the SDK's own `: keepalive\n\n`).
// Each exchange is noted once per place it got comments: SSE_COMMENT_NOTES. No era server gives a stream a
// Content-Length (servers/streamable-transport.ts names its streams chunked), so the comments lengthen no declared body.
//
// The era servers stream every legacy answer already (2024-11-05 on the GET stream, 2025-03-26 … 2025-11-25 on each
// POST's stream); the 2026-07-28 server is made to answer every request with a stream (`streamEveryAnswer`), which the
// SDK entry does only for a handler that sends a notification first.
import type { ServerResponse } from 'node:http';
import type { Era } from '../era.ts';
import type { ModernBackend } from '../eras/modern.ts';
import type { Personality } from '../personality.ts';

/** Before the first event: a bare `:` (CRLF), then a `: keep-alive` frame (LF, and a blank line). */
export const OPENING = ':\r\n: keep-alive\n\n';
/** Between events and after the last one: a `: keep-alive` frame (CRLF), then a bare `:` (LF) right before the next event's fields. */
export const BETWEEN = ': keep-alive\r\n\r\n:\n';

/** The notes an exchange gets, once each, for where its stream carried comments. */
export const SSE_COMMENT_NOTES = {
  beforeFirstEvent: 'sse-comments-before-first-event',
  betweenEvents: 'sse-comments-between-events',
  afterLastEvent: 'sse-comments-after-last-event',
} as const;

const ERAS: readonly Era[] = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28'];
const LF = 0x0a;
const CR = 0x0d;

export function sseComments(): Personality {
  return {
    name: 'sse-comments',
    eras: ERAS,
    attach({ backend }) {
      // 2026-07-28: every answer a stream, so every exchange has one to put comments in.
      if ('streamEveryAnswer' in backend) (backend as ModernBackend).streamEveryAnswer();
    },
    async middleware({ res, exchange, record }, next) {
      // The wire record's taps are in place: writing through them records what the client receives.
      const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse;
      const write = res.write.bind(res) as (...args: unknown[]) => boolean;
      const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
      let stream: boolean | undefined;
      const noted = new Set<string>();
      const note = (label: string) => {
        if (noted.has(label)) return;
        noted.add(label);
        record.note(exchange, label);
      };
      // Where the server's own bytes stand: at the start of a line, right after a blank line (an event boundary), and
      // whether an event has been written since the last comments.
      let lineStart = true;
      let atBoundary = false;
      let events = 0;
      /** The server's chunk with BETWEEN put at each boundary that more of the stream follows. */
      const interleave = (chunk: Buffer): Buffer => {
        const parts: Buffer[] = [];
        let from = 0;
        for (let i = 0; i < chunk.length; i++) {
          const byte = chunk[i]!;
          if (atBoundary && byte !== LF && byte !== CR) {
            parts.push(chunk.subarray(from, i), Buffer.from(BETWEEN));
            from = i;
            atBoundary = false;
            note(SSE_COMMENT_NOTES.betweenEvents);
          }
          if (byte === LF) {
            if (lineStart) {
              atBoundary = true;
              events++;
            }
            lineStart = true;
          } else if (byte !== CR) lineStart = false;
        }
        parts.push(chunk.subarray(from));
        return Buffer.concat(parts);
      };
      /** The header objects writeHead was given (an object, or a flat [name, value, …] array). */
      const headerPairs = (args: unknown[]): [string, unknown][] => {
        const given = args.find((arg) => typeof arg === 'object' && arg !== null);
        return Array.isArray(given)
          ? Array.from({ length: Math.floor(given.length / 2) }, (_, i) => [String(given[2 * i]), given[2 * i + 1]])
          : Object.entries((given as Record<string, unknown> | undefined) ?? {});
      };
      /** Decides once, before the head goes out, whether this response is an event stream. */
      const decide = (args: unknown[]): unknown[] => {
        if (stream !== undefined) return args;
        const pairs = [...Object.entries(res.getHeaders()), ...headerPairs(args)];
        stream = pairs.some(([name, value]) => name.toLowerCase() === 'content-type' && String(value).includes('text/event-stream'));
        return args;
      };
      let opened = false;
      /** The comments before the first event: once, right after the head (written by writeHead or by the first write). */
      const opening = () => {
        if (!stream || opened) return;
        opened = true;
        write(OPENING);
        note(SSE_COMMENT_NOTES.beforeFirstEvent);
      };
      /** A write's chunk as bytes and the rest of its arguments without the encoding (bytes need none). */
      const split = (args: unknown[]): { chunk: Buffer | undefined; rest: unknown[] } => {
        const [chunk, ...rest] = args;
        const encoding = typeof rest[0] === 'string' ? (rest.shift() as BufferEncoding) : undefined;
        if (typeof chunk === 'string') return { chunk: Buffer.from(chunk, encoding ?? 'utf8'), rest };
        if (chunk instanceof Uint8Array) return { chunk: Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength), rest };
        return { chunk: undefined, rest: args };
      };

      res.writeHead = ((...args: unknown[]) => {
        const result = writeHead(...decide(args));
        opening();
        return result;
      }) as ServerResponse['writeHead'];
      res.write = ((...args: unknown[]) => {
        decide([]);
        opening();
        if (!stream) return write(...args);
        const { chunk, rest } = split(args);
        return chunk === undefined ? write(...args) : write(interleave(chunk), ...rest);
      }) as ServerResponse['write'];
      res.end = ((...args: unknown[]) => {
        decide([]);
        opening();
        if (!stream) return end(...args);
        const { chunk, rest } = split(typeof args[0] === 'function' ? [undefined, ...args] : args);
        const last = chunk === undefined ? Buffer.alloc(0) : interleave(chunk);
        // After the last event, just before the end: a keep-alive that fires as the server finishes.
        const after = atBoundary && events > 0 ? Buffer.from(BETWEEN) : Buffer.alloc(0);
        if (after.length > 0) note(SSE_COMMENT_NOTES.afterLastEvent);
        const callback = rest.find((arg) => typeof arg === 'function');
        return end(Buffer.concat([last, after]), ...(callback ? [callback] : []));
      }) as ServerResponse['end'];
      await next();
    },
  };
}
