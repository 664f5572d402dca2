import { HEADERS } from '../../protocol/http.ts';
import { STREAMABLE_REVISIONS } from '../../protocol/revisions.ts';
import { expiringSessions, type ExpiringSessions } from '../../servers/personalities/expiring-sessions.ts';
import { check, clientCompleted } from '../checks.ts';
import { describeOutcome, outcomeOf, settle } from '../outcome.ts';
import { defineScenario, type Evidence } from '../scenario.ts';
import { newSessionAfter404, sessionManagement } from '../spec.ts';
import { answerTo, label, labels, operatingSession, requests, sessionOf, withThrowawaySession } from '../wire.ts';
import { markSessionsEnded, unlessKeptNoSession } from '../resume/support.ts';
import { sessionEnded } from './support.ts';

/**
 * The session ends on the server between two `tools/list` calls. The second one gets 404: the client must start
 * a new session (initialize without the dead id) and, tools/list being idempotent, send it again once on the new
 * session, so the caller gets its result.
 */
/** The session the client's requests ran on (not one it set aside before, as mcp-remote's connection test), and the request of it answered 404. */
function lossOf(evidence: Evidence) {
  const dead = operatingSession(evidence);
  const lost = evidence.exchanges.find((exchange) => dead !== undefined && sessionOf(exchange) === dead && exchange.status === 404);
  return { dead, lost };
}

export const sessionReestablished = defineScenario<{ expiring: ExpiringSessions }>({
  id: 'retry/session-reestablished',
  title: 'A lost legacy session is re-established and an idempotent request (tools/list) is retried once, successfully',
  revisions: STREAMABLE_REVISIONS,
  requires: [],
  source: {
    spec: sessionManagement('2025-11-25', 'a 404 to a request carrying the session id → a new InitializeRequest without it', 'MUST'),
    seed: 'seed 000 (a legacy session can be lost and re-established)',
  },
  setup: () => {
    const expiring = expiringSessions();
    return { server: { personalities: [expiring] }, state: { expiring } };
  },
  async run(context) {
    const { connect, bounded, state, observe } = context;
    const client = await connect();
    await bounded(client.listTools(), 'tools/list');
    await state.expiring.expireNow();
    markSessionsEnded(context);
    const retried = await settle(bounded(client.listTools(), 'tools/list after the session ended'));
    observe('afterExpiry', retried);
    // A client that surfaces the 404 may start its new session lazily: the next call shows whether it does.
    if (retried.state !== 'resolved') observe('later', await settle(bounded(client.listTools(), 'a later tools/list')));
    await bounded(client.close(), 'close');
  },
  judge(evidence) {
    const { revision, exchanges } = evidence;
    const { dead, lost } = lossOf(evidence);
    const after = lost ? exchanges.filter((exchange) => exchange.seq > lost.seq) : [];
    const reinit = requests(after, 'initialize')[0];
    const reinitIssued = reinit?.exchange.responseHeaders[HEADERS.session];
    const newSession = reinit !== undefined && sessionOf(reinit.exchange) === undefined && reinitIssued !== undefined && reinitIssued !== dead;
    // The session the initialize after the 404 started.
    const replacement = reinitIssued !== dead ? reinitIssued : undefined;

    const lists = requests(after, 'tools/list');
    const onReplacement = lists.filter((sent) => replacement !== undefined && sessionOf(sent.exchange) === replacement);
    const answered = onReplacement.filter((sent) => answerTo(exchanges, sent)?.result !== undefined);
    const outcome = outcomeOf(evidence, 'afterExpiry');
    const retriedOnce = outcome?.state === 'resolved' && lists.length === 1 && answered.length === 1;

    return [
      unlessKeptNoSession(sessionEnded(revision, dead, lost), evidence),
      clientCompleted(evidence, sessionManagement(revision, 'the session is replaced and used', 'MUST')),
      check(
        'new-session-after-404',
        newSessionAfter404(revision),
        newSession,
        !lost
          ? 'the session never met its 404'
          : newSession
            ? `after ${label(lost)} the client sent initialize without a session id (${label(reinit.exchange)}) and got the new id ${reinitIssued}`
            : reinit === undefined
              ? `after ${label(lost)} no new initialize was sent`
              : sessionOf(reinit.exchange) !== undefined
                ? `the initialize after ${label(lost)} carried Mcp-Session-Id ${sessionOf(reinit.exchange)} (${label(reinit.exchange)})`
                : `the initialize after ${label(lost)} got no new session id (${label(reinit.exchange)})`,
        [...(lost ? [lost] : []), ...(reinit ? [reinit.exchange] : [])],
      ),
      check(
        'idempotent-retried-once',
        sessionManagement(revision, 'the request the 404 answered is idempotent (tools/list): it is sent again once, on the new session (seed 000: a legacy session can be lost and re-established)', 'SHOULD'),
        retriedOnce,
        retriedOnce
          ? `tools/list was sent again once on the new session ${replacement} and answered (${label(answered[0]!.exchange)})`
          : `${describeOutcome(outcome, 'the tools/list that met the 404')}; tools/list after the 404: ${labels(lists.map((s) => s.exchange))}` +
              (onReplacement.length === 0 ? '; none on a new session' : ''),
        lists.map((sent) => sent.exchange),
      ),
    ];
  },
  doctored: [
    {
      check: 'session-ended',
      unmet: true,
      how: 'no request with the issued id was answered 404 (the session never ended under the client)',
      doctor: (e) => ({ ...e, exchanges: e.exchanges.map((x) => (x.status === 404 ? { ...x, status: 200 } : x)) }),
    },
    {
      check: 'new-session-after-404',
      how: 'a throwaway session opened first (as mcp-remote does), and the initialize after the 404 sent with the dead id',
      doctor: (e) => {
        const opened = withThrowawaySession(e);
        const { dead, lost } = lossOf(opened);
        const reinit = lost && opened.exchanges.find((x) => x.seq > lost.seq && x.requestMessages.some((m) => m.method === 'initialize'));
        if (!reinit || dead === undefined) return opened;
        return { ...opened, exchanges: opened.exchanges.map((x) => (x === reinit ? { ...x, requestHeaders: { ...x.requestHeaders, [HEADERS.session]: dead } } : x)) };
      },
    },
  ],
});
