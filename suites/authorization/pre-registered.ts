// Pre-registration (2025-11-25 on, Client Registration Approaches: pre-registered client information first): the
// authorization server offers no dynamic registration, and the client is given a client_id and secret registered with
// it beforehand. The official suite's auth/pre-registration.
import { AUTH_NOTES, REDIRECT_URI } from '../../servers/authorization/protected-resource.ts';
import { FIXTURE_TOOLS } from '../../servers/fixtures.ts';
import type { WireExchange } from '../../servers/wire-record.ts';
import { check, clientCompleted, precondition } from '../checks.ts';
import { defineScenario, type Evidence } from '../scenario.ts';
import { authorization, authorizationStep, sendingMessages } from '../spec.ts';
import { label, noted } from '../wire.ts';
import { firstAuthorization } from './first-authorization.ts';
import { protectedSetup, type Protected } from './support.ts';

/** The credentials registered beforehand (loopback only: the authorization server lives for one case). */
export const PRE_REGISTERED = { clientId: 'conformance-pre-registered', clientSecret: 'loopback-only-pre-registered-secret' } as const;

/** The client a token request authenticated as: HTTP Basic (client_secret_basic) or the form (client_secret_post). */
export function authenticatedAs(exchange: WireExchange): { clientId: string; clientSecret: string | undefined } | undefined {
  const basic = /^Basic\s+(\S+)$/i.exec(exchange.requestHeaders['authorization'] ?? '')?.[1];
  if (basic !== undefined) {
    const [id = '', secret] = Buffer.from(basic, 'base64').toString('utf8').split(':');
    return { clientId: decodeURIComponent(id), clientSecret: secret === undefined ? undefined : decodeURIComponent(secret) };
  }
  const form = new URLSearchParams(exchange.requestBody);
  const clientId = form.get('client_id');
  return clientId === null ? undefined : { clientId, clientSecret: form.get('client_secret') ?? undefined };
}

const withLane = (e: Evidence, f: (lane: readonly WireExchange[]) => WireExchange[]): Evidence => (e.authorization === undefined ? e : { ...e, authorization: { ...e.authorization, exchanges: f(e.authorization.exchanges) } });

export const preRegistered = defineScenario<Protected>({
  id: 'authorization/pre-registered',
  title: 'Credentials registered beforehand, no dynamic registration: the client authorizes as the pre-registered client',
  revisions: ['2025-11-25', '2026-07-28'],
  requires: ['oauth'],
  source: { spec: authorizationStep('2025-11-25', 'registration', 'Client Registration Approaches (pre-registered client information first)', 'SHOULD') },
  setup: () => protectedSetup({ authorization: { dynamicRegistration: false, clients: [{ ...PRE_REGISTERED, redirectUris: [REDIRECT_URI] }] } }),
  async run({ connect, bounded, state }) {
    const client = await connect({ authorization: state.resource.clientAuthorization(PRE_REGISTERED) });
    await bounded(client.callTool(FIXTURE_TOOLS.echo, { text: 'authorized' }), 'tools/call once authorized');
    await bounded(client.close(), 'close');
  },
  judge(evidence) {
    const { revision } = evidence;
    const challenged = noted(evidence.exchanges, AUTH_NOTES.noToken)[0];
    const shown = challenged === undefined ? [] : [challenged];
    const { request, redemption } = firstAuthorization(evidence);
    const askedFor = request === undefined ? undefined : new URLSearchParams(request.path.split('?')[1] ?? '').get('client_id');
    const as = redemption === undefined ? undefined : authenticatedAs(redemption);
    const used = askedFor === PRE_REGISTERED.clientId && as?.clientId === PRE_REGISTERED.clientId && as.clientSecret === PRE_REGISTERED.clientSecret;
    return [
      precondition(
        'challenged',
        authorization(revision, 'error-handling', 'a request without a token is answered 401 with a Bearer challenge', 'MUST'),
        challenged !== undefined,
        challenged === undefined ? 'no request was answered 401 for want of a token: the server did not act' : `${label(challenged)} was answered 401`,
        shown,
      ),
      clientCompleted(evidence, sendingMessages(revision, 'the script runs to its end', 'MUST')),
      check(
        'pre-registered-credentials-used',
        authorizationStep(revision, 'registration', 'pre-registered client information first: the authorization names that client, the token request authenticates as it', 'SHOULD'),
        used,
        request === undefined
          ? 'the client sent no authorization request to the authorization server'
          : `the authorization request named client ${JSON.stringify(askedFor)}; ${redemption === undefined ? 'no token request redeemed the code' : `the token request authenticated as ${JSON.stringify(as?.clientId ?? null)}${as !== undefined && as.clientSecret !== PRE_REGISTERED.clientSecret ? ' without its secret' : ''}`}`,
        shown,
      ),
    ];
  },
  doctored: [
    {
      check: 'challenged',
      unmet: true,
      how: 'no 401 for want of a token (the personality did not act)',
      doctor: (e) => ({ ...e, exchanges: e.exchanges.map((x) => ({ ...x, notes: x.notes.filter((n) => n !== AUTH_NOTES.noToken) })) }),
    },
  ],
});
