import { AUTH_NOTES } from '../../servers/authorization/protected-resource.ts';
import { check, clientCompleted, precondition } from '../checks.ts';
import { describeOutcome, outcomeOf, settle } from '../outcome.ts';
import { defineScenario, type Evidence } from '../scenario.ts';
import { authorization, authorizationErrors, sessionManagement } from '../spec.ts';
import { label, labels, mcpExchanges, noted, sessionOf } from '../wire.ts';
import { connectedThenExpired, type Protected, protectedSetup, SESSION_REVISIONS, STIMULUS_AT, tokenRequests } from './support.ts';

const CLOSE = 'close';

/**
 * The DELETEs after the stimulus, and the token requests beyond the first authorization (each a renewal: the token
 * expired only at close; the authorization server's record keeps its own clock, so they are counted, not timed).
 */
function closing(evidence: Evidence) {
  const at = Number(evidence.observed[STIMULUS_AT] ?? Infinity);
  const deletes = evidence.exchanges.filter((x) => x.method === 'DELETE' && x.startedAt >= at);
  const refused = deletes.find((x) => x.status === 401);
  const renewals = tokenRequests(evidence).slice(1);
  return { at, deletes, refused, renewals };
}

/**
 * Close with an expired token (2025-06-18, 2025-11-25): the token expires before close() and the server refuses every
 * token from then on (the grant revoked), so the DELETE that ends the session is answered 401 `invalid_token` however
 * the client renews. The client may renew once and send the DELETE again, or skip it; either way close() settles, the
 * session ends on its side, and nothing follows: never a renewal loop, never a new session to end the old one.
 */
export const closeWithExpiredToken = defineScenario<Protected>({
  id: 'authorization/close-with-expired-token',
  title: 'Close with an expired token the server will not renew: the DELETE renewed at most once or skipped, never looped; close() settles and the session ends',
  revisions: SESSION_REVISIONS,
  requires: ['oauth'],
  source: { spec: authorization('2025-11-25', 'error-handling', 'Error Handling (401); Step-Up Authorization Flow (retry limits)', 'SHOULD') },
  setup: () => protectedSetup(),
  async run(context) {
    const { bounded, state, observe } = context;
    const client = await connectedThenExpired(context);
    state.resource.refuseEveryToken(true);
    observe(CLOSE, await settle(bounded(client.close(), 'close with an expired token')));
  },
  judge(evidence) {
    const { revision } = evidence;
    const { at, deletes, refused, renewals } = closing(evidence);
    const session = refused === undefined ? undefined : sessionOf(refused);
    const outcome = outcomeOf(evidence, CLOSE);
    const last = deletes.at(-1);
    const afterwards = last === undefined ? [] : mcpExchanges(evidence.exchanges, revision).filter((x) => x.seq > last.seq);
    const sentAfterStimulus = evidence.exchanges.filter((x) => x.startedAt >= at);
    return [
      precondition(
        'delete-refused',
        sessionManagement(revision, 'the client SHOULD end its session with a DELETE (here answered 401: the token expired)', 'SHOULD'),
        refused !== undefined,
        refused !== undefined
          ? `${label(refused)} of session ${session ?? '(none)'} was answered 401 invalid_token`
          : deletes.length > 0
            ? `no DELETE after the token expired was refused (${labels(deletes)}): the server did not act`
            : `the client sent no DELETE after the token expired (${labels(sentAfterStimulus)}): a client that ends its session without one, or kept no session to end, never meets the refusal`,
        refused ? [refused] : deletes,
        // No DELETE at close is a shape (a session per operation has none open; a DELETE is a SHOULD judged elsewhere),
        // unless the client never got a request through at all: then it kept itself from the close, and that stands.
        { by: refused === undefined && deletes.length === 0 ? (noted(evidence.exchanges, AUTH_NOTES.accepted).length > 0 ? 'shape' : 'client') : undefined },
      ),
      clientCompleted(evidence, sessionManagement(revision, 'the script runs to its end', 'MUST')),
      check(
        'renewed-at-most-once',
        authorizationErrors(revision, 'a DELETE refused 401 is renewed at most once, then given up (no authorization loop at close)', 'SHOULD'),
        renewals.length <= 1,
        `${renewals.length} token request(s) after the token expired (${renewals.map((r) => r.grant).join(', ') || 'none'})`,
      ),
      check(
        'delete-not-looped',
        authorizationErrors(revision, 'the DELETE is sent again at most once, with a new token (authorized) or not at all (skipped)', 'SHOULD'),
        deletes.length <= 2 && deletes.slice(1).every((x) => x.requestHeaders['authorization'] !== deletes[0]!.requestHeaders['authorization']),
        deletes.length <= 1
          ? `${labels(deletes)}: not sent again`
          : deletes.length > 2
            ? `the DELETE was sent ${deletes.length} times (${labels(deletes)})`
            : deletes[1]!.requestHeaders['authorization'] === deletes[0]!.requestHeaders['authorization']
              ? `${label(deletes[1]!)} sent the DELETE again with the token just refused`
              : `${label(deletes[1]!)} sent the DELETE again once, with a new token`,
        deletes,
      ),
      check(
        'close-settled',
        sessionManagement(revision, 'close() ends the session on the client\'s side whatever answers its DELETE: a refusal is no error of the close', 'SHOULD'),
        outcome?.state === 'resolved',
        describeOutcome(outcome, 'close()'),
      ),
      check(
        'session-ended',
        sessionManagement(revision, 'after its DELETE the client sends nothing more: no new initialize, no stream, no session to end the old one', 'SHOULD'),
        afterwards.length === 0,
        afterwards.length === 0 ? `nothing reached the MCP endpoint after ${last ? label(last) : 'the close'}` : `after the close: ${labels(afterwards)}`,
        afterwards,
      ),
    ];
  },
  doctored: [
    {
      check: 'delete-refused',
      unmet: true,
      how: 'the DELETE was let through (the personality did not act)',
      doctor: (e) => ({ ...e, exchanges: e.exchanges.map((x) => (x.method === 'DELETE' ? { ...x, status: 200, notes: [AUTH_NOTES.accepted] } : x)) }),
    },
    {
      check: 'renewed-at-most-once',
      how: 'the renewal sent twice',
      doctor: (e) => {
        const lane = e.authorization!.exchanges;
        const last = lane.at(-1)!;
        return { ...e, authorization: { ...e.authorization!, exchanges: [...lane, { ...structuredClone(last), seq: last.seq + 1 }] } };
      },
    },
    {
      check: 'delete-not-looped',
      how: 'the refused DELETE sent twice more with the same token',
      doctor: (e) => {
        const refused = e.exchanges.find((x) => x.method === 'DELETE' && x.status === 401)!;
        const next = e.exchanges.at(-1)!.seq;
        return { ...e, exchanges: [...e.exchanges, { ...structuredClone(refused), seq: next + 1 }, { ...structuredClone(refused), seq: next + 2 }] };
      },
    },
    {
      check: 'session-ended',
      how: 'an initialize after the DELETE',
      doctor: (e) => {
        const init = e.exchanges.find((x) => x.requestMessages.some((m) => m.method === 'initialize'))!;
        return { ...e, exchanges: [...e.exchanges, { ...structuredClone(init), seq: e.exchanges.at(-1)!.seq + 1 }] };
      },
    },
  ],
});
