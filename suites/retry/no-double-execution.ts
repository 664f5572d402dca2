import { HEADERS } from '../../protocol/http.ts';
import { isModern, L_AND_M, type Revision } from '../../protocol/revisions.ts';
import { FIXTURE_TOOLS } from '../../servers/fixtures.ts';
import { dropConnection, type DropConnection } from '../../servers/personalities/drop-connection.ts';
import type { JsonRpcMessage, SentMessage, WireExchange } from '../../servers/wire-record.ts';
import { check, checkIf, clientCompleted, precondition } from '../checks.ts';
import { describeOutcome, outcomeOf, settle } from '../outcome.ts';
import { defineScenario, type Check, type Evidence } from '../scenario.ts';
import { doubleExecutionRule, reissuedIds, resumability, sendingMessages } from '../spec.ts';
import { answerTo, idsReusedInSession, label, labels, noted, requests, withRefusedAttemptSharingId, withThrowawaySession } from '../wire.ts';

/** Where a tool closes its own stream after the priming event, so its answer comes back only through GET + Last-Event-ID. */
const RESUMABLE: readonly Revision[] = ['2025-11-25'];

const NON_IDEMPOTENT = [FIXTURE_TOOLS.count, FIXTURE_TOOLS.closeStream] as const;

/** A request's params without the 2026-07-28 `_meta` envelope: what makes a request the same one sent again. */
function paramsOf(message: JsonRpcMessage): string {
  const { _meta: _envelope, ...params } = message.params ?? {};
  return JSON.stringify(params);
}

/**
 * 2026-07-28 re-issues that kept the id of the request they re-issue: a later request with the method and params of
 * one whose connection the server dropped, and its id. That revision has no sessions (wire.ts sessionKey: each request
 * is its own scope), so a re-issue is told by what it repeats, on whatever connection it goes: this spans connections.
 */
function reissuesKeepingIdAcrossConnections(exchanges: readonly WireExchange[]): SentMessage[] {
  const sent = requests(exchanges);
  const lost = sent.filter((s) => s.exchange.endedBy === 'server-dropped' || s.exchange.notes.includes('dropped-after-handler'));
  return sent.filter((later) =>
    lost.some((original) => original.exchange.seq < later.exchange.seq && original.message.method === later.message.method && paramsOf(original.message) === paramsOf(later.message) && original.message.id === later.message.id),
  );
}

/**
 * Requests whose id was used before where the rule says it must not be: legacy, an earlier request of the same session
 * (an initialize#0 of a session the client set aside, or of a Streamable HTTP attempt refused before the HTTP+SSE
 * fallback, is another scope; so is each session of a client per operation); 2026-07-28, the request it re-issues.
 */
function reusedIds(revision: Revision, exchanges: readonly WireExchange[]): SentMessage[] {
  return isModern(revision) ? reissuesKeepingIdAcrossConnections(exchanges) : idsReusedInSession(exchanges);
}

/**
 * The connection drops after the server ran a `tools/call` of `count` (no idempotentHint): the server counts its
 * runs, and more than one is a failure. At 2025-11-25 `close_stream` cuts its own stream after the priming event:
 * the way back to its answer is GET + Last-Event-ID (the same request resumed), never a second POST. Then the
 * allowed path: `idempotent_count` (idempotentHint: true) dropped the same way may be sent again, with a new id.
 */
