// resume/echoed-session-header (seed 000: "a proxy echoing mcp-session-id back could overwrite the client-minted
// routing key mid-connection"): a proxy echoes Mcp-Session-Id on every response and injects other ids, once on a
// successful non-initialize response and once on an error response. The client keeps the id issued with the
// InitializeResult (legacy), or sends no session id it did not mint (2026-07-28). At 2026-07-28 an adapter that
// declares `affinity-key` connects with one, and `keeps-own-key` demands it on every request; without the feature
// the client must send no Mcp-Session-Id at all.
import { HEADERS } from '../../protocol/http.ts';
import { isModern, S_AND_M } from '../../protocol/revisions.ts';
import { FIXTURE_TOOLS } from '../../servers/fixtures.ts';
import { echoSessionHeaders, type EchoSessionHeaders } from '../../servers/personalities/echo-session-headers.ts';
import { serverErrors, type ServerErrors } from '../../servers/personalities/server-errors.ts';
import type { WireExchange } from '../../servers/wire-record.ts';
import { check, checkIf, clientCompleted, precondition } from '../checks.ts';
import { ordinaryRejection } from '../outcome.ts';
import { defineScenario, type Check, type Evidence, type SpecRef } from '../scenario.ts';
import { sessionManagement, transports } from '../spec.ts';
import { after, carries, initializeResult, label, labels, mcpExchanges, noted, operatingSession, operatingTraffic, sessionOf, withThrowawaySession } from '../wire.ts';
import { doctorExchanges, withHeader } from './support.ts';

const SEED = 'seed 000 (a proxy echoing or injecting Mcp-Session-Id must not change the id the client sends)';
/** Ids no server issued: what the proxy injects. */
export const INJECTED_ON_SUCCESS = 'injected-by-proxy-on-success';
export const INJECTED_ON_ERROR = 'injected-by-proxy-on-error';

/** The text of the script's closing echo call, after both injections. */
const CLOSING_TEXT = 'after the injected ids';
/** For the proofs: the exchange of the closing call. */
const closingCall = (e: Evidence): WireExchange | undefined =>
  e.exchanges.find((x) => x.requestMessages.some((m) => m.method === 'tools/call' && (m.params?.['arguments'] as { text?: unknown } | undefined)?.text === CLOSING_TEXT));

/** The note the proxy leaves on the exchange whose response it gave the injected id. */
const injectedNote = (injected: string) => `injected-session-id:${injected}`;

/** The exchange whose response the proxy gave the injected id, and every later one that carried it. */
function adoption(evidence: Evidence, injected: string) {
  const at = noted(evidence.exchanges, injectedNote(injected))[0];
  const later = at ? after(evidence.exchanges, at.seq) : [];
  return { at, later, carriers: later.filter((exchange) => sessionOf(exchange) === injected) };
}

function ignoresInjected(evidence: Evidence, name: string, injected: string, on: string, spec: SpecRef): Check {
  const { at, later, carriers } = adoption(evidence, injected);
  return checkIf(
    at === undefined ? `the proxy never injected an id on ${on}` : later.length === 0 ? `the proxy injected ${injected} on ${label(at)}, and the client sent nothing after it` : undefined,
    name,
    spec,
    () => carriers.length === 0,
    () =>
      carriers.length === 0
        ? `the proxy injected Mcp-Session-Id: ${injected} on the answer to ${label(at!)}; none of the ${later.length} later requests carried it`
        : `the proxy injected Mcp-Session-Id: ${injected} on the answer to ${label(at!)}, and the client adopted it: ${labels(carriers)} carried it`,
    at ? [at, ...carriers] : [],
  );
}

