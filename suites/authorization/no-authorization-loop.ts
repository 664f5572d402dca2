import { AUTH_NOTES } from '../../servers/authorization/protected-resource.ts';
import type { TimePolicy } from '../../config/time.ts';
import { FIXTURE_TOOLS } from '../../servers/fixtures.ts';
import type { WireExchange } from '../../servers/wire-record.ts';
import { check, clientCompleted, precondition } from '../checks.ts';
import { describeOutcome, outcomeOf, settle } from '../outcome.ts';
import { opensSseStream } from '../retry/support.ts';
import { defineScenario } from '../scenario.ts';
import { authorizationErrors, fallbackRule, sendingMessages } from '../spec.ts';
import { entryPath, label, labels, noted } from '../wire.ts';
import { AUTHORIZED_REVISIONS, protectedSetup, requestOf, resends, STIMULUS_AT, tokenRequests, type Protected } from './support.ts';

/** Bound on the refused call: a client that renews and retries must still give up well within it (six reaction times). */
const refusedBoundOf = (time: TimePolicy): number => 6 * time.ms.react;

const REFUSED = 'refusedCall';
const SETTLED_AT = 'refusedSettledAt';

/**
 * No death spiral: a server that refuses every token (401 `invalid_token`, whatever the client sends) gets the request
 * once, and once more after one renewal at most; the refusal then reaches the caller as an error within a bound. A 401
 * is no reason for an HTTP+SSE fallback or a new session.
 */
export const noAuthorizationLoop = defineScenario<Protected>({
  id: 'authorization/no-authorization-loop',
  title: 'Repeated 401s end in an error within a bound: no authorization loop, no fallback, no new session',
  revisions: AUTHORIZED_REVISIONS,
  requires: ['oauth'],
  source: { spec: authorizationErrors('2025-11-25', 'retry limits: repeated 401s end in an error', 'SHOULD') },
  setup: () => protectedSetup(),
  async run({ connect, bounded, state, observe, server, time }) {
    const client = await connect({ authorization: state.resource.clientAuthorization() });
    await bounded(client.callTool(FIXTURE_TOOLS.echo, { text: 'before the refusals' }), 'tools/call before the refusals');
    observe(STIMULUS_AT, server.record.now());
    state.resource.refuseEveryToken(true);
    observe(REFUSED, await settle(bounded(client.callTool(FIXTURE_TOOLS.echo, { text: 'refused whatever the token' }), 'tools/call refused whatever the token', refusedBoundOf(time))));
    observe(SETTLED_AT, server.record.now());
    state.resource.refuseEveryToken(false);
    await bounded(client.close(), 'close');
  },
  judge(evidence) {
    const { revision } = evidence;
    // The call refused, not a standalone GET stream that happened to open as the refusals began (it carries no request).
    const refusedAll = noted(evidence.exchanges, AUTH_NOTES.refused);
    const refused = refusedAll.find((x) => requestOf(x) !== undefined) ?? refusedAll[0];
    const settledAt = Number(evidence.observed[SETTLED_AT] ?? Infinity);
    const sentAfter = evidence.exchanges.filter((exchange) => exchange.startedAt >= Number(evidence.observed[STIMULUS_AT] ?? Infinity));
    const again = refused === undefined ? [] : resends(evidence.exchanges, refused).filter((x) => x.startedAt < settledAt);
    const renewals = tokenRequests(evidence).slice(1);
    // A request without a body refused before the call (that GET stream) may take a renewal of its own: whether renewals
    // are shared is one-renewal-in-flight's rule, not a loop. A loop shows after the call's refusal, where nothing is excused.
    const refusedBefore = refused === undefined ? 0 : refusedAll.filter((x) => x.seq < refused.seq && requestOf(x) === undefined).length;
    const own = new Set([refused, ...again]);
    const fellBack: WireExchange[] =
      refused === undefined
        ? []
        : evidence.exchanges.filter((x) => x.seq > refused.seq && x.startedAt < settledAt && !own.has(x) && (opensSseStream(x, revision) || x.requestMessages.some((m) => m.method === 'initialize')));
    const outcome = outcomeOf(evidence, REFUSED);
    const shown = refused === undefined ? [] : [refused];
    return [
      precondition(
        'refused-every-token',
        authorizationErrors(revision, 'a request is answered 401 whatever its token', 'SHOULD'),
        refused !== undefined,
        refused !== undefined ? `${label(refused)} was answered 401 invalid_token` : sentAfter.length > 0 ? `nothing sent after the refusals began was refused (${labels(sentAfter)})` : 'the client sent nothing once the refusals began',
        shown,
        { by: refused === undefined && sentAfter.length === 0 ? 'client' : undefined },
      ),
      clientCompleted(evidence, sendingMessages(revision, 'the script runs to its end (the refused call is expected and caught)', 'MUST')),
      check(
        'bounded-retries',
        authorizationErrors(revision, 'retry limits: a request refused again with a new token is not renewed and sent again (at most one renewal, one resend)', 'SHOULD'),
        again.length <= 1 && renewals.length <= 1 + Math.min(refusedBefore, 1),
        `the refused request was sent ${again.length} more time(s) (${labels(again)}), with ${renewals.length} token request(s) after the first authorization${refusedBefore > 0 ? ` (one excused: a stream refused before the call took its own)` : ''}`,
        [...shown, ...again],
      ),
      check(
        'no-fallback-or-new-session',
        fallbackRule(revision, 'a 401 is no reason to try HTTP+SSE (fallback only on 400, 404 or 405) or to start a new session', 'SHOULD'),
        fellBack.length === 0,
        fellBack.length === 0 ? 'no GET opening an HTTP+SSE stream and no new initialize followed the refusal' : `after the refusal: ${labels(fellBack)}`,
        [...shown, ...fellBack],
      ),
      check(
        'error-reaches-caller',
        authorizationErrors(revision, 'the refusal reaches the caller as an error, within the bound', 'SHOULD'),
        outcome?.state === 'rejected' && outcome.hung !== true,
        describeOutcome(outcome, 'the refused call'),
      ),
    ];
  },
  doctored: [
    {
      check: 'no-fallback-or-new-session',
      how: 'a GET for an HTTP+SSE stream after the refusal',
      doctor: (e) => {
        const refused = noted(e.exchanges, AUTH_NOTES.refused)[0]!;
        const get: WireExchange = { ...structuredClone(refused), method: 'GET', path: entryPath(e.revision), requestHeaders: { accept: 'text/event-stream' }, requestBody: '', requestMessages: [], notes: [], startedAt: refused.startedAt + 0.1 };
        const at = e.exchanges.indexOf(refused) + 1;
        const exchanges = [...e.exchanges.slice(0, at), get, ...e.exchanges.slice(at)];
        return { ...e, exchanges: exchanges.map((x, index) => ({ ...x, seq: index + 1 })) };
      },
    },
    {
      check: 'error-reaches-caller',
      how: 'the refused call reported as a success',
      doctor: (e) => ({ ...e, observed: { ...e.observed, [REFUSED]: { state: 'resolved', afterMs: 1 } } }),
    },
    {
      check: 'refused-every-token',
      unmet: true,
      how: 'no request was refused (the personality did not act)',
      doctor: (e) => ({ ...e, exchanges: e.exchanges.map((x) => ({ ...x, notes: x.notes.filter((n) => n !== AUTH_NOTES.refused) })) }),
    },
  ],
});
