import type { TimePolicy } from '../../config/time.ts';
import { L } from '../../protocol/revisions.ts';
import { check, checkIf, clientCompleted, precondition } from '../checks.ts';
import { describeOutcome, outcomeOf, Watched, watchStalls } from '../outcome.ts';
import { defineScenario, type Evidence } from '../scenario.ts';
import { timeouts } from '../spec.ts';
import { answerOf, label, requests } from '../wire.ts';

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

/**
 * The call on the server's clock, in the order things happened: when it arrived, the progress written for its token,
 * when it was answered, and when the client ended it (issued at `issuedAt`, settled `afterMs` later). A loaded machine
 * stretches every step, so the judge compares these moments, never the nominal work time.
 */
function timelineOf(evidence: Evidence) {
  const sent = requests(evidence.exchanges, 'tools/call', 'progress')[0];
  const exchange = sent?.exchange;
  const token = (sent?.message.params?.['_meta'] as { progressToken?: unknown } | undefined)?.progressToken;
  const progress = evidence.exchanges
    .flatMap((e) => e.responseMessages)
    .filter(({ message }) => message.method === 'notifications/progress' && token !== undefined && message.params?.['progressToken'] === token)
    .map(({ at }) => at);
  const answeredAt = sent === undefined ? undefined : answerOf(evidence.exchanges, sent)?.at;
  const call = outcomeOf(evidence, 'call');
  const issuedAt = evidence.observed.issuedAt as number | undefined;
  const endedAt = call !== undefined && call.state !== 'pending' && issuedAt !== undefined ? issuedAt + call.afterMs : undefined;
  // While the call was alive for the client: until it ended it or was answered.
  const until = Math.min(endedAt ?? Infinity, answeredAt ?? Infinity);
  const alive = progress.filter((at) => at < until);
  const marks = exchange === undefined ? [] : [exchange.startedAt, ...alive, ...(Number.isFinite(until) ? [until] : [])];
  const longestGap = Math.max(0, ...marks.slice(1).map((at, index) => at - marks[index]!));
  return { exchange, token, progress, alive, answeredAt, endedAt, call, longestGap };
}

