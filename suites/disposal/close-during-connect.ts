import { slowResponses, type SlowResponses } from '../../servers/personalities/slow-responses.ts';
import type { Revision } from '../../protocol/revisions.ts';
import type { WireExchange } from '../../servers/wire-record.ts';
import { check, clientCompleted } from '../checks.ts';
import type { Check } from '../scenario.ts';
import { defineScenario, type Evidence } from '../scenario.ts';
import {
  after,
  cancelNotifications,
  cancellation,
  carrying,
  describeSettlement,
  holdsWithin,
  idOf,
  isModern,
  L_AND_M,
  label,
  labels,
  PROMPTLY_MS,
  seqNow,
  settlementOf,
  shutdown,
  timeouts,
  type Settlement,
} from './support.ts';

/**
 * There is no client handle before connect() resolves, so the client gives up by itself: its connect timeout
 * (ConnectOptions.timeoutMs) runs out while the server holds the first request. The runner disposes the
 * client instance only after the evidence is taken, so what the client does on its own is what is judged.
 */
// Long enough that a client slow to start (a proxy process) or CPU-starved has sent its first request before it gives up.
export const CONNECT_TIMEOUT_MS = 1_000;
/**
 * How long the server holds the first request: well past the timeout, so a client that does not abort it gets an
 * answer late, while one that does has time to close the exchange even when starved of CPU (with 600 ms, a busy
 * machine's matrix run saw a v2 client's abort arrive after the answer).
 */
export const HOLD_MS = 2_500;
/** After the hold, how long late traffic is looked for. */
const LATE_MARGIN_MS = 100;

/** The request a connect starts with: initialize in the legacy revisions, the server/discover probe in 2026-07-28. */
export const firstRequest = (revision: Revision): string => (isModern(revision) ? 'server/discover' : 'initialize');

/** The exchange carrying the first request (the one held). */
const held = (evidence: Evidence): WireExchange | undefined => carrying(evidence.exchanges, firstRequest(evidence.revision))[0];

export const closeDuringConnect = defineScenario<{ slow: SlowResponses }>({
  id: 'disposal/close-during-connect',
  title: 'Giving up a connect while initialize (or the probe) is in flight settles it, closes that exchange, and sends nothing later',
  revisions: L_AND_M,
  requires: [],
  source: { spec: shutdown('2025-06-18', 'over HTTP, giving up is closing the connection: nothing is sent afterwards', 'SHOULD') },
  setup(revision) {
    const slow = slowResponses({ method: firstRequest(revision), ms: HOLD_MS, count: 1 });
    return { server: { personalities: [slow] }, state: { slow } };
  },
  async run({ connect, server, observe }) {
    const started = performance.now();
    let settlement: Settlement;
    try {
      await connect({ timeoutMs: CONNECT_TIMEOUT_MS });
      settlement = { outcome: 'resolved', afterMs: Math.round(performance.now() - started) };
    } catch (error) {
      settlement = { outcome: 'rejected', afterMs: Math.round(performance.now() - started), detail: error instanceof Error ? `${error.constructor.name}: ${error.message}` : String(error) };
    }
    // Measured from the moment the connect should have given up.
    observe('connect', { ...settlement, afterMs: (settlement.afterMs ?? 0) - CONNECT_TIMEOUT_MS } satisfies Settlement);
    // Late traffic can only come once the hold is over: watch until then and a margin, ending early on anything late.
    const gaveUpAtSeq = seqNow(server.record);
    observe('gaveUpAtSeq', gaveUpAtSeq);
    const remaining = Math.max(0, HOLD_MS + LATE_MARGIN_MS - (performance.now() - started));
    await holdsWithin(server.record, (record) => after(record.exchanges, gaveUpAtSeq).length > 0, 'anything sent after the connect gave up', remaining);
  },
  judge(evidence) {
    const { revision } = evidence;
    const connect = settlementOf(evidence, 'connect');
    const exchange = held(evidence);
    const late = after(evidence.exchanges, evidence.observed.gaveUpAtSeq as number | undefined);
    const what = firstRequest(revision);
    const checks: Check[] = [
      clientCompleted(evidence, shutdown(revision, 'the client gives up a connect', 'MUST')),
      check(
        'connect-settled',
        timeouts(revision, 'a request that times out stops being waited for (the connect gives up at its timeout)', 'SHOULD'),
        connect?.outcome === 'rejected' && (connect.afterMs ?? Infinity) <= PROMPTLY_MS,
        `${describeSettlement(connect, `connect with a ${CONNECT_TIMEOUT_MS} ms timeout`)}${connect?.afterMs !== undefined ? ' past its timeout' : ''}; the server held ${what} for ${HOLD_MS} ms`,
        exchange ? [exchange] : [],
      ),
      check(
        'held-exchange-closed',
        shutdown(revision, `a connect given up closes the connection of its ${what}`, 'SHOULD'),
        exchange?.endedBy === 'client',
        exchange === undefined
          ? `no ${what} reached the server`
          : exchange.endedBy === 'client'
            ? `the client closed ${label(exchange)} when it gave up`
            : exchange.endedBy === undefined
              ? `${label(exchange)} was still open`
              : `${label(exchange)} was left open until the server answered it after its ${HOLD_MS} ms hold`,
        exchange ? [exchange] : [],
      ),
      check(
        'no-late-requests',
        shutdown(revision, 'a connect given up sends nothing afterwards', 'SHOULD'),
        evidence.observed.gaveUpAtSeq !== undefined && late.length === 0,
        late.length === 0 ? `nothing arrived from when the connect gave up until ${LATE_MARGIN_MS} ms after the hold ended` : `sent after the connect gave up: ${labels(late)}`,
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
      doctor: (e: Evidence) => ({ ...e, observed: { ...e.observed, connect: { outcome: 'resolved', afterMs: HOLD_MS } satisfies Settlement } }),
    },
  ],
});
