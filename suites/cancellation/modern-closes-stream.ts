import { M } from '../../protocol/revisions.ts';
import { check, clientCompleted } from '../checks.ts';
import { handlerAborted, type Outcome } from '../outcome.ts';
import { checkInTime } from '../deadlines.ts';
import { defineScenario, type Evidence } from '../scenario.ts';
import { cancellation, sendingMessages, transports } from '../spec.ts';
import { cancelNotifications, label, labels, toolCallExchanges } from '../wire.ts';
import { abortSlowCall, callRejectedPromptly, callRunning } from './support.ts';

export const modernClosesStream = defineScenario({
  id: 'cancellation/modern-closes-stream',
  title: '2026-07-28: aborting a call closes its response stream; the handler aborts; no notifications/cancelled is POSTed',
  revisions: M,
  requires: ['cancellation'],
  source: { spec: cancellation('2026-07-28', 'transport-specific-cancellation', 'Transport-Specific Cancellation', 'SHOULD') },
  async run(context) {
    const { connect } = context;
    await abortSlowCall(context, await connect(), (record) => toolCallExchanges(record.exchanges, 'slow')[0]?.endedBy !== undefined, 'the call’s response stream to end');
  },
  judge(evidence) {
    const { revision } = evidence;
    const slow = toolCallExchanges(evidence.exchanges, 'slow')[0];
    const posted = cancelNotifications(evidence.exchanges).map((c) => c.exchange);
    const run = evidence.toolRuns.find((r) => r.tool === 'slow');
    const transportSpecific = cancellation(revision, 'transport-specific-cancellation', 'Transport-Specific Cancellation: on Streamable HTTP, closing the response stream is the cancellation signal', 'SHOULD');
    return [
      callRunning(transportSpecific, evidence, slow),
      clientCompleted(evidence, transportSpecific),
      checkInTime(
        evidence.time,
        'stream-closed',
        transportSpecific,
        slow === undefined ? false : slow.endedBy === 'client' || (slow.endedBy === undefined && 'late'),
        slow === undefined
          ? 'the call never reached the server'
          : slow.endedBy === 'client'
            ? `the client closed the response stream of ${label(slow)}`
            : slow.endedBy === undefined
              ? `the response stream of ${label(slow)} was still open ${evidence.time.ms.react} ms after the abort`
              : `${label(slow)} was not closed by the client (ended by ${slow.endedBy})`,
        slow ? [slow] : [],
      ),
      check(
        'no-notification',
        sendingMessages(
          revision,
          'this revision defines no client-to-server notification over Streamable HTTP; notifications/cancelled is used only on stdio, closing the stream is the cancellation',
          'SHOULD',
        ),
        posted.length === 0,
        posted.length === 0 ? 'no notifications/cancelled was POSTed' : `notifications/cancelled was POSTed: ${labels(posted)}`,
        posted,
      ),
      handlerAborted(evidence.time, transports(revision, 'cancellation', 'Cancellation: the server treats the closed stream as cancellation (its handler sees it)', 'SHOULD'), run, slow),
      callRejectedPromptly(cancellation(revision, 'behavior-requirements', 'Behavior Requirements: the client SHOULD ignore any response to the cancelled request (the call ends when it is cancelled)', 'SHOULD'), evidence, slow),
    ];
  },
  doctored: [
    {
      check: 'call-rejected-promptly',
      how: 'the aborted call still pending',
      doctor: (e: Evidence) => ({ ...e, observed: { ...e.observed, call: { state: 'pending', afterMs: e.time.ms.react } satisfies Outcome } }),
    },
    {
      check: 'call-running',
      unmet: true,
      how: 'the script never got to abort the call (it did not reach its handler)',
      doctor: (e: Evidence) => ({ ...e, observed: { ...e.observed, call: undefined }, toolRuns: [] }),
    },
  ],
});
