import { FIXTURE_TOOLS } from '../../servers/fixtures.ts';
import { authErrors } from '../../servers/personalities/auth-errors.ts';
import { delete405 } from '../../servers/personalities/delete-405.ts';
import { check, checkIf, clientCompleted, precondition } from '../checks.ts';
import { describeOutcome, outcomeOf, settle } from '../outcome.ts';
import type { ClientConnection } from '../../clients/adapter.ts';
import { defineScenario, type Evidence } from '../scenario.ts';
import { fallbackRule, transports } from '../spec.ts';
import { answerTo, entryPath, label, labels, pathOf, requests, serverName } from '../wire.ts';
import { opensSseStream, withStreamGets } from './support.ts';

const HTTP_SSE = '2024-11-05';
/** Where the Streamable HTTP servers of the scenario run: a revision whose initialize succeeds over POST. */
const STREAMABLE = '2025-11-25';
const AUTH_STATUSES = [401, 403] as const;
/** otherServers, in the order the script starts them. */
const AUTH_SERVERS = [0, 1];
const STREAMABLE_SERVERS = [{ index: 2, delete: 405 }, { index: 3, delete: 404 }] as const;

/** The fallback on the HTTP+SSE server: the initialize POST refused 400/404/405, a GET stream whose first event is `endpoint`, the initialize answered there. */
function fallback(evidence: Evidence) {
  const { exchanges } = evidence;
  // The URL the client was given (a client may do OAuth discovery before it POSTs there).
  const entry = entryPath(HTTP_SSE);
  const refused = requests(exchanges, 'initialize').find((s) => s.exchange.method === 'POST' && pathOf(s.exchange) === entry && [400, 404, 405].includes(s.exchange.status ?? 0));
  const stream = refused ? exchanges.find((e) => e.seq > refused.exchange.seq && e.method === 'GET' && e.status === 200 && e.sse && e.sseEvents[0]?.event === 'endpoint') : undefined;
  const endpoint = stream?.sseEvents[0]?.data.trim();
  const init = stream ? requests(exchanges, 'initialize').find((s) => s.exchange.seq > stream.seq && endpoint !== undefined && s.exchange.path === endpoint) : undefined;
  const initAnswered = init !== undefined && answerTo(exchanges, init)?.result !== undefined;
  return { entry, refused, stream, endpoint, init, initAnswered };
}

/**
 * A client that declares transport fallback is pointed at an HTTP+SSE-only server: its initialize POST to the URL is
 * answered 404, so it GETs the URL, takes the `endpoint` event, and works there (tools/list, a tools/call of `count`).
 * It never falls back otherwise: not on 401/403 (servers refusing everything), not after an initialize that
 * succeeded (Streamable HTTP servers answering the DELETE at close 405, then 404), and a tool call never travels on
 * both transports.
 */
