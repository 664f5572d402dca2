import { AUTH_NOTES } from '../../servers/authorization/protected-resource.ts';
import { FIXTURE_TOOLS } from '../../servers/fixtures.ts';
import type { WireExchange } from '../../servers/wire-record.ts';
import { check, clientCompleted, precondition } from '../checks.ts';
import { describeOutcome, outcomeOf, settle } from '../outcome.ts';
import { defineScenario, type Evidence } from '../scenario.ts';
import { sendingMessages } from '../spec.ts';
import { label, labels, noted } from '../wire.ts';
import { authorizationRequests, authorizationSection, queryOf, scopesOf, STEP_UP_REVISIONS } from './flow.ts';
import { protectedSetup, resends, STIMULUS_AT, type Protected } from './support.ts';

/** The scope every token is granted at first (the 401's challenge names it) and the one the server then asks for. */
export const HELD_SCOPE = 'mcp';
export const STEP_UP_SCOPE = 'mcp:write';

const AFTER = 'afterChallenge';

const stepUpRule = (evidence: Evidence, section: string, level: 'MUST' | 'SHOULD' = 'SHOULD') =>
  authorizationSection(evidence.revision, 'step-up-authorization-flow', `Scope Challenge Handling › Step-Up Authorization Flow: ${section}`, level);

/** The setup both scenarios share: tokens granted `mcp` at first; the authorization server knows `mcp:write` too. */
const stepUpSetup = () => protectedSetup({ challengeScope: HELD_SCOPE, authorization: { scopes: [HELD_SCOPE, STEP_UP_SCOPE] } });

/** The first request answered 403 insufficient_scope, the authorization requests after it, and its re-sends. */
function challengeOf(evidence: Evidence) {
  const challenged = noted(evidence.exchanges, AUTH_NOTES.insufficientScope);
  const first = challenged[0];
  const sentAfter = evidence.exchanges.filter((exchange) => exchange.startedAt >= Number(evidence.observed[STIMULUS_AT] ?? Infinity));
  const all = authorizationRequests(evidence);
  // The lane and the MCP record have their own clocks, so the lane's own order tells: its first authorization request is
  // the one the 401 at connect asked for (whatever scopes it added, offline_access say), every later one a step-up.
  const firstAuthorizations = all.slice(0, 1);
  const stepUps = all.slice(1);
  const again = first === undefined ? [] : resends(evidence.exchanges, first);
  return { challenged, first, sentAfter, firstAuthorizations, stepUps, again };
}

function challengedPrecondition(evidence: Evidence, first: WireExchange | undefined, sentAfter: readonly WireExchange[]) {
  return precondition(
    'scope-challenged',
    stepUpRule(evidence, 'a request whose token lacks a scope is answered 403 insufficient_scope naming it'),
    first !== undefined,
    first !== undefined ? `${label(first)} was answered 403 (${first.responseHeaders['www-authenticate'] ?? 'no challenge'})` : sentAfter.length > 0 ? `nothing sent after the scope was required was answered 403 (${labels(sentAfter)})` : 'the client sent nothing once the scope was required',
    first === undefined ? [] : [first],
    { by: first === undefined && sentAfter.length === 0 ? 'client' : undefined },
  );
}

/**
 * Step-up (2025-11-25 on): the server starts asking a scope the token lacks (403 `insufficient_scope`,
 * `scope="mcp:write"`); the client authorizes again (a refresh keeps the old scope) asking it — at 2026-07-28 with the
 * scope it held, the union — and sends the request again once, which is then answered.
 */
