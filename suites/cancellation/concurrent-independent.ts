import type { TimePolicy } from '../../config/time.ts';
import { isModern, L_AND_M } from '../../protocol/revisions.ts';
import type { WireExchange } from '../../servers/wire-record.ts';
import { check, clientCompleted, precondition } from '../checks.ts';
import { describeOutcome, holdsWithin, inFlightMs, outcomeOf, runWithin, startCall, Watched, type Outcome } from '../outcome.ts';
import { checkInTime, rejectedInTime } from '../deadlines.ts';
import { defineScenario, type Evidence } from '../scenario.ts';
import { cancellation, requestIds } from '../spec.ts';
import { cancelNotifications, idOf, idsReusedInSession, label, labels, requests, sameSession, withRefusedAttemptSharingId, withThrowawaySession } from '../wire.ts';

/** Three slow calls in flight for the whole case, told apart by their `ms` argument (a millisecond apart); the middle one is cancelled. */
const CALLS = { first: 1, cancelled: 2, third: 3 } as const;
type Name = keyof typeof CALLS;
const NAMES = Object.keys(CALLS) as Name[];
const msOf = (time: TimePolicy, name: Name): number => inFlightMs(time) + CALLS[name];

function exchangeOf(exchanges: readonly WireExchange[], name: Name, time: TimePolicy): WireExchange | undefined {
  return exchanges.find((e) => e.requestMessages.some((m) => m.method === 'tools/call' && (m.params?.['arguments'] as { ms?: unknown } | undefined)?.ms === msOf(time, name)));
}

/**
 * What touched a call on the wire or on the server: a notification naming it in its session, its stream closed by the
 * client, its handler aborted. A handler is known by its tool and request id only (servers/fixture-state.ts), and
 * calls in separate sessions (a client per operation) may share an id: an aborted handler with this call's id is its
 * own only when more of them were aborted than the other calls with that id account for (the cancelled call's).
 */
function touched(evidence: Pick<Evidence, 'exchanges' | 'toolRuns' | 'time'>, name: Name): string[] {
  const exchange = exchangeOf(evidence.exchanges, name, evidence.time);
  if (exchange === undefined) return [];
  const id = idOf(exchange, 'tools/call');
  const marks: string[] = [];
  const naming = cancelNotifications(evidence.exchanges).filter((c) => c.requestId === id && sameSession(evidence.exchanges, c.exchange, exchange));
  if (naming.length > 0) marks.push(`named by notifications/cancelled (${labels(naming.map((c) => c.exchange))})`);
  if (exchange.endedBy === 'client') marks.push(`its stream ${label(exchange)} closed by the client`);
  const aborted = evidence.toolRuns.filter((run) => run.tool === 'slow' && run.requestId === id && run.abortedAt !== undefined).length;
  const cancelledSharesId = name !== 'cancelled' && idOf(exchangeOf(evidence.exchanges, 'cancelled', evidence.time), 'tools/call') === id;
  if (aborted > (cancelledSharesId ? 1 : 0)) marks.push('its handler aborted');
  return marks;
}

