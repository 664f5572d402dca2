// The server changes its mind: it sends the client roots/list during a call and cancels it at once, then cancels a
// request it never sent. Whether the client's answer goes out before the cancellation reaches it is a race the spec
// names (Timing Considerations), so no answer is blamed; what is judged is what holds either way: at most one answer,
// no response to either notification, and the call and the session going on.
import { L } from '../../protocol/revisions.ts';
import { FIXTURE_TOOLS, UNKNOWN_REQUEST_ID } from '../../servers/fixtures.ts';
import type { WireExchange } from '../../servers/wire-record.ts';
import { check, checkIf, clientCompleted, precondition } from '../checks.ts';
import { outcomeOf, settle } from '../outcome.ts';
import { defineScenario, type Evidence } from '../scenario.ts';
import { cancellation, messages } from '../spec.ts';
import { labels } from '../wire.ts';
import { strayResponses } from './notifications-interleaved.ts';
import { describeReply, repliesTo, serverRequestsOf } from './support.ts';

const METHOD = 'roots/list';

/** The server's notifications/cancelled, each with the request id it names and when it was written. */
function cancellationsOf(exchanges: readonly WireExchange[]) {
  return exchanges.flatMap((exchange) =>
    exchange.responseMessages.flatMap(({ message, at }) => (message.method === 'notifications/cancelled' && message.id === undefined ? [{ requestId: message.params?.['requestId'], at, exchange }] : [])),
  );
}

export const serverCancels = defineScenario({
  id: 'server-requests/server-cancels',
  title: 'The server sends roots/list during a call and cancels it at once, then cancels a request it never sent: the request is answered at most once, neither cancellation gets a response, and the call and the session go on',
  revisions: L,
  requires: [],
  source: { spec: cancellation('2025-11-25', 'timing-considerations', 'Timing Considerations: both parties MUST handle these race conditions gracefully', 'MUST') },
  async run({ connect, bounded, observe, time }) {
    const client = await connect();
    observe('call', await settle(bounded(client.callTool(FIXTURE_TOOLS.ask, { method: METHOD, timeoutMs: time.ms.react, cancel: true }), `tools/call ${FIXTURE_TOOLS.ask} (${METHOD}, cancelled)`)));
    await bounded(client.callTool(FIXTURE_TOOLS.echo, { text: 'after the cancellations' }), 'tools/call echo');
    // A response to a notification is written at once: a quiet window for a late one to show.
    await new Promise((resolve) => setTimeout(resolve, time.ms.quiet));
  },
  judge(evidence) {
    const { revision } = evidence;
    const request = serverRequestsOf(evidence.exchanges, [METHOD])[0];
    const cancellations = cancellationsOf(evidence.exchanges);
    const cancelled = request === undefined ? undefined : cancellations.find((c) => c.requestId === request.id);
    const unknown = cancellations.find((c) => c.requestId === UNKNOWN_REQUEST_ID);
    const call = outcomeOf(evidence, 'call');
    const stray = strayResponses(evidence.exchanges);
    const replies = request === undefined ? 0 : repliesTo(evidence.exchanges, request);
    const when = request?.replyExchange === undefined || cancelled === undefined ? '' : request.replyExchange.startedAt < cancelled.at ? ' before the cancellation was written' : ` ${Math.round(request.replyExchange.startedAt - cancelled.at)} ms after the cancellation was written`;
    return [
      precondition(
        'cancel-sent',
        cancellation(revision, 'behavior-requirements', 'Behavior Requirements: receivers of a cancellation SHOULD stop processing the request and not answer it', 'SHOULD'),
        cancelled !== undefined && unknown !== undefined,
        cancelled !== undefined && unknown !== undefined
          ? `the server sent ${METHOD} ${JSON.stringify(request!.id)}, cancelled it, then cancelled ${JSON.stringify(UNKNOWN_REQUEST_ID)}`
          : `the server did not send ${METHOD} and its two cancellations (${labels(evidence.exchanges)})`,
        [...new Set([...(request ? [request.exchange] : []), ...cancellations.map((c) => c.exchange)])],
      ),
      clientCompleted(evidence, cancellation(revision, 'timing-considerations', 'Timing Considerations: both parties MUST handle these race conditions gracefully: the session goes on', 'MUST')),
      checkIf(
        call === undefined ? 'the script did not get to the call' : undefined,
        'call-answered',
        messages(revision, 'responses', 'Responses: the call’s result reaches the caller, whatever the server cancelled during it', 'MUST'),
        () => call?.state === 'resolved',
        () => (call?.state === 'resolved' ? 'the call resolved with the tool’s answer' : `the call ${call?.state} (${call?.detail ?? 'no detail'})`),
      ),
      check(
        'answered-at-most-once',
        messages(revision, 'responses', 'Responses: a request gets at most one response (a cancelled one SHOULD get none; one already answered MAY be)', 'MUST'),
        replies <= 1,
        request === undefined ? 'the server sent no request' : replies <= 1 ? `${describeReply(request)}${when}` : `${METHOD} answered ${replies} times`,
        request?.replyExchange ? [request.replyExchange] : [],
      ),
      check(
        'no-response-to-notification',
        messages(revision, 'notifications', 'Notifications: the receiver MUST NOT send a response (a cancellation, one of an unknown request too)', 'MUST'),
        stray.length === 0,
        stray.length === 0 ? 'the client answered neither cancellation' : `responses to no request (a notification answered): ${labels(stray)}`,
        stray,
      ),
    ];
  },
  doctored: [
    {
      check: 'cancel-sent',
      unmet: true,
      how: 'the server sent no cancellation',
      doctor: (e: Evidence) => ({ ...e, exchanges: e.exchanges.map((x) => ({ ...x, responseMessages: x.responseMessages.filter(({ message }) => message.method !== 'notifications/cancelled') })) }),
    },
    {
      check: 'call-answered',
      how: 'the call rejected when the cancellation came',
      doctor: (e: Evidence) => ({ ...e, observed: { ...e.observed, call: { state: 'rejected', afterMs: 1, detail: 'Error: unexpected cancellation' } } }),
    },
    {
      check: 'answered-at-most-once',
      how: 'the request answered twice',
      doctor: (e: Evidence) => ({ ...e, exchanges: e.exchanges.map((x) => ({ ...x, requestMessages: x.requestMessages.flatMap((m) => (m.method === undefined && m.id !== undefined && m.id !== null ? [m, m] : [m])) })) }),
    },
  ],
});