export const noDoubleExecution = defineScenario<{ drop: DropConnection }>({
  id: 'retry/no-double-execution',
  title: 'A call whose connection drops after the server received it is never executed twice; a re-issued request carries a new id',
  revisions: L_AND_M,
  requires: [],
  source: { spec: doubleExecutionRule('2026-07-28'), seed: 'seed 003 (a tool call cannot be sent twice)' },
  setup: () => {
    const drop = dropConnection();
    return { server: { personalities: [drop] }, state: { drop } };
  },
  async run({ connect, bounded, state, observe, server, revision, time }) {
    const client = await connect();
    // The client learns the tools' annotations (idempotentHint) here.
    await bounded(client.listTools(), 'tools/list');
    state.drop.dropNext(1, { method: 'tools/call', when: 'after' });
    observe('count', await settle(bounded(client.callTool(FIXTURE_TOOLS.count, {}), 'tools/call count, dropped after the handler')));
    // HTTP+SSE: the handler may run just after the POST was cut (its answer travels on the stream).
    await server.fixtures.waitForRun((run) => run.tool === FIXTURE_TOOLS.count, 'count to run', 4 * time.ms.react).catch(() => {});
    if (RESUMABLE.includes(revision)) {
      observe('closeStream', await settle(bounded(client.callTool(FIXTURE_TOOLS.closeStream, {}), 'tools/call close_stream (its stream is cut after the priming event)')));
    }
    state.drop.dropNext(1, { method: 'tools/call', when: 'after' });
    observe('idempotent', await settle(bounded(client.callTool(FIXTURE_TOOLS.idempotentCount, {}), 'tools/call idempotent_count, dropped after the handler')));
    await bounded(client.close(), 'close');
  },
  judge(evidence) {
    const { revision, exchanges } = evidence;
    const dropped = noted(exchanges, 'dropped-after-handler');
    const calls = (tool: string) => requests(exchanges, 'tools/call', tool);
    const runs = (tool: string) => evidence.toolRuns.filter((run) => run.tool === tool).length;
    const expected = NON_IDEMPOTENT.filter((tool) => tool !== FIXTURE_TOOLS.closeStream || RESUMABLE.includes(revision));
    const twice = expected.filter((tool) => runs(tool) > 1);
    const countDropped = dropped.some((exchange) => exchange.requestMessages.some((m) => m.params?.['name'] === FIXTURE_TOOLS.count));

    const checks: Check[] = [
      precondition(
        'count-dropped',
        doubleExecutionRule(revision),
        countDropped,
        countDropped ? 'the connection of the tools/call of count was dropped after the server ran it' : 'the tools/call of count was never dropped after its handler: the scenario could not drive the client there',
      ),
      clientCompleted(evidence, sendingMessages(revision, 'the script runs to its end (the failed calls are expected and caught)', 'MUST')),
      check(
        'non-idempotent-ran-once',
        doubleExecutionRule(revision),
        runs(FIXTURE_TOOLS.count) === 1 && twice.length === 0,
        expected.map((tool) => `${tool} ran ${runs(tool)} time${runs(tool) === 1 ? '' : 's'} (sent ${calls(tool).length}: ${labels(calls(tool).map((s) => s.exchange))})`).join('; ') +
          `; ${describeOutcome(outcomeOf(evidence, 'count'), 'the call of count')}`,
        expected.flatMap((tool) => calls(tool).map((s) => s.exchange)).sort((a, b) => a.seq - b.seq),
      ),
    ];

    if (RESUMABLE.includes(revision)) {
      const [cut] = calls(FIXTURE_TOOLS.closeStream);
      const resumes = cut ? exchanges.filter((e) => e.method === 'GET' && e.seq > cut.exchange.seq && e.requestHeaders[HEADERS.lastEventId] !== undefined) : [];
      const answered = cut ? resumes.some((e) => e.responseMessages.some(({ message }) => message.id === cut.message.id && message.result !== undefined)) : false;
      // The server cuts the stream only where the request negotiated SSE polling (a priming event went out).
      const notCut = cut !== undefined && cut.exchange.responseMessages.some(({ message }) => message.id === cut.message.id);
      const closeStream = outcomeOf(evidence, 'closeStream');
      // Where the server answered on the stream (the request negotiated no SSE polling) nothing was cut: the resume rule
      // does not come into this case, as at the revisions without it.
      if (!notCut) {
        checks.push(
          checkIf(
            !cut ? 'no tools/call of close_stream reached the server' : undefined,
            'resumed-with-last-event-id',
            resumability(revision, 'to resume after a disconnection the client SHOULD GET with Last-Event-ID, where the answer is redelivered (not POST the call again)', 'SHOULD'),
            () => answered,
            () =>
              answered
                ? `close_stream's answer was redelivered on ${labels(resumes)}`
                : resumes.length > 0
                  ? `the client resumed (${labels(resumes)}) but the answer to close_stream never came: ${describeOutcome(closeStream, 'the call')}`
                  : `no GET with Last-Event-ID followed the cut stream of ${label(cut!.exchange)}: ${describeOutcome(closeStream, 'the call')}`,
            [...(cut ? [cut.exchange] : []), ...resumes],
          ),
        );
      }
    }

    const reused = reusedIds(revision, exchanges);
    checks.push(
      check(
        'reissued-with-new-id',
        reissuedIds(revision),
        reused.length === 0,
        reused.length === 0
          ? `${isModern(revision) ? 'no re-issue of a dropped request kept its id' : 'no request reused an id of its session'}${calls(FIXTURE_TOOLS.idempotentCount).length > 1 ? ` (idempotent_count was re-issued with ids ${calls(FIXTURE_TOOLS.idempotentCount).map((s) => s.message.id).join(', ')})` : ''}`
          : `${isModern(revision) ? 're-issued with the id of the dropped request' : 'request ids used again in their session'}: ${reused.map((s) => `${s.message.method}#${String(s.message.id)} on ${label(s.exchange)}`).join(', ')}`,
        reused.length > 0 ? reused.map((s) => s.exchange) : calls(FIXTURE_TOOLS.idempotentCount).map((s) => s.exchange),
      ),
    );

    const idempotent = calls(FIXTURE_TOOLS.idempotentCount);
    const reissuedAndAnswered = idempotent.length > 1 && idempotent.slice(1).some((s) => answerTo(exchanges, s)?.result !== undefined);
    checks.push(
      check(
        'idempotent-may-be-reissued',
        sendingMessages(revision, 'a tool annotated idempotentHint: true may be sent again after a dropped connection (the allowed retry path; informational)', 'MAY'),
        reissuedAndAnswered,
        reissuedAndAnswered
          ? `idempotent_count was sent again after the drop and answered (${labels(idempotent.map((s) => s.exchange))})`
          : `idempotent_count was not sent again after the drop (${labels(idempotent.map((s) => s.exchange))}): ${describeOutcome(outcomeOf(evidence, 'idempotent'), 'the call')}`,
        idempotent.map((s) => s.exchange),
      ),
    );
    return checks;
  },
  doctored: [
    {
      check: 'count-dropped',
      unmet: true,
      how: 'no tools/call was dropped after its handler',
      doctor: (e) => ({ ...e, exchanges: e.exchanges.map((x) => ({ ...x, notes: x.notes.filter((note) => note !== 'dropped-after-handler') })) }),
    },
    {
      check: 'reissued-with-new-id',
      how: 'ids restarting per session (a throwaway session first, or the refused attempt before the HTTP+SSE fallback sharing the initialize id), and the re-issued idempotent_count carrying the id of the first',
      doctor: (e) => {
        const opened = withThrowawaySession(e);
        const exchanges = withRefusedAttemptSharingId(opened.exchanges);
        const [first, again] = requests(exchanges, 'tools/call', FIXTURE_TOOLS.idempotentCount);
        if (!first || !again) return { ...opened, exchanges };
        const reused = (m: JsonRpcMessage) => (m === again.message ? { ...m, id: first.message.id } : m);
        return { ...opened, exchanges: exchanges.map((x) => (x === again.exchange ? { ...x, requestMessages: x.requestMessages.map(reused) } : x)) };
      },
    },
    {
      check: 'idempotent-may-be-reissued',
      how: 'the re-issued idempotent_count removed',
      doctor: (e) => withoutLaterCalls(e, FIXTURE_TOOLS.idempotentCount),
    },
  ],
});

/** The evidence without every tools/call of `tool` after its first. */
function withoutLaterCalls(evidence: Evidence, tool: string): Evidence {
  const sends = evidence.exchanges.filter((x: WireExchange) => x.requestMessages.some((m) => m.method === 'tools/call' && m.params?.['name'] === tool));
  const later = new Set(sends.slice(1).map((x) => x.seq));
  return { ...evidence, exchanges: evidence.exchanges.filter((x) => !later.has(x.seq)) };
}
