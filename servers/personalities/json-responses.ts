// A server that answers every POST with one application/json body, never an SSE stream (transports › Sending Messages
// to the Server: the server MUST return either; many do only JSON). Nothing rides a POST response but its answer.
import type { StreamableHttpBackend } from '../eras/streamable-http.ts';
import type { Personality } from '../personality.ts';

export function jsonResponses(): Personality {
  return {
    name: 'json-responses',
    eras: ['2025-03-26', '2025-06-18', '2025-11-25'],
    attach({ backend }) {
      if (!('answerWithJson' in backend)) throw new Error('json-responses applies to the sessionful Streamable HTTP era servers only');
      (backend as StreamableHttpBackend).answerWithJson();
    },
  };
}
