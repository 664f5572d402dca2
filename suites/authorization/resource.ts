import { AUTH_NOTES } from '../../servers/authorization/protected-resource.ts';
import { FIXTURE_TOOLS } from '../../servers/fixtures.ts';
import { check, clientCompleted, precondition } from '../checks.ts';
import { describeOutcome, outcomeOf, settle } from '../outcome.ts';
import { defineScenario, type Evidence } from '../scenario.ts';
import { sendingMessages } from '../spec.ts';
import { labels, noted } from '../wire.ts';
import { authorizationRequests, authorizationSection, connectAndCall, formOf, queryOf, REFUSED_OUTCOME, registrations } from './flow.ts';
import { AUTHORIZED_REVISIONS, connectedThenExpired, type Protected, protectedSetup, tokenRequests } from './support.ts';

const CALLED = 'called';

/** The resource another server's metadata names: Protected Resource Metadata a correct client refuses. */
export const OTHER_RESOURCE = 'https://evil.example.com/mcp';

/** The origin the MCP server was reached at (its requests' Host), as a URL without a path: what the metadata publishes. */
const originOf = (evidence: Evidence): string | undefined => {
  const host = evidence.exchanges.find((exchange) => exchange.requestHeaders['host'] !== undefined)?.requestHeaders['host'];
  return host === undefined ? undefined : `http://${host}`;
};

const resourceRule = (evidence: Evidence, section: string) => authorizationSection(evidence.revision, 'resource-parameter-implementation', `Resource Parameter Implementation: ${section}`, 'MUST');

/**
 * RFC 8707 `resource` as the Protected Resource Metadata publishes it: the metadata names the server's origin (a parent
 * of its MCP endpoint, which RFC 9728 allows), and the client sends exactly that in the authorization request and in
 * every token request — not the endpoint's URL, not with a "/" added.
 */
export const resourceAsPublished = defineScenario<Protected>({
  id: 'authorization/resource-as-published',
  title: 'The resource the Protected Resource Metadata publishes, exactly, in the authorization and every token request',
  revisions: AUTHORIZED_REVISIONS,
  requires: ['oauth'],
  source: { spec: authorizationSection('2025-11-25', 'resource-parameter-implementation', 'Resource Parameter Implementation (the resource parameter in both requests)', 'MUST') },
  setup: () => protectedSetup({ publishedResource: 'origin' }),
  async run(context) {
    const { bounded, observe } = context;
    const client = await connectedThenExpired(context);
    observe(CALLED, await settle(bounded(client.callTool(FIXTURE_TOOLS.echo, { text: 'after a refresh' }), 'tools/call after the token expired')));
    await bounded(client.close(), 'close');
  },
  judge(evidence) {
    const { revision } = evidence;
    const published = originOf(evidence);
    const authorizations = authorizationRequests(evidence);
    const tokens = tokenRequests(evidence);
    const wrongAuthorizations = authorizations.filter((x) => queryOf(x).get('resource') !== published);
    const wrongTokens = tokens.filter((request) => formOf(request).get('resource') !== published);
    const said = (values: (string | null)[]) => [...new Set(values.map((value) => (value === null ? 'none' : `"${value}"`)))].join(', ');
    const outcome = outcomeOf(evidence, CALLED);
    return [
      precondition(
        'authorized-and-refreshed',
        resourceRule(evidence, 'the client asks a token for the resource, and asks again'),
        authorizations.length > 0 && tokens.length > 1,
        `${authorizations.length} authorization request(s) and ${tokens.length} token request(s)`,
        [],
        { by: 'client' },
      ),
      clientCompleted(evidence, sendingMessages(revision, 'the script runs to its end', 'MUST')),
      check(
        'resource-in-authorization-request',
        resourceRule(evidence, `the resource parameter MUST be included in authorization requests, as the Protected Resource Metadata publishes it (${published ?? 'the server\'s origin'})`),
        authorizations.length > 0 && wrongAuthorizations.length === 0,
        wrongAuthorizations.length === 0 ? `every authorization request sent resource="${published}"` : `the authorization request sent resource ${said(wrongAuthorizations.map((x) => queryOf(x).get('resource')))}, the metadata publishes "${published}"`,
      ),
      check(
        'resource-in-token-requests',
        resourceRule(evidence, `the resource parameter MUST be included in token requests (the code's and the refresh's), as published (${published ?? 'the server\'s origin'})`),
        tokens.length > 0 && wrongTokens.length === 0,
        wrongTokens.length === 0 ? `all ${tokens.length} token request(s) sent resource="${published}"` : `token request(s) (${wrongTokens.map((r) => r.grant).join(', ')}) sent resource ${said(wrongTokens.map((r) => formOf(r).get('resource')))}, the metadata publishes "${published}"`,
      ),
      check('call-completed', resourceRule(evidence, 'a token for the published resource is accepted: the call is answered'), outcome?.state === 'resolved', describeOutcome(outcome, 'the call after the refresh')),
    ];
  },
  doctored: [
    {
      check: 'resource-in-token-requests',
      how: 'the refresh sent without its resource',
      doctor: (e) => ({
        ...e,
        authorization: { ...e.authorization!, exchanges: e.authorization!.exchanges.map((x) => (x.requestBody.includes('grant_type=refresh_token') ? { ...x, requestBody: x.requestBody.replace(/&?resource=[^&]*/, '') } : x)) },
      }),
    },
    {
      check: 'call-completed',
      how: 'the call reported as failed',
      doctor: (e) => ({ ...e, observed: { ...e.observed, [CALLED]: { state: 'rejected', afterMs: 1, detail: 'doctored' } } }),
    },
    {
      check: 'authorized-and-refreshed',
      unmet: true,
      how: 'the token requests dropped from the lane',
      doctor: (e) => ({ ...e, authorization: { ...e.authorization!, exchanges: e.authorization!.exchanges.filter((x) => !x.requestBody.includes('grant_type=')) } }),
    },
  ],
});

