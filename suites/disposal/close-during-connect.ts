import type { TimePolicy } from '../../config/time.ts';
import { isModern, L_AND_M, type Revision } from '../../protocol/revisions.ts';
import { slowResponses, type SlowResponses } from '../../servers/personalities/slow-responses.ts';
import type { WireExchange } from '../../servers/wire-record.ts';
import { check, clientCompleted, precondition } from '../checks.ts';
import { CONNECT, connectingOf, connectObserved, FIRST_OPERATION } from '../connecting.ts';
import { describeOutcome, holdsWithin, type Outcome } from '../outcome.ts';
import { checkInTime, rejectedInTime } from '../deadlines.ts';
import { defineScenario, type Check, type Evidence } from '../scenario.ts';
import { cancellation, shutdown, timeouts } from '../spec.ts';
import { after, cancelNotifications, carrying, idOf, label, labels, noted, seqNow } from '../wire.ts';

/**
 * There is no client handle before connect() resolves, so the client gives up by itself: its connect timeout
 * (ConnectOptions.timeoutMs) runs out while the server holds the first request. The runner disposes the
 * client instance only after the evidence is taken, so what the client does on its own is what is judged. A lazy
 * client's connect resolves having sent nothing: its first operation does the handshake, and gives up the same way.
 */
function bounds(time: TimePolicy) {
  // What this client needs to start and connect (calibrated per client): it has sent its first request before it gives up.
  const connectTimeoutMs = time.ms.startup;
  // Well past the timeout, so a client that does not abort gets its answer late, while one that does has time to close
  // the exchange even when starved of CPU (with 600 ms, a busy machine saw a v2 client's abort arrive after the answer).
  const holdMs = connectTimeoutMs + 3 * time.ms.react;
  return { connectTimeoutMs, holdMs };
}

/** The request a connect starts with: initialize in the legacy revisions, the server/discover probe in 2026-07-28. */
export const firstRequest = (revision: Revision): string => (isModern(revision) ? 'server/discover' : 'initialize');

/** The exchange carrying the first request, held by the server. */
const held = (evidence: Evidence): WireExchange | undefined => carrying(noted(evidence.exchanges, 'slowed'), firstRequest(evidence.revision))[0];

