import { check, clientCompleted } from '../checks.ts';
import { defineScenario } from '../scenario.ts';
import { describeSettlement, L, PROMPTLY_MS, settlementOf, timeouts, toolCallExchanges, Watched } from './support.ts';

/** The call's own timeout: six progress intervals, so a CPU-starved run still sees progress well inside it. */
const TIMEOUT_MS = 300;
/** The progress tool reports every INTERVAL_MS (well inside the timeout), STEPS times, then answers. */
const INTERVAL_MS = 50;
/** The work lasts well past the timeout (800 ms): a client that gave up had not been answered. */
const STEPS = 16;
const WORK_MS = STEPS * INTERVAL_MS;

export const progressResetsTimeout = defineScenario({
  id: 'cancellation/progress-resets-timeout',
  title: 'Progress notifications MAY reset a request timeout, but a maximum total SHOULD still hold',
  revisions: L,
  requires: ['request-timeout'],
  source: { spec: timeouts('2025-06-18', 'progress MAY reset the timeout clock; a maximum timeout SHOULD always be enforced, regardless of progress', 'SHOULD') },
  async run({ connect, observe }) {
    const client = await connect();
    const issuedAt = performance.now();
    const call = new Watched(client.callTool('progress', { steps: STEPS, intervalMs: INTERVAL_MS }, { timeoutMs: TIMEOUT_MS }));
    // Long enough for the whole work: a client whose timeout progress keeps extending gets the answer.
    await call.within(WORK_MS + PROMPTLY_MS);
    observe('call', call.since(issuedAt));
  },
  judge(evidence) {
    const { revision } = evidence;
    const call = settlementOf(evidence, 'call');
    const exchange = toolCallExchanges(evidence.exchanges, 'progress')[0];
    const token = (exchange?.requestMessages.find((m) => m.method === 'tools/call')?.params?.['_meta'] as { progressToken?: unknown } | undefined)?.progressToken;
    const progress = evidence.exchanges
      .flatMap((e) => e.responseMessages)
      .filter(({ message }) => message.method === 'notifications/progress' && token !== undefined && message.params?.['progressToken'] === token);
    const lived = call?.afterMs;
    const run = evidence.toolRuns.find((r) => r.tool === 'progress');
    // The maximum held when the request was given up before its work was done: the caller got a rejection, or the
    // client cancelled it (the server's run was aborted). Whether it also stopped waiting is cancellation/timeout-cancels'.
    const gaveUp = call?.outcome === 'rejected' && (lived ?? Infinity) < WORK_MS;
    const cancelled = run?.abortedAt !== undefined && call?.outcome !== 'resolved';
    const stopped = gaveUp || cancelled;
    const reset = call !== undefined && call.outcome !== 'pending' && (lived ?? 0) > TIMEOUT_MS + INTERVAL_MS;
    const seen = token === undefined ? 'the call carried no progress token, so the server sent no progress' : `${progress.length} progress notifications reached the wire`;
    return [
      clientCompleted(evidence, timeouts(revision, 'a request with a timeout', 'MUST')),
      check(
        'maximum-timeout-holds',
        timeouts(revision, 'implementations SHOULD always enforce a maximum timeout, regardless of progress notifications', 'SHOULD'),
        stopped,
        `${describeSettlement(call, `the call with a ${TIMEOUT_MS} ms timeout`)} from when it was issued${cancelled && !gaveUp ? ', but the client cancelled it on the wire (the server’s run was aborted)' : ''}; the tool reports progress every ${INTERVAL_MS} ms and answers after ${WORK_MS} ms (${seen})`,
        exchange ? [exchange] : [],
      ),
      check(
        'resets-on-progress',
        timeouts(revision, 'implementations MAY reset the timeout clock on a progress notification for the request', 'MAY'),
        reset,
        reset
          ? `the call outlived its ${TIMEOUT_MS} ms timeout while progress arrived (it ended after ${lived} ms)`
          : `${call?.outcome === 'pending' ? 'the call never ended' : `the call ended after ${lived ?? '?'} ms`}: its timeout was not reset by progress (${seen})`,
        exchange ? [exchange] : [],
      ),
    ];
  },
});
