import { closeBoundMs, type TimePolicy } from '../../config/time.ts';
import { S } from '../../protocol/revisions.ts';
import { DELETE_HELD, deleteHangs } from '../../servers/personalities/delete-hangs.ts';
import type { WireExchange } from '../../servers/wire-record.ts';
import { check, clientCompleted, precondition, unexercised } from '../checks.ts';
import { describeOutcome, holdsWithin, outcomeOf, settle, type Outcome } from '../outcome.ts';
import { checkInTime } from '../deadlines.ts';
import { defineScenario, type Check, type Evidence } from '../scenario.ts';
import { shutdown, timeouts } from '../spec.ts';
import { after, label, labels, noted, seqNow, sessionOf } from '../wire.ts';

/**
 * The bounds of the case. The client is connected with a timeout of its own (ConnectOptions.timeoutMs, the one timeout
 * the adapter contract gives a connection): what this client needs to start and connect (calibrated per client), so
 * the connect it also bounds goes through, and a few reaction times at most, so the case stays cheap.
 */
export function bounds(time: TimePolicy) {
  const clientTimeoutMs = time.ms.startup;
  // close() gives up the DELETE at the client's timeout and settles within a reaction time of it.
  const settleMs = clientTimeoutMs + time.ms.react;
  // The server holds the DELETE a reaction time past that, so its answer reaches only a client already late; then it
  // answers (delete-hangs), and a client that waits for the answer settles late instead of hanging the case.
  const holdMs = settleMs + time.ms.react;
  // The script's wait for close(): the hold and room to take its answer, never less than for any operation.
  return { clientTimeoutMs, settleMs, holdMs, closeBoundMs: closeBoundMs(time, clientTimeoutMs) };
}

/** The DELETE the server held, sent by close(). */
const heldDelete = (exchanges: readonly WireExchange[], closeFromSeq: number | undefined): WireExchange | undefined =>
  closeFromSeq === undefined ? undefined : noted(after(exchanges, closeFromSeq), DELETE_HELD).find((exchange) => exchange.method === 'DELETE');

