import { specUrl } from '../../protocol/revisions.ts';
import { check, clientCompleted } from '../checks.ts';
import { defineScenario } from '../scenario.ts';
import { holdsWithin, label, QUIET_MS, shutdown } from './support.ts';
import type { WireExchange } from '../../servers/wire-record.ts';

/** The HTTP+SSE stream: the GET that was answered with an SSE stream. */
const sseStream = (exchanges: readonly WireExchange[]): WireExchange | undefined => exchanges.find((exchange) => exchange.method === 'GET' && exchange.sse);

export const sseStreamClosed = defineScenario({
  id: 'disposal/sse-stream-closed',
  title: 'HTTP+SSE: closing ends the GET /sse stream (the server sees the client close the connection)',
  revisions: ['2024-11-05'],
  requires: [],
  source: { spec: shutdown('2024-11-05', 'over HTTP, shutdown is closing the connections (HTTP with SSE: the client closes the SSE connection)', 'SHOULD') },
  async run({ connect, bounded, server }) {
    const client = await connect();
    await bounded(client.listTools(), 'tools/list');
    await bounded(client.close(), 'close');
    // Event-driven: the stream's end is recorded when the connection closes; bounded for a client that leaves it open.
    await holdsWithin(server.record, (record) => sseStream(record.exchanges)?.endedBy !== undefined, 'the SSE stream to end', QUIET_MS);
  },
  judge(evidence) {
    const { revision } = evidence;
    const stream = sseStream(evidence.exchanges);
    return [
      clientCompleted(evidence, shutdown(revision, 'the client connects and closes', 'MUST')),
      check(
        'sse-stream-ended-by-client',
        {
          ...shutdown(revision, 'over HTTP, shutdown is closing the connections', 'SHOULD'),
          url: specUrl(revision, 'basic/transports', 'http-with-sse'),
          section: 'Transports › HTTP with SSE (the client closes the SSE connection) and Lifecycle › Shutdown (HTTP: closing the connections)',
        },
        stream?.endedBy === 'client',
        stream === undefined
          ? 'no SSE stream was opened'
          : stream.endedBy === 'client'
            ? `the client closed the SSE stream ${label(stream)}`
            : stream.endedBy === undefined
              ? `the SSE stream ${label(stream)} was still open ${QUIET_MS} ms after close() resolved`
              : `the SSE stream ${label(stream)} was ended by the ${stream.endedBy === 'server' ? 'server' : 'server (dropped)'}, not the client`,
        stream ? [stream] : [],
      ),
    ];
  },
});
