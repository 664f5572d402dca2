// DELETE answered 405 Method Not Allowed: the server keeps sessions until they expire (transports, session management: MAY).
import type { Personality } from '../personality.ts';

export function delete405(): Personality {
  return {
    name: 'delete-405',
    eras: ['2025-03-26', '2025-06-18', '2025-11-25', 'stateless', 'dual'],
    async middleware({ req, res, exchange, record }, next) {
      if (req.method !== 'DELETE') return next();
      record.note(exchange, 'delete-405');
      res.writeHead(405, { allow: 'GET, POST', 'content-type': 'text/plain' }).end('Method Not Allowed');
    },
  };
}
