import { AUTH_NOTES } from '../../servers/authorization/protected-resource.ts';
import { FIXTURE_TOOLS } from '../../servers/fixtures.ts';
import { check, clientCompleted, precondition } from '../checks.ts';
import { describeOutcome, outcomeOf, settle } from '../outcome.ts';
import { defineScenario, type Evidence } from '../scenario.ts';
import { authorization } from '../spec.ts';
import { label, noted } from '../wire.ts';
import { AUTHORIZED_REVISIONS, protectedSetup, type Protected } from './support.ts';

const REDIRECTED_TEXT = 'redirected';
const REDIRECTED = 'redirectedCall';

/** What reached the other origin: each request's method, path, and whether it carried an Authorization header (never its value). */
interface DecoyHit {
  method: string;
  path: string;
  authorization: boolean;
}

const hitsOf = (evidence: Evidence): DecoyHit[] => (Array.isArray(evidence.observed['decoy']) ? (evidence.observed['decoy'] as DecoyHit[]) : []);

/**
 * Tokens never to another origin (2025-06-18 on): once the client holds a token, the MCP server answers one call 307
 * Temporary Redirect to the same path on another origin (a decoy on another loopback port that answers 403). A client
 * may follow it (method and body kept) or not; one that follows drops its Authorization header on the way, as the
 * Fetch standard's redirect does: the token is for its MCP server alone. The session goes on at the server it was
 * given. (An HTTP+SSE `endpoint` on another origin is the same rule at 2024-11-05, which has no authorization: see
 * security/endpoint-origin, where the reference refuses the endpoint before any request goes there.)
 */
export const noTokenAcrossRedirect = defineScenario<Protected>({
  id: 'authorization/no-token-across-redirect',
  title: 'A 307 to another origin: the access token does not follow the redirect, and the session goes on',
  revisions: AUTHORIZED_REVISIONS,
  requires: ['oauth'],
  source: { spec: authorization('2025-11-25', 'token-handling', 'Token Handling (tokens are for their resource alone); Security Considerations › Token Theft', 'MUST') },
  setup: () => protectedSetup(),
  async run({ connect, bounded, state, observe }) {
    state.resource.redirectOnce(({ messages }) => messages.some((m) => m.method === 'tools/call' && (m.params as { arguments?: { text?: unknown } } | undefined)?.arguments?.text === REDIRECTED_TEXT));
    const client = await connect({ authorization: state.resource.clientAuthorization() });
    await bounded(client.callTool(FIXTURE_TOOLS.echo, { text: 'with a token' }), 'tools/call with a token');
    // The decoy answers 403: a call that followed the redirect fails, and that is no fault of the client's.
    observe(REDIRECTED, await settle(bounded(client.callTool(FIXTURE_TOOLS.echo, { text: REDIRECTED_TEXT }), 'tools/call answered 307 to another origin')));
    await bounded(client.callTool(FIXTURE_TOOLS.echo, { text: 'after the redirect' }), 'tools/call after the redirect');
    await bounded(client.close(), 'close');
    observe(
      'decoy',
      state.resource.decoyRecord.exchanges.map((x): DecoyHit => ({ method: x.method, path: x.path, authorization: x.requestHeaders['authorization'] !== undefined })),
    );
  },
  judge(evidence) {
    const { revision } = evidence;
    const redirect = noted(evidence.exchanges, AUTH_NOTES.redirected)[0];
    const hits = hitsOf(evidence);
    const withToken = hits.filter((hit) => hit.authorization);
    const outcome = outcomeOf(evidence, REDIRECTED);
    return [
      precondition(
        'redirect-followed',
        authorization(revision, 'token-handling', 'a request the client holds a token for is redirected to another origin, and the client follows', 'MUST'),
        redirect !== undefined && hits.length > 0,
        redirect === undefined
          ? 'no call with a token was answered 307: the server did not act'
          : hits.length === 0
            ? `${label(redirect)} was answered 307 to another origin, and the client did not follow it (${describeOutcome(outcome, 'the call')}): a client that follows no redirect carries no token anywhere`
            : `${label(redirect)} was answered 307, and the client followed: ${hits.map((hit) => `${hit.method} ${hit.path}`).join(', ')} at the other origin`,
        redirect ? [redirect] : [],
        // Not following a redirect is a correct client of another shape (the reference follows 307/308 as fetch does).
        { by: redirect !== undefined && hits.length === 0 ? 'shape' : undefined },
      ),
      clientCompleted(evidence, authorization(revision, 'token-handling', 'the session goes on at its MCP server after the redirected call', 'MUST')),
      check(
        'no-token-to-other-origin',
        authorization(revision, 'token-handling', 'the access token is for its MCP server alone: never sent to another origin, a redirect\'s included', 'MUST'),
        withToken.length === 0,
        withToken.length === 0 ? `none of the ${hits.length} request(s) at the other origin carried an Authorization header` : `the other origin got an Authorization header with ${withToken.map((hit) => `${hit.method} ${hit.path}`).join(', ')}`,
        redirect ? [redirect] : [],
      ),
    ];
  },
  doctored: [
    {
      check: 'redirect-followed',
      unmet: true,
      how: 'no call was answered 307 (the personality did not act)',
      doctor: (e) => ({ ...e, exchanges: e.exchanges.map((x) => ({ ...x, notes: x.notes.filter((n) => n !== AUTH_NOTES.redirected) })), observed: { ...e.observed, decoy: [] } }),
    },
  ],
});
