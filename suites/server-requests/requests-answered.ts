// The server asks the client for roots, a sampling and (from 2025-06-18) an elicitation during a call. A client answers
// every request with exactly one response, and refuses with an error what it did not declare: real clients leave such a
// request unanswered, and the server's call waits until it times out.
import { isStreamable, L, type Revision } from '../../protocol/revisions.ts';
import { HEADERS } from '../../protocol/http.ts';
import { FIXTURE_TOOLS, type ServerRequestMethod } from '../../servers/fixtures.ts';
import { checkIf, clientCompleted, precondition } from '../checks.ts';
import { checkInTime } from '../deadlines.ts';
import { defineScenario, type Check, type DoctoredProof, type Evidence } from '../scenario.ts';
import { clientFeature, messages, transports } from '../spec.ts';
import { label, labels, sessionOf } from '../wire.ts';
import { declaredCapabilities, describeReply, notAnsweredWithin, repliesTo, replyExchanges, serverRequestsOf, type ServerRequest } from './support.ts';

/** The requests the server sends at a revision (elicitation came with 2025-06-18), and the capability each needs. */
const CAPABILITY: Record<ServerRequestMethod, string> = { 'roots/list': 'roots', 'sampling/createMessage': 'sampling', 'elicitation/create': 'elicitation' };
export const requestsAt = (revision: Revision): ServerRequestMethod[] => (revision < '2025-06-18' ? ['roots/list', 'sampling/createMessage'] : ['roots/list', 'sampling/createMessage', 'elicitation/create']);

/**
 * The rules every server request is judged on, wherever it came (a call's stream, the GET stream, stdout): exactly one
 * response each, in time; a result only for what the client declared; over Streamable HTTP, each response a POST of its
 * own in the session its request came in, accepted with 202. `reached`: why the requests were not sent, if they were not.
 */
export function requestChecks(evidence: Evidence, sent: readonly ServerRequest[], reached?: string): Check[] {
  const { revision } = evidence;
  const { react } = evidence.time.ms;
  const declared = declaredCapabilities(evidence);
  const twice = sent.filter((r) => repliesTo(evidence.exchanges, r) > 1);
  const undeclared = sent.filter((r) => r.method in CAPABILITY && declared !== undefined && declared[CAPABILITY[r.method as ServerRequestMethod]] === undefined);
  const accepted = undeclared.filter((r) => r.reply?.result !== undefined);
  const replies = replyExchanges(sent);
  const answeredOnce = messages(revision, 'responses', 'Responses: the receiver answers each request with exactly one response carrying its id (result or error), never leaving it hanging', 'MUST');
  const checks: Check[] = [
    reached !== undefined
      ? checkIf(reached, 'each-answered-once', answeredOnce, () => false, () => '')
      : checkInTime(
          evidence.time,
          'each-answered-once',
          answeredOnce,
          twice.length > 0 ? false : sent.some((r) => notAnsweredWithin(r, react)) ? 'late' : true,
          [`${sent.map((r) => describeReply(r)).join('; ')} (within ${react} ms)`, twice.length > 0 ? `answered more than once: ${twice.map((r) => r.method).join(', ')}` : ''].filter(Boolean).join('; '),
          [...sent.map((r) => r.exchange), ...replies],
        ),
    checkIf(
      reached ?? (declared === undefined ? 'no initialize was seen: what the client declared is unknown' : undeclared.length === 0 ? 'the client declared every capability the requests need' : undefined),
      'undeclared-refused',
      clientFeature(revision, 'roots', 'error-handling', 'a request for a capability the client did not declare is refused with an error (roots: -32601)', 'SHOULD'),
      () => accepted.length === 0,
      () =>
        accepted.length === 0
          ? `undeclared (${undeclared.map((r) => CAPABILITY[r.method as ServerRequestMethod]).join(', ')}), and each refused or unanswered`
          : `answered with a result although the client did not declare ${accepted.map((r) => CAPABILITY[r.method as ServerRequestMethod]).join(', ')}`,
      accepted.flatMap((r) => (r.replyExchange ? [r.replyExchange] : [])),
    ),
  ];
  // Over Streamable HTTP the response is a POST of its own, in the session the request came in (a client may have
  // opened others), accepted with 202.
  if (isStreamable(revision) && evidence.stdio === undefined) {
    const fault = (r: ServerRequest): string | undefined => {
      const x = r.replyExchange!;
      if (x.method !== 'POST') return `${label(x)}: not a POST`;
      const session = sessionOf(r.exchange);
      if (session !== undefined && sessionOf(x) !== session) return `${label(x)}: in session ${sessionOf(x) ?? '(none)'}, not ${session} where ${r.method} came`;
      if (x.status !== undefined && x.status !== 202) return `${label(x)}: answered ${x.status}, not 202`;
      return undefined;
    };
    const wrong = sent.filter((r) => r.replyExchange !== undefined && fault(r) !== undefined);
    checks.push(
      checkIf(
        reached ?? (replies.length === 0 ? 'the client answered none of the requests' : undefined),
        'reply-posted',
        transports(revision, 'sending-messages-to-the-server', 'Sending Messages to the Server: a response is a new POST carrying the session id, accepted with 202', 'MUST'),
        () => wrong.length === 0,
        () => (wrong.length === 0 ? `each of ${replies.length} responses was a POST in the session its request came in, accepted with 202` : `not so: ${wrong.map(fault).join('; ')}`),
        wrong.map((r) => r.replyExchange!),
      ),
    );
  }
  return checks;
}

