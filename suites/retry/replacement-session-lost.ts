// retry/replacement-session-lost: the session ends under the client, and so does every session started after it, at
// its first request (a server that keeps losing sessions: a restart loop, a misrouting balancer). The client starts a
// new session after the 404 and retries the call there (idempotent_count, annotated idempotentHint: true; a call, since
// a listing may be answered from the client's cache and never meet a 404); that retry meets a 404 too. The call must then come to an
// end (reject): a client that keeps re-initializing and retrying, or waits for a session that never comes, hangs its
// caller for ever. A client that starts no new session after the 404 never reaches that rule by its own doing: it
// broke the MUST before it (replacement-started), and that failure stands (judged at the scenario's SHOULD).
import { STREAMABLE_REVISIONS } from '../../protocol/revisions.ts';
import { FIXTURE_TOOLS } from '../../servers/fixtures.ts';
import { expiringSessions, type ExpiringSessions } from '../../servers/personalities/expiring-sessions.ts';
import type { WireExchange } from '../../servers/wire-record.ts';
import { check, clientCompleted, precondition, unexercised } from '../checks.ts';
import { describeOutcome, outcomeOf, settle, type Outcome } from '../outcome.ts';
import { checkInTime } from '../deadlines.ts';
import { defineScenario, type Evidence } from '../scenario.ts';
import { newSessionAfter404, timeouts } from '../spec.ts';
import { carrying, label, labels, sessionOf } from '../wire.ts';

/**
 * A client may start a few sessions for one call (the reference starts two: one after each 404) and then give up; one
 * that has started more than this many after the first 404, and has still not settled the call, is looping: no load
 * on the machine makes a client start sessions it would not start on a quiet one.
 */
const LOOPING_AFTER = 5;

/** The tool the script calls after the loss: one a client may send again on its new session. */
const IDEMPOTENT = FIXTURE_TOOLS.idempotentCount;

/** The calls the script watched, in order. */
const CALLS = ['afterLoss', 'later'] as const;

/** A 404 to a request carrying a session id: the session met its end. */
const lostOn = (exchange: WireExchange) => exchange.status === 404 && sessionOf(exchange) !== undefined && exchange.requestMessages.some((m) => m.method !== undefined && m.id !== undefined);

/**
 * The first session lost, the first replacement (a session first used after that 404) lost too, the initializes sent
 * after the first loss, and the first of them that started a new session (no session id, answered).
 */
function losses(evidence: Evidence) {
  const { exchanges } = evidence;
  const first = exchanges.find(lostOn);
  const replacement = first ? exchanges.find((e) => e.seq > first.seq && lostOn(e) && sessionOf(e) !== sessionOf(first) && !exchanges.some((x) => x.seq < first.seq && sessionOf(x) === sessionOf(e))) : undefined;
  const reinitializes = first ? carrying(exchanges, 'initialize').filter((e) => e.seq > first.seq) : [];
  const started = reinitializes.find((e) => sessionOf(e) === undefined && e.status !== undefined && e.status >= 200 && e.status < 300);
  return { first, replacement, reinitializes, started };
}

