import { REDIRECT_URI } from '../../servers/authorization/protected-resource.ts';
import type { WireExchange } from '../../servers/wire-record.ts';
import { check, clientCompleted, precondition } from '../checks.ts';
import { sendingMessages } from '../spec.ts';
import { describeOutcome, outcomeOf } from '../outcome.ts';
import { defineScenario, type Evidence } from '../scenario.ts';
import { authorizationLane, protectedSetup, tokenRequests, type Protected } from './support.ts';
import { authorizationRequests, authorizationResponses, authorizationSection, codeRedemptions, connectAndCall, ISSUER_REVISIONS, REFUSED_OUTCOME, registrations } from './flow.ts';

/** The issuer the lying metadata names. */
export const ATTACKER_ISSUER = 'https://attacker.example.com';

const describe = (exchanges: readonly WireExchange[]) => exchanges.map((x) => `${x.method} ${x.path.split('?')[0]}`).join(', ');

const refusalReachesCaller = (evidence: Evidence, rule: ReturnType<typeof authorizationSection>) => {
  const outcome = outcomeOf(evidence, REFUSED_OUTCOME);
  return check('error-reaches-caller', rule, outcome?.state === 'rejected' && outcome.hung !== true, describeOutcome(outcome, 'the connect and call'));
};

const reportedSuccess = {
  check: 'error-reaches-caller',
  how: 'the call reported as a success',
  doctor: (e: Evidence) => ({ ...e, observed: { ...e.observed, [REFUSED_OUTCOME]: { state: 'resolved', afterMs: 1 } } }),
};

/**
 * Authorization-server metadata whose `issuer` is not the issuer the client built its URL from (2026-07-28, RFC 8414
 * §3.3): the client must not use it — no registration, authorization or token request to the endpoints it names — and
 * the caller gets an error.
 */
export const metadataIssuerChecked = defineScenario<Protected>({
  id: 'authorization/metadata-issuer-checked',
  title: 'Authorization-server metadata naming another issuer: not used (no registration, authorization or token request)',
  revisions: ISSUER_REVISIONS,
  requires: ['oauth'],
  source: { spec: authorizationSection('2026-07-28', 'authorization-server-metadata-discovery', 'Authorization Server Metadata Discovery (validate the issuer, RFC 8414 §3.3)', 'MUST', 'basic/authorization/authorization-server-discovery') },
  setup: () => protectedSetup({ authorization: { metadataIssuer: ATTACKER_ISSUER } }),
  async run(context) {
    await connectAndCall(context, context.state.resource.clientAuthorization());
  },
  judge(evidence) {
    const rule = (section: string) => authorizationSection(evidence.revision, 'authorization-server-metadata-discovery', `Authorization Server Metadata Discovery: ${section}`, 'MUST', 'basic/authorization/authorization-server-discovery');
    const metadata = authorizationLane(evidence).filter((x) => x.method === 'GET' && x.path.startsWith('/.well-known/') && x.status === 200);
    const used = [...registrations(evidence), ...authorizationRequests(evidence), ...tokenRequests(evidence).map((r) => r.exchange)].sort((a, b) => a.seq - b.seq);
    return [
      precondition(
        'metadata-fetched',
        rule('the client fetches the authorization-server metadata'),
        metadata.length > 0,
        metadata.length > 0 ? `the client fetched ${describe(metadata)}, which names the issuer ${ATTACKER_ISSUER}` : 'the client never fetched the authorization-server metadata',
        [],
        { by: 'client' },
      ),
      clientCompleted(evidence, sendingMessages(evidence.revision, 'the script runs to its end (the refusal is expected and caught)', 'MUST')),
      check(
        'metadata-not-used',
        rule(`the issuer in the document MUST be identical to the issuer used to construct the well-known URL; if they differ, the client MUST NOT use the metadata (it names ${ATTACKER_ISSUER})`),
        used.length === 0,
        used.length === 0 ? 'no registration, authorization or token request followed' : `the client used the metadata: ${describe(used)}`,
      ),
      refusalReachesCaller(evidence, rule('the refusal reaches the caller as an error')),
    ];
  },
  doctored: [
    reportedSuccess,
    {
      check: 'metadata-fetched',
      unmet: true,
      how: 'the metadata requests dropped from the lane',
      doctor: (e) => ({ ...e, authorization: { ...e.authorization!, exchanges: e.authorization!.exchanges.filter((x) => !x.path.startsWith('/.well-known/')) } }),
    },
  ],
});

/**
 * An authorization response without `iss` from a server whose metadata says `authorization_response_iss_parameter_supported`
 * (2026-07-28, RFC 9207 §2.4): the client refuses it before its code goes to any token endpoint, and the caller gets
 * an error.
 */
export const issRequiredWhenAdvertised = defineScenario<Protected>({
  id: 'authorization/iss-required-when-advertised',
  title: 'An authorization response without the iss its server advertises: refused, its code never redeemed',
  revisions: ISSUER_REVISIONS,
  requires: ['oauth'],
  source: { spec: authorizationSection('2026-07-28', 'authorization-response-validation', 'Authorization Flow Steps › Authorization Response Validation (RFC 9207 §2.4)', 'MUST') },
  setup: () => protectedSetup({ authorization: { responseIss: 'omit' } }),
  async run(context) {
    await connectAndCall(context, context.state.resource.clientAuthorization());
  },
  judge(evidence) {
    const rule = (section: string) => authorizationSection(evidence.revision, 'authorization-response-validation', `Authorization Response Validation: ${section}`, 'MUST');
    const withoutIss = authorizationResponses(evidence, REDIRECT_URI).filter((response) => !response.url.searchParams.has('iss') && response.url.searchParams.has('code'));
    const redeemed = codeRedemptions(evidence);
    return [
      precondition(
        'response-without-iss',
        rule('the authorization server answers with a code and no iss, while its metadata says authorization_response_iss_parameter_supported'),
        withoutIss.length > 0,
        withoutIss.length > 0 ? `the authorization response (${describe(withoutIss.map((r) => r.exchange))}) carried a code and no iss` : 'no authorization response with a code and without iss was given (the client asked for none)',
        [],
        { by: 'client' },
      ),
      clientCompleted(evidence, sendingMessages(evidence.revision, 'the script runs to its end (the refusal is expected and caught)', 'MUST')),
      check(
        'code-not-redeemed',
        rule('with authorization_response_iss_parameter_supported true and no iss in the response, the client MUST reject it before transmitting the code to any token endpoint'),
        redeemed.length === 0,
        redeemed.length === 0 ? 'the code was never sent to the token endpoint' : `the code went to the token endpoint: ${describe(redeemed.map((r) => r.exchange))}`,
      ),
      refusalReachesCaller(evidence, rule('the refusal reaches the caller as an error')),
    ];
  },
  doctored: [
    reportedSuccess,
    {
      check: 'response-without-iss',
      unmet: true,
      how: 'the authorization response dropped from the lane',
      doctor: (e) => ({ ...e, authorization: { ...e.authorization!, exchanges: e.authorization!.exchanges.filter((x) => !(x.responseHeaders['location'] ?? '').startsWith(REDIRECT_URI)) } }),
    },
  ],
});
