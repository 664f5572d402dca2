// resume/no-rehandshake: a new client instance continues a persisted session from the first one's exported
// resume state, without running initialize again (seed 000: the TypeScript server refuses a second initialize
// on a live session with -32600 "Server already initialized", and the persisted session is lost). The resumed
// connection is the same session: its request ids continue, never reusing one the first connection used there.
import { HEADERS } from '../../protocol/http.ts';
import { requiresProtocolVersionHeader, S } from '../../protocol/revisions.ts';
import { delete405 } from '../../servers/personalities/delete-405.ts';
import { refusesReinitialize } from '../../servers/personalities/refuses-reinitialize.ts';
import { check, clientCompleted, precondition } from '../checks.ts';
import { defineScenario, type Check, type Evidence } from '../scenario.ts';
import { lifecycle, protocolVersionHeader, requestIds, sessionManagement } from '../spec.ts';
import { carries, idsReusedInSession, label, labels, noted, sessionOf } from '../wire.ts';
import { withHeader } from './support.ts';

const SEED = 'seed 000 (resume continues the persisted session: no initialize, the stored id and the originally negotiated version)';

/** The exchanges the resumed client sent: from the one the script noted before connecting it. */
function resumedExchanges(evidence: Evidence) {
  const from = evidence.observed.resumeFromSeq;
  return typeof from === 'number' ? evidence.exchanges.filter((exchange) => exchange.seq >= from) : [];
}