export const stepUp = defineScenario<Protected>({
  id: 'authorization/step-up',
  title: 'A 403 insufficient_scope: one new authorization for the challenged scope (and, 2026-07-28, the held one), the request sent again once',
  revisions: STEP_UP_REVISIONS,
  requires: ['oauth'],
  source: { spec: authorizationSection('2025-11-25', 'step-up-authorization-flow', 'Scope Challenge Handling › Step-Up Authorization Flow', 'SHOULD') },
  setup: stepUpSetup,
  async run({ connect, bounded, state, observe, server }) {
    const client = await connect({ authorization: state.resource.clientAuthorization() });
    await bounded(client.callTool(FIXTURE_TOOLS.echo, { text: `with scope ${HELD_SCOPE}` }), 'tools/call with the first token');
    observe(STIMULUS_AT, server.record.now());
    state.resource.requireScope(STEP_UP_SCOPE);
    observe(AFTER, await settle(bounded(client.callTool(FIXTURE_TOOLS.echo, { text: `needs scope ${STEP_UP_SCOPE}` }), 'tools/call that needs the step-up')));
    await bounded(client.close(), 'close');
  },
  judge(evidence) {
    const { revision } = evidence;
    const { first, sentAfter, stepUps, again } = challengeOf(evidence);
    const stepUp = stepUps[0];
    const asked = stepUp === undefined ? [] : scopesOf(queryOf(stepUp).get('scope'));
    const retry = again[0];
    const outcome = outcomeOf(evidence, AFTER);
    const shown = first === undefined ? [] : [first];
    return [
      challengedPrecondition(evidence, first, sentAfter),
      clientCompleted(evidence, sendingMessages(revision, 'the script runs to its end', 'MUST')),
      check(
        'stepped-up',
        stepUpRule(evidence, 'respond to insufficient_scope by requesting a new access token with the scope the challenge names (a step-up authorization: a refresh keeps the scope it had)'),
        stepUps.length === 1 && asked.includes(STEP_UP_SCOPE),
        stepUp === undefined ? 'no new authorization request followed the 403' : `${stepUps.length} new authorization request(s); the first asked scope="${asked.join(' ')}"`,
        shown,
      ),
      ...(revision === '2026-07-28'
        ? [
            check(
              'scope-union',
              stepUpRule(evidence, 'the scope asked is the union of the scope the client asked before and the challenge\'s, so previously granted permissions are preserved'),
              stepUp !== undefined && asked.includes(HELD_SCOPE) && asked.includes(STEP_UP_SCOPE),
              stepUp === undefined ? 'no step-up to judge' : `the step-up asked scope="${asked.join(' ')}" (held: ${HELD_SCOPE}; challenged: ${STEP_UP_SCOPE})`,
              shown,
            ),
          ]
        : []),
      check(
        'retried-once',
        stepUpRule(evidence, 'retry the original request with the new authorization'),
        again.length === 1 && retry?.notes.includes(AUTH_NOTES.accepted) === true,
        first === undefined ? 'nothing was challenged' : again.length === 0 ? `${label(first)} was never sent again` : `sent again ${again.length} time(s): ${labels(again)}${retry?.notes.includes(AUTH_NOTES.accepted) ? '' : ' (not accepted)'}`,
        [...shown, ...again],
      ),
      check('call-completed', stepUpRule(evidence, 'the call that needed the scope is answered'), outcome?.state === 'resolved', describeOutcome(outcome, 'the call that needed the step-up')),
    ];
  },
  doctored: [
    {
      check: 'retried-once',
      how: 'the re-sent request dropped from the record',
      doctor: (e) => {
        const first = noted(e.exchanges, AUTH_NOTES.insufficientScope)[0]!;
        const dropped = new Set(resends(e.exchanges, first));
        return { ...e, exchanges: e.exchanges.filter((x) => !dropped.has(x)) };
      },
    },
    {
      check: 'call-completed',
      how: 'the call reported as failed',
      doctor: (e) => ({ ...e, observed: { ...e.observed, [AFTER]: { state: 'rejected', afterMs: 1, detail: 'doctored' } } }),
    },
    {
      check: 'scope-challenged',
      unmet: true,
      how: 'no 403 on the record (the personality did not act)',
      doctor: (e) => ({ ...e, exchanges: e.exchanges.map((x) => ({ ...x, notes: x.notes.filter((n) => n !== AUTH_NOTES.insufficientScope) })) }),
    },
  ],
});

