// What the cancellation scenarios share: a server that answers a call although it was cancelled, the abort of a slow
// call both transports' scenarios drive, and what they judge of it (the call was running; it rejected promptly).
import type { ClientConnection } from '../../clients/adapter.ts';
import type { ToolRun } from '../../servers/fixtures.ts';
import type { Personality } from '../../servers/personality.ts';
import type { ExchangeRecord, WireExchange, WireRecord } from '../../servers/wire-record.ts';
import { precondition } from '../checks.ts';
import { describeOutcome, holdsWithin, inFlightMs, outcomeOf, runWithin, startCall, type Outcome } from '../outcome.ts';
import { checkInTime, rejectedInTime } from '../deadlines.ts';
import type { Check, Evidence, ScenarioContext, SpecRef } from '../scenario.ts';

export interface AnswersAfterCancel extends Personality {
  /** How many cancellations it held until the request they name had been answered. */
  held(): number;
}

/**
 * The race of cancellation › Timing Considerations, made certain: a `notifications/cancelled` is held back (before
 * the era sees it) until the server has written its answer to the request it names, then passed on. So the handler
 * is never aborted, the server answers the cancelled request after the client cancelled it, and the cancellation
 * arrives after processing completed (which the server MAY ignore). Where the answer travels on the call's own
 * response stream (Streamable HTTP), it reaches a client that keeps that stream open until its notification is
 * accepted; on HTTP+SSE it arrives on the GET stream. Each held exchange is noted `held-cancel-until-answered`; a hold
 * lasts at most `maxHoldMs` (it ends at once when the client or the server closes).
 *
 * Suite-local (suites/cancellation), not a server personality: scenario cancellation/late-response-ignored.
 */
export function answersAfterCancel(maxHoldMs: number): AnswersAfterCancel {
  let held = 0;
  return {
    name: 'answers-after-cancel',
    eras: ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', 'dual'],
    held: () => held,
    async middleware({ res, exchange, record }, next) {
      const cancel = exchange.requestMessages.find((message) => message.method === 'notifications/cancelled');
      const requestId = cancel?.params?.['requestId'];
      if (cancel === undefined || (typeof requestId !== 'string' && typeof requestId !== 'number')) return next();
      held += 1;
      record.note(exchange, 'held-cancel-until-answered');
      // Event-driven: re-checked on every change to the record; ends at once when the client or the server closes.
      await record.waitFor((r: WireRecord) => r.responseTo(requestId) !== undefined || res.closed, `the answer to ${requestId}`, maxHoldMs).catch(() => {});
      if (res.closed) return;
      await next();
    },
  };
}

/**
 * The abort both transports' cancellation scenarios drive: the slow tool started through `client`, its signal aborted
 * once the server runs it, the call's outcome observed as `call`; then a wait (the react bound) for the transport's own
 * wire effect (`wireEffect`) and for the handler to see the abort.
 */
export async function abortSlowCall(
  { bounded, wire, observe, time }: Pick<ScenarioContext, 'bounded' | 'wire' | 'observe' | 'time'>,
  client: ClientConnection,
  wireEffect: (record: ExchangeRecord) => boolean,
  effectName: string,
): Promise<void> {
  const controller = new AbortController();
  const call = await startCall(wire.fixtures, bounded, client.callTool('slow', { ms: inFlightMs(time) }, { signal: controller.signal }), 'slow', 'the slow call');
  const abortedAt = performance.now();
  controller.abort();
  await call.within(time.ms.react);
  observe('call', call.since(abortedAt));
  await Promise.all([
    holdsWithin(wire.record, wireEffect, effectName, time.ms.react),
    runWithin(wire.fixtures, (run) => run.tool === 'slow' && run.abortedAt !== undefined, 'the slow handler to see the abort', time.ms.react),
  ]);
}

/** `call-running`: the precondition of an abort: the slow call's handler was running on the server when the client aborted it. */
export function callRunning(spec: SpecRef, evidence: Evidence, slow: WireExchange | undefined): Check {
  const run: ToolRun | undefined = evidence.toolRuns.find((r) => r.tool === 'slow');
  const call = outcomeOf(evidence, 'call');
  return precondition(
    'call-running',
    spec,
    call !== undefined && run !== undefined,
    call === undefined ? 'the script did not get to abort the slow call: it never reached its handler on the server' : 'the slow call was running on the server when the client aborted it',
    slow ? [slow] : [],
  );
}

/** `call-rejected-promptly`: the aborted call rejected within the react bound of its abort. */
export function callRejectedPromptly(spec: SpecRef, evidence: Evidence, slow: WireExchange | undefined): Check {
  const call: Outcome | undefined = outcomeOf(evidence, 'call');
  const promptly = evidence.time.ms.react;
  return checkInTime(
    evidence.time,
    'call-rejected-promptly',
    spec,
    rejectedInTime(call, promptly),
    `${describeOutcome(call, 'the aborted call')}; expected a rejection within ${promptly} ms of the abort`,
    slow ? [slow] : [],
  );
}
