// resume/echoed-session-header (seed 000: "a proxy echoing mcp-session-id back could overwrite the client-minted
// routing key mid-connection"): a proxy echoes Mcp-Session-Id on every response and injects other ids, once on a
// successful non-initialize response and once on an error response. The client keeps the id issued with the
// InitializeResult (legacy), or sends no session id it did not mint (2026-07-28). At 2026-07-28 an adapter that
// declares `affinity-key` connects with one, and `keeps-own-key` demands it on every request; without the feature
// the client must send no Mcp-Session-Id at all.
import { echoSessionHeaders, type EchoSessionHeaders } from '../../servers/personalities/echo-session-headers.ts';
import { serverErrors, type ServerErrors } from '../../servers/personalities/server-errors.ts';
import type { WireExchange } from '../../servers/wire-record.ts';
import { check, clientCompleted } from '../checks.ts';
import { mcpExchanges, operatingSession, withThrowawaySession } from '../wire.ts';
import { defineScenario, type Check, type Evidence, type SpecRef } from '../scenario.ts';
import { carries, describe, doctorExchanges, initializeResult, laterRequests, list, SESSION_HEADER, sessionOf, STREAMABLE_AND_MODERN, transports, withHeader } from './support.ts';

const SEED = 'seed 000 (a proxy echoing or injecting Mcp-Session-Id must not change the id the client sends)';
/** Ids no server issued: what the proxy injects. */
export const INJECTED_ON_SUCCESS = 'injected-by-proxy-on-success';
export const INJECTED_ON_ERROR = 'injected-by-proxy-on-error';

const modern = (evidence: Evidence) => evidence.revision === '2026-07-28';

/** The exchange whose response the proxy gave the injected id, and every later one that carried it. */
function adoption(evidence: Evidence, injected: string) {
  const at = evidence.exchanges.find((exchange) => exchange.notes.includes(`injected-session-id:${injected}`));
  const carriers = at ? evidence.exchanges.filter((exchange) => exchange.seq > at.seq && sessionOf(exchange) === injected) : [];
  return { at, carriers };
}

function ignoresInjected(evidence: Evidence, name: string, injected: string, on: string, spec: SpecRef): Check {
  const { at, carriers } = adoption(evidence, injected);
  const later = at ? evidence.exchanges.filter((exchange) => exchange.seq > at.seq) : [];
  return check(
    name,
    spec,
    at !== undefined && later.length > 0 && carriers.length === 0,
    at === undefined
      ? `the proxy never injected an id on ${on} (the scenario could not run)`
      : later.length === 0
        ? `the proxy injected ${injected} on ${describe(at)}, and nothing followed it (the scenario could not run)`
        : carriers.length === 0
          ? `the proxy injected Mcp-Session-Id: ${injected} on the answer to ${describe(at)}; none of the ${later.length} later requests carried it`
          : `the proxy injected Mcp-Session-Id: ${injected} on the answer to ${describe(at)}, and the client adopted it: ${list(carriers)} carried it`,
    at ? [at, ...carriers] : [],
  );
}

