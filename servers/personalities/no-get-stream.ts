// The standalone GET answered 405 Method Not Allowed: the server offers no SSE stream at this endpoint (transports,
// Listening for Messages from the Server: it MUST return text/event-stream or else 405). A GET resuming a stream
// (Last-Event-ID) is still served: only the stream to listen on is not offered.
import type { Personality } from '../personality.ts';

export function noGetStream(): Personality {
  return {
    name: 'no-get-stream',
    eras: ['2025-03-26', '2025-06-18', '2025-11-25'],
    async middleware({ req, res, exchange, record }, next) {
      if (req.method !== 'GET' || req.headers['last-event-id'] !== undefined) return next();
      record.note(exchange, 'no-get-stream');
      res.writeHead(405, { allow: 'POST, DELETE', 'content-type': 'text/plain' }).end('Method Not Allowed');
    },
  };
}
