import { FIXTURE_TOOLS } from '../../servers/fixtures.ts';
import { check, clientCompleted, precondition } from '../checks.ts';
import { describeOutcome, outcomeOf, settle } from '../outcome.ts';
import { defineScenario, type Evidence } from '../scenario.ts';
import { sendingMessages } from '../spec.ts';
import { authorizationSection, registrations } from './flow.ts';
import { AUTHORIZED_REVISIONS, connectedThenExpired, type Protected, protectedSetup, type TokenRequest, tokenRequests } from './support.ts';

const CALLED = 'called';

/** How a token request authenticated its client: a Basic header, the secret in the form, or neither. */
export function authenticatedBy(request: TokenRequest): 'client_secret_basic' | 'client_secret_post' | 'none' {
  if (/^Basic\s/i.test(request.exchange.requestHeaders['authorization'] ?? '')) return 'client_secret_basic';
  return new URLSearchParams(request.exchange.requestBody).has('client_secret') ? 'client_secret_post' : 'none';
}

const rule = (evidence: Evidence, section: string) =>
  authorizationSection(evidence.revision, 'dynamic-client-registration', `Dynamic Client Registration (RFC 7591 §2, §3.2.1: token_endpoint_auth_method): ${section}`, 'MUST', 'basic/authorization/client-registration');

/**
 * Token endpoint authentication by the registered method: the authorization server registers the client (dynamic
 * registration) with `client_secret_post`, whatever it asked, issues it a secret, lists only that method in its metadata
 * and refuses any other: the client puts the secret in the token request's form (and its refresh's), not in a Basic
 * header, and gets its tokens.
 */
export const tokenEndpointAuthAsRegistered = defineScenario<Protected>({
  id: 'authorization/token-endpoint-auth-as-registered',
  title: 'Registered with client_secret_post: every token request authenticates so (the secret in the form, no Basic header)',
  revisions: AUTHORIZED_REVISIONS,
  requires: ['oauth'],
  source: { spec: authorizationSection('2025-11-25', 'dynamic-client-registration', 'Dynamic Client Registration (RFC 7591: the registered token_endpoint_auth_method)', 'MUST', 'basic/authorization/client-registration') },
  setup: () => protectedSetup({ authorization: { registerWith: 'client_secret_post', clientAuthMethods: ['client_secret_post'] } }),
  async run(context) {
    const { bounded, observe } = context;
    const client = await connectedThenExpired(context);
    observe(CALLED, await settle(bounded(client.callTool(FIXTURE_TOOLS.echo, { text: 'after a refresh' }), 'tools/call after the token expired')));
    await bounded(client.close(), 'close');
  },
  judge(evidence) {
    const registered = registrations(evidence).filter((x) => x.status === 201 || x.status === 200);
    const tokens = tokenRequests(evidence);
    const otherwise = tokens.filter((request) => authenticatedBy(request) !== 'client_secret_post');
    const outcome = outcomeOf(evidence, CALLED);
    return [
      precondition(
        'registered',
        rule(evidence, 'the client registers dynamically, and the server registers it with client_secret_post'),
        registered.length > 0 && tokens.length > 0,
        registered.length === 0 ? 'the client registered with no success (it has no credentials given)' : `registered (${registered.map((x) => `${x.method} ${x.path} → ${x.status}`).join(', ')}); ${tokens.length} token request(s)`,
        [],
        { by: 'client' },
      ),
      clientCompleted(evidence, sendingMessages(evidence.revision, 'the script runs to its end', 'MUST')),
      check(
        'auth-method-as-registered',
        rule(evidence, 'the client authenticates at the token endpoint by the method it is registered with (client_secret_post: client_id and client_secret in the form)'),
        tokens.length > 0 && otherwise.length === 0,
        otherwise.length === 0 ? `all ${tokens.length} token request(s) authenticated by client_secret_post` : `token request(s) authenticated otherwise: ${otherwise.map((r) => `${r.grant} by ${authenticatedBy(r)} → ${r.exchange.status}`).join(', ')}`,
      ),
      check('call-completed', rule(evidence, 'the tokens so obtained are accepted: the call after the refresh is answered'), outcome?.state === 'resolved', describeOutcome(outcome, 'the call after the refresh')),
    ];
  },
  doctored: [
    {
      check: 'call-completed',
      how: 'the call reported as failed',
      doctor: (e) => ({ ...e, observed: { ...e.observed, [CALLED]: { state: 'rejected', afterMs: 1, detail: 'doctored' } } }),
    },
    {
      check: 'registered',
      unmet: true,
      how: 'the registration dropped from the lane',
      doctor: (e) => ({ ...e, authorization: { ...e.authorization!, exchanges: e.authorization!.exchanges.filter((x) => x.path !== '/reg') } }),
    },
  ],
});