export const noRehandshake = defineScenario({
  id: 'resume/no-rehandshake',
  title: 'A new client resumes a persisted session: no initialize, the same Mcp-Session-Id, the originally negotiated MCP-Protocol-Version',
  revisions: S,
  requires: ['resume', 'keep-session'],
  source: {
    spec: sessionManagement('2025-06-18', 'the issued id on every later request', 'MUST'),
    seed: SEED,
  },
  // The server refuses an initialize carrying a live session id, as the SDK transport does. It also keeps
  // its sessions whatever DELETE says (405): whether the first close deletes is disposal/keep-persisted-session's
  // question, so the resume is judged on a session that is certainly still there.
  setup: () => ({ server: { personalities: [refusesReinitialize(), delete405()] }, state: undefined }),
  async run({ connect, bounded, observe, server }) {
    const first = await connect({ keepSessionOnClose: true });
    await bounded(first.listTools(), 'tools/list');
    const info = await bounded(first.info(), 'info');
    observe('firstVersion', info.negotiatedVersion);
    observe('resumeState', info.resumeState);
    await bounded(first.close(), 'close keeping the session');
    if (info.resumeState === undefined) throw new Error('the first client exported no resume state');

    // Everything from here on is the resumed client's (the first one is closed).
    observe('resumeFromSeq', server.record.exchanges.length + 1);
    const resumed = await connect({ resume: info.resumeState, keepSessionOnClose: true }, { newClient: true });
    await bounded(resumed.listTools(), 'tools/list on the resumed session');
    await bounded(resumed.callTool('echo', { text: 'resumed' }), 'tools/call echo on the resumed session');
    observe('resumedVersion', (await bounded(resumed.info(), 'info after resuming')).negotiatedVersion);
    await bounded(resumed.close(), 'close the resumed connection');
  },
  judge(evidence) {
    const { revision } = evidence;
    const issued = evidence.issuedSessions[0];
    const resumed = resumedExchanges(evidence);
    const continued = sessionManagement(revision, `the issued Mcp-Session-Id on all subsequent requests; ${SEED}`, 'MUST');
    // The suite needs a session to persist and a resumed client that reached the server with it; what that client sends
    // is the behaviour under test.
    const checks: Check[] = [
      precondition('session-issued', continued, issued !== undefined, issued === undefined ? 'the server issued no session to the first client: nothing to persist' : `the server issued ${issued}`),
      precondition(
        'resume-reached',
        continued,
        resumed.length > 0,
        resumed.length > 0
          ? `the resumed client sent ${labels(resumed, 3)}`
          : evidence.observed.resumeFromSeq === undefined
            ? 'the script never connected a resumed client (the first client exported no resume state, or failed before)'
            : 'the resumed client sent nothing',
        resumed.slice(0, 1),
      ),
      clientCompleted(evidence, continued),
    ];

    const handshakes = resumed.filter((exchange) => carries(exchange, 'initialize') || carries(exchange, 'notifications/initialized'));
    const refused = noted(resumed, 'refused-reinitialize');
    checks.push(
      check(
        'no-initialize',
        lifecycle(revision, 'initialization', `Initialization is the first interaction of a session, not repeated inside it; ${SEED}`, 'MUST'),
        handshakes.length === 0,
        handshakes.length === 0
          ? `the resumed client sent no initialize (${resumed.length} requests)`
          : `the resumed client ran the handshake again: ${labels(handshakes)}${refused.length > 0 ? ' (refused: -32600 Server already initialized)' : ''}`,
        handshakes,
      ),
    );

    const other = resumed.filter((exchange) => sessionOf(exchange) !== issued);
    checks.push(
      check(
        'same-session-id',
        continued,
        other.length === 0 && evidence.issuedSessions.length === 1,
        other.length > 0
          ? `${labels(other)} did not carry the persisted id ${issued} (${[...new Set(other.map((e) => sessionOf(e) ?? 'no id'))].join(', ')})`
          : evidence.issuedSessions.length > 1
            ? `the server issued ${evidence.issuedSessions.length - 1} more session(s): the persisted one was not continued`
            : `all ${resumed.length} requests of the resumed client carried ${issued}`,
        other,
      ),
    );

    if (requiresProtocolVersionHeader(revision)) {
      const wrong = resumed.filter((exchange) => exchange.requestHeaders[HEADERS.version] !== revision);
      checks.push(
        check(
          'original-version-header',
          protocolVersionHeader(revision, `the negotiated version on every request; ${SEED}`, 'MUST'),
          wrong.length === 0,
          wrong.length === 0
            ? `all ${resumed.length} requests of the resumed client carried MCP-Protocol-Version: ${revision}, the version negotiated when the session began`
            : `the session was negotiated at ${revision}, but ${wrong.map((e) => `${label(e)} carried ${e.requestHeaders[HEADERS.version] ?? 'no MCP-Protocol-Version'}`).join(', ')}`,
          wrong,
        ),
      );
    }

    // The resumed connection carries the same session: its ids must not repeat those the first connection used in it
    // (a client that starts its ids at 1 again on every connection does). The first connection's own ids are the
    // reference's business elsewhere; only reuse by the resumed client's requests is judged here.
    const from = evidence.observed.resumeFromSeq;
    const reused = typeof from === 'number' ? idsReusedInSession(evidence.exchanges).filter((r) => r.exchange.seq >= from) : [];
    checks.push(
      check(
        'ids-not-reused-on-resume',
        requestIds(revision, 'MUST'),
        reused.length === 0,
        reused.length === 0
          ? `the resumed client's requests carried ids the session had not used (${resumed.flatMap((x) => x.requestMessages.filter((m) => m.method !== undefined && m.id !== undefined).map((m) => `${m.method}#${String(m.id)}`)).join(', ') || 'none'})`
          : `the resumed client used ids again within the session: ${reused.map((r) => `${r.message.method}#${String(r.message.id)} on ${label(r.exchange)}`).join(', ')}`,
        reused.map((r) => r.exchange),
      ),
    );

    const reported = evidence.observed.resumedVersion;
    const negotiation = lifecycle(revision, 'version-negotiation', `Version Negotiation (the resumed session keeps the negotiated version); ${SEED}`, 'MUST');
    checks.push(
      reported === undefined
        ? check('resumed-version-reported', { ...negotiation, level: 'MAY' }, false, `the resumed client does not report a version (the session was negotiated at ${revision})`)
        : check('resumed-version-reported', negotiation, reported === revision, `the session was negotiated at ${revision}; the resumed client reports ${String(reported)}`),
    );
    return checks;
  },
  doctored: [
    {
      check: 'session-issued',
      unmet: true,
      how: 'the server issued no session (the first client never got one)',
      doctor: (e) => ({ ...e, issuedSessions: [] }),
    },
    {
      check: 'resume-reached',
      unmet: true,
      how: 'the first client exported no resume state: the script never connected a resumed client',
      doctor: (e) => {
        const { resumeFromSeq, ...observed } = e.observed;
        return { ...e, observed, exchanges: e.exchanges.filter((x) => x.seq < (resumeFromSeq as number)) };
      },
    },
    {
      check: 'same-session-id',
      how: 'the resumed tools/list carries another session id',
      doctor: (e) => {
        const from = e.observed.resumeFromSeq as number;
        return { ...e, exchanges: e.exchanges.map((x) => (x.seq >= from && carries(x, 'tools/list') ? withHeader(x, HEADERS.session, 'not-the-persisted-id') : x)) };
      },
    },
  ],
});