export const closeWithHungDelete = defineScenario({
  id: 'disposal/close-with-hung-delete',
  title: 'The server never answers the DELETE at close: close() gives it up at the client’s own timeout (settles in time) and ends that exchange, never leaves it open',
  revisions: S,
  requires: [],
  source: { spec: timeouts('2025-06-18', 'the DELETE at close is a request like any other: a client stops waiting for it at its timeout, so a server that never answers cannot hang close() (2024-11-05 Error Handling: “Shutdown timeout”)', 'SHOULD') },
  setup(_revision, time) {
    return { server: { personalities: [deleteHangs({ holdMs: bounds(time).holdMs })] }, state: undefined };
  },
  async run({ connect, bounded, observe, wire, time }) {
    const { clientTimeoutMs, closeBoundMs } = bounds(time);
    const client = await connect({ timeoutMs: clientTimeoutMs });
    await bounded(client.listTools(), 'tools/list');
    const closeFromSeq = seqNow(wire.record);
    observe('closeFromSeq', closeFromSeq);
    observe('closeCalledAt', wire.record.now());
    // A close that never settles is recorded (pending, hung) for the judge; the runner fails client-completed for it.
    const closed: Outcome = await settle(bounded(client.close(), 'close against a DELETE that is never answered', closeBoundMs));
    observe('close', closed);
    observe('closeSettledAt', wire.record.now());
    // The held DELETE ending is the client's doing once it gave up: as long as a client takes to react, ending early.
    await holdsWithin(wire.record, (record) => heldDelete(record.exchanges, closeFromSeq)?.endedBy !== undefined, 'the held DELETE to end', time.ms.react);
  },
  judge(evidence) {
    const { revision, observed } = evidence;
    const { react } = evidence.time.ms;
    const { clientTimeoutMs, settleMs, holdMs } = bounds(evidence.time);
    const closeFromSeq = observed.closeFromSeq as number | undefined;
    const closeCalledAt = observed.closeCalledAt as number | undefined;
    const closeSettledAt = observed.closeSettledAt as number | undefined;
    const closed = outcomeOf(evidence, 'close');
    const held = heldDelete(evidence.exchanges, closeFromSeq);
    const exchanges = held ? [held] : [];
    const issued = evidence.issuedSessions;
    // The server answered the held DELETE (its hold ran out) before close() settled: close() waited for that answer.
    const answeredFirst = held?.endedBy === 'server' && held.endedAt !== undefined && closeSettledAt !== undefined && held.endedAt <= closeSettledAt;
    const settledRule = timeouts(revision, 'a request with no answer within the client’s timeout is given up, the DELETE at close too: close() settles (resolves or rejects) within that timeout and a reaction time', 'SHOULD');
    const endedRule = shutdown(revision, 'over HTTP, shutdown is closing the connections: a DELETE the client gave up is ended (its exchange closed), never left open after close()', 'SHOULD');
    /** Why neither rule was reached with close() itself, if so. */
    const notReached =
      closed === undefined
        ? 'the script did not reach close()'
        : closed.hung
          ? `${describeOutcome(closed, 'close()')}: client-completed judges a close that hangs`
          : undefined;
    // A client that ended every session it opened before close() (a session per operation ends each with its
    // operation) holds none at close: close() has no DELETE to send, and no client of that shape reaches the rule.
    const endedBefore = closeFromSeq === undefined ? [] : evidence.exchanges.filter((x) => x.method === 'DELETE' && x.seq <= closeFromSeq);
    const heldNone = held === undefined && closed !== undefined && !closed.hung && issued.length > 0 && issued.every((id) => endedBefore.some((x) => sessionOf(x) === id));
    const checks: Check[] = [
      precondition(
        'close-reached',
        settledRule,
        closeFromSeq !== undefined && issued.length > 0,
        closeFromSeq === undefined
          ? `the script did not reach close(): the client did not connect (under the contract's ${clientTimeoutMs} ms connect timeout, ConnectOptions.timeoutMs) and list its tools`
          : issued.length === 0
            ? 'the server issued no session before the client closed'
            : `the client closed with the issued session ${issued.join(', ')}`,
      ),
      precondition(
        'delete-held',
        settledRule,
        held !== undefined,
        held !== undefined
          ? `the server held ${label(held)}`
          : closeFromSeq === undefined
            ? 'the script did not reach close()'
            : heldNone
              ? `the client held no session when close() was called: it had ended each one it opened itself (${labels(endedBefore)}), as a client with a session per operation does, so close() had no DELETE to send: ${describeOutcome(closed, 'close()')}`
              : `close() sent no DELETE, so none was held (disposal/delete-issued-session judges a missing DELETE): ${describeOutcome(closed, 'close()')}`,
        heldNone ? endedBefore : exchanges,
        // A close that settled without a DELETE will not send one given more time.
        heldNone ? { by: 'shape' } : { lasting: closeFromSeq !== undefined && closed !== undefined && !closed.hung },
      ),
      clientCompleted(evidence, shutdown(revision, 'the client closes against a server that never answers its DELETE', 'MUST')),
    ];
    if (notReached !== undefined) {
      checks.push(unexercised('close-settled', settledRule, notReached, exchanges), unexercised('held-delete-ended', endedRule, notReached, exchanges));
      return checks;
    }
    const inTime = closed!.afterMs <= settleMs;
    checks.push(
      checkInTime(
        evidence.time,
        'close-settled',
        settledRule,
        inTime || 'late',
        `${describeOutcome(closed, 'close()')}; expected it to settle within ${settleMs} ms (the ${clientTimeoutMs} ms timeout the connection was given, ConnectOptions.timeoutMs, and a reaction time) while the server held the DELETE` +
          (answeredFirst ? `: it settled only once the server answered ${label(held!)} at the end of its ${holdMs} ms hold` : ''),
        exchanges,
        // How late: a client late by a fixed bound of its own (5 s, whatever it was told) is late by more than a busy
        // machine can explain, and is judged so on any machine.
        inTime ? undefined : closed!.afterMs - settleMs,
      ),
    );
    if (held === undefined) {
      checks.push(unexercised('held-delete-ended', endedRule, 'no DELETE was held', exchanges));
    } else if (held.endedBy === 'client') {
      const at = held.endedAt !== undefined && closeCalledAt !== undefined ? ` ${Math.round(held.endedAt - closeCalledAt)} ms after calling close()` : '';
      checks.push(check('held-delete-ended', endedRule, true, `the client ended ${label(held)} itself${at}`, exchanges));
    } else if (answeredFirst) {
      // Never left open after close(): close() waited for the answer instead, which is close-settled's finding, judged once there.
      checks.push(unexercised('held-delete-ended', endedRule, `close() waited for the server's answer to ${label(held)} (after its ${holdMs} ms hold), so the DELETE was never left open after close(); close-settled judges the wait`, exchanges));
    } else {
      checks.push(
        checkInTime(
          evidence.time,
          'held-delete-ended',
          endedRule,
          'late',
          held.endedBy === undefined
            ? `${label(held)} was still open ${react} ms after close() settled: the client left it to the server`
            : `${label(held)} was left open after close() settled, until the server answered it at the end of its ${holdMs} ms hold`,
          exchanges,
        ),
      );
    }
    return checks;
  },
  doctored: [
    {
      check: 'held-delete-ended',
      how: 'close() settled in time, the held DELETE left open after it (never ended by the client)',
      doctor: (e: Evidence) => ({
        ...e,
        exchanges: e.exchanges.map((x) => (x.notes.includes(DELETE_HELD) ? { ...x, endedBy: undefined, endedAt: undefined } : x)),
      }),
    },
    {
      check: 'close-reached',
      unmet: true,
      how: 'the script stopped before close()',
      doctor: (e: Evidence) => ({ ...e, observed: { ...e.observed, closeFromSeq: undefined, close: undefined } }),
    },
    {
      check: 'delete-held',
      unmet: true,
      how: 'close() sent no DELETE',
      doctor: (e: Evidence) => ({ ...e, exchanges: e.exchanges.filter((x) => x.method !== 'DELETE') }),
    },
  ],
});
