import type { WireExchange } from '../../servers/wire-record.ts';
import { clientCompleted, precondition } from '../checks.ts';
import { holdsWithin } from '../outcome.ts';
import { checkInTime } from '../deadlines.ts';
import { defineScenario, type Evidence } from '../scenario.ts';
import { shutdown, transports } from '../spec.ts';
import { label, seqNow } from '../wire.ts';

/** The HTTP+SSE stream: the GET that was answered with an SSE stream. */
const sseStream = (exchanges: readonly WireExchange[]): WireExchange | undefined => exchanges.find((exchange) => exchange.method === 'GET' && exchange.sse);

export const sseStreamClosed = defineScenario({
  id: 'disposal/sse-stream-closed',
  title: 'HTTP+SSE: closing ends the GET /sse stream (the server sees the client close the connection)',
  revisions: ['2024-11-05'],
  requires: [],
  source: { spec: shutdown('2024-11-05', 'over HTTP, shutdown is closing the connections (HTTP with SSE: the client closes the SSE connection)', 'SHOULD') },
  async run({ connect, bounded, server, observe, time }) {
    const client = await connect();
    await bounded(client.listTools(), 'tools/list');
    observe('closeFromSeq', seqNow(server.record));
    await bounded(client.close(), 'close');
    // Event-driven: the stream's end is recorded when the connection closes; bounded (how soon a client reacts) for one that leaves it open.
    await holdsWithin(server.record, (record) => sseStream(record.exchanges)?.endedBy !== undefined, 'the SSE stream to end', time.ms.react);
  },
  judge(evidence) {
    const { revision } = evidence;
    const stream = sseStream(evidence.exchanges);
    return [
      precondition(
        'close-reached',
        shutdown(revision, 'over HTTP, shutdown is closing the connections', 'SHOULD'),
        evidence.observed.closeFromSeq !== undefined,
        evidence.observed.closeFromSeq === undefined ? 'the script did not reach close(): the client did not connect and list its tools' : 'the client connected, listed its tools and closed',
      ),
      clientCompleted(evidence, shutdown(revision, 'the client connects and closes', 'MUST')),
      checkInTime(
        evidence.time,
        'sse-stream-ended-by-client',
        transports(revision, 'http-with-sse', 'HTTP with SSE (the client closes the SSE connection) and Lifecycle › Shutdown (HTTP: closing the connections)', 'SHOULD'),
        stream === undefined ? false : stream.endedBy === 'client' || (stream.endedBy === undefined && 'late'),
        stream === undefined
          ? 'no SSE stream was opened'
          : stream.endedBy === 'client'
            ? `the client closed the SSE stream ${label(stream)}`
            : stream.endedBy === undefined
              ? `the SSE stream ${label(stream)} was still open ${evidence.time.ms.react} ms after close() resolved`
              : `the SSE stream ${label(stream)} was ended by the ${stream.endedBy === 'server' ? 'server' : 'server (dropped)'}, not the client`,
        stream ? [stream] : [],
      ),
    ];
  },
  doctored: [
    {
      check: 'close-reached',
      unmet: true,
      how: 'the script stopped before close()',
      doctor: (e: Evidence) => ({ ...e, observed: { ...e.observed, closeFromSeq: undefined } }),
    },
  ],
});
