// resume/sse-last-event-id: the POST's SSE stream ends after an event id, before the answer. The client resumes
// with GET + Last-Event-ID (after waiting the server's `retry`, where it sent one) and gets the answer there; the
// tool runs once, because the request is not POSTed again.
//
// Where it runs: every Streamable HTTP revision, since the era servers give every SSE event an id at each of them.
// - 2025-11-25 (SEP-1699 SSE polling): the `close_stream` fixture tool closes its own stream right after the
//   priming event, which carries `retry:` (the policy's quiet bound here). The client MUST wait that long.
// - 2025-03-26 / 2025-06-18: no priming event and no `retry:`, and a server SHOULD NOT close the stream before the
//   answer, so the cut is a broken connection (network, proxy): `test_tool_with_logging` writes a log notification
//   (with an id) before answering, and the stream is cut right after it (cut-stream-after-event-id, support.ts).
//   Resuming with Last-Event-ID is the same SHOULD; there is no retry interval to respect.
import type { TimePolicy } from '../../config/time.ts';
import { HEADERS } from '../../protocol/http.ts';
import { S, type Revision } from '../../protocol/revisions.ts';
import { sseRetryInterval } from '../../servers/personalities/sse-retry.ts';
import type { WireExchange } from '../../servers/wire-record.ts';
import { checkIf, clientCompleted, precondition } from '../checks.ts';
import { defineScenario, type Check, type Evidence } from '../scenario.ts';
import { protocolVersionHeader, resumability, transports } from '../spec.ts';
import { callsTool, label, labels } from '../wire.ts';
import { streamCutter, type StreamCutter } from './support.ts';

/**
 * The `retry:` of the 2025-11-25 priming events here: two reaction times, so an immediate reconnect (a few
 * milliseconds, several hundred on a loaded machine: 272 ms at load 21 passed a 200 ms interval) cannot pass for a
 * wait. The judge holds the client to the interval the server actually sent (read from the wire): that threshold is
 * the rule, not scaled.
 */
const retryMs = (time: TimePolicy) => 2 * time.ms.react;
/**
 * The gap is measured from the last event the cut stream delivered, which the client saw before it could learn of the
 * stream's end: so it is never shorter than the client's wait, but for a millisecond timer firing up to 1 ms early.
 */
const TIMER_GRANULARITY_MS = 1;
/** The longest the cutter holds a resuming GET while the era lets go of the cut stream (at its next write, one logging step). */
const releaseMs = (time: TimePolicy) => time.ms.react * 4;

const polling = (revision: Revision) => revision >= '2025-11-25';
const toolFor = (revision: Revision) => (polling(revision) ? 'close_stream' : 'test_tool_with_logging');

/** The cut POST, what it delivered before ending, and the GETs that resumed it. */
function resumption(evidence: Evidence) {
  const tool = toolFor(evidence.revision);
  const posts = evidence.exchanges.filter((exchange) => exchange.method === 'POST' && callsTool(exchange, tool));
  const post = posts[0];
  const callId = post?.requestMessages.find((message) => message.method === 'tools/call')?.id;
  const answers = (exchange: WireExchange) =>
    callId !== undefined && exchange.responseMessages.some(({ message }) => message.method === undefined && message.id === callId);
  const withIds = post?.sseEvents.filter((event) => event.id !== undefined) ?? [];
  const lastId = withIds.at(-1)?.id;
  const retry = post?.sseEvents.findLast((event) => event.retry !== undefined)?.retry;
  const cut = post !== undefined && !answers(post) && lastId !== undefined && post.endedAt !== undefined;
  const gets = post ? evidence.exchanges.filter((exchange) => exchange.seq > post.seq && exchange.method === 'GET' && exchange.requestHeaders[HEADERS.lastEventId] !== undefined) : [];
  return { tool, posts, post, lastId, lastEventAt: post?.sseEvents.at(-1)?.at, retry, cut, gets, answeredOn: gets.find(answers) };
}