export const replacementSessionLost = defineScenario<{ expiring: ExpiringSessions }>({
  id: 'retry/replacement-session-lost',
  title: 'The replacement session is lost too (a 404 again right after the re-initialize): the call settles, it does not hang or loop',
  revisions: STREAMABLE_REVISIONS,
  requires: [],
  source: {
    spec: timeouts('2025-11-25', 'establish timeouts for all sent requests, to prevent hung connections and resource exhaustion', 'SHOULD'),
    seed: 'issue 28 (a second 404 right after the re-initialize: the call hung for ever)',
  },
  setup: () => {
    const expiring = expiringSessions();
    return { server: { personalities: [expiring] }, state: { expiring } };
  },
  async run({ connect, bounded, state, observe }) {
    const client = await connect();
    await bounded(client.listTools(), 'tools/list');
    // From now on every session ends at its first request: this one at the next, each replacement at its first.
    state.expiring.afterRequests(0);
    const lost = await settle(bounded(client.callTool(IDEMPOTENT, {}), `tools/call ${IDEMPOTENT} after the session (and each replacement) ended`));
    observe(CALLS[0], lost);
    // A client that surfaced the first 404 may start its new session lazily: the next call meets the second 404.
    if (lost.state === 'rejected') observe(CALLS[1], await settle(bounded(client.callTool(IDEMPOTENT, {}), `a later tools/call ${IDEMPOTENT}`)));
    // Closing is not this scenario's rule: a DELETE answered 404 (the session is gone) may fail it. A hang still fails
    // (the runner judges every close).
    observe('close', await settle(bounded(client.close(), 'close')));
  },
  judge(evidence) {
    const { revision, time } = evidence;
    const { first, replacement, reinitializes, started } = losses(evidence);
    const rule = timeouts(revision, 'a call whose replacement session is lost too comes to an end (it rejects): no endless re-initialize and retry, no wait for ever, so no hung call and no exhausted server', 'SHOULD');
    const watched = CALLS.map((key) => ({ key, outcome: outcomeOf(evidence, key) })).filter((c): c is { key: (typeof CALLS)[number]; outcome: Outcome } => c.outcome !== undefined);
    const hung = watched.filter((c) => c.outcome.state === 'pending');
    const looping = reinitializes.length > LOOPING_AFTER;
    const said = watched.map((c) => describeOutcome(c.outcome, c.key === 'afterLoss' ? 'the call after the session ended' : 'the later call')).join('; ');
    const sessions = `${reinitializes.length} initialize${reinitializes.length === 1 ? '' : 's'} after the first 404${reinitializes.length > 0 ? ` (${labels(reinitializes, 3)})` : ''}`;
    return [
      precondition(
        'replacement-session-lost',
        newSessionAfter404(revision),
        replacement !== undefined,
        !first
          ? 'no request carrying a session id was answered 404: the scenario could not end the session under the client'
          : !replacement
            ? `after ${label(first)} no request on a new session met a 404: the client started no replacement session, or sent nothing on it (${said}; ${sessions})`
            : `${label(first)} ended the session, and ${label(replacement)} the replacement`,
        [...(first ? [first] : []), ...(replacement ? [replacement] : [])],
        // A client that never started (or used) a replacement kept itself from the rule: replacement-started says how.
        first ? { by: 'client' } : {},
      ),
      // The step before the rule: after the 404 the client starts a new session (within the call, or at the next one).
      // One that never does keeps itself from the rule by breaking that MUST first, and that failure stands.
      first === undefined
        ? unexercised('replacement-started', newSessionAfter404(revision), 'no session ended under the client')
        : check(
            'replacement-started',
            newSessionAfter404(revision),
            started !== undefined,
            started !== undefined
              ? `after ${label(first)} the client started a new session with ${label(started)}`
              : reinitializes.length > 0
                ? `after ${label(first)} every initialize the client sent carried a session id or was refused (${labels(reinitializes, 3)}): no new session started (${said})`
                : `after ${label(first)} the client sent no initialize: no new session started (${said})`,
            [first, ...(started ? [started] : reinitializes.slice(0, 3))],
          ),
      clientCompleted(evidence, newSessionAfter404(revision)),
      checkInTime(
        time,
        'call-settles',
        rule,
        hung.length === 0 ? true : looping ? false : 'late',
        hung.length === 0
          ? `${said}; ${sessions}`
          : looping
            ? `the call never settled and the client kept starting sessions for it: ${sessions}; ${said}`
            : `${said}; ${sessions}`,
        [...(replacement ? [replacement] : []), ...reinitializes.slice(0, 3)],
      ),
    ];
  },
  doctored: [
    {
      check: 'replacement-session-lost',
      unmet: true,
      how: 'no request was answered 404 (no session ended under the client)',
      doctor: (e) => ({ ...e, exchanges: e.exchanges.map((x) => (x.status === 404 ? { ...x, status: 200 } : x)) }),
    },
  ],
});
