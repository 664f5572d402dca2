import { CLOCK_SLACK_MS, type TimePolicy } from '../../config/time.ts';
import { L } from '../../protocol/revisions.ts';
import { slowResponses } from '../../servers/personalities/slow-responses.ts';
import { check, clientCompleted, precondition, unexercised } from '../checks.ts';
import { connectingOf, connectObserved } from '../connecting.ts';
import { answerAt } from '../negotiation/support.ts';
import { describeOutcome, holdsWithin, type Outcome } from '../outcome.ts';
import { checkInTime, timeRanOut } from '../deadlines.ts';
import { defineScenario, type Evidence } from '../scenario.ts';
import type { WireExchange } from '../../servers/wire-record.ts';
import { cancellation, stdioShutdown, timeouts } from '../spec.ts';
import { cancelNotifications, carrying, idOf, label, labels, noted } from '../wire.ts';

/** The connect's timeout, and how long the server holds initialize. */
export function bounds(time: TimePolicy) {
  // The connect's own timeout, run out while the server holds initialize: what this client needs to start and connect
  // (calibrated per client), so even a proxy process (mcp-remote) has sent initialize before it gives up.
  const connectTimeoutMs = time.ms.startup;
  // Long past the timeout: initialize is never answered within the scenario (the server's close ends the hold).
  const holdMs = connectTimeoutMs + time.ms.operation;
  return { connectTimeoutMs, holdMs };
}

/**
 * Over stdio, a connect the runner's bound gave up on may have given up all the same: the client closed the server's
 * stdin (nothing can be sent after that, a cancellation neither), and then waited on a server that ignores EOF during
 * its slow start. What its close did then: the signals it sent the server after closing its stdin.
 */
function closeOfGivenUpConnect(evidence: Evidence, held: WireExchange | undefined) {
  // The process the held initialize went to (a client may have launched another before it, for a probe, say).
  const index = (held as (WireExchange & { process?: number }) | undefined)?.process;
  const server = evidence.stdio?.processes.find((p) => p.index === index && p.stdinEofAt !== undefined);
  if (server === undefined || held === undefined) return undefined;
  const eofAt = server.stdinEofAt!;
  const since = `${Math.round(eofAt - held.startedAt)} ms after it wrote the initialize`;
  const signals = server.signals.filter((s) => s.at >= eofAt);
  const then = signals.length > 0 ? `signalled it ${signals.map((s) => `${s.signal} ${Math.round(s.at - eofAt)} ms later`).join(', ')}` : 'sent it no signal';
  // No SIGTERM at all while the runner waited: it was due a grace after stdin closed, so the client was late by the
  // rest of the wait (deadlines.ts: more than the load explains fails at once, no rerun).
  const startedAt = evidence.observed.connectStartedAt as number | undefined;
  const connect = connectingOf(evidence).outcome;
  const grace = evidence.stdio?.shutdownGraceMs;
  const lateByMs =
    !signals.some((s) => s.signal === 'SIGTERM') && startedAt !== undefined && connect !== undefined && grace !== undefined ? startedAt + connect.afterMs - eofAt - grace : undefined;
  return {
    closedStdin: `it closed the server's stdin ${since}`,
    hung: `its close hung: the server, ignoring EOF during its slow start, was still running (the client ${then}${lateByMs !== undefined && lateByMs > 0 ? `, though SIGTERM was due ${grace} ms after stdin closed` : ''})`,
    ...(lateByMs !== undefined && lateByMs > 0 ? { lateByMs } : {}),
  };
}

/**
 * A client that probed (server/discover) early in its connect, got no answer while the server was still starting, and
 * gave up its connect at its own timeout without ever falling back to initialize: its probe waited longer than its whole
 * connect, its own choice (stdio/probe-fallback-silence judges when a fallback comes). Read from the wire: the probe,
 * sent with at least a reaction time of the connect left and unanswered until the connect settled; no initialize at
 * all; the connect rejected by the client itself, at its timeout. Undefined when that is not what happened.
 */