export const progressResetsTimeout = defineScenario({
  id: 'cancellation/progress-resets-timeout',
  title: 'Progress notifications MAY reset a request timeout, but a maximum total SHOULD still hold',
  revisions: L,
  requires: ['request-timeout'],
  source: { spec: timeouts('2025-06-18', 'progress MAY reset the timeout clock; a maximum timeout SHOULD always be enforced, regardless of progress', 'SHOULD') },
  async run({ connect, observe, wire, time }) {
    const { intervalMs, timeoutMs, workMs } = bounds(time);
    const client = await connect();
    observe('issuedAt', wire.record.now());
    const issuedAt = performance.now();
    const stalls = watchStalls();
    const call = new Watched(client.callTool('progress', { steps: STEPS, intervalMs }, { timeoutMs }));
    void call.settled.then(() => stalls.stop());
    // Long enough for the whole work: a client whose timeout progress keeps extending gets the answer.
    await call.within(workMs + time.ms.react);
    observe('call', call.since(issuedAt));
    observe('stalledMs', stalls.stop());
  },
  judge(evidence) {
    const { revision } = evidence;
    const { intervalMs, timeoutMs, workMs } = bounds(evidence.time);
    const { exchange, token, progress, alive, answeredAt, endedAt, call, longestGap } = timelineOf(evidence);
    const lived = call?.afterMs;
    const run = evidence.toolRuns.find((r) => r.tool === 'progress');
    // The maximum held when the request was given up before its work was done: the caller got a rejection before the
    // answer was written, or the client cancelled it (the server's run was aborted). Whether it also stopped waiting is
    // cancellation/timeout-cancels'.
    const gaveUp = call?.state === 'rejected' && (answeredAt === undefined || (endedAt ?? Infinity) < answeredAt);
    const cancelled = run?.abortedAt !== undefined && call?.state !== 'resolved';
    const stopped = gaveUp || cancelled;
    // Judged only when progress came often enough to reset the timeout each time: with a longer gap (a starved server) a
    // restarting timer runs out as a maximum does, and a late timer lives on as a reset does. And only when the client
    // could have read that progress: a process starved for most of the timeout fires its expired timer before it reads
    // what arrived meanwhile, a restarting timer as much as a maximum.
    const steady = longestGap < timeoutMs;
    const stalledMs = typeof evidence.observed['stalledMs'] === 'number' ? evidence.observed['stalledMs'] : 0;
    const awake = stalledMs < timeoutMs - intervalMs;
    const reset = call !== undefined && call.state !== 'pending' && (lived ?? 0) > timeoutMs + intervalMs;
    const seen = `${progress.length} progress notifications reached the wire`;
    return [
      precondition(
        'progress-during-call',
        timeouts(revision, 'a maximum timeout SHOULD always be enforced, regardless of progress notifications', 'SHOULD'),
        call !== undefined && exchange !== undefined && alive.length > 0,
        call === undefined || exchange === undefined
          ? 'the script did not get to issue the call'
          : token === undefined
            ? `${label(exchange)} carried no progress token, so the server sent no progress that could reset its timeout`
            : alive.length === 0
              ? `no progress reached the wire before the call ended (${seen})`
              : `${alive.length} progress notifications reached the wire while the call was alive`,
        exchange ? [exchange] : [],
        // No token, no progress: however long the call is given.
        { lasting: exchange !== undefined && token === undefined },
      ),
      clientCompleted(evidence, timeouts(revision, 'a request with a timeout', 'MUST')),
      checkIf(
        !awake
          ? `the client's process went ${stalledMs} ms without running a timer during the call (a busy machine), most of its ${timeoutMs} ms timeout: a maximum that held cannot be told from a restarting timer that expired before the progress was read`
          : steady
            ? undefined
            : stopped
              ? `progress came with a gap of ${Math.round(longestGap)} ms, longer than the call's ${timeoutMs} ms timeout (a starved server): a maximum that held cannot be told from a restarting timer that ran out in the gap`
              : `the call lived on, but progress came with a gap of ${Math.round(longestGap)} ms, longer than its ${timeoutMs} ms timeout (a starved server): a reset cannot be told from a late timer`,
        'maximum-timeout-holds',
        timeouts(revision, 'implementations SHOULD always enforce a maximum timeout, regardless of progress notifications', 'SHOULD'),
        () => stopped,
        () =>
          `${describeOutcome(call, `the call with a ${timeoutMs} ms timeout`)} from when it was issued${cancelled && !gaveUp ? ', but the client cancelled it on the wire (the server’s run was aborted)' : ''}; the tool reports progress every ${intervalMs} ms and answers after ${workMs} ms (${seen}${answeredAt === undefined ? ', no answer written' : ''})`,
        exchange ? [exchange] : [],
      ),
      // A starved process or server makes a timer late or progress sparse: a late timer then looks like a reset.
      checkIf(
        !awake
          ? `the client's process went ${stalledMs} ms without running a timer during the call (a busy machine): a call that outlived its ${timeoutMs} ms timeout may only have had its timer fire late`
          : steady
            ? undefined
            : `progress came with a gap of ${Math.round(longestGap)} ms, longer than the call's ${timeoutMs} ms timeout (a starved server): a reset cannot be told from a late timer`,
        'resets-on-progress',
        timeouts(revision, 'implementations MAY reset the timeout clock on a progress notification for the request', 'MAY'),
        () => reset,
        () =>
          reset
            ? `the call outlived its ${timeoutMs} ms timeout while progress arrived (it ended after ${lived} ms)`
            : `${call?.state === 'pending' ? 'the call never ended' : `the call ended after ${lived ?? '?'} ms`}: its timeout was not reset by progress (${seen})`,
        exchange ? [exchange] : [],
      ),
    ];
  },
  doctored: [
    {
      // The reference enforces its timeout whatever the progress, so it fails this MAY check by itself, but only where
      // the machine let the judge tell: proven on its record with its call given up at the timeout on a quiet run.
      check: 'resets-on-progress',
      how: 'the call given up at its timeout, the client never held up',
      doctor: (e: Evidence) => ({ ...e, observed: { ...e.observed, call: { state: 'rejected', afterMs: bounds(e.time).timeoutMs, detail: 'timed out' }, stalledMs: 0 } }),
    },
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
