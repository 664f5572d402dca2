// Streamable HTTP's standalone GET stream (Listening for Messages from the Server): a client MAY open one, and the
// server MAY then speak first on it, between calls. A request that comes there is answered as one on a call's stream
// (a POST each); a 405 to the GET means the server offers no stream, and the connection goes on. SDK clients open the
// stream after initialize; a client that declares `listen` is asked to; one that never opens it leaves these rules
// unexercised (inconclusive), never failed.
import { S, type Revision } from '../../protocol/revisions.ts';
import { FIXTURE_TOOLS } from '../../servers/fixtures.ts';
import { noGetStream } from '../../servers/personalities/no-get-stream.ts';
import type { WireExchange } from '../../servers/wire-record.ts';
import { check, clientCompleted, precondition } from '../checks.ts';
import { firstOperation, markOf, nothingSince } from '../connecting.ts';
import { holdsWithin } from '../outcome.ts';
import { defineScenario, type Check, type Evidence, type ScenarioContext, type SpecRef } from '../scenario.ts';
import { messages, transports } from '../spec.ts';
import { labels } from '../wire.ts';
import { pingChecks } from './ping-answered.ts';
import { REQUEST_PROOFS, requestChecks, requestsAt } from './requests-answered.ts';
import { listeningGets, listeningStreams, serverRequestsOf } from './support.ts';

const listening = (revision: Revision, section: string, level: SpecRef['level']) =>
  transports(revision, 'listening-for-messages-from-the-server', `Listening for Messages from the Server: ${section}`, level);

/** What the server sends on the GET stream, one request each: a ping, then what requests-answered sends during a call. */
const methodsAt = (revision: Revision): string[] => ['ping', ...requestsAt(revision)];

/**
 * Connects, asking a client that declares `listen` to open the GET stream, and waits for it (a start-up's time). A lazy
 * connect sends nothing, and its client opens the stream only after the handshake its first operation does: one first.
 */
async function connectListening(context: ScenarioContext, answered: (exchanges: readonly WireExchange[]) => boolean) {
  const listen = context.features.includes('listen');
  context.observe('listenAsked', listen);
  const mark = markOf(context.server.record);
  const client = await context.connect(listen ? { listen: true } : {});
  if (nothingSince(context.server.record, mark)) await firstOperation(client, context.bounded);
  const opened = await holdsWithin(context.server.record, (record) => answered(record.exchanges), 'the client to open its GET stream', context.time.ms.startup);
  return { client, opened };
}

/** The precondition of both scenarios: the client sent a standalone GET (a MAY: more time does not make a client that never does). */
function getSent(evidence: Evidence): Check {
  const gets = listeningGets(evidence.exchanges);
  const asked = evidence.observed['listenAsked'] === true;
  return precondition(
    'get-sent',
    listening(evidence.revision, 'the client MAY issue an HTTP GET to open an SSE stream', 'MAY'),
    gets.length > 0,
    gets.length > 0
      ? `the client opened ${labels(gets)}`
      : `the client sent no standalone GET within ${evidence.time.ms.startup} ms of connecting${asked ? ', although its adapter declares listen and asked it to' : ' (it MAY not)'} (${labels(evidence.exchanges)})`,
    gets,
    // A client not asked to listen that opens no stream (it MAY not) is a shape these rules do not reach: n/a, not "could not judge".
    asked ? {} : { by: 'shape' },
  );
}

/** Every standalone GET lists text/event-stream in Accept. */
function acceptsEventStream(evidence: Evidence): Check {
  const gets = listeningGets(evidence.exchanges);
  const without = gets.filter((x) => !(x.requestHeaders['accept'] ?? '').includes('text/event-stream'));
  return check(
    'accept-event-stream',
    listening(evidence.revision, 'the client MUST include an Accept header, listing text/event-stream', 'MUST'),
    without.length === 0,
    without.length === 0 ? `every GET (${gets.length}) listed text/event-stream` : `Accept without text/event-stream: ${without.map((x) => `#${x.seq} ${JSON.stringify(x.requestHeaders['accept'] ?? '(none)')}`).join(', ')}`,
    without,
  );
}