function probeOutlastedConnect(evidence: Evidence, connect: Outcome | undefined, connectTimeoutMs: number): string | undefined {
  const probe = carrying(evidence.exchanges, 'server/discover')[0];
  const startedAt = evidence.observed.connectStartedAt as number | undefined;
  if (probe === undefined || startedAt === undefined || connect === undefined || connect.hung === true || connect.state !== 'rejected') return undefined;
  if (carrying(evidence.exchanges, 'initialize').length > 0) return undefined;
  const probedAfter = probe.startedAt - startedAt;
  const settledAt = startedAt + connect.afterMs;
  const answered = answerAt(probe);
  const gaveUpAtItsTimeout = connect.afterMs >= connectTimeoutMs - CLOCK_SLACK_MS;
  if (!gaveUpAtItsTimeout || probedAfter > connectTimeoutMs - evidence.time.ms.react || (answered !== undefined && answered <= settledAt)) return undefined;
  return `the client probed with ${label(probe)} ${Math.round(probedAfter)} ms into its connect, had no answer while the server was still starting, and gave up the connect at the ${connectTimeoutMs} ms connect timeout it was given (${describeOutcome(connect, 'it')}) without ever sending initialize: its probe waited longer than its whole connect, its own choice, so it kept itself from the behaviour under test`;
}

