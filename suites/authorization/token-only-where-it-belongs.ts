import { AUTH_NOTES } from '../../servers/authorization/protected-resource.ts';
import { FIXTURE_TOOLS } from '../../servers/fixtures.ts';
import { check, clientCompleted, precondition } from '../checks.ts';
import { defineScenario } from '../scenario.ts';
import { authorization, sendingMessages } from '../spec.ts';
import { labels, mcpExchanges, noted } from '../wire.ts';
import { authorizationLane, AUTHORIZED_REVISIONS, bearerOf, connectedThenExpired, type Protected, protectedSetup, tokenRequests } from './support.ts';

/** An exchange whose URL carried a token in its query string (RFC 6750 §2.3's `access_token`). */
const tokenInQuery = (path: string) => new URLSearchParams(path.split('?')[1] ?? '').has('access_token');

/**
 * Tokens go only where they belong: the access token rides in the Authorization header of every request to the MCP
 * server (the DELETE included), never in a query string, and never to the authorization server (its metadata,
 * registration and token endpoints), which a refresh after an expiry visits while the client holds a token.
 */
export const tokenOnlyWhereItBelongs = defineScenario<Protected>({
  id: 'authorization/token-only-where-it-belongs',
  title: 'The access token in the Authorization header of every request, never in the query string, never to another server',
  revisions: AUTHORIZED_REVISIONS,
  requires: ['oauth'],
  source: { spec: authorization('2025-11-25', 'token-requirements', 'Access Token Usage › Token Requirements', 'MUST') },
  setup: () => protectedSetup(),
  async run(context) {
    const { bounded } = context;
    const client = await connectedThenExpired(context);
    await bounded(client.callTool(FIXTURE_TOOLS.echo, { text: 'after a renewal' }), 'tools/call after the token expired');
    await bounded(client.close(), 'close');
  },
  judge(evidence) {
    const { revision } = evidence;
    const accepted = noted(evidence.exchanges, AUTH_NOTES.accepted);
    const first = accepted[0];
    const lane = authorizationLane(evidence);
    const renewals = tokenRequests(evidence).slice(1);
    const inQuery = [...evidence.exchanges, ...lane].filter((x) => tokenInQuery(x.path));
    const toAuthorizationServer = lane.filter((x) => bearerOf(x) !== undefined);
    const endpoint = mcpExchanges(evidence.exchanges, revision);
    const withoutToken = first === undefined ? [] : endpoint.filter((x) => x.seq > first.seq && bearerOf(x) === undefined);
    return [
      precondition(
        'token-held-and-renewed',
        authorization(revision, 'token-requirements', 'the client holds a token, and visits the authorization server again holding it', 'MUST'),
        first !== undefined && renewals.length > 0,
        first === undefined ? 'no request was accepted with a token' : renewals.length === 0 ? 'the client never went back to the authorization server after its first token' : `${accepted.length} requests accepted with a token, and ${renewals.length} renewal(s)`,
        first === undefined ? [] : [first],
        { by: first === undefined || renewals.length === 0 ? 'client' : undefined },
      ),
      clientCompleted(evidence, sendingMessages(revision, 'the script runs to its end', 'MUST')),
      check(
        'token-in-header-only',
        authorization(revision, 'token-requirements', 'access tokens MUST NOT be included in the URI query string', 'MUST'),
        inQuery.length === 0,
        inQuery.length === 0 ? 'no request carried a token in its query string' : `a token in the query string of ${labels(inQuery)}`,
        inQuery.filter((x) => evidence.exchanges.includes(x)),
      ),
      check(
        'token-on-every-request',
        authorization(revision, 'token-requirements', 'authorization MUST be included in every HTTP request from client to server, even within the same logical session', 'MUST'),
        withoutToken.length === 0,
        withoutToken.length === 0 ? `every request to the MCP endpoint after the first token carried it (${endpoint.length} in all)` : `without a token: ${labels(withoutToken)}`,
        withoutToken,
      ),
      check(
        'token-not-sent-elsewhere',
        authorization(revision, 'token-handling', 'the access token is for its MCP server alone: never sent to the authorization server or another origin', 'MUST'),
        toAuthorizationServer.length === 0,
        toAuthorizationServer.length === 0 ? `none of the ${lane.length} requests to the authorization server carried a Bearer token` : `the authorization server got a Bearer token with ${toAuthorizationServer.map((x) => `${x.method} ${x.path.split('?')[0]}`).join(', ')}`,
      ),
    ];
  },
  doctored: [
    {
      check: 'token-on-every-request',
      how: 'the last request to the MCP endpoint sent without its Authorization header',
      doctor: (e) => {
        const last = e.exchanges.at(-1)!;
        const { authorization: _dropped, ...headers } = last.requestHeaders;
        return { ...e, exchanges: [...e.exchanges.slice(0, -1), { ...last, requestHeaders: headers }] };
      },
    },
    {
      check: 'token-held-and-renewed',
      unmet: true,
      how: 'the renewal never reached the authorization server',
      doctor: (e) => ({ ...e, authorization: { ...e.authorization!, exchanges: e.authorization!.exchanges.filter((x) => !x.requestBody.includes('grant_type=refresh_token')) } }),
    },
  ],
});
