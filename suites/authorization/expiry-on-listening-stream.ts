import { HEADERS } from '../../protocol/http.ts';
import { AUTH_NOTES } from '../../servers/authorization/protected-resource.ts';
import { FIXTURE_TOOLS } from '../../servers/fixtures.ts';
import type { WireExchange } from '../../servers/wire-record.ts';
import { clientCompleted, precondition } from '../checks.ts';
import { firstOperation, markOf, nothingSince } from '../connecting.ts';
import { holdsWithin } from '../outcome.ts';
import { defineScenario } from '../scenario.ts';
import { listeningGets } from '../server-requests/support.ts';
import { authorization, sessionManagement, transports } from '../spec.ts';
import { label, labels } from '../wire.ts';
import { refusedAndRetried, renewalChecks } from './renewal.ts';
import { protectedSetup, SESSION_REVISIONS, type Protected } from './support.ts';

const isListeningGet = (exchange: WireExchange) => listeningGets([exchange]).length === 1;

/**
 * A token that expires mid-session, met by the standalone GET stream (Streamable HTTP, 2025-06-18 and 2025-11-25, a
 * client asked to listen): the token expires just as the GET that opens the stream arrives, which is answered 401
 * `invalid_token`. The client gets one new token and opens the stream again in the same
 * session: a new token is no new session, and no new `initialize`.
 */
export const expiryOnListeningStream = defineScenario<Protected>({
  id: 'authorization/expiry-on-listening-stream',
  title: 'A token that expires mid-session meets the standalone GET stream: one renewal, the stream opened again in the same session, no new initialize',
  revisions: SESSION_REVISIONS,
  requires: ['oauth'],
  optional: ['listen'],
  source: { spec: authorization('2025-11-25', 'token-requirements', 'Access Token Usage (authorization in every HTTP request, even within the same logical session); Error Handling (401: the token expired)', 'MUST') },
  setup: () => protectedSetup(),
  async run({ connect, bounded, state, observe, server, features, time }) {
    const listen = features.includes('listen');
    observe('listenAsked', listen);
    // The token expires just as the stream is asked for: the GET that opens it (in a session, resuming nothing).
    state.resource.expireBefore(({ method, headers }) => method === 'GET' && headers[HEADERS.session] !== undefined && headers[HEADERS.lastEventId] === undefined);
    const mark = markOf(server.record);
    const client = await connect({ authorization: state.resource.clientAuthorization(), ...(listen ? { listen: true } : {}) });
    // A lazy connect sent nothing: its first operation does the handshake, and its stream follows.
    if (nothingSince(server.record, mark)) await firstOperation(client, bounded);
    // Asked to listen, the client opens its stream again once renewed (a client not asked opens none: nothing to wait for).
    if (listen) await holdsWithin(server.record, (record) => record.exchanges.some((x) => isListeningGet(x) && x.notes.includes(AUTH_NOTES.accepted)), 'the GET stream opened with a new token', time.ms.startup);
    await bounded(client.callTool(FIXTURE_TOOLS.echo, { text: 'with the stream open again' }), 'tools/call after the stream opened again');
    await bounded(client.close(), 'close');
  },
  judge(evidence) {
    const { revision } = evidence;
    const asked = evidence.observed['listenAsked'] === true;
    const gets = listeningGets(evidence.exchanges);
    const { refused, retry } = refusedAndRetried(evidence, isListeningGet);
    const met = precondition(
      'stream-refused-as-expired',
      authorization(revision, 'error-handling', 'a request with an expired token is answered 401 invalid_token', 'MUST'),
      refused !== undefined,
      refused !== undefined
        ? `${label(refused)} (the standalone GET stream of the session) was answered 401 invalid_token (expired)`
        : gets.length > 0
          ? `no standalone GET was refused as expired (${labels(gets)}): the server did not act`
          : `the client opened no standalone GET stream${asked ? ', although its adapter declares listen and asked it to' : ' (it MAY not: it was not asked to listen)'}`,
      refused ? [refused] : gets,
      // A client not asked to listen opens no stream (it MAY not): a shape this rule does not reach.
      { by: refused !== undefined || gets.length > 0 ? undefined : asked ? 'client' : 'shape' },
    );
    return [
      met,
      clientCompleted(evidence, transports(revision, 'listening-for-messages-from-the-server', 'Listening for Messages from the Server: a stream refused for its token leaves the session working', 'MUST')),
      ...renewalChecks(evidence, refused, retry, {
        sentAgain: {
          name: 'stream-reopened-after-renewal',
          spec: authorization(revision, 'error-handling', 'a 401 is answered by a new token, and the request (here the GET that opens the stream) sent again with it', 'MUST'),
          what: 'the GET stream',
        },
        session: sessionManagement(revision, 'a new token is no new session: the stream is opened again in the session it belonged to, with its negotiated version, and no new initialize', 'SHOULD'),
        once: authorization(revision, 'error-handling', 'one new token for the expiry: one refresh (or one authorization), not one per attempt', 'SHOULD'),
      }),
    ];
  },
  doctored: [
    {
      check: 'stream-refused-as-expired',
      unmet: true,
      how: 'no GET was refused as expired (the personality did not act)',
      doctor: (e) => ({ ...e, exchanges: e.exchanges.map((x) => ({ ...x, notes: x.notes.filter((n) => n !== AUTH_NOTES.expired) })) }),
    },
    {
      check: 'same-session-kept',
      how: 'the re-opened stream carried another session id',
      doctor: (e) => {
        const { retry } = refusedAndRetried(e, isListeningGet);
        return { ...e, exchanges: e.exchanges.map((x) => (x === retry ? { ...x, requestHeaders: { ...x.requestHeaders, 'mcp-session-id': 'another' } } : x)) };
      },
    },
    {
      check: 'renewed-once',
      how: 'the token request of the renewal sent twice',
      doctor: (e) => {
        const lane = e.authorization!.exchanges;
        const last = lane.at(-1)!;
        return { ...e, authorization: { ...e.authorization!, exchanges: [...lane, { ...structuredClone(last), seq: last.seq + 1 }] } };
      },
    },
  ],
});
