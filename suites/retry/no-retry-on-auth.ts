import type { TimePolicy } from '../../config/time.ts';
import { L_AND_M, type Revision } from '../../protocol/revisions.ts';
import { authErrors, type AuthErrors } from '../../servers/personalities/auth-errors.ts';
import { FIXTURE_TOOLS } from '../../servers/fixtures.ts';
import type { JsonRpcMessage, WireExchange } from '../../servers/wire-record.ts';
import { check, clientCompleted, precondition } from '../checks.ts';
import { describeOutcome, outcomeOf, settle, type Outcome } from '../outcome.ts';
import type { ClientConnection } from '../../clients/adapter.ts';
import { defineScenario, type Evidence } from '../scenario.ts';
import { SCHEMA_CHECK } from '../schema.ts';
import { authorizationErrors, fallbackRule, sendingMessages } from '../spec.ts';
import { labels, requests, serverName } from '../wire.ts';
import { opensSseStream, withStreamGets } from './support.ts';

/** Bound on each refused operation: a client that retries must still give up well within it (six times the react bound). */
const refusedBoundOf = (time: TimePolicy): number => 6 * time.ms.react;

const STATUSES = [401, 403] as const;

/**
 * The in-session refusals: an echo call refused 401, then one refused 403, told apart by their text. Calls, not a
 * listing: a listing may be answered from the client's cache, and never reach the server.
 */
const IN_SESSION = [
  { status: 401, text: 'refused 401', key: 'listRefused' },
  { status: 403, text: 'refused 403', key: 'callRefused' },
] as const;

/** The echo call of `text`. */
const echoOf = (text: string) => (message: JsonRpcMessage) => message.params?.['name'] === FIXTURE_TOOLS.echo && (message.params?.['arguments'] as { text?: unknown } | undefined)?.text === text;

/** One place the client met a 401/403: the exchanges from the first refusal on, and what the caller got. */
interface Refusal {
  what: string;
  /** True on the scenario's own server (its exchanges may be named by sequence number). */
  own: boolean;
  /** The exchanges of that server from the first refused one on (in-session: only those of the refused method). */
  exchanges: readonly WireExchange[];
  /** The JSON-RPC method the refused request carried. */
  method: string | undefined;
  /** In session: which of the calls it refused (their text tells them apart), and the script's key for it. */
  call?: (message: JsonRpcMessage) => boolean;
  key?: string;
  outcome: Outcome | undefined;
}

/**
 * The refusals the script drove, and those it could not, at connect (the refusing servers) and in session (the
 * scenario's own). A refusal is missing by the client's doing when the request it refuses never reached the server (it
 * hung, crashed or kept reconnecting first: the script asked for it); by the suite's when the request arrived and was
 * not refused (the personality did not act).
 */