export const sseLastEventId = defineScenario<{ cutter?: StreamCutter }>({
  id: 'resume/sse-last-event-id',
  title: 'A POST stream cut after an event id is resumed with GET + Last-Event-ID (after the server\'s retry interval); the tool runs once',
  revisions: S,
  requires: [],
  source: { spec: transports('2025-11-25', 'sending-messages-to-the-server', 'Sending Messages to the Server (the client MUST respect the retry field)', 'MUST') },
  setup: (revision, time) => {
    if (polling(revision)) return { server: { personalities: [sseRetryInterval(retryMs(time))] }, state: {} };
    const cutter = streamCutter();
    return { server: { personalities: [cutter] }, state: { cutter } };
  },
  async run({ connect, bounded, state, observe, revision, time }) {
    const client = await connect();
    const tool = toolFor(revision);
    state.cutter?.cutNext(tool, releaseMs(time));
    const result = await bounded(client.callTool(tool, {}), `tools/call ${tool}`);
    const first = result.content[0] as { text?: unknown } | undefined;
    observe('result', { isError: result.isError === true, text: first?.text });
    await bounded(client.close(), 'close');
  },
  judge(evidence) {
    const { revision } = evidence;
    const { tool, posts, post, lastId, lastEventAt, retry, cut, gets, answeredOn } = resumption(evidence);
    const resumable = resumability(revision, 'the client SHOULD resume with GET and Last-Event-ID', 'SHOULD');
    const header = post?.requestHeaders[HEADERS.version];
    const checks: Check[] = [
      // The call must reach the server for the suite to cut its stream; what the client does about the cut is under test.
      precondition('call-posted', resumable, post !== undefined, post ? `${label(post)} POSTed the call` : `no tools/call ${tool} was POSTed (${labels(evidence.exchanges)})`, post ? [post] : []),
      clientCompleted(evidence, { ...resumable, section: `${resumable.section}, and gets the answer there` }),
    ];
    // At 2025-11-25 the server opens a stream it can close only for a POST that names the revision: without the header it
    // serves the call as 2025-03-26, and the client's own omission keeps the stream from being cut.
    if (polling(revision)) {
      checks.push(
        checkIf(
          post === undefined ? `no tools/call ${tool} was POSTed` : undefined,
          'call-names-revision',
          protocolVersionHeader(revision, `the negotiated version on every request (here the POST of the call, which the server serves as ${revision} only then)`, 'MUST'),
          () => header === revision,
          () => `${label(post!)} carried ${header === undefined ? 'no MCP-Protocol-Version' : `MCP-Protocol-Version: ${header}`}`,
          post ? [post] : [],
        ),
      );
    }
    const notCut = post === undefined ? `no tools/call ${tool} was POSTed` : !cut ? `${label(post)} was not cut after an event id${polling(revision) && header !== revision ? ' (the server did not serve it as ' + revision + ')' : ''}` : undefined;

    const first = gets[0];
    checks.push(
      checkIf(
        notCut,
        'resumed-with-last-event-id',
        resumable,
        () => first !== undefined && first.requestHeaders[HEADERS.lastEventId] === lastId && answeredOn !== undefined,
        () =>
          first === undefined
            ? `${label(post!)} ended after event ${lastId} without the answer; no GET with Last-Event-ID followed${posts.length > 1 ? ` (the call was POSTed again: ${labels(posts.slice(1))})` : ''}`
            : first.requestHeaders[HEADERS.lastEventId] !== lastId
              ? `${label(first)} resumed from Last-Event-ID ${first.requestHeaders[HEADERS.lastEventId]}, not from ${lastId}, the last id the cut stream carried`
              : answeredOn === undefined
                ? `${label(first)} resumed from ${lastId}, but no resuming GET delivered the answer`
                : `${label(first)} resumed from Last-Event-ID ${lastId}; the answer came on ${label(answeredOn)}`,
        post ? [post, ...gets] : [],
      ),
    );

    const runs = evidence.toolRuns.filter((run) => run.tool === tool).length;
    checks.push(
      checkIf(
        notCut,
        'no-repost',
        resumability(revision, 'resumption is via GET with Last-Event-ID, never a new POST (the tool has no idempotentHint)', 'SHOULD'),
        () => posts.length === 1 && runs === 1,
        () => (posts.length === 1 && runs === 1 ? `tools/call ${tool} was POSTed once and ran once` : `tools/call ${tool} was POSTed ${posts.length} times (${labels(posts)}) and ran ${runs} times`),
        posts,
      ),
    );

    // Only where the server sent a retry interval (2025-11-25 priming events), and only once the client reconnected.
    if (polling(revision)) {
      const gap = first && lastEventAt !== undefined ? first.startedAt - lastEventAt : undefined;
      checks.push(
        checkIf(
          notCut ?? (retry === undefined ? `${label(post!)} carried no retry field: nothing to respect` : gap === undefined ? `no GET reconnected the stream (retry was ${retry} ms): nothing to time` : undefined),
          'waited-retry',
          transports(revision, 'sending-messages-to-the-server', 'Sending Messages to the Server: the client MUST respect the retry field, waiting that long before reconnecting', 'MUST'),
          () => gap! >= retry! - TIMER_GRANULARITY_MS,
          () =>
            `the cut stream's last event went out at +${lastEventAt!.toFixed(0)} ms and ${label(first!)} came ${gap!.toFixed(0)} ms later; retry was ${retry} ms (on the server's clock, ${TIMER_GRANULARITY_MS} ms allowed for a millisecond timer)`,
          post && first ? [post, first] : post ? [post] : [],
        ),
      );
    }
    return checks;
  },
  doctored: [
    {
      check: 'call-posted',
      unmet: true,
      how: 'the client failed before it POSTed the call',
      doctor: (e) => ({ ...e, exchanges: e.exchanges.filter((x) => !x.requestMessages.some((m) => m.method === 'tools/call')), toolRuns: [] }),
    },
    {
      check: 'no-repost',
      how: 'the tool ran a second time',
      doctor: (e) => ({ ...e, toolRuns: [...e.toolRuns, ...e.toolRuns.slice(0, 1)] }),
    },
  ],
});
