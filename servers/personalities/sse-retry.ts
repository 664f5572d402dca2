// The `retry:` interval a 2025-11-25 server puts in its priming events (SEP-1699: the client MUST wait that long).
import type { StreamableHttpBackend } from '../eras/streamable-http.ts';
import type { Personality } from '../personality.ts';

/** A personality that sets the `retry:` interval of a 2025-11-25 server's priming events. */
export function sseRetryInterval(ms: number): Personality {
  return {
    name: 'sse-retry',
    eras: ['2025-11-25'],
    attach({ backend }) {
      if (!('setRetryInterval' in backend)) throw new Error('sse-retry applies to the Streamable HTTP era servers only');
      (backend as StreamableHttpBackend).setRetryInterval(ms);
    },
  };
}
