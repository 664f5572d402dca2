import type { TimePolicy } from '../../config/time.ts';
import { L } from '../../protocol/revisions.ts';
import type { WireExchange } from '../../servers/wire-record.ts';
import { check, clientCompleted, precondition } from '../checks.ts';
import { describeOutcome, holdsWithin, outcomeOf, startCall } from '../outcome.ts';
import { checkInTime, rejectedInTime } from '../deadlines.ts';
import { defineScenario, type Evidence } from '../scenario.ts';
import { cancellation } from '../spec.ts';
import { answerOf, cancelNotifications, carrying, idOf, label, labels, requests, sameSession, sessionEndedAt, sessionKey, toolCallExchanges } from '../wire.ts';
import { answersAfterCancel, callRunning, type AnswersAfterCancel } from './support.ts';

/**
 * The cancelled call's tool runs this long, then answers: the answer the client must ignore. A reaction time, the time
 * the client has to abort once the call runs: a shorter run could end before a busy client aborts (no race to judge).
 */
const answerAfterOf = (time: TimePolicy): number => time.ms.react;

/** The server's answer to the first call of `tool`, and the exchange it travelled on. */
function answerToCall(exchanges: readonly WireExchange[], tool: string) {
  const sent = requests(exchanges, 'tools/call', tool)[0];
  const answer = sent && answerOf(exchanges, sent);
  const on = answer && exchanges.find((exchange) => exchange.responseMessages.includes(answer));
  return answer && on ? { at: answer.at, ok: answer.message.result !== undefined, exchange: on } : undefined;
}