/** The proofs of the request rules a variant cannot show: results for what was not declared, and replies outside the session. */
export const REQUEST_PROOFS: readonly DoctoredProof[] = [
  {
    check: 'undeclared-refused',
    how: 'every request answered with a result, none of them declared',
    doctor: (e: Evidence) => ({
      ...e,
      exchanges: e.exchanges.map((x) => ({ ...x, requestMessages: x.requestMessages.map((m) => (m.method === undefined && m.error !== undefined ? { jsonrpc: '2.0', id: m.id, result: {} } : m)) })),
    }),
  },
  {
    check: 'reply-posted',
    how: 'the responses sent without the session id',
    doctor: (e: Evidence) => ({
      ...e,
      exchanges: e.exchanges.map((x) => {
        if (!x.requestMessages.some((m) => m.method === undefined)) return x;
        const { [HEADERS.session]: _omitted, ...requestHeaders } = x.requestHeaders;
        return { ...x, requestHeaders };
      }),
    }),
  },
];

export const requestsAnswered = defineScenario({
  id: 'server-requests/requests-answered',
  title: 'The server sends roots/list, sampling/createMessage and elicitation/create during a call: each gets exactly one response, and what the client did not declare is refused with an error',
  revisions: L,
  requires: [],
  source: { spec: messages('2025-11-25', 'responses', 'Responses: every request gets a response, its result or its error', 'MUST') },
  async run({ connect, bounded, revision, time }) {
    const client = await connect();
    // Each request waits at most a reaction time for its answer; the call answers either way, with what came back.
    for (const method of requestsAt(revision)) {
      await bounded(client.callTool(FIXTURE_TOOLS.ask, { method, timeoutMs: time.ms.react }), `tools/call ${FIXTURE_TOOLS.ask} (${method})`);
    }
    await bounded(client.callTool(FIXTURE_TOOLS.echo, { text: 'after the requests' }), 'tools/call echo');
  },
  judge(evidence) {
    const { revision } = evidence;
    const sent = serverRequestsOf(evidence.exchanges, requestsAt(revision));
    return [
      precondition(
        'requests-sent',
        messages(revision, 'responses', 'Responses: every request gets a response', 'MUST'),
        sent.length === requestsAt(revision).length,
        sent.length === requestsAt(revision).length
          ? `the server sent ${sent.map((r) => r.method).join(', ')} during the calls`
          : `the server sent ${sent.length} of its ${requestsAt(revision).length} requests (${labels(evidence.exchanges)})`,
        sent.map((r) => r.exchange),
      ),
      clientCompleted(evidence, messages(revision, 'responses', 'a request from the server leaves the call and the session working', 'MUST')),
      ...requestChecks(evidence, sent),
    ];
  },
  doctored: [
    {
      check: 'requests-sent',
      unmet: true,
      how: 'the server sent no request',
      doctor: (e: Evidence) => ({ ...e, exchanges: e.exchanges.map((x) => ({ ...x, responseMessages: x.responseMessages.filter(({ message }) => message.method === undefined || !(message.method in CAPABILITY)) })) }),
    },
    {
      check: 'each-answered-once',
      how: 'each response sent twice',
      doctor: (e: Evidence) => ({ ...e, exchanges: e.exchanges.map((x) => ({ ...x, requestMessages: x.requestMessages.flatMap((m) => (m.method === undefined && m.id !== undefined ? [m, m] : [m])) })) }),
    },
    ...REQUEST_PROOFS,
  ],
});
