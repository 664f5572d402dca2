import { HEADERS } from '../../protocol/http.ts';
import { AUTH_NOTES } from '../../servers/authorization/protected-resource.ts';
import { FIXTURE_TOOLS } from '../../servers/fixtures.ts';
import type { WireExchange } from '../../servers/wire-record.ts';
import { check, clientCompleted, precondition } from '../checks.ts';
import { describeOutcome, outcomeOf, settle } from '../outcome.ts';
import { defineScenario } from '../scenario.ts';
import { authorization, resumability, sessionManagement } from '../spec.ts';
import { callsTool, label, labels } from '../wire.ts';
import { streamCutter, type StreamCutter } from '../resume/support.ts';
import { refusedAndRetried, renewalChecks } from './renewal.ts';
import { protectedSetup, SESSION_REVISIONS, type Protected } from './support.ts';

const CALL = 'call';

/** 2025-11-25 closes the stream itself (SSE polling); before it, the suite cuts the connection after an event id. */
const polling = (revision: string) => revision >= '2025-11-25';
const toolFor = (revision: string) => (polling(revision) ? FIXTURE_TOOLS.closeStream : 'test_tool_with_logging');

const isResumingGet = (exchange: WireExchange) => exchange.method === 'GET' && exchange.requestHeaders[HEADERS.lastEventId] !== undefined;

/**
 * A token that expires while a call's stream is away: the call's stream ends after an event id before the answer, and
 * the token expires just as the GET that resumes it (Last-Event-ID) arrives, which is answered 401 `invalid_token`. The client gets one new token and resumes again, with the same Last-Event-ID, in the same session,
 * where the answer waits; no new `initialize`, the call never POSTed again. At 2025-11-25 `close_stream` closes its own
 * stream after the priming event (SSE polling); at 2025-06-18, where a server SHOULD NOT close a stream before its
 * answer, the suite cuts the connection of `test_tool_with_logging` after its first event, as resume/sse-last-event-id
 * does.
 */
