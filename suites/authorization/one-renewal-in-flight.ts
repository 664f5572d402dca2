import { AUTH_NOTES } from '../../servers/authorization/protected-resource.ts';
import { FIXTURE_TOOLS } from '../../servers/fixtures.ts';
import { check, clientCompleted, precondition } from '../checks.ts';
import { describeOutcome, outcomeOf, settle } from '../outcome.ts';
import { defineScenario } from '../scenario.ts';
import { authorization, sendingMessages } from '../spec.ts';
import { labels, noted } from '../wire.ts';
import { AUTHORIZED_REVISIONS, bearerOf, connectedThenExpired, type Protected, protectedSetup, STIMULUS_AT, tokenRequests } from './support.ts';

/** The calls sent together once the token expired. */
const CALLS = ['first', 'second', 'third'] as const;

/**
 * Calls in flight when the token expires: each is answered 401 `invalid_token`, and the client gets one new token for
 * all of them (one refresh), never one each; a rotated refresh token is spent once (a second use is refused, and an
 * authorization server may revoke the whole grant for it).
 */
export const oneRenewalInFlight = defineScenario<Protected>({
  id: 'authorization/one-renewal-in-flight',
  title: 'Calls in flight when the token expires: one refresh for all, a rotated refresh token used once',
  revisions: AUTHORIZED_REVISIONS,
  requires: ['oauth'],
  source: { spec: authorization('2025-11-25', 'error-handling', 'Error Handling (401: token invalid or expired) and refresh-token rotation', 'SHOULD') },
  setup: () => protectedSetup(),
  async run(context) {
    const { bounded, observe } = context;
    const client = await connectedThenExpired(context);
    const outcomes = await Promise.all(CALLS.map((text) => settle(bounded(client.callTool(FIXTURE_TOOLS.echo, { text }), `tools/call ${text}`))));
    CALLS.forEach((text, index) => observe(text, outcomes[index]));
    await bounded(client.close(), 'close');
  },
  judge(evidence) {
    const { revision } = evidence;
    const refused = noted(evidence.exchanges, AUTH_NOTES.expired);
    // Refused with the same (expired) token: what one renewal can serve.
    const byToken = new Map<string, number>();
    for (const exchange of refused) byToken.set(bearerOf(exchange) ?? '', (byToken.get(bearerOf(exchange) ?? '') ?? 0) + 1);
    const together = Math.max(0, ...byToken.values());
    const sentAfter = evidence.exchanges.filter((exchange) => exchange.startedAt >= Number(evidence.observed[STIMULUS_AT] ?? Infinity));
    const renewals = tokenRequests(evidence).slice(1);
    const spent = tokenRequests(evidence).flatMap((request) => (request.refreshToken === undefined ? [] : [request.refreshToken]));
    const reused = spent.filter((token, index) => spent.indexOf(token) !== index);
    const unanswered = CALLS.filter((text) => outcomeOf(evidence, text)?.state !== 'resolved');
    return [
      precondition(
        'refused-together',
        authorization(revision, 'error-handling', 'requests with an expired token are answered 401', 'MUST'),
        together >= 2,
        together >= 2
          ? `${together} requests carrying the same expired token were answered 401 (${labels(refused)})`
          : sentAfter.length > 0
            ? `fewer than two requests with the same expired token were refused (${labels(sentAfter)}): the calls did not overlap, or the server did not act`
            : 'the client sent nothing after the token expired',
        refused,
        // A client that sends one request at a time (a queue) never has two in flight: nothing to share.
        { by: sentAfter.length === 0 ? 'client' : refused.length >= 1 ? 'shape' : undefined },
      ),
      clientCompleted(evidence, sendingMessages(revision, 'the script runs to its end', 'MUST')),
      check(
        'one-renewal-for-all',
        authorization(revision, 'error-handling', 'one new token for every request refused with the same expired one, not one each', 'SHOULD'),
        renewals.length === 1,
        `${renewals.length} token request(s) after the first authorization for ${together} refused requests (${renewals.map((r) => r.grant).join(', ') || 'none'})`,
        refused,
      ),
      check(
        'refresh-token-used-once',
        authorization(revision, 'token-handling', 'a rotated refresh token is spent once (OAuth 2.1 §4.3.1: the authorization server invalidates it)', 'SHOULD'),
        reused.length === 0,
        reused.length === 0 ? `each refresh token was sent once (${spent.length} refresh(es))` : `a refresh token was sent ${spent.length - new Set(spent).size + 1} times`,
      ),
      check(
        'every-call-completed',
        authorization(revision, 'error-handling', 'every call refused for the expiry is answered once the token is renewed', 'SHOULD'),
        unanswered.length === 0,
        unanswered.length === 0 ? 'the three calls were answered' : unanswered.map((text) => describeOutcome(outcomeOf(evidence, text), `the call ${text}`)).join('; '),
      ),
    ];
  },
  doctored: [
    {
      check: 'refresh-token-used-once',
      how: 'the refresh request sent twice with the same refresh token',
      doctor: (e) => {
        const lane = e.authorization!.exchanges;
        const refresh = lane.filter((x) => x.requestBody.includes('grant_type=refresh_token')).at(-1)!;
        return { ...e, authorization: { ...e.authorization!, exchanges: [...lane, { ...structuredClone(refresh), seq: lane.length + 1 }] } };
      },
    },
    {
      check: 'refused-together',
      unmet: true,
      how: 'no request was refused as expired (the personality did not act)',
      doctor: (e) => ({ ...e, exchanges: e.exchanges.map((x) => ({ ...x, notes: x.notes.filter((n) => n !== AUTH_NOTES.expired) })) }),
    },
    {
      check: 'every-call-completed',
      how: 'the second call reported as rejected',
      doctor: (e) => ({ ...e, observed: { ...e.observed, second: { state: 'rejected', afterMs: 1, detail: 'doctored' } } }),
    },
  ],
});
