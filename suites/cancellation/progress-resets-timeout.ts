import type { TimePolicy } from '../../config/time.ts';
import { L } from '../../protocol/revisions.ts';
import { check, clientCompleted, precondition } from '../checks.ts';
import { describeOutcome, outcomeOf, Watched } from '../outcome.ts';
import { defineScenario, type Evidence } from '../scenario.ts';
import { timeouts } from '../spec.ts';
import { label, toolCallExchanges } from '../wire.ts';

/** Progress reports the tool makes before it answers: the work lasts well past the timeout, so a client that gave up had not been answered. */
const STEPS = 16;

/**
 * The call's bounds, scaled with the policy: the tool reports progress every interval (a quarter of the quiet window)
 * STEPS times, then answers; the call's own timeout is six intervals, so even a CPU-starved run sees progress well
 * inside it (a fixed 100 ms timeout flaked when both cores were busy).
 */
function bounds(time: TimePolicy) {
  const intervalMs = Math.max(1, Math.round(time.ms.quiet / 4));
  return { intervalMs, timeoutMs: 6 * intervalMs, workMs: STEPS * intervalMs };
}

/** The progress notifications the server wrote for the call's token (before the call's timeout, when `beforeTimeout`). */
function progressOf(evidence: Evidence) {
  const { timeoutMs } = bounds(evidence.time);
  const exchange = toolCallExchanges(evidence.exchanges, 'progress')[0];
  const token = (exchange?.requestMessages.find((m) => m.method === 'tools/call')?.params?.['_meta'] as { progressToken?: unknown } | undefined)?.progressToken;
  const progress = evidence.exchanges
    .flatMap((e) => e.responseMessages)
    .filter(({ message }) => message.method === 'notifications/progress' && token !== undefined && message.params?.['progressToken'] === token);
  const beforeTimeout = exchange === undefined ? [] : progress.filter(({ at }) => at < exchange.startedAt + timeoutMs);
  return { exchange, token, progress, beforeTimeout };
}

export const progressResetsTimeout = defineScenario({
  id: 'cancellation/progress-resets-timeout',
  title: 'Progress notifications MAY reset a request timeout, but a maximum total SHOULD still hold',
  revisions: L,
  requires: ['request-timeout'],
  source: { spec: timeouts('2025-06-18', 'progress MAY reset the timeout clock; a maximum timeout SHOULD always be enforced, regardless of progress', 'SHOULD') },
  async run({ connect, observe, time }) {
    const { intervalMs, timeoutMs, workMs } = bounds(time);
    const client = await connect();
    const issuedAt = performance.now();
    const call = new Watched(client.callTool('progress', { steps: STEPS, intervalMs }, { timeoutMs }));
    // Long enough for the whole work: a client whose timeout progress keeps extending gets the answer.
    await call.within(workMs + time.ms.react);
    observe('call', call.since(issuedAt));
  },
  judge(evidence) {
    const { revision } = evidence;
    const { intervalMs, timeoutMs, workMs } = bounds(evidence.time);
    const call = outcomeOf(evidence, 'call');
    const { exchange, token, progress, beforeTimeout } = progressOf(evidence);
    const lived = call?.afterMs;
    const run = evidence.toolRuns.find((r) => r.tool === 'progress');
    // The maximum held when the request was given up before its work was done: the caller got a rejection, or the
    // client cancelled it (the server's run was aborted). Whether it also stopped waiting is cancellation/timeout-cancels'.
    const gaveUp = call?.state === 'rejected' && (lived ?? Infinity) < workMs;
    const cancelled = run?.abortedAt !== undefined && call?.state !== 'resolved';
    const stopped = gaveUp || cancelled;
    const reset = call !== undefined && call.state !== 'pending' && (lived ?? 0) > timeoutMs + intervalMs;
    const seen = `${progress.length} progress notifications reached the wire`;
    return [
      precondition(
        'progress-during-call',
        timeouts(revision, 'a maximum timeout SHOULD always be enforced, regardless of progress notifications', 'SHOULD'),
        call !== undefined && exchange !== undefined && beforeTimeout.length > 0,
        call === undefined || exchange === undefined
          ? 'the script did not get to issue the call'
          : token === undefined
            ? `${label(exchange)} carried no progress token, so the server sent no progress that could reset its timeout`
            : beforeTimeout.length === 0
              ? `no progress reached the wire within the call’s ${timeoutMs} ms timeout (${seen})`
              : `${beforeTimeout.length} progress notifications reached the wire within the call’s ${timeoutMs} ms timeout`,
        exchange ? [exchange] : [],
      ),
      clientCompleted(evidence, timeouts(revision, 'a request with a timeout', 'MUST')),
      check(
        'maximum-timeout-holds',
        timeouts(revision, 'implementations SHOULD always enforce a maximum timeout, regardless of progress notifications', 'SHOULD'),
        stopped,
        `${describeOutcome(call, `the call with a ${timeoutMs} ms timeout`)} from when it was issued${cancelled && !gaveUp ? ', but the client cancelled it on the wire (the server’s run was aborted)' : ''}; the tool reports progress every ${intervalMs} ms and answers after ${workMs} ms (${seen})`,
        exchange ? [exchange] : [],
      ),
      check(
        'resets-on-progress',
        timeouts(revision, 'implementations MAY reset the timeout clock on a progress notification for the request', 'MAY'),
        reset,
        reset
          ? `the call outlived its ${timeoutMs} ms timeout while progress arrived (it ended after ${lived} ms)`
          : `${call?.state === 'pending' ? 'the call never ended' : `the call ended after ${lived ?? '?'} ms`}: its timeout was not reset by progress (${seen})`,
        exchange ? [exchange] : [],
      ),
    ];
  },
  doctored: [
    {
      check: 'progress-during-call',
      unmet: true,
      how: 'the call carried no progress token (so no progress was sent)',
      doctor: (e: Evidence) => ({
        ...e,
        exchanges: e.exchanges.map((x) => ({
          ...x,
          requestMessages: x.requestMessages.map((m) => (m.method === 'tools/call' ? { ...m, params: { ...m.params, _meta: {} } } : m)),
          responseMessages: x.responseMessages.filter(({ message }) => message.method !== 'notifications/progress'),
        })),
      }),
    },
  ],
});
