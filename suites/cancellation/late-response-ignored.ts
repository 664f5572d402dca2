import { check, clientCompleted } from '../checks.ts';
import { defineScenario, type Evidence } from '../scenario.ts';
import {
  answersAfterCancel,
  answerTo,
  cancellation,
  cancelNotifications,
  carrying,
  describeSettlement,
  holdsWithin,
  idOf,
  L,
  label,
  labels,
  PROMPTLY_MS,
  settlementOf,
  startCall,
  toolCallExchanges,
  WIRE_EFFECT_MS,
  type AnswersAfterCancel,
} from './support.ts';

/** The cancelled call's tool runs this long, then answers: the answer the client must ignore. */
const ANSWER_AFTER_MS = 100;

export const lateResponseIgnored = defineScenario<{ late: AnswersAfterCancel }>({
  id: 'cancellation/late-response-ignored',
  title: 'The server answers after the cancel: the client neither surfaces the answer nor breaks; the next call works',
  revisions: L,
  requires: ['cancellation'],
  source: { spec: cancellation('2025-06-18', 'timing-considerations', 'Timing Considerations: both parties MUST handle the race gracefully', 'MUST') },
  setup() {
    const late = answersAfterCancel();
    return { server: { personalities: [late] }, state: { late } };
  },
  async run({ connect, bounded, server, observe }) {
    const client = await connect();
    const controller = new AbortController();
    const call = await startCall(server.fixtures, bounded, client.callTool('slow', { ms: ANSWER_AFTER_MS }, { signal: controller.signal }), 'slow', 'the slow call');
    const abortedAt = performance.now();
    controller.abort();
    await call.within(PROMPTLY_MS);
    observe('call', call.since(abortedAt));
    // The server answers the cancelled call anyway (its cancellation is held until then).
    const callId = idOf(toolCallExchanges(server.record.exchanges, 'slow')[0], 'tools/call');
    await holdsWithin(server.record, (record) => callId !== undefined && callId !== null && record.responseTo(callId) !== undefined, 'the late answer', ANSWER_AFTER_MS + WIRE_EFFECT_MS);
    const next = await bounded(client.callTool('echo', { text: 'the next call' }), 'the next call after the late answer');
    observe('next', next.content);
  },
  judge(evidence) {
    const { revision } = evidence;
    const call = settlementOf(evidence, 'call');
    const slow = toolCallExchanges(evidence.exchanges, 'slow')[0];
    const id = idOf(slow, 'tools/call');
    const answer = answerTo(evidence.exchanges, id);
    const cancel = cancelNotifications(evidence.exchanges).find((c) => c.requestId === id);
    const race =
      answer === undefined
        ? 'the server never wrote an answer to the cancelled call'
        : cancel === undefined
          ? `the server answered on ${label(answer.exchange)}; no cancellation was sent`
          : `the server answered on ${label(answer.exchange)} ${Math.round(answer.at - cancel.exchange.startedAt)} ms after the cancellation arrived`;
    const echo = toolCallExchanges(evidence.exchanges, 'echo')[0];
    // A new handshake after the cancelled call would mean the client gave up its connection over the late answer.
    const initializes = slow === undefined ? [] : carrying(evidence.exchanges, 'initialize').filter((e) => e.seq > slow.seq);
    const echoAnswer = answerTo(evidence.exchanges, idOf(echo, 'tools/call'));
    const echoAnswered = echoAnswer?.ok === true;
    // The same session: the same Mcp-Session-Id (Streamable HTTP), the same endpoint (HTTP+SSE).
    const sameSession = echo !== undefined && slow !== undefined && echo.requestHeaders['mcp-session-id'] === slow.requestHeaders['mcp-session-id'] && echo.path === slow.path;
    return [
      clientCompleted(evidence, cancellation(revision, 'timing-considerations', 'Timing Considerations: both parties MUST handle these race conditions gracefully', 'MUST')),
      check(
        'late-answer-ignored',
        cancellation(revision, 'behavior-requirements', 'Behavior Requirements: the sender of the cancellation SHOULD ignore any response to the request that arrives afterward', 'SHOULD'),
        call?.outcome === 'rejected' && (call.afterMs ?? Infinity) <= PROMPTLY_MS,
        `${describeSettlement(call, 'the cancelled call')}; ${race}`,
        [slow, answer?.exchange, cancel?.exchange].filter((e) => e !== undefined),
      ),
      check(
        'next-call-works',
        cancellation(revision, 'timing-considerations', 'Timing Considerations: both parties MUST handle these race conditions gracefully (the connection goes on)', 'MUST'),
        echoAnswered && sameSession && initializes.length === 0,
        echo === undefined
          ? 'the next call never reached the server'
          : !echoAnswered
            ? `the next call ${label(echo)} was not answered with a result (${echoAnswer === undefined ? `status ${echo.status ?? 'none'}, no answer` : 'an error answer'})`
            : !sameSession
              ? `the next call ${label(echo)} went out on another session`
              : initializes.length > 0
                ? `the client started over after the late answer (${labels(initializes)})`
                : `the next call ${label(echo)} was answered on the same session`,
        echo ? [echo, ...initializes] : [],
      ),
    ];
  },
  doctored: [
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
