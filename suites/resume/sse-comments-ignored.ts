// resume/sse-comments-ignored: the server (personality sse-comments) writes SSE comment lines, the keep-alives servers
// and proxies send, into every event stream: before the first event, between events and after the last, `:` alone and
// `: keep-alive`, ended by CRLF and by LF. The client reads its answers through them and takes none of its streams for
// broken: no request sent again, no stream resumed (GET + Last-Event-ID) or reopened.
//
// Where it runs: every revision. 2026-07-28 states the rule (Streamable HTTP › Receiving Messages, a Note: clients must
// ignore such lines and must not treat them as malformed input); every earlier revision streams with Server-Sent
// Events, whose standard ignores such a line: a convention there, judged the same way. The streams are 2024-11-05's
// GET stream (every answer), 2025-03-26 … 2025-11-25's POST streams (and the standalone GET stream, when the client
// opens one: a client declaring `listen` is asked to), and at 2026-07-28 every answer, which the personality makes a
// stream. The logging tool makes a stream of several events (its log messages, then the answer), so comments come
// between events too; at 2026-07-28 the SDK sends a log only to a request that names a log level, so there its
// streams carry one event, with comments before and after it.
//
// In the resume suite: what a client that misreads a comment does is what this suite judges, taking a stream for
// broken (resuming it with Last-Event-ID, or sending the request again), as resume/sse-last-event-id judges a stream
// that really was cut.
import { HEADERS } from '../../protocol/http.ts';
import { isHttpSse, L_AND_M } from '../../protocol/revisions.ts';
import { CONFORMANCE_TEXT } from '../../servers/conformance-fixtures.ts';
import { SSE_PATH } from '../../servers/eras/http-sse.ts';
import { FIXTURE_TOOLS } from '../../servers/fixtures.ts';
import { SSE_COMMENT_NOTES, sseComments } from '../../servers/personalities/sse-comments.ts';
import type { WireExchange } from '../../servers/wire-record.ts';
import { check, clientCompleted, precondition } from '../checks.ts';
import { defineScenario, type Evidence } from '../scenario.ts';
import { sseCommentLines } from '../spec.ts';
import { answerOf, labels, mcpExchanges, noted, operatingSession, pathOf, requests, requestsBySessionAndId, sessionKey, sessionOf } from '../wire.ts';

/** What the echo call sends, and must get back through the comments. */
export const ECHO_TEXT = 'read past the comments';
/** The tool whose stream has several events: three log messages, then its answer. */
export const LOGGING_TOOL = 'test_tool_with_logging';
/** The calls the script makes, one each. */
const CALLED = [FIXTURE_TOOLS.echo, LOGGING_TOOL] as const;

const textOf = (result: { content: unknown[] }): unknown => (result.content[0] as { text?: unknown } | undefined)?.text;

/** Client requests of these methods: the operations, whose answers the script reads (not the handshake). */
const OPERATIONS = new Set(['tools/list', 'tools/call']);

/** The streams the personality put comments in, by where. */
function commented(evidence: Evidence) {
  return {
    streams: noted(evidence.exchanges, SSE_COMMENT_NOTES.beforeFirstEvent),
    between: noted(evidence.exchanges, SSE_COMMENT_NOTES.betweenEvents),
    after: noted(evidence.exchanges, SSE_COMMENT_NOTES.afterLastEvent),
  };
}

/** The client requests each stream answered, by method (an answer is a message with the request's id and no method). */
function answeredOn(stream: WireExchange, evidence: Evidence): string[] {
  // The request each answer is to, on its own connection (answerOf): the same id in another session is another request.
  const sent = requests(evidence.exchanges);
  return stream.responseMessages.flatMap((answer) => {
    const request = sent.find((r) => answerOf(evidence.exchanges, r) === answer);
    return request ? [request.message.method!] : [];
  });
}

/** When the script began to close (the record's clock): what came after is the close's, not the calls'. */
const closingAt = (evidence: Evidence): number | undefined => {
  const at = evidence.observed['closingAt'];
  return typeof at === 'number' ? at : undefined;
};

/**
 * What a client that took a stream for broken did before it closed: resumed one with GET + Last-Event-ID (the server
 * cut none), or hung up on a stream and opened another of the same kind (2025-03-26 … 2025-11-25: the standalone GET
 * stream of its session; 2024-11-05: the GET stream, after one that carried the answer to an operation).
 */