export const echoedSessionHeader = defineScenario<{ echo: EchoSessionHeaders; errors: ServerErrors }>({
  id: 'resume/echoed-session-header',
  title: 'A proxy echoing Mcp-Session-Id and injecting other ids (on an error and on a non-initialize response) does not change the id the client sends',
  revisions: STREAMABLE_AND_MODERN,
  requires: [],
  optional: ['affinity-key'],
  source: { spec: transports('2025-06-18', 'session-management', 'Session Management (the id comes with the InitializeResult)', 'MUST'), seed: SEED },
  setup: () => {
    const echo = echoSessionHeaders();
    const errors = serverErrors();
    return { server: { personalities: [echo, errors] }, state: { echo, errors } };
  },
  async run({ connect, bounded, state, observe, revision, features }) {
    const affinityKey = revision === '2026-07-28' && features.includes('affinity-key') ? 'client-minted-affinity-key' : undefined;
    if (affinityKey) observe('affinityKey', affinityKey);
    const client = await connect(affinityKey ? { affinityKey } : {});
    await bounded(client.listTools(), 'tools/list (answered with the echoed id)');
    state.echo.injectOnNextResponse(INJECTED_ON_SUCCESS, { method: 'tools/list' });
    await bounded(client.listTools(), 'tools/list (answered with an injected id)');
    await bounded(client.listTools(), 'tools/list after the injected id');
    state.errors.failNext(1, { method: 'tools/list' });
    state.echo.injectOnError(INJECTED_ON_ERROR);
    try {
      await bounded(client.listTools(), 'tools/list answered 503 with an injected id');
      observe('errorAnswer', 'the 503 did not reach the caller');
    } catch (error) {
      observe('errorAnswer', String(error));
    }
    await bounded(client.callTool('echo', { text: 'after the injected ids' }), 'tools/call echo after the injected ids');
    await bounded(client.close(), 'close');
  },
  judge(evidence) {
    const { revision } = evidence;
    const isModern = modern(evidence);
    // Legacy: the issued id is the one the client MUST send on every later request, so adopting another breaks it.
    // 2026-07-28 has no sessions; adopting an id from a response is the seed's bug, with no keyword in the spec: SHOULD.
    const ignoreSpec = isModern
      ? transports(revision, 'earlier-streamable-http-revisions', `Earlier Streamable HTTP Revisions (no sessions in this revision); ${SEED}`, 'SHOULD')
      : transports(revision, 'session-management', `Session Management: the id assigned on the InitializeResult goes on every later request; ${SEED}`, 'MUST');
    const checks: Check[] = [
      clientCompleted(evidence, isModern ? transports(revision, 'sending-messages', 'Sending Messages', 'MUST') : transports(revision, 'session-management', 'Session Management', 'MUST')),
      ignoresInjected(evidence, 'ignores-id-on-success-response', INJECTED_ON_SUCCESS, 'a successful response', ignoreSpec),
      ignoresInjected(evidence, 'ignores-id-on-error-response', INJECTED_ON_ERROR, 'an error response', ignoreSpec),
    ];

    if (isModern) {
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
          sentToEndpoint.length > 0 && wrong.length === 0,
          wrong.length === 0
            ? `all ${sentToEndpoint.length} requests carried ${own}`
            : `${list(wrong)} carried ${[...new Set(wrong.map((e) => sessionOf(e) ?? 'no Mcp-Session-Id'))].join(', ')} instead of ${own}`,
          wrong,
        ),
      );
      return checks;
    }

    // The handshake of the session the client's requests ran on (a client may open one first that it sets aside).
    const operating = operatingSession(evidence);
    const init = evidence.exchanges.find((exchange) => initializeResult(exchange) !== undefined && exchange.responseHeaders[SESSION_HEADER] === operating);
    const issued = init?.responseHeaders[SESSION_HEADER];
    const later = init ? laterRequests(evidence, init) : [];
    const other: WireExchange[] = later.filter((exchange) => sessionOf(exchange) !== issued);
    const reinits = later.filter((exchange) => carries(exchange, 'initialize'));
    checks.push(
      check(
        'keeps-issued-id',
        transports(revision, 'session-management', 'Session Management: the id from the InitializeResult on all subsequent requests', 'MUST'),
        issued !== undefined && later.length > 0 && other.length === 0,
        issued === undefined
          ? 'no InitializeResult carried a session id (the scenario could not start)'
          : other.length === 0
            ? `all ${later.length} requests after ${describe(init!)} carried the issued id ${issued}`
            : `the server issued ${issued} on ${describe(init!)}, but ${list(other)} carried ${[...new Set(other.map((e) => sessionOf(e) ?? 'no id'))].join(', ')}${reinits.length > 0 ? ` (the client re-initialized: ${list(reinits)})` : ''}`,
        init ? [init, ...other] : [],
      ),
    );
    return checks;
  },
  doctored: [
    {
      check: 'keeps-issued-id',
      how: 'a throwaway session opened first (as mcp-remote does), and the closing tools/call sent without a session id',
      doctor: (e) => doctorExchanges(withThrowawaySession(e), (x) => carries(x, 'tools/call'), (x) => withHeader(x, SESSION_HEADER, undefined)),
    },
  ],
});
