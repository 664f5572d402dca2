// A server that advertises the `tools` capability and nothing else (lifecycle › Capability Negotiation): the reference
// servers advertise tools, resources, prompts, logging and completions, so a client that lists prompts or sets a log
// level regardless of what was negotiated passes unseen there. Here the InitializeResult names `tools` alone, and what
// it does not name is not served either (-32601, as from a server that has none): the era builds its fixture server
// tools-only (fixtures.ts `toolsOnly`). Every exchange carrying an `initialize` is noted `tools-only`: the answer it
// gets (on its own response, or over HTTP+SSE on the stream) comes from a tools-only server.
import { containsMethod } from '../http.ts';
import type { Personality } from '../personality.ts';

export const TOOLS_ONLY_NOTE = 'tools-only';

export function toolsOnly(): Personality {
  return {
    name: 'tools-only',
    eras: ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', 'stateless'],
    attach({ era, backend }) {
      if (backend.serveToolsOnly === undefined) throw new Error(`tools-only: the ${era} era server cannot be made tools-only`);
      backend.serveToolsOnly();
    },
    async middleware({ exchange, body, record }, next) {
      if (containsMethod(body, 'initialize')) record.note(exchange, TOOLS_ONLY_NOTE);
      return next();
    },
  };
}