export const closeDuringConnect = defineScenario<{ slow: SlowResponses }>({
  id: 'disposal/close-during-connect',
  title: 'Giving up a connect while initialize (or the probe) is in flight settles it, closes that exchange, and sends nothing later',
  revisions: L_AND_M,
  requires: [],
  source: { spec: shutdown('2025-06-18', 'over HTTP, giving up is closing the connection: nothing is sent afterwards', 'SHOULD') },
  setup(revision, time) {
    const slow = slowResponses({ method: firstRequest(revision), ms: bounds(time).holdMs, count: 1 });
    return { server: { personalities: [slow] }, state: { slow } };
  },
  async run(context) {
    const { wire, observe, time } = context;
    const { connectTimeoutMs, holdMs } = bounds(time);
    const started = performance.now();
    // Measured from the moment the connect (a lazy client's: its first operation) should have given up.
    await connectObserved(context, { timeoutMs: connectTimeoutMs }, connectTimeoutMs);
    // Late traffic can only come once the hold is over: watch until then and a quiet window, ending early on anything late.
    const gaveUpAtSeq = seqNow(wire.record);
    observe('gaveUpAtSeq', gaveUpAtSeq);
    const remaining = Math.max(0, holdMs + time.ms.quiet - (performance.now() - started));
    await holdsWithin(wire.record, (record) => after(record.exchanges, gaveUpAtSeq).length > 0, 'anything sent after the connect gave up', remaining);
  },
  judge(evidence) {
    const { revision } = evidence;
    const { connectTimeoutMs, holdMs } = bounds(evidence.time);
    // Connecting is judged at a lazy client's first operation, which did the handshake.
    const { outcome: connect, lazy } = connectingOf(evidence);
    // The timeout is the contract's (ConnectOptions.timeoutMs): a client with no connect timeout of its own never took it.
    const bound = `the contract's ${connectTimeoutMs} ms connect timeout (ConnectOptions.timeoutMs)`;
    const connecting = lazy ? `the first operation of a lazy connect (its connect sent nothing), under ${bound},` : `connect, under ${bound},`;
    const exchange = held(evidence);
    const late = after(evidence.exchanges, evidence.observed.gaveUpAtSeq as number | undefined);
    const what = firstRequest(revision);
    const checks: Check[] = [
      precondition(
        'first-request-held',
        shutdown(revision, 'a connect given up closes the connection of its first request', 'SHOULD'),
        exchange !== undefined && connect !== undefined,
        exchange === undefined
          ? `no ${what} reached the server before ${bound} ran out: it never got as far as the behaviour under test`
          : connect === undefined
            ? 'the script did not see the connect settle'
            : `the server held ${label(exchange)} while the connect timed out`,
        exchange ? [exchange] : [],
      ),
      clientCompleted(evidence, shutdown(revision, 'the client gives up a connect', 'MUST')),
      checkInTime(
        evidence.time,
        'connect-settled',
        timeouts(revision, 'a request that times out stops being waited for (the connect gives up at its timeout)', 'SHOULD'),
        rejectedInTime(connect, evidence.time.ms.react),
        `${describeOutcome(connect, connecting)}${connect?.state === 'pending' ? '' : ' past that timeout'}; the server held ${what} for ${holdMs} ms`,
        exchange ? [exchange] : [],
      ),
      checkInTime(
        evidence.time,
        'held-exchange-closed',
        shutdown(revision, `a connect given up closes the connection of its ${what}`, 'SHOULD'),
        // Left open until the hold ended: never closed, or closed too late for a starved client to beat the answer.
        exchange === undefined ? false : exchange.endedBy === 'client' || 'late',
        exchange === undefined
          ? `no ${what} reached the server`
          : exchange.endedBy === 'client'
            ? `the client closed ${label(exchange)} when it gave up`
            : exchange.endedBy === undefined
              ? `${label(exchange)} was still open`
              : `${label(exchange)} was left open until the server answered it after its ${holdMs} ms hold`,
        exchange ? [exchange] : [],
      ),
      check(
        'no-late-requests',
        shutdown(revision, 'a connect given up sends nothing afterwards', 'SHOULD'),
        late.length === 0,
        late.length === 0 ? `nothing arrived from when the connect gave up until ${evidence.time.ms.quiet} ms after the hold ended` : `sent after the connect gave up: ${labels(late)}`,
        late,
      ),
    ];
    if (!isModern(revision)) {
      const id = idOf(exchange, 'initialize');
      const cancels = cancelNotifications(evidence.exchanges).filter((n) => n.requestId === id);
      checks.push(
        check(
          'initialize-not-cancelled',
          cancellation(revision, 'behavior-requirements', 'Behavior Requirements: the initialize request MUST NOT be cancelled by clients', 'MUST'),
          cancels.length === 0,
          cancels.length === 0 ? 'no notifications/cancelled named the initialize request' : `notifications/cancelled named the initialize request ${JSON.stringify(id)} (${labels(cancels.map((c) => c.exchange))})`,
          cancels.map((c) => c.exchange),
        ),
      );
    }
    return checks;
  },
  doctored: [
    {
      check: 'connect-settled',
      how: 'the connect resolved after the hold',
      doctor: (e: Evidence) => ({ ...e, observed: { ...e.observed, [CONNECT]: { state: 'resolved', afterMs: bounds(e.time).holdMs } satisfies Outcome } }),
    },
    {
      check: 'connect-settled',
      how: "a lazy client's first operation (its connect sent nothing) resolved after the hold",
      doctor: (e: Evidence) => ({ ...e, observed: { ...e.observed, [FIRST_OPERATION]: { state: 'resolved', afterMs: bounds(e.time).holdMs } satisfies Outcome } }),
    },
    {
      check: 'first-request-held',
      unmet: true,
      how: 'the client gave up before its first request reached the server (a slow start)',
      doctor: (e: Evidence) => ({ ...e, exchanges: e.exchanges.filter((x) => !x.requestMessages.some((m) => m.method === firstRequest(e.revision))) }),
    },
  ],
});