export const lateResponseIgnored = defineScenario<{ late: AnswersAfterCancel }>({
  id: 'cancellation/late-response-ignored',
  title: 'The server answers after the cancel: the client neither surfaces the answer nor breaks; the next call works',
  revisions: L,
  requires: ['cancellation'],
  source: { spec: cancellation('2025-06-18', 'timing-considerations', 'Timing Considerations: both parties MUST handle the race gracefully', 'MUST') },
  setup(_revision, time) {
    const late = answersAfterCancel(time.ms.operation);
    return { server: { personalities: [late] }, state: { late } };
  },
  async run({ connect, bounded, wire, observe, state, time }) {
    const answerAfterMs = answerAfterOf(time);
    const client = await connect();
    const controller = new AbortController();
    const call = await startCall(wire.fixtures, bounded, client.callTool('slow', { ms: answerAfterMs }, { signal: controller.signal }), 'slow', 'the slow call');
    const abortedAt = performance.now();
    observe('abortedAt', performance.now());
    controller.abort();
    await call.within(time.ms.react);
    observe('call', call.since(abortedAt));
    // The server answers the cancelled call anyway (its cancellation is held until then).
    const callId = idOf(toolCallExchanges(wire.record.exchanges, 'slow')[0], 'tools/call');
    await holdsWithin(wire.record, (record) => callId !== undefined && callId !== null && record.responseTo(callId) !== undefined, 'the late answer', answerAfterMs + time.ms.react);
    const next = await bounded(client.callTool('echo', { text: 'the next call' }), 'the next call after the late answer');
    observe('next', next.content);
  },
  judge(evidence) {
    const { revision } = evidence;
    const call = outcomeOf(evidence, 'call');
    const slow = toolCallExchanges(evidence.exchanges, 'slow')[0];
    const id = idOf(slow, 'tools/call');
    const answer = answerToCall(evidence.exchanges, 'slow');
    const abortedAt = evidence.observed.abortedAt as number | undefined;
    // The race is made when the server completed the cancelled call after the abort (the cancellation held back until
    // then): whether the answer could still reach the client is up to its transport (a stream it closed gets nothing).
    const run = evidence.toolRuns.find((r) => r.tool === 'slow');
    const completedAfterAbort = run?.finishedAt !== undefined && run.abortedAt === undefined && abortedAt !== undefined && run.finishedAt >= abortedAt;
    const cancel = slow === undefined ? undefined : cancelNotifications(evidence.exchanges).find((c) => c.requestId === id && sameSession(evidence.exchanges, c.exchange, slow));
    const race =
      answer === undefined
        ? 'the server never wrote an answer to the cancelled call'
        : cancel === undefined
          ? `the server answered on ${label(answer.exchange)}; no cancellation was sent`
          : `the server answered on ${label(answer.exchange)} ${Math.round(answer.at - cancel.exchange.startedAt)} ms after the cancellation arrived`;
    const echo = toolCallExchanges(evidence.exchanges, 'echo')[0];
    const echoAnswer = answerToCall(evidence.exchanges, 'echo');
    const echoAnswered = echoAnswer?.ok === true;
    // The cancelled call's session (wire.ts sessionKey: the Mcp-Session-Id, the HTTP+SSE stream, the stdio process). The
    // connection goes on: the next call works on that session, with no new handshake inside it; or on a new one after
    // the client ended that session itself (DELETE, its stream hung up, stdin closed), as a client per operation ends a
    // session when its operation is over. A session left open while the next call went out on another was given up.
    const session = slow === undefined ? undefined : sessionKey(evidence.exchanges, slow);
    const endedAt = session === undefined ? undefined : sessionEndedAt(evidence, session);
    const onSession = echo !== undefined && slow !== undefined && sameSession(evidence.exchanges, echo, slow);
    const endedBeforeNext = !onSession && echo !== undefined && endedAt !== undefined && endedAt <= echo.startedAt;
    const sessionGoesOn = onSession || endedBeforeNext;
    // A new handshake before the next call on the same session would mean the client gave up its connection over the late answer.
    const initializes = slow === undefined || !onSession ? [] : carrying(evidence.exchanges, 'initialize').filter((e) => e.seq > slow.seq);
    const timing = cancellation(revision, 'timing-considerations', 'Timing Considerations: both parties MUST handle these race conditions gracefully', 'MUST');
    // A client that ended the cancelled call's session itself before its handler could answer, and made its next call on
    // a new one, leaves no late answer to race: n/a for its shape. A client per operation closes the stdio server it
    // launched for the call (which exits mid-handler), or DELETEs the call's HTTP session (whose end aborts the handler;
    // the server holds a cancellation back until the answer, so only the session's end aborts it).
    const endedBeforeAnswer = slow !== undefined && endedAt !== undefined && endedAt < slow.startedAt + answerAfterOf(evidence.time);
    const sessionGoneFirst = endedBeforeNext && (run?.finishedAt === undefined || (run.abortedAt !== undefined && endedBeforeAnswer));
    return [
      callRunning(timing, evidence, slow),
      precondition(
        'completed-after-abort',
        timing,
        completedAfterAbort,
        sessionGoneFirst
          ? `the client ended the cancelled call’s session (${session}) ${endedAt !== undefined && slow !== undefined ? `${Math.round(endedAt - slow.startedAt)} ms after sending the call, ` : ''}before its handler could answer (${run?.abortedAt !== undefined ? 'the session’s end aborted it' : 'it never completed'}), and made its next call on a new one: no late answer to race`
          : run === undefined || run.finishedAt === undefined
          ? 'the cancelled call’s handler never completed: the race was not made'
          : run.abortedAt !== undefined
            ? 'the cancelled call’s handler was aborted, so the server had no answer to race the cancellation'
            : !completedAfterAbort
              ? 'the cancelled call’s handler completed before the client aborted it: no race'
              : `the cancelled call’s handler completed ${Math.round(run.finishedAt - abortedAt!)} ms after the client aborted it; ${answer ? `the server answered on ${label(answer.exchange)}` : 'its answer could not be written (the client had closed that stream)'}`,
        slow ? [slow] : [],
        sessionGoneFirst ? { by: 'shape' } : {},
      ),
      clientCompleted(evidence, cancellation(revision, 'timing-considerations', 'Timing Considerations: both parties MUST handle these race conditions gracefully', 'MUST')),
      checkInTime(
        evidence.time,
        'late-answer-ignored',
        cancellation(revision, 'behavior-requirements', 'Behavior Requirements: the sender of the cancellation SHOULD ignore any response to the request that arrives afterward', 'SHOULD'),
        rejectedInTime(call, evidence.time.ms.react),
        `${describeOutcome(call, 'the cancelled call')}; ${race}`,
        [slow, answer?.exchange, cancel?.exchange].filter((e) => e !== undefined),
      ),
      check(
        'next-call-works',
        cancellation(revision, 'timing-considerations', 'Timing Considerations: both parties MUST handle these race conditions gracefully (the connection goes on)', 'MUST'),
        echoAnswered && sessionGoesOn && initializes.length === 0,
        echo === undefined
          ? 'the next call never reached the server'
          : !echoAnswered
            ? `the next call ${label(echo)} was not answered with a result (${echoAnswer === undefined ? `status ${echo.status ?? 'none'}, no answer` : 'an error answer'})`
            : !sessionGoesOn
              ? `the next call ${label(echo)} went out on another session, and the client had not ended the cancelled call’s session`
              : initializes.length > 0
                ? `the client started over after the late answer (${labels(initializes)})`
                : onSession
                  ? `the next call ${label(echo)} was answered on the same session`
                  : `the next call ${label(echo)} was answered on a new session, the client having ended the cancelled call’s session itself`,
        echo ? [echo, ...initializes] : [],
      ),
    ];
  },
  doctored: [
    {
      check: 'completed-after-abort',
      unmet: true,
      how: 'the cancelled call’s handler was aborted (no answer to race the cancellation)',
      doctor: (e: Evidence) => ({ ...e, toolRuns: e.toolRuns.map((run) => (run.tool === 'slow' ? { ...run, abortedAt: run.finishedAt } : run)) }),
    },
    {
      check: 'call-running',
      unmet: true,
      how: 'the script never got to abort the call (it did not reach its handler)',
      doctor: (e: Evidence) => ({ ...e, observed: { ...e.observed, call: undefined }, toolRuns: [] }),
    },
    {
      check: 'next-call-works',
      how: 'the next call answered 404',
      doctor: (e: Evidence) => ({
        ...e,
        // Every answer to the echo call removed, and its POST refused.
        exchanges: (() => {
          const echo = e.exchanges.find((x) => x.requestMessages.some((m) => m.method === 'tools/call' && m.params?.['name'] === 'echo'));
          const id = echo?.requestMessages.find((m) => m.method === 'tools/call')?.id;
          return e.exchanges.map((x) => ({ ...x, ...(x === echo ? { status: 404 } : {}), responseMessages: x.responseMessages.filter(({ message }) => message.id !== id) }));
        })(),
      }),
    },
  ],
});