export const httpSseFallback = defineScenario({
  id: 'retry/http-sse-fallback',
  title: 'Transport fallback: POST → 400/404/405 → GET SSE and endpoint, then works; never on 401/403, after initialize, or at a DELETE 404/405',
  revisions: [HTTP_SSE],
  requires: ['transport-fallback'],
  source: {
    spec: fallbackRule(HTTP_SSE, 'POST initialize; on 400, 404 or 405, GET the URL and use the endpoint event (clients wanting to support older servers)', 'SHOULD'),
    seed: 'seed 003 (fall back to SSE only when transport negotiation fails: never on auth errors, never after initialize, never on a 404/405 to the DELETE at exit)',
  },
  async run({ connect, bounded, observe, startServer, time }) {
    // A client that does not fall back fails here: the other legs still run (their rules are judged too), then its error is raised.
    let fallbackError: unknown;
    try {
      const client = await connect();
      await bounded(client.listTools(), 'tools/list over HTTP+SSE');
      await bounded(client.callTool(FIXTURE_TOOLS.count, {}), 'tools/call count over HTTP+SSE');
      await bounded(client.close(), 'close');
    } catch (error) {
      fallbackError = error;
    }
    for (const status of AUTH_STATUSES) {
      const refusing = await startServer({ era: HTTP_SSE, personalities: [authErrors({ status })] });
      let connected: ClientConnection | undefined;
      observe(`connect${status}`, await settle(connect({}, { server: refusing }).then((connection) => (connected = connection))));
      // A client that connects lazily sent nothing yet: a call drives it to the server (a listing may come from a cache).
      if (connected !== undefined) observe(`connect${status}:call`, await settle(bounded(connected.callTool(FIXTURE_TOOLS.echo, { text: 'refused' }), `tools/call on the server answering ${status}`, 6 * time.ms.react)));
    }
    for (const { delete: status } of STREAMABLE_SERVERS) {
      const streamable = await startServer({ era: STREAMABLE, personalities: status === 405 ? [delete405()] : [] });
      const connection = await connect({}, { server: streamable });
      await bounded(connection.listTools(), `tools/list over Streamable HTTP (DELETE answered ${status})`);
      // The session ends under the client, so the DELETE at close is answered 404.
      if (status === 404) await streamable.expireSession();
      observe(`close${status}`, await settle(bounded(connection.close(), `close (DELETE answered ${status})`)));
    }
    if (fallbackError !== undefined) throw fallbackError;
  },
  judge(evidence) {
    const { revision, exchanges } = evidence;
    const { entry, refused, stream, endpoint, init, initAnswered } = fallback(evidence);
    const fellBack = refused !== undefined && stream !== undefined && initAnswered;

    // Every tools/call, on whichever transport it went: once, to the endpoint, and count ran once.
    const calls = requests(exchanges, 'tools/call');
    const onStreamableUrl = calls.filter((s) => pathOf(s.exchange) === entry);
    const counts = calls.filter((s) => s.message.params?.['name'] === FIXTURE_TOOLS.count);
    const countRuns = evidence.toolRuns.filter((run) => run.tool === FIXTURE_TOOLS.count).length;
    const oneTransport = onStreamableUrl.length === 0 && counts.length === 1 && countRuns === 1;

    // A fallback is a GET for an HTTP+SSE stream after the initialize POST was refused: not OAuth discovery, and not a
    // GET the client sends before it POSTs at all (mcp-remote opens one first; that is handshake-order's business).
    const authGets = AUTH_SERVERS.map((index) => ({ index, status: AUTH_STATUSES[index]!, received: evidence.otherServers[index]?.exchanges ?? [] })).map((server) => {
      const refusedInit = server.received.find((e) => e.method === 'POST' && e.requestMessages.some((m) => m.method === 'initialize'));
      return { ...server, refusedInit, gets: refusedInit ? server.received.filter((e) => e.seq > refusedInit.seq && opensSseStream(e, HTTP_SSE)) : [] };
    });
    const authFallbacks = authGets.filter(({ gets }) => gets.length > 0);
    const authUnreached = authGets.filter(({ refusedInit }) => refusedInit === undefined);
    // A server the script started that got no initialize: the client was asked to connect and call there and did not
    // (it hung or gave up first); one the script never started is the suite's.
    const authUnstarted = AUTH_SERVERS.some((index) => evidence.otherServers[index] === undefined);

    const streamableGets = STREAMABLE_SERVERS.map(({ index, delete: status }) => {
      const received = evidence.otherServers[index]?.exchanges ?? [];
      const initialized = requests(received, 'initialize').find((s) => answerTo(received, s)?.result !== undefined);
      const deletes = received.filter((e) => e.method === 'DELETE');
      const gets = initialized ? received.filter((e) => e.seq > initialized.exchange.seq && opensSseStream(e, STREAMABLE)) : [];
      return { index, status, received, initialized, deletes, gets };
    });
    const afterInitFallbacks = streamableGets.filter(({ gets }) => gets.length > 0);
    const unready = streamableGets.filter(({ initialized }) => initialized === undefined);
    // A server started whose initialize was sent and failed is the suite's; one that got none, the client's (asked to connect and list there).
    const unreadyBy = unready.some(({ received, index }) => evidence.otherServers[index] === undefined || requests(received, 'initialize').length > 0) ? 'suite' : 'client';

    const initializes = requests(exchanges, 'initialize');
    return [
      precondition(
        'http-sse-server-reached',
        fallbackRule(revision, 'POST initialize; on 400, 404 or 405, GET the URL and use the endpoint event', 'SHOULD'),
        initializes.length > 0,
        initializes.length === 0 ? 'no initialize reached the HTTP+SSE server: the client never got as far as the fallback' : `${labels(initializes.map((s) => s.exchange))} reached the HTTP+SSE server`,
        [],
        // It was asked to connect, list and call there: sending nothing is its own doing.
        { by: 'client' },
      ),
      precondition(
        'auth-servers-reached',
        fallbackRule(revision, 'a 401/403 to the initialize POST is not one of 400/404/405', 'SHOULD'),
        authUnreached.length === 0,
        authUnreached.length > 0
          ? `no initialize was POSTed to ${authUnreached.map((a) => `${serverName(a.index)} (answering ${a.status})`).join(' or ')}${authUnstarted ? ': the scenario could not drive the client there' : ', though the client was asked to connect and call there'}`
          : `the servers answering ${AUTH_STATUSES.join(' and ')} each received an initialize POST`,
        [],
        { by: authUnstarted ? 'suite' : 'client' },
      ),
      precondition(
        'streamable-servers-initialized',
        fallbackRule(revision, 'once an initialize POST succeeded the server speaks Streamable HTTP', 'SHOULD'),
        unready.length === 0,
        unready.length > 0
          ? `no initialize succeeded on ${unready.map((s) => `${serverName(s.index)} (meant to answer DELETE ${s.status})`).join(' or ')}: the scenario could not drive the client there`
          : 'an initialize succeeded on each Streamable HTTP server',
        [],
        { by: unreadyBy },
      ),
      clientCompleted(
        evidence,
        transports(revision, 'http-with-sse', 'HTTP with SSE: every client message MUST be POSTed to the endpoint the stream names (the adapter declares transport fallback, so it must reach this server and work there)', 'MUST'),
      ),
      check(
        'falls-back-on-4xx',
        fallbackRule(revision, 'if the initialize POST fails with 400, 404 or 405, GET the server URL, expect an SSE stream whose first event is endpoint, and use that transport', 'SHOULD'),
        fellBack,
        !refused
          ? `no initialize POSTed to the URL was answered 400/404/405 (${labels(initializes.map((s) => s.exchange))})`
          : !stream
            ? `after ${label(refused.exchange)} no GET opened the SSE stream with an endpoint event`
            : !initAnswered
              ? `the stream ${label(stream)} named ${endpoint}, but no initialize POSTed there was answered${init ? ` (${label(init.exchange)})` : ''}`
              : `${label(refused.exchange)}, then ${label(stream)} named ${endpoint}, where ${label(init!.exchange)} was answered on the stream`,
        [...(refused ? [refused.exchange] : []), ...(stream ? [stream] : []), ...(init ? [init.exchange] : [])],
      ),
      checkIf(
        counts.length === 0 && onStreamableUrl.length === 0 ? 'no tools/call of count reached the server (the client did not get to work over HTTP+SSE: falls-back-on-4xx says why)' : undefined,
        'tool-call-on-one-transport',
        fallbackRule(revision, 'a tools/call is sent on one transport only, once (seed 003: so a tool call cannot be sent twice through different transports; count has no idempotentHint)', 'MUST'),
        () => oneTransport,
        () =>
          oneTransport
            ? `the tools/call of count went once, to ${pathOf(counts[0]!.exchange)}, and count ran once`
            : `tools/call of count sent ${counts.length} time${counts.length === 1 ? '' : 's'} (${labels(counts.map((s) => s.exchange))}), ${onStreamableUrl.length} tools/call POSTed to the Streamable HTTP URL ${entry}; count ran ${countRuns} time${countRuns === 1 ? '' : 's'}`,
        [...counts.map((s) => s.exchange), ...onStreamableUrl.map((s) => s.exchange)],
      ),
      check(
        'no-fallback-on-auth',
        fallbackRule(revision, 'a 401/403 to the initialize POST is not one of 400/404/405: no GET for an HTTP+SSE stream (seed 003)', 'SHOULD'),
        authFallbacks.length === 0,
        authFallbacks.length === 0
          ? `initialize answered ${AUTH_STATUSES.join(' and ')}: no GET followed (${AUTH_STATUSES.map((s) => describeOutcome(outcomeOf(evidence, `connect${s}`), `the connect answered ${s}`)).join('; ')})`
          : authFallbacks.map(({ index, status, refusedInit, gets }) => `${serverName(index)} answering ${status}: ${label(refusedInit!)}, then ${labels(gets)}`).join('; '),
        [],
      ),
      check(
        'no-fallback-after-initialize',
        fallbackRule(revision, 'once an initialize POST succeeded the server speaks Streamable HTTP: a 404/405 to the DELETE at close is no reason to GET an HTTP+SSE stream (seed 003)', 'SHOULD'),
        afterInitFallbacks.length === 0,
        afterInitFallbacks.length === 0
          ? `after a successful initialize no GET without a session id followed (${streamableGets
              .map(({ index, status, deletes }) => `${serverName(index)}: ${deletes.length > 0 ? labels(deletes) : `no DELETE where it would be answered ${status}`}`)
              .join('; ')})`
          : afterInitFallbacks.map(({ index, received, gets }) => `${serverName(index)}: ${labels(received.filter((e) => e.method === 'DELETE'))}, then ${labels(gets)}`).join('; '),
        [],
      ),
    ];
  },
  doctored: [
    {
      check: 'http-sse-server-reached',
      unmet: true,
      how: 'nothing reached the HTTP+SSE server (a client that could not start)',
      doctor: (e) => ({ ...e, exchanges: [], toolRuns: [] }),
    },
    {
      check: 'auth-servers-reached',
      unmet: true,
      how: 'the server answering 403 received nothing',
      doctor: (e) => ({ ...e, otherServers: e.otherServers.map((other, index) => (index === AUTH_SERVERS[1] ? { ...other, exchanges: [] } : other)) }),
    },
    {
      check: 'streamable-servers-initialized',
      unmet: true,
      how: 'the Streamable HTTP server meant to answer DELETE 404 was never reached',
      doctor: (e) => ({ ...e, otherServers: e.otherServers.slice(0, STREAMABLE_SERVERS[1].index) }),
    },
    {
      check: 'no-fallback-on-auth',
      how: 'the server answering 401 gets a GET of the URL before the initialize POST (as mcp-remote sends), OAuth discovery after it (no fallback), then a GET for the stream',
      doctor: (e) => ({
        ...e,
        otherServers: e.otherServers.map((other, index) => (index === AUTH_SERVERS[0] ? { ...other, exchanges: withStreamGets(other.exchanges, HTTP_SSE) } : other)),
      }),
    },
    {
      check: 'falls-back-on-4xx',
      how: 'the initialize POSTed to the URL answered 401 instead of 404',
      doctor: (e) => ({ ...e, exchanges: e.exchanges.map((x) => (x.seq === 1 ? { ...x, status: 401 } : x)) }),
    },
    {
      check: 'tool-call-on-one-transport',
      how: 'the tools/call of count also POSTed to the Streamable HTTP URL',
      doctor: (e) => {
        const call = e.exchanges.find((x) => x.requestMessages.some((m) => m.method === 'tools/call'))!;
        const entry = e.exchanges[0]!.path.split('?')[0]!;
        return { ...e, exchanges: [...e.exchanges, { ...structuredClone(call), seq: e.exchanges.length + 1, path: entry, status: 404 }] };
      },
    },
  ],
});