function reconnections(evidence: Evidence): { resumed: WireExchange[]; reopened: WireExchange[]; after: WireExchange[] } {
  const until = closingAt(evidence);
  const beforeClose = (at: number) => until === undefined || at < until;
  const gets = evidence.exchanges.filter((x) => x.method === 'GET' && beforeClose(x.startedAt));
  const resumed = gets.filter((x) => x.requestHeaders[HEADERS.lastEventId] !== undefined);
  const streams = gets.filter((x) => x.requestHeaders[HEADERS.lastEventId] === undefined && x.status === 200 && x.sse);
  const hungUp = (x: WireExchange) => x.endedBy === 'client' && x.endedAt !== undefined && beforeClose(x.endedAt);
  let kind: (x: WireExchange) => boolean;
  if (isHttpSse(evidence.revision)) {
    // A stream is taken for broken when the client hangs up on it while it still owes the answer to an operation POSTed
    // to its endpoint. A client that ends a session it is done with (a client per operation ends one after each
    // operation) hangs up on a stream that owes nothing, and the stream it opens next is a new session, not a reconnect.
    const operations = requests(evidence.exchanges).filter((r) => OPERATIONS.has(r.message.method!));
    const owes = (x: WireExchange) =>
      operations.some((r) => sessionKey(evidence.exchanges, r.exchange) === sessionKey(evidence.exchanges, x) && !((answerOf(evidence.exchanges, r)?.at ?? Infinity) <= x.endedAt!));
    kind = (x) => pathOf(x) === SSE_PATH && owes(x);
  } else {
    const session = operatingSession(evidence);
    kind = (x) => session !== undefined && sessionOf(x) === session;
  }
  const dropped = streams.filter((x) => kind(x) && hungUp(x));
  const reopened = streams.filter((x) => dropped.some((d) => x.startedAt >= d.endedAt! && x !== d && (isHttpSse(evidence.revision) || sessionOf(x) === sessionOf(d))));
  return { resumed, reopened, after: dropped.filter((d) => reopened.some((x) => x.startedAt >= d.endedAt!)) };
}

/** A request id sent twice in one session (the same method, both accepted: `requestsBySessionAndId`), and each call sent or run more than once. */
function repeats(evidence: Evidence) {
  const accepted = mcpExchanges(evidence.exchanges, evidence.revision).filter((x) => x.method === 'POST' && (x.status === undefined || x.status < 400));
  // Within a session (wire.ts sessionKey): a client per operation restarts its ids in each; 2026-07-28 has no sessions,
  // so there a call sent again is told by `again` below (the same tool sent or run more than once).
  const sameId = [...requestsBySessionAndId(evidence.exchanges, requests(accepted)).values()]
    .map((same) => same.filter((r) => r.message.method === same[0]!.message.method).map((r) => r.exchange))
    .filter((exchanges) => exchanges.length > 1);
  const calls = CALLED.map((tool) => ({
    tool,
    sent: requests(evidence.exchanges, 'tools/call', tool).map((r) => r.exchange),
    ran: evidence.toolRuns.filter((run) => run.tool === tool).length,
  }));
  return { sameId, again: calls.filter((c) => c.sent.length > 1 || c.ran > 1), calls };
}

