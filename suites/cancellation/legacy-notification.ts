import { HEADERS } from '../../protocol/http.ts';
import { isHttpSse, L } from '../../protocol/revisions.ts';
import type { WireExchange } from '../../servers/wire-record.ts';
import { check, checkIf, clientCompleted } from '../checks.ts';
import { HANDLER_ABORTED_PROOF, handlerAborted } from '../outcome.ts';
import { checkInTime } from '../deadlines.ts';
import { defineScenario, type Evidence } from '../scenario.ts';
import { cancellation, cancelOnTheWire, handlerSeesCancel, sessionManagement, transports } from '../spec.ts';
import { answerOf, cancelNotifications, idOf, label, labels, requests, sameSession, toolCallExchanges, wireCancelOf } from '../wire.ts';
import { abortSlowCall, callRejectedPromptly, callRunning } from './support.ts';

/** The headers a notification must share with the request it cancels (and, in 2024-11-05, the endpoint it is POSTed to). */
const SAME = [HEADERS.session, HEADERS.version] as const;

function mismatches(call: WireExchange, cancel: WireExchange): string[] {
  const differ = SAME.filter((name) => call.requestHeaders[name] !== cancel.requestHeaders[name]).map(
    (name) => `${name}: ${cancel.requestHeaders[name] ?? '(none)'} instead of ${call.requestHeaders[name] ?? '(none)'}`,
  );
  if (call.path !== cancel.path) differ.push(`POSTed to ${cancel.path} instead of ${call.path}`);
  return differ;
}

export const SAME_SESSION = 'same-session-and-headers';

export const legacyNotification = defineScenario({
  id: 'cancellation/legacy-notification',
  title: 'Aborting a tools/call sends notifications/cancelled with that request id (same session, same headers); the handler’s signal aborts; the call rejects promptly',
  revisions: L,
  requires: ['cancellation'],
  source: { spec: cancellation('2025-06-18', 'cancellation-flow', 'Cancellation Flow', 'SHOULD') },
  async run(context) {
    const { connect, revision } = context;
    await abortSlowCall(context, await connect(), (record) => wireCancelOf(revision, record.exchanges, 'slow').done, 'notifications/cancelled for the call');
  },
  judge(evidence) {
    const { revision } = evidence;
    const slow = toolCallExchanges(evidence.exchanges, 'slow')[0];
    const id = idOf(slow, 'tools/call');
    const wire = wireCancelOf(revision, evidence.exchanges, 'slow');
    const cancels = cancelNotifications(evidence.exchanges);
    const naming = cancels.filter((c) => c.requestId === id);
    const run = evidence.toolRuns.find((r) => r.tool === 'slow');
    // Every notification must name a request the client issued before it in its session and that was not answered yet
    // (the same id in another session is another request: a client per operation restarts its ids).
    const issuedBefore = requests(evidence.exchanges);
    const stray = cancels.filter(({ exchange, requestId }) => {
      const issued = issuedBefore.findLast(({ message, exchange: sent }) => message.id === requestId && sent.seq < exchange.seq && sameSession(evidence.exchanges, sent, exchange));
      const answered = issued && answerOf(evidence.exchanges, issued)?.at;
      return issued === undefined || (answered !== undefined && answered < exchange.startedAt);
    });
    const wrongHeaders = slow === undefined ? [] : naming.filter((c) => mismatches(slow, c.exchange).length > 0);
    return [
      callRunning(cancelOnTheWire(revision, 'SHOULD', evidence.stdio !== undefined), evidence, slow),
      clientCompleted(evidence, cancellation(revision, 'cancellation-flow', 'Cancellation Flow: the client cancels a call it issued', 'MUST')),
      checkInTime(evidence.time, 'notification-sent', cancelOnTheWire(revision, 'SHOULD', evidence.stdio !== undefined), wire.inTime, wire.detail, wire.exchanges),
      check(
        'names-an-issued-request',
        cancellation(revision, 'behavior-requirements', 'Behavior Requirements: cancellation notifications MUST only reference requests previously issued in the same direction and believed to still be in progress', 'MUST'),
        stray.length === 0,
        stray.length === 0
          ? `every notifications/cancelled (${cancels.length}) named a request the client had issued and that was still in progress`
          : `notifications/cancelled naming no request in progress: ${stray.map((c) => `${label(c.exchange)} → ${JSON.stringify(c.requestId)}`).join(', ')}`,
        stray.map((c) => c.exchange),
      ),
      // HTTP: where the notification went, and with which headers. Over stdio there is one channel and no headers.
      ...(evidence.stdio !== undefined
        ? []
        : [
            checkIf(
              naming.length === 0 ? 'no notification named the call, so none went anywhere (notification-sent judges that)' : undefined,
              SAME_SESSION,
              isHttpSse(revision)
                ? transports(revision, 'http-with-sse', 'HTTP with SSE: every client message is POSTed to the endpoint the server named', 'MUST')
                : sessionManagement(revision, 'the session id (and from 2025-06-18 MCP-Protocol-Version) on every subsequent request, the notification included', 'MUST'),
              () => wrongHeaders.length === 0,
              () =>
                wrongHeaders.length === 0
                  ? `the notification went where the call went, with the same session and version headers (${labels(naming.map((c) => c.exchange))})`
                  : wrongHeaders.map((c) => `${label(c.exchange)}: ${mismatches(slow!, c.exchange).join('; ')}`).join(', '),
              slow ? [slow, ...naming.map((c) => c.exchange)] : [],
            ),
          ]),
      handlerAborted(evidence.time, handlerSeesCancel(revision, 'SHOULD', evidence.stdio !== undefined), run, slow),
      callRejectedPromptly(cancellation(revision, 'behavior-requirements', 'Behavior Requirements: the sender of the cancellation SHOULD ignore any response that arrives afterward (the call ends when it is cancelled)', 'SHOULD'), evidence, slow),
    ];
  },
  doctored: [
    {
      check: 'names-an-issued-request',
      how: 'the notification names request id 999',
      doctor: (e: Evidence) => ({
        ...e,
        exchanges: e.exchanges.map((x) => ({
          ...x,
          requestMessages: x.requestMessages.map((m) => (m.method === 'notifications/cancelled' ? { ...m, params: { ...m.params, requestId: 999 } } : m)),
        })),
      }),
    },
    {
      check: SAME_SESSION,
      how: 'the notification POSTed without the session header to another path',
      doctor: (e: Evidence) => ({
        ...e,
        exchanges: e.exchanges.map((x) =>
          x.requestMessages.some((m) => m.method === 'notifications/cancelled')
            ? { ...x, path: `${x.path}/elsewhere`, requestHeaders: Object.fromEntries(Object.entries(x.requestHeaders).filter(([name]) => name !== HEADERS.session)) }
            : x,
        ),
      }),
    },
    {
      check: 'call-running',
      unmet: true,
      how: 'the script never got to abort the call (it did not reach its handler)',
      doctor: (e: Evidence) => ({ ...e, observed: { ...e.observed, call: undefined }, toolRuns: [] }),
    },
    HANDLER_ABORTED_PROOF,
  ],
});