function refusals(evidence: Evidence): { refusals: Refusal[]; missingAtConnect: Missing[]; missingInSession: Missing[] } {
  const found: Refusal[] = [];
  const missingInSession: Missing[] = [];
  const missingAtConnect: Missing[] = [];
  const fromFirst = (exchanges: readonly WireExchange[], label: string) => {
    const first = exchanges.find((exchange) => exchange.notes.includes(label));
    return first ? exchanges.filter((exchange) => exchange.seq >= first.seq) : undefined;
  };
  // In session: an echo call refused 401, then another refused 403.
  for (const { status, text, key } of IN_SESSION) {
    const from = fromFirst(evidence.exchanges, `auth-${status}`);
    const call = echoOf(text);
    const sent = requests(evidence.exchanges, 'tools/call').some((s) => call(s.message));
    const what = `the tools/call echo "${text}"`;
    if (!from) missingInSession.push({ why: `${what} was never answered ${status}${sent ? ' though it reached the server' : ': the client never sent it'}`, by: sent ? 'suite' : 'client' });
    else found.push({ what: `${what} answered ${status}`, own: true, exchanges: from, method: 'tools/call', call, key, outcome: outcomeOf(evidence, key) });
  }
  // At connect: a server that refuses everything.
  STATUSES.forEach((status, index) => {
    const server = evidence.otherServers[index];
    const from = server ? fromFirst(server.exchanges, `auth-${status}`) : undefined;
    const reached = server !== undefined && server.exchanges.length > 0;
    if (!from) missingAtConnect.push({ why: `${serverName(index)}, answering ${status} to everything, ${reached ? 'refused nothing it received' : 'received nothing though the client was asked to connect and call'}`, by: reached || server === undefined ? 'suite' : 'client' });
    // The refused request is the first one that carried a message: a client may GET first (mcp-remote's early stream GET).
    const method = from?.flatMap((exchange) => exchange.requestMessages).find((message) => message.method !== undefined)?.method;
    // A connect that resolved (a lazy client sends nothing at connect) surfaces the refusal on the call that followed.
    const connected = outcomeOf(evidence, `connect${status}`);
    const outcome = connected?.state === 'resolved' ? (outcomeOf(evidence, `connect${status}:call`) ?? connected) : connected;
    if (from) found.push({ what: `${connected?.state === 'resolved' ? 'connect and a call' : 'connect'} to ${serverName(index)} answered ${status}`, own: false, exchanges: from, method, outcome });
  });
  return { refusals: found, missingAtConnect, missingInSession };
}

/** A refusal the scenario did not reach, and who kept it from being reached. */
interface Missing {
  why: string;
  by: 'suite' | 'client';
}

/** The suite's failure outranks the client's: the case is the suite's to set up first. */
const keptBy = (missing: readonly Missing[]): 'suite' | 'client' => (missing.some((m) => m.by === 'suite') ? 'suite' : 'client');

/** When (record time) the script began the in-session tools/call: what follows is that operation's, not a reaction to the 401. */
const CALL_STARTED = 'callStartedAt';

/** Methods that open a connection: after their refusal, a further handshake is negotiation/no-fallback-on-failure's concern. */
const HANDSHAKES = ['initialize', 'server/discover'];

/**
 * What a refusal may not lead to: a GET without a session id (an HTTP+SSE stream), or, when a request of an
 * established session was refused, a new handshake.
 */
function fallbacks(refusal: Refusal, revision: Revision, until = Infinity): WireExchange[] {
  const [, ...later] = refusal.exchanges;
  const inSession = !HANDSHAKES.includes(refusal.method ?? '');
  return later.filter((exchange) => exchange.startedAt < until && (opensSseStream(exchange, revision) || (inSession && exchange.requestMessages.some((m) => m.method === 'initialize'))));
}

/**
 * 401 and 403 are the server's answer, not a transient failure: without a new authorization nothing is sent again
 * (no retry loop), and no other transport is tried. Refused at connect (servers that refuse everything with 401,
 * then 403) and in session (tools/list 401, tools/call 403).
 */
