// What the cancellation scenarios add to the disposal suite's helpers: a server that answers a call although it
// was cancelled, and the spec sections of request ids.
import type { Personality } from '../../servers/personality.ts';
import { specUrl, type Revision } from '../../protocol/revisions.ts';
import type { WireRecord } from '../../servers/wire-record.ts';
import { spec } from '../disposal/support.ts';
import type { ClientConnection } from '../../clients/adapter.ts';
import type { Level, ScenarioContext, SpecRef } from '../scenario.ts';
import { holdsWithin, PROMPTLY_MS, runWithin, startCall, WIRE_EFFECT_MS } from '../disposal/support.ts';

export * from '../disposal/support.ts';

/** Longest a `notifications/cancelled` is held waiting for the answer it races (the server releases it on close too). */
const HOLD_CANCEL_MAX_MS = 2_000;

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
 * accepted; on HTTP+SSE it arrives on the GET stream. Each held exchange is noted `held-cancel-until-answered`.
 *
 * Suite-local (suites/cancellation), not a server personality: scenario cancellation/late-response-ignored.
 */
export function answersAfterCancel(): AnswersAfterCancel {
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
      await record
        .waitFor((r: WireRecord) => r.responseTo(requestId) !== undefined || res.closed, `the answer to ${requestId}`, HOLD_CANCEL_MAX_MS)
        .catch(() => {});
      if (res.closed) return;
      await next();
    },
  };
}

/** basic/index › Requests (basic/messages in 2024-11-05): request ids. */
export function requestIds(revision: Revision, level: Level): SpecRef {
  if (revision === '2024-11-05') {
    return spec(specUrl(revision, 'basic/messages', 'requests'), 'Messages › Requests: the request ID MUST NOT have been previously used by the requestor within the same session', level);
  }
  if (revision === '2026-07-28') {
    return spec(specUrl(revision, 'basic/index', 'requests'), 'Messages › Requests: the request ID MUST NOT match the ID of any other request the sender has issued and not yet received a response for', level);
  }
  return spec(specUrl(revision, 'basic/index', 'requests'), 'Messages › Requests: the request ID MUST NOT have been previously used by the requestor within the same session', level);
}

/**
 * The abort both transports' cancellation scenarios drive: the slow tool started through `client`, its signal aborted
 * once the server runs it, the call's settlement observed as `call`; then a bounded wait for the transport's own wire
 * effect (`wireEffect`) and for the handler to see the abort.
 */
export async function abortSlowCall(
  { bounded, server, observe }: Pick<ScenarioContext, 'bounded' | 'server' | 'observe'>,
  client: ClientConnection,
  wireEffect: (record: WireRecord) => boolean,
  effectName: string,
): Promise<void> {
  const controller = new AbortController();
  const call = await startCall(server.fixtures, bounded, client.callTool('slow', { ms: 10_000 }, { signal: controller.signal }), 'slow', 'the slow call');
  const abortedAt = performance.now();
  controller.abort();
  await call.within(PROMPTLY_MS);
  observe('call', call.since(abortedAt));
  await Promise.all([
    holdsWithin(server.record, wireEffect, effectName, WIRE_EFFECT_MS),
    runWithin(server.fixtures, (run) => run.tool === 'slow' && run.abortedAt !== undefined, 'the slow handler to see the abort', WIRE_EFFECT_MS),
  ]);
}
