// The server sends the notifications a server may send during a call (a log message, list changed, one of a method no
// revision defines) before it answers: they never break the call, and the client answers none of them.
import { L } from '../../protocol/revisions.ts';
import { FIXTURE_TOOLS, NOTIFY_ANSWER, SERVER_NOTIFICATIONS } from '../../servers/fixtures.ts';
import type { WireExchange } from '../../servers/wire-record.ts';
import { check, checkIf, clientCompleted, precondition } from '../checks.ts';
import { outcomeOf, settle } from '../outcome.ts';
import { defineScenario, type Evidence } from '../scenario.ts';
import { messages } from '../spec.ts';
import { label, labels } from '../wire.ts';

const METHODS: readonly string[] = SERVER_NOTIFICATIONS.map((n) => n.method);

/** The notifications the server wrote, with when. */
function notificationsOf(exchanges: readonly WireExchange[]) {
  return exchanges.flatMap((exchange) => exchange.responseMessages.filter(({ message }) => message.method !== undefined && METHODS.includes(message.method) && message.id === undefined).map(({ message, at }) => ({ method: message.method!, at, exchange })));
}

/** Responses the client sent that answer no request of the server's: an id null, or an id the server never used. */
export function strayResponses(exchanges: readonly WireExchange[]) {
  const asked = new Set(exchanges.flatMap((x) => x.responseMessages.flatMap(({ message }) => (message.method !== undefined && message.id !== undefined && message.id !== null ? [message.id] : []))));
  return exchanges.filter((x) => x.requestMessages.some((m) => m.method === undefined && (m.result !== undefined || m.error !== undefined) && (m.id === null || m.id === undefined || !asked.has(m.id))));
}

export const notificationsInterleaved = defineScenario({
  id: 'server-requests/notifications-interleaved',
  title: 'The server sends a log message, list changed notifications and an unknown notification during a call: the call still answers, the next works, and no notification gets a response',
  revisions: L,
  requires: [],
  source: { spec: messages('2025-11-25', 'notifications', 'Notifications: the receiver MUST NOT send a response', 'MUST') },
  async run({ connect, bounded, observe, time }) {
    const client = await connect();
    observe('call', await settle(bounded(client.callTool(FIXTURE_TOOLS.notify, {}), `tools/call ${FIXTURE_TOOLS.notify}`)));
    await bounded(client.callTool(FIXTURE_TOOLS.echo, { text: 'after the notifications' }), 'tools/call echo');
    // A response to a notification is written at once: a quiet window for a late one to show.
    await new Promise((resolve) => setTimeout(resolve, time.ms.quiet));
  },
  judge(evidence) {
    const { revision } = evidence;
    const sent = notificationsOf(evidence.exchanges);
    const call = outcomeOf(evidence, 'call');
    const stray = strayResponses(evidence.exchanges);
    return [
      precondition(
        'notifications-sent',
        messages(revision, 'notifications', 'Notifications: the receiver MUST NOT send a response', 'MUST'),
        sent.length === METHODS.length,
        sent.length === METHODS.length ? `the server sent ${METHODS.join(', ')} during ${label(sent[0]!.exchange)}` : `the server sent ${sent.length} of its ${METHODS.length} notifications (${labels(evidence.exchanges)})`,
        [...new Set(sent.map((n) => n.exchange))],
      ),
      clientCompleted(evidence, messages(revision, 'notifications', 'notifications during a call leave the call and the session working', 'MUST')),
      checkIf(
        call === undefined ? 'the script did not get to the call' : undefined,
        'call-answered',
        messages(revision, 'responses', 'Responses: the call’s result reaches the caller, whatever notifications came before it', 'MUST'),
        () => call?.state === 'resolved' && (call.detail ?? '').includes(NOTIFY_ANSWER),
        () => (call?.state === 'resolved' && (call.detail ?? '').includes(NOTIFY_ANSWER) ? `the call resolved with the tool's answer after ${sent.length} notifications` : `the call ${call?.state} (${call?.detail ?? 'no detail'}) instead of answering "${NOTIFY_ANSWER}"`),
      ),
      check(
        'no-response-to-notification',
        messages(revision, 'notifications', 'Notifications: the receiver MUST NOT send a response', 'MUST'),
        stray.length === 0,
        stray.length === 0 ? 'the client sent no response that answers no request of the server' : `responses to no request (a notification answered): ${labels(stray)}`,
        stray,
      ),
    ];
  },
  doctored: [
    {
      check: 'notifications-sent',
      unmet: true,
      how: 'the server sent none of its notifications',
      doctor: (e: Evidence) => ({ ...e, exchanges: e.exchanges.map((x) => ({ ...x, responseMessages: x.responseMessages.filter(({ message }) => message.method === undefined || !METHODS.includes(message.method)) })) }),
    },
    {
      check: 'call-answered',
      how: 'the call rejected when the notifications came',
      doctor: (e: Evidence) => ({ ...e, observed: { ...e.observed, call: { state: 'rejected', afterMs: 1, detail: 'Error: unexpected notification' } } }),
    },
  ],
});