export const noRetryOnAuth = defineScenario<{ auth: AuthErrors }>({
  id: 'retry/no-retry-on-auth',
  title: '401/403: no retry loop, no transport fallback',
  revisions: L_AND_M,
  requires: [],
  source: {
    spec: authorizationErrors('2025-11-25', '401/403 are surfaced', 'SHOULD'),
    seed: 'seed 003 (authentication errors are not retried and are no reason for the SSE fallback)',
  },
  setup: () => {
    const auth = authErrors();
    return { server: { personalities: [auth] }, state: { auth } };
  },
  async run({ connect, bounded, state, observe, startServer, server, time }) {
    // Refused at connect first, while the client holds no session id of this run. A client that connects lazily sends
    // nothing at connect: a call (not a listing, which a client may answer from a cache) drives it to the server.
    for (const status of STATUSES) {
      const refusing = await startServer({ personalities: [authErrors({ status })] });
      let connected: ClientConnection | undefined;
      observe(`connect${status}`, await settle(connect({}, { server: refusing }).then((connection) => (connected = connection))));
      if (connected !== undefined) observe(`connect${status}:call`, await settle(bounded(connected.callTool('echo', { text: 'refused' }), `tools/call on the server answering ${status}`, refusedBoundOf(time))));
    }
    const client = await connect();
    await bounded(client.listTools(), 'tools/list');
    const [first, second] = IN_SESSION;
    // Armed for one request (a filter knows methods only): a client that sends the call again gets it answered, and the
    // second send is what refused-request-sent-once counts.
    state.auth.rejectNext(1, { method: 'tools/call', status: first.status });
    observe(first.key, await settle(bounded(client.callTool(FIXTURE_TOOLS.echo, { text: first.text }), `tools/call echo answered ${first.status}`, refusedBoundOf(time))));
    state.auth.rejectNext(Infinity, { method: 'tools/call', status: second.status });
    // What the client sends from here on is the call's: a client with a session per operation opens one for it.
    observe(CALL_STARTED, server.record.now());
    observe(second.key, await settle(bounded(client.callTool(FIXTURE_TOOLS.echo, { text: second.text }), `tools/call echo answered ${second.status}`, refusedBoundOf(time))));
    await bounded(client.close(), 'close');
  },
  judge(evidence) {
    const { revision } = evidence;
    const { refusals: found, missingAtConnect, missingInSession } = refusals(evidence);
    const resent = found.map((refusal) => ({ refusal, sends: requests(refusal.exchanges, refusal.method).filter((s) => refusal.call === undefined || refusal.call(s.message)) }));
    const retried = resent.filter(({ sends }) => sends.length > 1);
    // A reaction to the first refusal in session (401) is what the client sent before the script's next operation began;
    // after it, a new session is that operation's own (a client with a session per operation opens one for every call).
    const callStarted = evidence.observed[CALL_STARTED];
    const until = (refusal: Refusal) => (refusal.key === IN_SESSION[0].key && typeof callStarted === 'number' ? callStarted : Infinity);
    const fellBack = found.map((refusal) => ({ refusal, to: fallbacks(refusal, revision, until(refusal)) })).filter(({ to }) => to.length > 0);
    const notSurfaced = found.filter(({ outcome }) => outcome?.state !== 'rejected');
    const own = (refusal: Refusal, exchanges: readonly WireExchange[]) => (refusal.own ? exchanges : []);
    const allExchanges = found.flatMap((refusal) => own(refusal, refusal.exchanges.slice(0, 1)));

    const rule = authorizationErrors(revision, '401/403 are surfaced: no retry loop, no transport fallback', 'SHOULD');
    return [
      // Every check below judges all four refusals. A request that arrived unrefused is the suite's failure; one the
      // client never sent (it hung on the first 401, or reconnected instead) is the client's: what it broke stands.
      precondition(
        'refused-at-connect',
        rule,
        missingAtConnect.length === 0,
        missingAtConnect.length > 0 ? `the scenario did not reach a refusal at connect: ${missingAtConnect.map((m) => m.why).join('; ')}` : 'both servers that refuse everything received the client’s first request',
        [],
        { by: keptBy(missingAtConnect) },
      ),
      precondition(
        'refused-in-session',
        rule,
        missingInSession.length === 0,
        missingInSession.length > 0 ? `the scenario did not reach a refusal in session: ${missingInSession.map((m) => m.why).join('; ')}` : 'a tools/call was answered 401 and another 403 in session',
        [],
        { by: keptBy(missingInSession) },
      ),
      clientCompleted(evidence, sendingMessages(revision, 'the script runs to its end (the refused operations are expected and caught)', 'MUST')),
      check(
        'refused-request-sent-once',
        authorizationErrors(revision, 'a request refused with 401/403 is not sent again without a new authorization', 'SHOULD'),
        retried.length === 0,
        retried.length === 0
          ? `each refused request was sent once (${found.map((r) => r.what).join(', ')})`
          : retried.map(({ refusal, sends }) => `${refusal.what}: ${refusal.method} sent ${sends.length} times (${labels(sends.map((s) => s.exchange))})`).join('; '),
        [...allExchanges, ...retried.flatMap(({ refusal, sends }) => own(refusal, sends.slice(1).map((s) => s.exchange)))],
      ),
      check(
        'no-fallback-after-refusal',
        fallbackRule(revision, 'a 401/403 is not a reason to try HTTP+SSE (fallback only on 400, 404 or 405), another era or a new handshake (seed 003)', 'SHOULD'),
        fellBack.length === 0,
        fellBack.length === 0 ? 'no GET opening an HTTP+SSE stream and no new handshake followed a 401/403' : fellBack.map(({ refusal, to }) => `${refusal.what}, then ${labels(to)}`).join('; '),
        [...allExchanges, ...fellBack.flatMap(({ refusal, to }) => own(refusal, to))],
      ),
      check(
        'error-reaches-caller',
        authorizationErrors(revision, 'the refusal reaches the caller as an error, promptly', 'SHOULD'),
        notSurfaced.length === 0,
        notSurfaced.length === 0
          ? `every refused operation failed at once (${found.map((r) => r.what).join(', ')})`
          : notSurfaced.map((r) => describeOutcome(r.outcome, r.what)).join('; '),
        allExchanges,
      ),
    ];
  },
  doctored: [
    {
      check: 'no-fallback-after-refusal',
      how: 'the server refusing 401 first gets a GET of the URL (as mcp-remote sends before initialize) and OAuth discovery, then, after the refused initialize, a GET for an HTTP+SSE stream',
      doctor: (e) => ({ ...e, otherServers: e.otherServers.map((other, index) => (index === 0 ? { ...other, exchanges: withStreamGets(other.exchanges, e.revision) } : other)) }),
    },
    {
      check: SCHEMA_CHECK,
      how: 'OAuth discovery, registration and token requests (not judged: no MCP endpoint), and a tools/list without jsonrpc',
      doctor: (e) => {
        const list = e.exchanges.find((x) => x.requestMessages.some((m) => m.method === 'tools/list'))!;
        const oauth = (path: string, method: string, requestBody: string, contentType: string): WireExchange => ({
          ...structuredClone(list),
          method,
          path,
          requestHeaders: { 'content-type': contentType, accept: 'application/json' },
          requestBody,
          requestMessages: requestBody.startsWith('{') ? [JSON.parse(requestBody) as JsonRpcMessage] : [],
          responseMessages: [],
          status: 404,
          notes: [],
        });
        const exchanges = [
          oauth('/.well-known/oauth-protected-resource', 'GET', '', 'application/json'),
          oauth('/register', 'POST', JSON.stringify({ client_name: 'doctored', redirect_uris: ['http://localhost/cb'] }), 'application/json'),
          oauth('/token', 'POST', 'grant_type=authorization_code&code=x', 'application/x-www-form-urlencoded'),
          ...e.exchanges.map((x) => (x === list ? { ...x, requestMessages: x.requestMessages.map(({ jsonrpc: _jsonrpc, ...m }) => m) } : x)),
        ];
        return { ...e, exchanges: exchanges.map((x, index) => ({ ...x, seq: index + 1 })) };
      },
    },
    {
      check: 'error-reaches-caller',
      how: 'the tools/call refused 401 reported as a success',
      doctor: (e) => ({ ...e, observed: { ...e.observed, listRefused: { state: 'resolved', afterMs: 1 } satisfies Outcome } }),
    },
    {
      check: 'refused-at-connect',
      unmet: true,
      how: 'the server answering 403 to everything received nothing (the connect gave up before sending)',
      doctor: (e) => ({ ...e, otherServers: e.otherServers.map((other, index) => (index === 1 ? { ...other, exchanges: [] } : other)) }),
    },
    {
      check: 'refused-in-session',
      unmet: true,
      how: 'no tools/call was answered 403',
      doctor: (e) => ({ ...e, exchanges: e.exchanges.map((x) => ({ ...x, notes: x.notes.filter((note) => note !== 'auth-403') })) }),
    },
  ],
});
