import { AUTH_NOTES } from '../../servers/authorization/protected-resource.ts';
import { FIXTURE_TOOLS } from '../../servers/fixtures.ts';
import { check, clientCompleted, precondition } from '../checks.ts';
import { describeOutcome, outcomeOf, settle } from '../outcome.ts';
import { defineScenario, type Evidence } from '../scenario.ts';
import { authorization, sendingMessages, sessionManagement } from '../spec.ts';
import { after, label, labels, noted, sessionOf } from '../wire.ts';
import { bearerOf, connectedThenExpired, type Protected, protectedSetup, resends, SESSION_REVISIONS, STIMULUS_AT, tokenRequests } from './support.ts';

const AFTER = 'afterExpiry';

/** The first request refused because its token expired, and what the client sent for it afterwards. */
export function expiryOf(evidence: Evidence) {
  const refused = noted(evidence.exchanges, AUTH_NOTES.expired)[0];
  const sentAfter = evidence.exchanges.filter((exchange) => exchange.startedAt >= Number(evidence.observed[STIMULUS_AT] ?? Infinity));
  const retries = refused === undefined ? [] : resends(evidence.exchanges, refused);
  const retry = retries.find((exchange) => exchange.notes.includes(AUTH_NOTES.accepted));
  return { refused, sentAfter, retries, retry };
}

/** Token requests beyond the first (the first authorization): each a renewal. */
export const renewalsOf = (evidence: Evidence) => tokenRequests(evidence).slice(1);

/**
 * A token that expires mid-session (2025-06-18, 2025-11-25): the next request is answered 401 `invalid_token`; the
 * client gets a new token once (a refresh, or the authorization again) and sends the request again in the same session,
 * with the negotiated version it had: a new token is no new session, and no new `initialize`.
 */
export const tokenExpiryKeepsSession = defineScenario<Protected>({
  id: 'authorization/token-expiry-keeps-session',
  title: 'A token that expires mid-session: one renewal, the request sent again in the same session',
  revisions: SESSION_REVISIONS,
  requires: ['oauth'],
  source: { spec: authorization('2025-11-25', 'error-handling', 'Error Handling (401: token invalid or expired; the client authorizes and retries)', 'MUST') },
  setup: () => protectedSetup(),
  async run(context) {
    const { bounded, observe } = context;
    const client = await connectedThenExpired(context);
    observe(AFTER, await settle(bounded(client.callTool(FIXTURE_TOOLS.echo, { text: 'after the token expired' }), 'tools/call after the token expired')));
    await bounded(client.close(), 'close');
  },
  judge(evidence) {
    const { revision } = evidence;
    const { refused, sentAfter, retry } = expiryOf(evidence);
    const session = refused === undefined ? undefined : sessionOf(refused);
    const renewals = renewalsOf(evidence);
    const between = refused === undefined || retry === undefined ? [] : evidence.exchanges.filter((x) => x.seq > refused.seq && x.seq < retry.seq);
    const reinitialized = between.filter((x) => x.requestMessages.some((m) => m.method === 'initialize'));
    const outcome = outcomeOf(evidence, AFTER);
    const refusedNote = refused === undefined ? [] : [refused];
    return [
      precondition(
        'token-expired-in-session',
        authorization(revision, 'error-handling', 'a request with an expired token is answered 401', 'MUST'),
        refused !== undefined && session !== undefined,
        refused === undefined
          ? sentAfter.length > 0
            ? `no request after the token expired was refused (${labels(sentAfter)}): the server did not act`
            : 'the client sent nothing after the token expired'
          : session === undefined
            ? `the refused request (${label(refused)}) belonged to no session: it opened one of its own, as a client with a session per operation does`
            : `${label(refused)} of session ${session} was answered 401 invalid_token (expired)`,
        refusedNote,
        { by: refused === undefined ? (sentAfter.length > 0 ? undefined : 'client') : session === undefined ? 'shape' : undefined },
      ),
      clientCompleted(evidence, sendingMessages(revision, 'the script runs to its end', 'MUST')),
      check(
        'retried-after-renewal',
        authorization(revision, 'error-handling', 'a 401 is answered by a new authorization, and the request sent again with the new token', 'MUST'),
        retry !== undefined && bearerOf(retry) !== bearerOf(refused!),
        retry !== undefined ? `${label(retry)} carried the request again with a new token, and was accepted` : `the refused request was never accepted on a later send (${describeOutcome(outcome, 'the call')})`,
        [...refusedNote, ...(retry ? [retry] : [])],
      ),
      check(
        'same-session-kept',
        sessionManagement(revision, 'a new token is no new session: the request is sent again in the session it belonged to, with its negotiated version, and no new initialize', 'SHOULD'),
        retry !== undefined && sessionOf(retry) === session && reinitialized.length === 0 && retry.requestHeaders['mcp-protocol-version'] === refused!.requestHeaders['mcp-protocol-version'],
        retry === undefined
          ? 'the request was never sent again and accepted'
          : reinitialized.length > 0
            ? `a new initialize (${labels(reinitialized)}) came between the refusal and the retry`
            : sessionOf(retry) !== session
              ? `the retry carried session ${sessionOf(retry) ?? 'none'}, not ${session}`
              : retry.requestHeaders['mcp-protocol-version'] !== refused!.requestHeaders['mcp-protocol-version']
                ? `the retry carried MCP-Protocol-Version ${retry.requestHeaders['mcp-protocol-version']}, not ${refused!.requestHeaders['mcp-protocol-version']}`
                : `the retry went in session ${session} with its version, and no initialize came between`,
        [...refusedNote, ...reinitialized, ...(retry ? [retry] : [])],
      ),
      check(
        'renewed-once',
        authorization(revision, 'error-handling', 'one new token for the expiry: one refresh (or one authorization), not one per attempt', 'SHOULD'),
        renewals.length === 1,
        `${renewals.length} token request(s) after the first authorization (${renewals.map((r) => r.grant).join(', ') || 'none'})`,
      ),
      check(
        'call-completed',
        authorization(revision, 'error-handling', 'the caller never sees an expiry the client could renew', 'SHOULD'),
        outcome?.state === 'resolved',
        describeOutcome(outcome, 'the call after the token expired'),
      ),
    ];
  },
  doctored: [
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
      check: 'token-expired-in-session',
      unmet: true,
      how: 'no request was refused as expired (the personality did not act)',
      doctor: (e) => ({ ...e, exchanges: e.exchanges.map((x) => ({ ...x, notes: x.notes.filter((n) => n !== AUTH_NOTES.expired) })) }),
    },
  ],
});