export const sseCommentsIgnored = defineScenario({
  id: 'resume/sse-comments-ignored',
  title: 'SSE comment lines (keep-alives) before, between and after the events of every stream are ignored: the answers come through, and no stream is taken for broken',
  revisions: L_AND_M,
  requires: [],
  optional: ['listen'],
  source: { spec: sseCommentLines('2026-07-28', 'a keep-alive comment on a stream is no event and no error') },
  setup: () => ({ server: { personalities: [sseComments()] }, state: undefined }),
  async run({ connect, bounded, observe, features, wire }) {
    // A client that declares `listen` opens the standalone GET stream too (Streamable HTTP), which gets comments.
    const client = await connect(features.includes('listen') ? { listen: true } : {});
    const tools = await bounded(client.listTools(), 'tools/list');
    observe('tools', tools.map((tool) => tool.name));
    observe('echo', textOf(await bounded(client.callTool(FIXTURE_TOOLS.echo, { text: ECHO_TEXT }), `tools/call ${FIXTURE_TOOLS.echo}`)));
    observe('logged', textOf(await bounded(client.callTool(LOGGING_TOOL, {}), `tools/call ${LOGGING_TOOL}`)));
    observe('closingAt', wire.record.now());
    await bounded(client.close(), 'close');
  },
  judge(evidence) {
    const { revision } = evidence;
    const rule = (section: string) => sseCommentLines(revision, section);
    const { streams, between, after } = commented(evidence);
    const delivered = streams.flatMap((x) => answeredOn(x, evidence));

    const observed = evidence.observed;
    const tools = Array.isArray(observed['tools']) ? (observed['tools'] as unknown[]) : undefined;
    const answers = [
      { what: 'tools/list', ok: tools?.includes(FIXTURE_TOOLS.echo) === true, got: tools === undefined ? 'nothing' : `${tools.length} tools${tools.includes(FIXTURE_TOOLS.echo) ? '' : ', without echo'}` },
      { what: `tools/call ${FIXTURE_TOOLS.echo}`, ok: observed['echo'] === ECHO_TEXT, got: JSON.stringify(observed['echo']) ?? 'nothing', want: JSON.stringify(ECHO_TEXT) },
      { what: `tools/call ${LOGGING_TOOL}`, ok: observed['logged'] === CONFORMANCE_TEXT.loggingDone, got: JSON.stringify(observed['logged']) ?? 'nothing', want: JSON.stringify(CONFORMANCE_TEXT.loggingDone) },
    ];
    const wrong = answers.filter((a) => !a.ok);

    const { sameId, again, calls } = repeats(evidence);
    const { resumed, reopened, after: hungUp } = reconnections(evidence);

    return [
      precondition(
        'comments-sent',
        rule('the server sent comment lines on the streams the client opened'),
        streams.length > 0,
        streams.length > 0
          ? `comments before the first event of ${labels(streams)}; between events on ${labels(between)}; after the last event on ${labels(after)}; answers through them: ${delivered.join(', ') || 'none'}`
          : `the server sent no event stream to put comments in (${labels(evidence.exchanges)})`,
        streams,
      ),
      clientCompleted(evidence, rule('every operation completes over streams that carry comment lines')),
      check(
        'answers-delivered',
        rule('the answers after the comments reach the caller whole'),
        wrong.length === 0,
        wrong.length === 0
          ? `the adapter returned every answer: ${answers.map((a) => a.what).join(', ')}`
          : wrong.map((a) => `${a.what} returned ${a.got}${a.want ? `, not ${a.want}` : ''}`).join('; '),
        streams,
      ),
      check(
        'no-repost',
        rule('a stream carrying comments is not broken: no request is sent again'),
        sameId.length === 0 && again.length === 0,
        sameId.length === 0 && again.length === 0
          ? `every request id was POSTed once, and ${calls.map((c) => `${c.tool} was called ${c.sent.length === 1 ? 'once' : `${c.sent.length} times`}`).join(', ')}`
          : [
              ...sameId.map((xs) => `the same request was POSTed ${xs.length} times with one id (${labels(xs)})`),
              ...again.map((c) => `tools/call ${c.tool} was sent ${c.sent.length} times (${labels(c.sent)}) and ran ${c.ran} times`),
            ].join('; '),
        [...sameId.flat(), ...again.flatMap((c) => c.sent)],
      ),
      check(
        'no-reconnect',
        rule('a stream carrying comments is not broken: it is neither resumed (GET + Last-Event-ID) nor hung up on and opened again'),
        resumed.length === 0 && reopened.length === 0,
        resumed.length === 0 && reopened.length === 0
          ? 'before close no stream was resumed or opened again'
          : [
              resumed.length > 0 ? `streams the server never cut were resumed with Last-Event-ID: ${labels(resumed)}` : '',
              reopened.length > 0 ? `the client hung up on ${labels(hungUp)} and opened ${labels(reopened)}` : '',
            ]
              .filter(Boolean)
              .join('; '),
        [...resumed, ...hungUp, ...reopened],
      ),
    ];
  },
  doctored: [
    {
      check: 'comments-sent',
      unmet: true,
      how: 'the server put no comments in its streams',
      doctor: (e: Evidence) => ({ ...e, exchanges: e.exchanges.map((x) => ({ ...x, notes: x.notes.filter((n) => !(Object.values(SSE_COMMENT_NOTES) as string[]).includes(n)) })) }),
    },
    {
      check: 'no-repost',
      how: 'the echo call POSTed again with its id, and run again',
      doctor: (e: Evidence) => {
        const call = e.exchanges.find((x) => x.method === 'POST' && requests([x], 'tools/call', FIXTURE_TOOLS.echo).length > 0);
        if (call === undefined) return e;
        const again = { ...structuredClone(call), seq: e.exchanges.length + 1, startedAt: call.startedAt + 1 };
        return { ...e, exchanges: [...e.exchanges, again], toolRuns: [...e.toolRuns, ...e.toolRuns.filter((run) => run.tool === FIXTURE_TOOLS.echo)] };
      },
    },
    {
      check: 'no-reconnect',
      how: 'a GET with Last-Event-ID after the echo call, before close',
      doctor: (e: Evidence) => {
        const call = e.exchanges.find((x) => requests([x], 'tools/call', FIXTURE_TOOLS.echo).length > 0);
        if (call === undefined) return e;
        const resume: WireExchange = {
          ...structuredClone(call),
          seq: e.exchanges.length + 1,
          method: 'GET',
          requestHeaders: { ...call.requestHeaders, [HEADERS.lastEventId]: 'stream:1' },
          requestBody: '',
          requestMessages: [],
          responseMessages: [],
          sseEvents: [],
          status: 200,
          sse: true,
          startedAt: call.startedAt + 1,
          notes: [],
        };
        return { ...e, exchanges: [...e.exchanges, resume] };
      },
    },
  ],
});