export const echoedSessionHeader = defineScenario<{ echo: EchoSessionHeaders; errors: ServerErrors }>({
  id: 'resume/echoed-session-header',
  title: 'A proxy echoing Mcp-Session-Id and injecting other ids (on an error and on a non-initialize response) does not change the id the client sends',
  revisions: S_AND_M,
  requires: [],
  optional: ['affinity-key'],
  source: { spec: sessionManagement('2025-06-18', 'the id comes with the InitializeResult', 'MUST'), seed: SEED },
  setup: () => {
    const echo = echoSessionHeaders();
    const errors = serverErrors();
    return { server: { personalities: [echo, errors] }, state: { echo, errors } };
  },
  async run({ connect, bounded, state, observe, revision, features }) {
    const affinityKey = isModern(revision) && features.includes('affinity-key') ? 'client-minted-affinity-key' : undefined;
    if (affinityKey) observe('affinityKey', affinityKey);
    const client = await connect(affinityKey ? { affinityKey } : {});
    await bounded(client.listTools(), 'tools/list (answered with the echoed id)');
    // Calls from here on, not listings: a listing may be answered from the client's cache and never meet the proxy.
    const echo = (text: string, what: string) => bounded(client.callTool(FIXTURE_TOOLS.echo, { text }), `tools/call echo ${what}`);
    state.echo.injectOnNextResponse(INJECTED_ON_SUCCESS, { method: 'tools/call' });
    await echo('injected on success', '(answered with an injected id)');
    await echo('after the injected id', 'after the injected id');
    state.errors.failNext(1, { method: 'tools/call' });
    state.echo.injectOnError(INJECTED_ON_ERROR);
    try {
      await echo('injected on error', '(answered 503 with an injected id)');
      observe('errorAnswer', 'the 503 did not reach the caller');
    } catch (error) {
      // A rejection is the 503 reaching the caller; a hang or a broken contract is the client's error.
      observe('errorAnswer', ordinaryRejection(error));
    }
    await echo(CLOSING_TEXT, 'after the injected ids');
    await bounded(client.close(), 'close');
  },
  judge(evidence) {
    const { revision } = evidence;
    const modern = isModern(revision);
    // Legacy: the issued id is the one the client MUST send on every later request, so adopting another breaks it.
    // 2026-07-28 has no sessions; adopting an id from a response is the seed's bug, with no keyword in the spec: SHOULD.
    const ignoreSpec = modern
      ? transports(revision, 'earlier-streamable-http-revisions', `Earlier Streamable HTTP Revisions (no sessions in this revision); ${SEED}`, 'SHOULD')
      : sessionManagement(revision, `the id assigned on the InitializeResult goes on every later request; ${SEED}`, 'MUST');
    // The proxy's first injection (on a successful response) is what every rule here is about.
    const injected = adoption(evidence, INJECTED_ON_SUCCESS).at;
    const checks: Check[] = [
      precondition('id-injected', ignoreSpec, injected !== undefined, injected ? `the proxy injected ${INJECTED_ON_SUCCESS} on the answer to ${label(injected)}` : `the proxy never injected an id: the client's requests (${labels(evidence.exchanges)}) never reached the armed response`, injected ? [injected] : []),
      clientCompleted(evidence, modern ? transports(revision, 'sending-messages', 'Sending Messages', 'MUST') : sessionManagement(revision, 'the issued id on every later request', 'MUST')),
      ignoresInjected(evidence, 'ignores-id-on-success-response', INJECTED_ON_SUCCESS, 'a successful response', ignoreSpec),
      ignoresInjected(evidence, 'ignores-id-on-error-response', INJECTED_ON_ERROR, 'an error response', ignoreSpec),
    ];

    if (modern) {
      // The client's own affinity key, when the script gave it one (observed as `affinityKey`; see the header).
      const key = typeof evidence.observed.affinityKey === 'string' ? evidence.observed.affinityKey : undefined;
      // Requests to the MCP endpoint: OAuth discovery elsewhere carries no MCP session or key.
      const sentToEndpoint = mcpExchanges(evidence.exchanges, revision);
      const wrong = sentToEndpoint.filter((exchange) => sessionOf(exchange) !== key);
      const own = key === undefined ? 'no Mcp-Session-Id (the client has no affinity key here)' : `its own affinity key ${key}`;
      checks.push(
        check(
          'keeps-own-key',
          ignoreSpec,
          wrong.length === 0,
          wrong.length === 0
            ? `all ${sentToEndpoint.length} requests carried ${own}`
            : `${labels(wrong)} carried ${[...new Set(wrong.map((e) => sessionOf(e) ?? 'no Mcp-Session-Id'))].join(', ')} instead of ${own}`,
          wrong,
        ),
      );
      return checks;
    }

    // The handshake of the session the client's requests ran on (a client may open one first that it sets aside).
    const operating = operatingSession(evidence);
    const init = evidence.exchanges.find((exchange) => initializeResult(exchange) !== undefined && exchange.responseHeaders[HEADERS.session] === operating);
    const issued = init?.responseHeaders[HEADERS.session];
    const later = init ? after(operatingTraffic(evidence), init.seq) : [];
    // The session is the wire's unit: a client may start a new one (per operation, or after an error) with an initialize
    // that carries no id; every other request carries an id the server issued on an InitializeResult before it, never
    // one a response merely echoed or injected.
    const handshakes = evidence.exchanges.filter((exchange) => initializeResult(exchange) !== undefined && exchange.responseHeaders[HEADERS.session] !== undefined);
    const issuedBefore = (exchange: WireExchange) => handshakes.some((handshake) => handshake.seq < exchange.seq && handshake.responseHeaders[HEADERS.session] === sessionOf(exchange));
    const newSession = (exchange: WireExchange) => carries(exchange, 'initialize') && sessionOf(exchange) === undefined;
    const other: WireExchange[] = later.filter((exchange) => !newSession(exchange) && !issuedBefore(exchange));
    const sessions = new Set(later.filter((exchange) => !newSession(exchange)).map(sessionOf));
    checks.unshift(
      precondition('session-issued', ignoreSpec, issued !== undefined, issued ? `the server issued ${issued} on ${label(init!)}` : 'no InitializeResult carried a session id: there was no issued id to keep', init ? [init] : []),
    );
    checks.push(
      checkIf(
        init === undefined ? 'no InitializeResult carried a session id' : undefined,
        'keeps-issued-id',
        sessionManagement(revision, 'the id from the InitializeResult on all subsequent requests (of that session)', 'MUST'),
        () => other.length === 0,
        () =>
          other.length === 0
            ? sessions.size <= 1
              ? `all ${later.length} requests after ${label(init!)} carried the issued id ${issued}`
              : `all ${later.length} requests after ${label(init!)} carried the id an InitializeResult had issued for their session (${sessions.size} sessions, each started with an initialize without an id)`
            : `the server issued ${issued} on ${label(init!)}, but ${labels(other)} carried ${[...new Set(other.map((e) => sessionOf(e) ?? 'no id'))].join(', ')}: no InitializeResult had issued it`,
        init ? [init, ...other] : [],
      ),
    );
    return checks;
  },
  doctored: [
    {
      check: 'id-injected',
      unmet: true,
      how: 'the client failed before the response the proxy was armed to inject into: no injection noted',
      doctor: (e) => ({ ...e, exchanges: e.exchanges.map((x) => ({ ...x, notes: x.notes.filter((n) => !n.startsWith('injected-session-id:')) })) }),
    },
    {
      check: 'session-issued',
      unmet: true,
      how: 'no InitializeResult carried a session id',
      doctor: (e) => {
        const withoutId = (x: WireExchange): WireExchange => {
          const { [HEADERS.session]: _issued, ...responseHeaders } = x.responseHeaders;
          return { ...x, responseHeaders };
        };
        return { ...e, issuedSessions: [], exchanges: e.exchanges.map((x) => (carries(x, 'initialize') ? withoutId(x) : x)) };
      },
    },
    {
      check: 'keeps-issued-id',
      how: 'a fresh session started before the closing tools/call (an initialize without an id, issued an id of its own), and that tools/call sent with the id the proxy injected on the error',
      doctor: (e) => {
        const handshake = e.exchanges.find((x) => initializeResult(x) !== undefined && x.responseHeaders[HEADERS.session] !== undefined);
        const call = closingCall(e);
        if (!handshake || !call) return e;
        const fresh = { ...structuredClone(handshake), seq: call.seq, responseHeaders: { ...handshake.responseHeaders, [HEADERS.session]: 'fresh-session' } };
        const shifted = e.exchanges.map((x) => (x.seq < call.seq ? x : x === call ? withHeader({ ...x, seq: x.seq + 1 }, HEADERS.session, INJECTED_ON_ERROR) : { ...x, seq: x.seq + 1 }));
        return { ...e, exchanges: [...shifted.filter((x) => x.seq < call.seq), fresh, ...shifted.filter((x) => x.seq > call.seq)] };
      },
    },
    {
      check: 'keeps-issued-id',
      how: 'a throwaway session opened first (as mcp-remote does), and the closing tools/call sent without a session id',
      doctor: (e) => {
        const opened = withThrowawaySession(e);
        const call = closingCall(opened);
        return doctorExchanges(opened, (x) => x === call, (x) => withHeader(x, HEADERS.session, undefined));
      },
    },
  ],
});