export const getStreamRequests = defineScenario({
  id: 'server-requests/get-stream-requests',
  title: 'Between calls the server pings the client and sends it roots/list, sampling/createMessage and elicitation/create on the standalone GET stream: each answered once, by a POST in the session, and the session goes on',
  revisions: S,
  requires: [],
  optional: ['listen'],
  // What the client owes the requests the server MAY send on the stream (a MAY source would cap every check at MAY).
  source: { spec: messages('2025-11-25', 'responses', 'Responses: every request the server sends on the GET stream gets a response, its result or its error', 'MUST') },
  async run(context) {
    const { bounded, revision, server, time } = context;
    const { client, opened } = await connectListening(context, (exchanges) => listeningStreams(exchanges).length > 0);
    if (opened) {
      // Each call answers at once; its request goes out on the GET stream after it, unrelated to any call.
      for (const method of methodsAt(revision)) await bounded(client.callTool(FIXTURE_TOOLS.askLater, { method, timeoutMs: time.ms.react }), `tools/call ${FIXTURE_TOOLS.askLater} (${method})`);
      const settled = (exchanges: readonly WireExchange[]) => {
        const sent = onTheGetStream(exchanges, revision);
        return sent.length === methodsAt(revision).length && sent.every((r) => r.reply !== undefined);
      };
      await holdsWithin(server.record, (record) => settled(record.exchanges), 'the answers to the requests on the GET stream', 2 * time.ms.react);
    }
    await bounded(client.callTool(FIXTURE_TOOLS.echo, { text: 'after the requests' }), 'tools/call echo');
  },
  judge(evidence) {
    const { revision } = evidence;
    const sent = onTheGetStream(evidence.exchanges, revision);
    const streams = listeningStreams(evidence.exchanges);
    const notSent =
      streams.length === 0
        ? `no GET stream was open for the server to send on (${labels(listeningGets(evidence.exchanges))})`
        : sent.length < methodsAt(revision).length
          ? `the server sent ${sent.length} of its ${methodsAt(revision).length} requests on the GET stream`
          : undefined;
    return [
      getSent(evidence),
      acceptsEventStream(evidence),
      clientCompleted(evidence, listening(revision, 'requests on the GET stream leave the session working', 'MUST')),
      ...pingChecks(
        evidence,
        sent.filter((r) => r.method === 'ping'),
        'on the GET stream, between calls',
        notSent,
      ),
      ...requestChecks(
        evidence,
        sent.filter((r) => r.method !== 'ping'),
        notSent,
      ),
    ];
  },
  doctored: [
    {
      check: 'get-sent',
      unmet: true,
      how: 'the client sent no GET',
      doctor: (e: Evidence) => ({ ...e, exchanges: e.exchanges.filter((x) => x.method !== 'GET') }),
    },
    {
      check: 'accept-event-stream',
      how: 'each GET sent with Accept: application/json',
      doctor: (e: Evidence) => ({ ...e, exchanges: e.exchanges.map((x) => (x.method === 'GET' ? { ...x, requestHeaders: { ...x.requestHeaders, accept: 'application/json' } } : x)) }),
    },
    {
      check: 'empty-result',
      how: 'the ping answered with a result that is not empty',
      doctor: (e: Evidence) => ({
        ...e,
        exchanges: e.exchanges.map((x) => ({ ...x, requestMessages: x.requestMessages.map((m) => (m.method === undefined && m.result !== undefined ? { ...m, result: { pong: true } } : m)) })),
      }),
    },
    ...REQUEST_PROOFS,
  ],
});

/** The server's requests that went out on a standalone GET stream, each with the client's reply. */
function onTheGetStream(exchanges: readonly WireExchange[], revision: Revision) {
  const streams = new Set(listeningStreams(exchanges));
  return serverRequestsOf(exchanges, methodsAt(revision)).filter((r) => streams.has(r.exchange));
}

export const getStream405 = defineScenario({
  id: 'server-requests/get-stream-405',
  title: 'The server answers the standalone GET with 405 (it offers no stream there): the client takes it as "no stream", and the session goes on',
  revisions: S,
  requires: [],
  optional: ['listen'],
  setup: () => ({ server: { personalities: [noGetStream()] }, state: undefined }),
  source: { spec: listening('2025-11-25', 'the server MUST return text/event-stream or else 405: it offers no SSE stream at this endpoint', 'MUST') },
  async run(context) {
    const { client } = await connectListening(context, (exchanges) => listeningGets(exchanges).some((x) => x.status === 405));
    await context.bounded(client.listTools(), 'tools/list');
    await context.bounded(client.callTool(FIXTURE_TOOLS.echo, { text: 'after the 405' }), 'tools/call echo');
  },
  judge(evidence) {
    return [
      getSent(evidence),
      acceptsEventStream(evidence),
      clientCompleted(evidence, listening(evidence.revision, 'a 405 means the server offers no stream at this endpoint: the session goes on', 'MUST')),
    ];
  },
  doctored: [
    {
      check: 'get-sent',
      unmet: true,
      how: 'the client sent no GET',
      doctor: (e: Evidence) => ({ ...e, exchanges: e.exchanges.filter((x) => x.method !== 'GET') }),
    },
  ],
});