export const concurrentIndependent = defineScenario({
  id: 'cancellation/concurrent-independent',
  title: 'Of several concurrent calls only the cancelled one ends; request ids are unique within the session',
  revisions: L_AND_M,
  requires: ['cancellation'],
  source: { spec: cancellation('2025-06-18', 'cancellation-flow', 'Cancellation Flow: a cancellation names the one request to cancel', 'SHOULD') },
  async run({ connect, bounded, wire, observe, time }) {
    const client = await connect();
    const controller = new AbortController();
    const first = new Watched(client.callTool('slow', { ms: msOf(time, 'first') }));
    const cancelled = new Watched(client.callTool('slow', { ms: msOf(time, 'cancelled') }, { signal: controller.signal }));
    const third = await startCall(wire.fixtures, bounded, client.callTool('slow', { ms: msOf(time, 'third') }), 'slow', 'three slow calls', 3);
    const calls: Record<Name, Watched> = { first, cancelled, third };
    const abortedAt = performance.now();
    controller.abort();
    await cancelled.within(time.ms.react);
    observe('cancelled', cancelled.since(abortedAt));
    // The cancelled call's cancellation reaching the server (event-driven)…
    const cancelledId = idOf(exchangeOf(wire.record.exchanges, 'cancelled', time), 'tools/call');
    await runWithin(wire.fixtures, (run) => run.requestId === cancelledId && run.abortedAt !== undefined, 'the cancelled call’s handler to abort', time.ms.react);
    // …then a quiet window in which the other two must run on: it ends early if either is touched.
    await holdsWithin(
      wire.record,
      (record) => (['first', 'third'] as const).some((name) => touched({ exchanges: record.exchanges, toolRuns: wire.fixtures.runs, time }, name).length > 0),
      'another call to be cancelled',
      time.ms.quiet,
    );
    for (const name of ['first', 'third'] as const) observe(name, calls[name].since(abortedAt));
    // The other two are left in flight: the evidence is taken now, and the runner closes the connection afterwards.
  },
  judge(evidence) {
    const { revision } = evidence;
    const cancelled = outcomeOf(evidence, 'cancelled');
    const exchanges = NAMES.map((name) => exchangeOf(evidence.exchanges, name, evidence.time)).filter((e) => e !== undefined);
    const cancelledMarks = touched(evidence, 'cancelled').filter((mark) => isModern(revision) || !mark.startsWith('its stream'));
    const others = (['first', 'third'] as const).map((name) => ({ name, outcome: outcomeOf(evidence, name), marks: touched(evidence, name) }));
    const disturbed = others.filter(({ outcome, marks }) => outcome?.state !== 'pending' || marks.length > 0);
    // Request ids: legacy, unique within the session (a session the client set aside, or a Streamable HTTP attempt
    // refused before the HTTP+SSE fallback, is another scope; so is each session of a client per operation);
    // 2026-07-28, among requests in flight together on one channel: a stdio process. Over HTTP each 2026-07-28 request
    // is a scope of its own (wire.ts sessionKey): nothing there tells one client instance's requests from another's.
    const judgedIds = !isModern(revision) || evidence.stdio !== undefined;
    const overlap = (a: WireExchange, b: WireExchange) => a.startedAt <= (b.endedAt ?? Infinity) && b.startedAt <= (a.endedAt ?? Infinity);
    const sent = requests(evidence.exchanges);
    const clashes = idsReusedInSession(evidence.exchanges, sent, (earlier, later) => !isModern(revision) || overlap(earlier.exchange, later.exchange));
    const quiet = evidence.time.ms.quiet;
    return [
      precondition(
        'calls-running',
        cancellation(revision, 'cancellation-flow', 'Cancellation Flow: a cancellation names the one request to cancel', 'SHOULD'),
        cancelled !== undefined && outcomeOf(evidence, 'first') !== undefined,
        cancelled === undefined
          ? 'the script did not get to cancel: the three slow calls never all reached their handlers on the server'
          : outcomeOf(evidence, 'first') === undefined
            ? 'the script did not get to watch the other two calls after the cancellation'
            : 'the three slow calls were running on the server when the client cancelled the second',
      ),
      clientCompleted(evidence, cancellation(revision, 'cancellation-flow', 'Cancellation Flow: the client cancels one of several calls', 'MUST')),
      checkInTime(
        evidence.time,
        'cancelled-call-ended',
        cancellation(revision, 'cancellation-flow', 'Cancellation Flow: the call the caller aborted is cancelled', 'SHOULD'),
        cancelledMarks.length > 0 || rejectedInTime(cancelled, evidence.time.ms.react),
        // Ended for the caller, or on the wire: how well each is done is cancellation/legacy-notification's and modern-closes-stream's.
        `${describeOutcome(cancelled, 'the cancelled call')}; on the wire: ${cancelledMarks.join('; ') || 'nothing cancelled it'}`,
        exchanges.filter((e) => e === exchangeOf(evidence.exchanges, 'cancelled', evidence.time)),
      ),
      check(
        'others-run-on',
        cancellation(revision, 'cancellation-flow', 'Cancellation Flow: a cancellation carries the ID of the one request to cancel; the others go on', 'SHOULD'),
        disturbed.length === 0,
        disturbed.length === 0
          ? `the two other calls were still running ${quiet} ms after the cancellation reached the server, untouched`
          : disturbed
              .map(({ name, outcome, marks }) => `the ${name} call: ${[outcome?.state !== 'pending' ? describeOutcome(outcome, 'it') : '', ...marks].filter(Boolean).join('; ')}`)
              .join(' — '),
        disturbed.map(({ name }) => exchangeOf(evidence.exchanges, name, evidence.time)).filter((e) => e !== undefined),
      ),
      ...(judgedIds
        ? [
            check(
              'ids-unique',
              requestIds(revision, 'MUST'),
              clashes.length === 0,
              clashes.length === 0
                ? `${sent.length} requests, no id reused within a session`
                : `request ids reused within a session: ${clashes.map((c) => `${JSON.stringify(c.message.id)} on ${label(c.exchange)}`).join(', ')}`,
              clashes.map((c) => c.exchange),
            ),
          ]
        : []),
    ];
  },
  doctored: [
    {
      check: 'calls-running',
      unmet: true,
      how: 'the script never got to cancel (the three calls did not all reach their handlers)',
      doctor: (e: Evidence) => ({ ...e, observed: { ...e.observed, cancelled: undefined, first: undefined, third: undefined } }),
    },
    {
      check: 'ids-unique',
      how: 'the three concurrent calls carry the same id',
      doctor: (e: Evidence) => ({
        ...e,
        exchanges: e.exchanges.map((x) => ({ ...x, requestMessages: x.requestMessages.map((m) => (m.method === 'tools/call' ? { ...m, id: 424242 } : m)) })),
      }),
    },
    {
      check: 'ids-unique',
      how: 'ids restarting per session (a throwaway session first, or the refused attempt before the HTTP+SSE fallback sharing the initialize id), and the cancelled call carrying the id of the first',
      doctor: (e: Evidence) => {
        const opened = withThrowawaySession(e);
        const exchanges = withRefusedAttemptSharingId(opened.exchanges);
        const first = exchangeOf(exchanges, 'first', e.time);
        const cancelled = exchangeOf(exchanges, 'cancelled', e.time);
        if (!first || !cancelled) return { ...opened, exchanges };
        const id = idOf(first, 'tools/call');
        const reuse = (x: WireExchange) => ({ ...x, requestMessages: x.requestMessages.map((m) => (m.method === 'tools/call' ? { ...m, id } : m)) });
        return { ...opened, exchanges: exchanges.map((x) => (x === cancelled ? reuse(x) : x)) };
      },
    },
    {
      check: 'cancelled-call-ended',
      how: 'the cancelled call still pending and nothing cancelled it on the wire',
      doctor: (e: Evidence) => ({
        ...e,
        observed: { ...e.observed, cancelled: { state: 'pending', afterMs: e.time.ms.react } satisfies Outcome },
        exchanges: e.exchanges
          .filter((x) => !x.requestMessages.some((m) => m.method === 'notifications/cancelled'))
          .map((x) => (x.endedBy === 'client' ? { ...x, endedBy: undefined } : x)),
        toolRuns: e.toolRuns.map(({ abortedAt: _, ...run }) => run),
      }),
    },
  ],
});