/**
 * Protected Resource Metadata for another resource (`https://evil.example.com/mcp`): a client must not ask a token for it
 * (RFC 9728 §3.3: the resource must be the one the metadata was fetched for; §7.3 impersonation). No authorization or
 * token request follows, and the caller gets an error.
 */
export const resourceMismatchRefused = defineScenario<Protected>({
  id: 'authorization/resource-mismatch-refused',
  title: 'Protected Resource Metadata naming another resource: refused, no authorization asked for it',
  revisions: AUTHORIZED_REVISIONS,
  requires: ['oauth'],
  source: { spec: authorizationSection('2025-11-25', 'authorization-server-location', 'Authorization Server Location (RFC 9728: the metadata is for the resource it names)', 'MUST', 'basic/authorization/authorization-server-discovery') },
  setup: () => protectedSetup({ publishedResource: OTHER_RESOURCE }),
  async run(context) {
    await connectAndCall(context, context.state.resource.clientAuthorization());
  },
  judge(evidence) {
    const { revision } = evidence;
    const rule = (section: string) => authorizationSection(revision, 'authorization-server-location', `Authorization Server Location, RFC 9728 §3.3 and §7.3: ${section}`, 'MUST', 'basic/authorization/authorization-server-discovery');
    const fetched = noted(evidence.exchanges, AUTH_NOTES.metadata);
    const asked = [...registrations(evidence), ...authorizationRequests(evidence), ...tokenRequests(evidence).map((r) => r.exchange)].sort((a, b) => a.seq - b.seq);
    const outcome = outcomeOf(evidence, REFUSED_OUTCOME);
    return [
      precondition('metadata-fetched', rule('the client reads the Protected Resource Metadata'), fetched.length > 0, fetched.length > 0 ? `the client fetched the metadata (${labels(fetched)}), which names ${OTHER_RESOURCE}` : 'the client never fetched the Protected Resource Metadata', fetched, { by: 'client' }),
      clientCompleted(evidence, sendingMessages(revision, 'the script runs to its end (the refusal is expected and caught)', 'MUST')),
      check(
        'no-authorization-for-other-resource',
        rule(`metadata whose resource (${OTHER_RESOURCE}) is not the server it was fetched for is not used: no registration, authorization or token request follows`),
        asked.length === 0,
        asked.length === 0 ? 'the client asked the authorization server nothing' : `the client went on: ${asked.map((x) => `${x.method} ${x.path.split('?')[0]}${queryOf(x).get('resource') ? ` (resource=${queryOf(x).get('resource')})` : ''}`).join(', ')}`,
      ),
      check('error-reaches-caller', rule('the refusal reaches the caller as an error'), outcome?.state === 'rejected' && outcome.hung !== true, describeOutcome(outcome, 'the connect and call')),
    ];
  },
  doctored: [
    {
      check: 'error-reaches-caller',
      how: 'the call reported as a success',
      doctor: (e) => ({ ...e, observed: { ...e.observed, [REFUSED_OUTCOME]: { state: 'resolved', afterMs: 1 } } }),
    },
    {
      check: 'metadata-fetched',
      unmet: true,
      how: 'the metadata request dropped from the record',
      doctor: (e) => ({ ...e, exchanges: e.exchanges.filter((x) => !x.notes.includes(AUTH_NOTES.metadata)) }),
    },
  ],
});
