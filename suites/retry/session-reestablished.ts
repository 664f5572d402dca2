import { HEADERS } from '../../protocol/http.ts';
import { STREAMABLE_REVISIONS } from '../../protocol/revisions.ts';
import { FIXTURE_TOOLS } from '../../servers/fixtures.ts';
import { expiringSessions, type ExpiringSessions } from '../../servers/personalities/expiring-sessions.ts';
import { checkIf, clientCompleted } from '../checks.ts';
import { describeOutcome, outcomeOf, settle } from '../outcome.ts';
import { defineScenario, type Evidence } from '../scenario.ts';
import { newSessionAfter404, sessionManagement } from '../spec.ts';
import { answerTo, label, labels, operatingSession, requests, sessionOf, withThrowawaySession } from '../wire.ts';
import { markSessionsEnded, unlessKeptNoSession } from '../resume/support.ts';
import { sessionEnded } from './support.ts';

/**
 * The session ends on the server after a first tools/list (which teaches the client the tools' annotations). The
 * next request, a tools/call of idempotent_count (annotated idempotentHint: true), gets 404: the client must start a
 * new session (initialize without the dead id) and, the call being idempotent, send it again once on the new session,
 * so the caller gets its result. A call, not a second listing: a listing may be answered from the client's cache and
 * never meet the 404.
 */
const IDEMPOTENT = FIXTURE_TOOLS.idempotentCount;

/**
 * The session the client's requests ran on (not one it set aside before, as mcp-remote's connection test), and the
 * request of it answered 404: not the DELETE that ends the session (close's), which asks for no new session.
 */
function lossOf(evidence: Evidence) {
  const dead = operatingSession(evidence);
  const lost = evidence.exchanges.find((exchange) => dead !== undefined && exchange.method !== 'DELETE' && sessionOf(exchange) === dead && exchange.status === 404);
  return { dead, lost };
}

export const sessionReestablished = defineScenario<{ expiring: ExpiringSessions }>({
  id: 'retry/session-reestablished',
  title: 'A lost legacy session is re-established and an idempotent request (a tools/call annotated idempotentHint: true) is retried once, successfully',
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
    const retried = await settle(bounded(client.callTool(IDEMPOTENT, {}), `tools/call ${IDEMPOTENT} after the session ended`));
    observe('afterExpiry', retried);
    // A client that surfaces the 404 may start its new session lazily: the next call shows whether it does.
    if (retried.state !== 'resolved') observe('later', await settle(bounded(client.callTool(FIXTURE_TOOLS.echo, { text: 'a later call' }), 'a later tools/call echo')));
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

    // The idempotent call sent again after the 404 (the one that met it is `lost`).
    const resent = requests(after, 'tools/call', IDEMPOTENT);
    const onReplacement = resent.filter((sent) => replacement !== undefined && sessionOf(sent.exchange) === replacement);
    const answered = onReplacement.filter((sent) => answerTo(exchanges, sent)?.result !== undefined);
    const outcome = outcomeOf(evidence, 'afterExpiry');
    const retriedOnce = outcome?.state === 'resolved' && resent.length === 1 && answered.length === 1;
    const met = lost ? (lost.requestMessages.find((m) => m.method !== undefined)?.method ?? lost.method) : undefined;

    return [
      unlessKeptNoSession(sessionEnded(revision, dead, lost), evidence),
      clientCompleted(evidence, sessionManagement(revision, 'the session is replaced and used', 'MUST')),
      checkIf(
        // Without a request that met the 404 (a DELETE ending the session is none), nothing asked for a new session.
        lost === undefined ? 'the session never met its 404' : undefined,
        'new-session-after-404',
        newSessionAfter404(revision),
        () => newSession,
        () =>
          newSession
            ? `after ${label(lost!)} the client sent initialize without a session id (${label(reinit.exchange)}) and got the new id ${reinitIssued}`
            : reinit === undefined
              ? `after ${label(lost!)} no new initialize was sent`
              : sessionOf(reinit.exchange) !== undefined
                ? `the initialize after ${label(lost!)} carried Mcp-Session-Id ${sessionOf(reinit.exchange)} (${label(reinit.exchange)})`
                : `the initialize after ${label(lost!)} got no new session id (${label(reinit.exchange)})`,
        [...(lost ? [lost] : []), ...(reinit ? [reinit.exchange] : [])],
      ),
      checkIf(
        lost === undefined ? `the session never met its 404: ${describeOutcome(outcome, `the tools/call of ${IDEMPOTENT}`)}` : undefined,
        'idempotent-retried-once',
        sessionManagement(
          revision,
          `the request the 404 answered is idempotent (a tools/call of ${IDEMPOTENT}, annotated idempotentHint: true): it is sent again once, on the new session (seed 000: a legacy session can be lost and re-established)`,
          'SHOULD',
        ),
        () => retriedOnce,
        () =>
          retriedOnce
            ? `${IDEMPOTENT} was sent again once on the new session ${replacement} and answered (${label(answered[0]!.exchange)})`
            : `${describeOutcome(outcome, `the tools/call of ${IDEMPOTENT}`)}; ${met === 'tools/call' ? '' : `the request that met the 404 was ${met}; `}${IDEMPOTENT} after the 404: ${labels(resent.map((s) => s.exchange))}` +
              (onReplacement.length === 0 ? '; none on a new session' : ''),
        resent.map((sent) => sent.exchange),
      ),
    ];
  },
  doctored: [
    {
      check: 'session-ended',
      unmet: true,
      how: 'no request with the issued id was answered 404 (the session never ended under the client)',
      doctor: (e) => ({ ...e, exchanges: e.exchanges.map((x) => (x.status === 404 && x.method !== 'DELETE' ? { ...x, status: 200 } : x)) }),
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