/**
 * The step-up's retry limit (2025-11-25 on): the server asks a scope and refuses the token of the step-up too (403
 * again, whatever the token holds): the client stops there (one step-up, one re-send) and the caller gets an error.
 */
export const stepUpRetryLimit = defineScenario<Protected>({
  id: 'authorization/step-up-retry-limit',
  title: 'A step-up refused again (403 once more): no second step-up, the error reaches the caller',
  revisions: STEP_UP_REVISIONS,
  requires: ['oauth'],
  source: { spec: authorizationSection('2025-11-25', 'step-up-authorization-flow', 'Scope Challenge Handling › Step-Up Authorization Flow (retry limits)', 'SHOULD') },
  setup: stepUpSetup,
  async run({ connect, bounded, state, observe, server }) {
    const client = await connect({ authorization: state.resource.clientAuthorization() });
    await bounded(client.callTool(FIXTURE_TOOLS.echo, { text: `with scope ${HELD_SCOPE}` }), 'tools/call with the first token');
    observe(STIMULUS_AT, server.record.now());
    // The scope asked, and never enough: the token of the step-up is refused 403 again.
    state.resource.requireScope(STEP_UP_SCOPE, true);
    observe(AFTER, await settle(bounded(client.callTool(FIXTURE_TOOLS.echo, { text: `needs scope ${STEP_UP_SCOPE}, never enough` }), 'tools/call refused whatever the step-up')));
    state.resource.requireScope(undefined);
    await bounded(client.close(), 'close');
  },
  judge(evidence) {
    const { revision } = evidence;
    const { challenged, first, sentAfter, stepUps, again } = challengeOf(evidence);
    const refusedAgain = challenged.filter((exchange) => again.includes(exchange));
    const outcome = outcomeOf(evidence, AFTER);
    const shown = first === undefined ? [] : [first];
    return [
      challengedPrecondition(evidence, first, sentAfter),
      precondition(
        'step-up-refused',
        stepUpRule(evidence, 'the request sent again after a step-up is refused 403 once more'),
        refusedAgain.length > 0,
        refusedAgain.length > 0 ? `${label(refusedAgain[0]!)}, sent again after the step-up, was answered 403 again` : 'the client never sent the request again after a step-up',
        refusedAgain,
        { by: 'client' },
      ),
      clientCompleted(evidence, sendingMessages(revision, 'the script runs to its end (the refused call is expected and caught)', 'MUST')),
      check(
        'bounded-step-up',
        stepUpRule(evidence, 'retry the original request no more than a few times and treat this as a permanent authorization failure; implement retry limits'),
        stepUps.length <= 1 && again.length <= 1,
        `${stepUps.length} step-up authorization request(s); the refused request sent again ${again.length} time(s)${again.length > 0 ? ` (${labels(again)})` : ''}`,
        [...shown, ...again],
      ),
      check('error-reaches-caller', stepUpRule(evidence, 'the refusal reaches the caller as an error (a permanent authorization failure)'), outcome?.state === 'rejected' && outcome.hung !== true, describeOutcome(outcome, 'the refused call')),
    ];
  },
  doctored: [
    {
      check: 'error-reaches-caller',
      how: 'the refused call reported as a success',
      doctor: (e) => ({ ...e, observed: { ...e.observed, [AFTER]: { state: 'resolved', afterMs: 1 } } }),
    },
    {
      check: 'scope-challenged',
      unmet: true,
      how: 'no 403 on the record (the personality did not act)',
      doctor: (e) => ({ ...e, exchanges: e.exchanges.map((x) => ({ ...x, notes: x.notes.filter((n) => n !== AUTH_NOTES.insufficientScope) })) }),
    },
    {
      check: 'step-up-refused',
      unmet: true,
      how: 'the re-sent request dropped from the record',
      doctor: (e) => {
        const first = noted(e.exchanges, AUTH_NOTES.insufficientScope)[0]!;
        const dropped = new Set(resends(e.exchanges, first));
        return { ...e, exchanges: e.exchanges.filter((x) => !dropped.has(x)) };
      },
    },
  ],
});