export const neverInitialize = defineScenario({
  id: 'cancellation/never-initialize',
  title: 'A connect that times out during a held initialize sends no notifications/cancelled for it',
  revisions: L,
  requires: [],
  source: { spec: cancellation('2025-06-18', 'behavior-requirements', 'Behavior Requirements: the initialize request MUST NOT be cancelled by clients', 'MUST') },
  setup(_revision, time) {
    return { server: { personalities: [slowResponses({ method: 'initialize', ms: bounds(time).holdMs, count: 1 })] }, state: undefined };
  },
  async run(context) {
    const { wire, time, observe } = context;
    // On the record's clock: when the connect began, for the judge to tell how early a probe went out.
    observe('connectStartedAt', wire.record.now());
    // A lazy connect sends nothing: then its first operation does the handshake the server holds, under the connect's timeout.
    await connectObserved(context, { timeoutMs: bounds(time).connectTimeoutMs });
    // A cancellation is sent when the client gives up, or not at all: wait as long as a client takes to react (a loaded
    // machine delays a wrong one past a 200 ms quiet window), ending early if one comes.
    const initializeId = idOf(carrying(wire.record.exchanges, 'initialize')[0], 'initialize');
    await holdsWithin(wire.record, (record) => cancelNotifications(record.exchanges).some((c) => c.requestId === initializeId), 'notifications/cancelled for initialize', time.ms.react);
  },
  judge(evidence) {
    const { revision } = evidence;
    const { connectTimeoutMs } = bounds(evidence.time);
    const initializes = carrying(evidence.exchanges, 'initialize');
    // Over HTTP the personality notes the exchange it held; a stdio server in its slow start answers nothing.
    const held = evidence.stdio !== undefined ? initializes.find((exchange) => exchange.responseMessages.length === 0) : carrying(noted(evidence.exchanges, 'slowed'), 'initialize')[0];
    const ids = new Set(initializes.map((exchange) => idOf(exchange, 'initialize')));
    const cancels = cancelNotifications(evidence.exchanges).filter((c) => ids.has(c.requestId as string | number));
    const rule = cancellation(revision, 'behavior-requirements', 'Behavior Requirements: the initialize request MUST NOT be cancelled by clients', 'MUST');
    // Connecting is judged at a lazy client's first operation, which did the handshake.
    const { outcome: connect, lazy } = connectingOf(evidence);
    const connecting = lazy ? 'the first operation of a lazy connect (its connect sent nothing)' : 'the connect';
    const closing = connect?.hung === true ? closeOfGivenUpConnect(evidence, held) : undefined;
    // The timeout is the contract's (ConnectOptions.timeoutMs): a client with no connect timeout of its own never took it.
    const bound = `the contract's ${connectTimeoutMs} ms connect timeout (ConnectOptions.timeoutMs)`;
    const probeFirst = held === undefined ? probeOutlastedConnect(evidence, connect, connectTimeoutMs) : undefined;
    const gaveUp = timeouts(revision, 'a request unanswered within its timeout: the sender stops waiting for it (so a connection never hangs)', 'SHOULD');
    return [
      precondition(
        'initialize-held',
        rule,
        held !== undefined,
        held === undefined
          ? (probeFirst ?? `no initialize reached the server before ${bound} ran out: it never got as far as the behaviour under test`)
          : `the server held ${label(held)} while the connect timed out`,
        held ? [held] : carrying(evidence.exchanges, 'server/discover').slice(0, 1),
        probeFirst !== undefined ? { by: 'client' } : {},
      ),
      clientCompleted(evidence, cancellation(revision, 'behavior-requirements', 'Behavior Requirements: a connect that gives up', 'MUST')),
      // A connect the runner's bound gave up on never gave up itself: the client never came to the moment it would have
      // cancelled (sdk-v2-auto beside a CPU hog), so no cancellation is no pass. More time may bring it there.
      cancels.length === 0 && connect?.hung === true && closing === undefined
        ? unexercised(
            'initialize-not-cancelled',
            rule,
            timeRanOut(evidence.time, `the client never gave up ${connecting} (${describeOutcome(connect, 'it')}), so it never came to the moment a cancellation would be sent`),
            initializes,
          )
        : check(
            'initialize-not-cancelled',
            rule,
            cancels.length === 0,
            cancels.length === 0
              ? closing !== undefined
                ? `the connect gave up (${closing.closedStdin}) and no notifications/cancelled named the initialize request before; ${closing.hung}`
                : `${connecting} gave up (${describeOutcome(connect, 'it')}) and no notifications/cancelled named the initialize request`
              : `notifications/cancelled named the initialize request: ${labels(cancels.map((c) => c.exchange))}`,
            [...initializes, ...cancels.map((c) => c.exchange)],
          ),
      // A connect that never settles hangs its caller, whatever it did on the wire: late on a provisional run (a slow
      // shutdown within the client's graces settles in larger bounds), a fail on the last. One that gave up and hung in
      // the close of the server it launched broke the stdio shutdown sequence: it is reported as that close, citing it.
      checkInTime(
        evidence.time,
        'connect-gives-up',
        closing !== undefined ? stdioShutdown(revision, 'a connect given up ends the server it launched (close stdin, wait, SIGTERM, wait, SIGKILL) and settles: a server ignoring EOF never holds it', 'SHOULD') : gaveUp,
        connect?.state === 'rejected' ? true : connect?.state === 'resolved' ? false : 'late',
        connect?.hung !== true
          ? describeOutcome(connect, `${connecting}, under ${bound},`)
          : closing !== undefined
            ? `${closing.hung}: the client gave up its connect (${closing.closedStdin}) but never settled it; ${describeOutcome(connect, 'the connect')}`
            : `the client never gave up its connect: ${describeOutcome(connect, 'it')}`,
        initializes,
        closing?.lateByMs,
      ),
    ];
  },
  doctored: [
    {
      check: 'initialize-held',
      unmet: true,
      how: 'the client gave up before its initialize reached the server (a slow start)',
      doctor: (e: Evidence) => ({ ...e, exchanges: e.exchanges.filter((x) => !x.requestMessages.some((m) => m.method === 'initialize')) }),
    },
    {
      check: 'connect-gives-up',
      how: 'the connect never settled: the runner gave up on it at its bound',
      doctor: (e: Evidence) => ({ ...e, observed: { ...e.observed, connect: { state: 'pending', afterMs: 2 * e.time.ms.operation, detail: 'connect did not settle', hung: true } } }),
    },
  ],
});
