// resume/sse-last-event-id: the POST's SSE stream ends after an event id, before the answer. The client resumes
// with GET + Last-Event-ID (after waiting the server's `retry`, where it sent one) and gets the answer there; the
// tool runs once, because the request is not POSTed again.
//
// Where it runs: every Streamable HTTP revision, since the era servers give every SSE event an id at each of them.
// - 2025-11-25 (SEP-1699 SSE polling): the `close_stream` fixture tool closes its own stream right after the
//   priming event, which carries `retry:` (set to RETRY_MS here). The client MUST wait that long.
// - 2025-03-26 / 2025-06-18: no priming event and no `retry:`, and a server SHOULD NOT close the stream before the
//   answer, so the cut is a broken connection (network, proxy): `test_tool_with_logging` writes a log notification
//   (with an id) before answering, and the stream is cut right after it (cut-stream-after-event-id, support.ts).
//   Resuming with Last-Event-ID is the same SHOULD; there is no retry interval to respect.
import { sseRetryInterval } from '../../servers/personalities/sse-retry.ts';
import { STREAMABLE_REVISIONS, type Revision } from '../../protocol/revisions.ts';
import type { WireExchange } from '../../servers/wire-record.ts';
import { check, clientCompleted } from '../checks.ts';
import { defineScenario, type Check, type Evidence } from '../scenario.ts';
import { callsTool, describe, list, streamCutter, transports, VERSION_HEADER, type StreamCutter } from './support.ts';

/** The `retry:` of the 2025-11-25 priming events here: long enough that an immediate reconnect cannot pass for a wait. */
export const RETRY_MS = 150;
/** What the wire measurement allows for timer and clock granularity (a client's timer may fire a little early on the server's clock). */
export const RETRY_TOLERANCE_MS = 10;

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
  const gets = post ? evidence.exchanges.filter((exchange) => exchange.seq > post.seq && exchange.method === 'GET' && exchange.requestHeaders['last-event-id'] !== undefined) : [];
  return { tool, posts, post, lastId, retry, cut, gets, answeredOn: gets.find(answers) };
}

export const sseLastEventId = defineScenario<{ cutter?: StreamCutter }>({
  id: 'resume/sse-last-event-id',
  title: 'A POST stream cut after an event id is resumed with GET + Last-Event-ID (after the server\'s retry interval); the tool runs once',
  revisions: STREAMABLE_REVISIONS,
  requires: [],
  source: { spec: transports('2025-11-25', 'sending-messages-to-the-server', 'Sending Messages to the Server (the client MUST respect the retry field)', 'MUST') },
  setup: (revision) => {
    if (polling(revision)) return { server: { personalities: [sseRetryInterval(RETRY_MS)] }, state: {} };
    const cutter = streamCutter();
    return { server: { personalities: [cutter] }, state: { cutter } };
  },
  async run({ connect, bounded, state, observe, revision }) {
    const client = await connect();
    const tool = toolFor(revision);
    state.cutter?.cutNext(tool);
    const result = await bounded(client.callTool(tool, {}), `tools/call ${tool}`);
    const first = result.content[0] as { text?: unknown } | undefined;
    observe('result', { isError: result.isError === true, text: first?.text });
    await bounded(client.close(), 'close');
  },
  judge(evidence) {
    const { revision } = evidence;
    const { tool, posts, post, lastId, retry, cut, gets, answeredOn } = resumption(evidence);
    const resumability = transports(revision, 'resumability-and-redelivery', 'Resumability and Redelivery: the client SHOULD resume with GET and Last-Event-ID', 'SHOULD');
    const checks: Check[] = [clientCompleted(evidence, { ...resumability, section: `${resumability.section}, and gets the answer there` })];
    const header = post?.requestHeaders[VERSION_HEADER];
    const notRun =
      post === undefined
        ? `no tools/call ${tool} was POSTed`
        : polling(revision) && header !== revision
          ? `${describe(post)} carried ${header === undefined ? 'no MCP-Protocol-Version' : `MCP-Protocol-Version: ${header}`}, so the server did not serve it as ${revision} and opened no stream it could close (the scenario could not run)`
          : `${describe(post)} was not cut after an event id (the scenario could not run)`;

    const first = gets[0];
    checks.push(
      check(
        'resumed-with-last-event-id',
        resumability,
        cut && first !== undefined && first.requestHeaders['last-event-id'] === lastId && answeredOn !== undefined,
        !cut
          ? notRun
          : first === undefined
            ? `${describe(post!)} ended after event ${lastId} without the answer; no GET with Last-Event-ID followed${posts.length > 1 ? ` (the call was POSTed again: ${list(posts.slice(1))})` : ''}`
            : first.requestHeaders['last-event-id'] !== lastId
              ? `${describe(first)} resumed from Last-Event-ID ${first.requestHeaders['last-event-id']}, not from ${lastId}, the last id the cut stream carried`
              : answeredOn === undefined
                ? `${describe(first)} resumed from ${lastId}, but no resuming GET delivered the answer`
                : `${describe(first)} resumed from Last-Event-ID ${lastId}; the answer came on ${describe(answeredOn)}`,
        post ? [post, ...gets] : [],
      ),
    );

    const runs = evidence.toolRuns.filter((run) => run.tool === tool).length;
    checks.push(
      check(
        'no-repost',
        { ...resumability, section: 'Resumability and Redelivery: resumption is via GET with Last-Event-ID, never a new POST (the tool has no idempotentHint)' },
        posts.length === 1 && runs === 1,
        posts.length === 1 && runs === 1
          ? `tools/call ${tool} was POSTed once and ran once`
          : `tools/call ${tool} was POSTed ${posts.length} times (${list(posts)}) and ran ${runs} times`,
        posts,
      ),
    );

    // Only where the server sent a retry interval (2025-11-25 priming events). A stream that was never cut left
    // nothing to wait for: resumed-with-last-event-id says why the scenario could not run.
    if (polling(revision)) {
      const gap = first && post?.endedAt !== undefined ? first.startedAt - post.endedAt : undefined;
      checks.push(
        check(
          'waited-retry',
          transports(revision, 'sending-messages-to-the-server', 'Sending Messages to the Server: the client MUST respect the retry field, waiting that long before reconnecting', 'MUST'),
          !cut || retry === undefined || gap === undefined || gap >= retry - RETRY_TOLERANCE_MS,
          !cut
            ? `nothing to time: ${notRun}`
            : retry === undefined
              ? `${describe(post!)} carried no retry field: nothing to respect`
              : gap === undefined
                ? `no GET reconnected the stream (retry was ${retry} ms): nothing to time`
                : `the stream ended at +${post!.endedAt!.toFixed(0)} ms and ${describe(first!)} came ${gap.toFixed(0)} ms later; retry was ${retry} ms (measured on the server's clock, ${RETRY_TOLERANCE_MS} ms allowed for timer granularity)`,
          post && first ? [post, first] : post ? [post] : [],
        ),
      );
    }
    return checks;
  },
  doctored: [
    {
      check: 'no-repost',
      how: 'the tool ran a second time',
      doctor: (e) => ({ ...e, toolRuns: [...e.toolRuns, ...e.toolRuns.slice(0, 1)] }),
    },
  ],
});