export const expiryOnResumedGet = defineScenario<Protected & { cutter?: StreamCutter }>({
  id: 'authorization/expiry-on-resumed-get',
  title: 'A token that expires while a call\'s stream is away meets the resuming GET (Last-Event-ID): one renewal, the same stream resumed in the same session',
  revisions: SESSION_REVISIONS,
  requires: ['oauth'],
  source: { spec: authorization('2025-11-25', 'token-requirements', 'Access Token Usage (authorization in every HTTP request, even within the same logical session); Error Handling (401: the token expired)', 'MUST') },
  setup: (revision) => {
    const { server, state } = protectedSetup();
    if (polling(revision)) return { server, state };
    // Behind the protected resource: a resuming GET is refused for its token before the cutter holds it.
    const cutter = streamCutter();
    return { server: { personalities: [...server.personalities!, cutter] }, state: { ...state, cutter } };
  },
  async run({ connect, bounded, state, observe, revision, time }) {
    const tool = toolFor(revision);
    // The token expires while the stream is away: just as the GET that resumes it arrives.
    state.resource.expireBefore(({ method, headers }) => method === 'GET' && headers[HEADERS.lastEventId] !== undefined);
    // The cutter holds a resuming GET until the era lets go of the cut stream (at its next write, one logging step).
    state.cutter?.cutNext(tool, 4 * time.ms.react);
    const client = await connect({ authorization: state.resource.clientAuthorization() });
    observe(CALL, await settle(bounded(client.callTool(tool, {}), `tools/call ${tool}`)));
    await bounded(client.close(), 'close');
  },
  judge(evidence) {
    const { revision } = evidence;
    const tool = toolFor(revision);
    const posts = evidence.exchanges.filter((x) => x.method === 'POST' && callsTool(x, tool));
    const post = posts[0];
    const { refused, retry } = refusedAndRetried(evidence, isResumingGet);
    const outcome = outcomeOf(evidence, CALL);
    const met = precondition(
      'resume-refused-as-expired',
      authorization(revision, 'error-handling', 'a request with an expired token is answered 401 invalid_token', 'MUST'),
      refused !== undefined,
      refused !== undefined
        ? `${label(refused)} (resuming ${post ? label(post) : 'the call'} from Last-Event-ID ${refused.requestHeaders[HEADERS.lastEventId]}) was answered 401 invalid_token (expired)`
        : post === undefined
          ? `no tools/call ${tool} was POSTed (${labels(evidence.exchanges)})`
          : `the client never resumed ${label(post)} with a GET and Last-Event-ID (resume/sse-last-event-id judges that): ${describeOutcome(outcome, 'the call')}`,
      refused ? [refused] : post ? [post] : [],
      // A client that never POSTed the call, or never resumed its stream, broke another rule first: what it did stands.
      // A resuming GET that was not refused is the suite's failure to act.
      { by: refused === undefined && !evidence.exchanges.some(isResumingGet) ? 'client' : undefined },
    );
    const answered = (x: WireExchange) => x.responseMessages.some(({ message }) => message.method === undefined && message.result !== undefined);
    return [
      met,
      clientCompleted(evidence, resumability(revision, 'the script runs to its end', 'SHOULD')),
      ...renewalChecks(evidence, refused, retry, {
            sentAgain: {
              name: 'resumed-after-renewal',
              spec: authorization(revision, 'error-handling', 'a 401 is answered by a new token, and the request (here the GET that resumes the stream) sent again with it', 'MUST'),
              what: 'the resuming GET',
            },
            session: sessionManagement(revision, 'a new token is no new session: the stream is resumed in the session it belonged to, with its negotiated version, and no new initialize', 'SHOULD'),
            once: authorization(revision, 'error-handling', 'one new token for the expiry: one refresh (or one authorization), not one per attempt', 'SHOULD'),
          }),
      check(
        'same-stream-resumed',
        resumability(revision, 'the client resumes with GET and the Last-Event-ID of the stream it lost; the answer is delivered there, never by POSTing the call again', 'SHOULD'),
        retry !== undefined && retry.requestHeaders[HEADERS.lastEventId] === refused?.requestHeaders[HEADERS.lastEventId] && answered(retry) && posts.length === 1 && outcome?.state === 'resolved',
        retry === undefined
          ? `no resuming GET was accepted after the refusal; tools/call ${tool} was POSTed ${posts.length} time(s) (${describeOutcome(outcome, 'the call')})`
          : `${label(retry)} resumed from Last-Event-ID ${retry.requestHeaders[HEADERS.lastEventId]} (refused: ${refused?.requestHeaders[HEADERS.lastEventId]})${answered(retry) ? ', and the answer came there' : ', but no answer came there'}; the call was POSTed ${posts.length} time(s) (${describeOutcome(outcome, 'the call')})`,
        [...posts, ...(refused ? [refused] : []), ...(retry ? [retry] : [])],
      ),
    ];
  },
  doctored: [
    {
      check: 'resume-refused-as-expired',
      unmet: true,
      how: 'no resuming GET was refused as expired (the personality did not act)',
      doctor: (e) => ({ ...e, exchanges: e.exchanges.map((x) => ({ ...x, notes: x.notes.filter((n) => n !== AUTH_NOTES.expired) })) }),
    },
    {
      check: 'same-session-kept',
      how: 'an initialize came after the refusal',
      doctor: (e) => {
        const { refused } = refusedAndRetried(e, isResumingGet);
        const init = e.exchanges.find((x) => x.requestMessages.some((m) => m.method === 'initialize'))!;
        return { ...e, exchanges: [...e.exchanges, { ...structuredClone(init), seq: refused!.seq + 0.5 }].sort((a, b) => a.seq - b.seq) };
      },
    },
    {
      check: 'renewed-once',
      how: 'the token request of the renewal sent twice',
      doctor: (e) => {
        const lane = e.authorization!.exchanges;
        const last = lane.at(-1)!;
        return { ...e, authorization: { ...e.authorization!, exchanges: [...lane, { ...structuredClone(last), seq: last.seq + 1 }] } };
      },
    },
    {
      check: 'same-stream-resumed',
      how: 'the call POSTed a second time',
      doctor: (e) => {
        const post = e.exchanges.find((x) => x.method === 'POST' && callsTool(x, toolFor(e.revision)))!;
        return { ...e, exchanges: [...e.exchanges, { ...structuredClone(post), seq: e.exchanges.at(-1)!.seq + 1 }] };
      },
    },
  ],
});
