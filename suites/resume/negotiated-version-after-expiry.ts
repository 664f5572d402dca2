// resume/negotiated-version-after-expiry (seed 002: getNegotiatedVersion stale after session expiry): the session
// expires and the URL now answers another revision, as after a redeployment; the replacement handshake negotiates
// it, and from then on the version the client reports and the MCP-Protocol-Version it sends are the new one.
import { HEADERS } from '../../protocol/http.ts';
import { S, type Revision, type StreamableRevision } from '../../protocol/revisions.ts';
import { FIXTURE_TOOLS } from '../../servers/fixtures.ts';
import { check, checkIf, clientCompleted } from '../checks.ts';
import { ordinaryRejection } from '../outcome.ts';
import { defineScenario, type Check, type Evidence } from '../scenario.ts';
import { lifecycle, newSessionAfter404, protocolVersionHeader } from '../spec.ts';
import { after, initializeResult, label, labels, operatingTraffic, withThrowawaySession } from '../wire.ts';
import { AFTER_LOSS_TEXT, markSessionsEnded, onlyInFlight, revisionSwitch, sessionLoss, sessionLost, sessionNeverLost, staleAfter, untilEndedByClient, type RevisionSwitch, withHeader } from './support.ts';

const SEED = 'seed 002 (the negotiated version went stale after a session expired and was re-initialized)';

/**
 * The revision the URL answers after the expiry: one the clients under test offer or accept, and never the
 * first. 2025-11-25 (every client's newest legacy revision) after an older one; 2025-06-18 after 2025-11-25.
 */
export function revisionAfterExpiry(revision: Revision): StreamableRevision {
  return revision === '2025-11-25' ? '2025-06-18' : '2025-11-25';
}

/** The replacement handshake: the first initialize after the loss answered with a result, and what it named. */
function replacementOf(evidence: Evidence) {
  const { lost, replacement } = sessionLoss(evidence, { status: 404 });
  const answered = replacement ? initializeResult(replacement)?.['protocolVersion'] : undefined;
  return { lost, replacement, answered: typeof answered === 'string' ? answered : undefined };
}

/** The record with every request after the replacement handshake carrying the revision of the expired session. */
function staleHeaderAfterReplacement(evidence: Evidence): Evidence {
  const { replacement } = replacementOf(evidence);
  return { ...evidence, exchanges: evidence.exchanges.map((x) => (replacement && x.seq > replacement.seq ? withHeader(x, HEADERS.version, evidence.revision) : x)) };
}

export const negotiatedVersionAfterExpiry = defineScenario<{ switcher: RevisionSwitch }>({
  id: 'resume/negotiated-version-after-expiry',
  title: 'After re-initializing an expired session at a different revision, reported version and headers follow the new handshake',
  revisions: S,
  requires: [],
  source: { spec: lifecycle('2025-06-18', 'version-negotiation', 'Version Negotiation', 'MUST'), seed: SEED },
  setup: (revision) => {
    const switcher = revisionSwitch(revisionAfterExpiry(revision));
    return { server: { personalities: [switcher] }, state: { switcher } };
  },
  async run(context) {
    const { connect, bounded, state, observe, server } = context;
    const client = await connect();
    await bounded(client.listTools(), 'tools/list');
    observe('versionBefore', (await bounded(client.info(), 'info')).negotiatedVersion);
    // The session ends, and the URL is served at another revision from now on.
    await server.expireSession();
    state.switcher.switchNow();
    markSessionsEnded(context);
    // Calls, not listings: a listing may be answered from the client's cache, and never meet the 404.
    try {
      await bounded(client.callTool(FIXTURE_TOOLS.echo, { text: AFTER_LOSS_TEXT }), 'tools/call echo meeting the 404');
    } catch (error) {
      // A rejection is an answer; a hang or a broken contract is the client's error.
      observe('lossSurfaced', ordinaryRejection(error));
    }
    await bounded(client.callTool(FIXTURE_TOOLS.echo, { text: AFTER_LOSS_TEXT }), `tools/call echo on the new session (${state.switcher.next})`);
    await bounded(client.callTool(FIXTURE_TOOLS.echo, { text: 'after expiry' }), 'tools/call echo on the new session, again');
    observe('versionAfter', (await bounded(client.info(), 'info after the new handshake')).negotiatedVersion);
    await bounded(client.close(), 'close');
  },
  judge(evidence) {
    const { revision } = evidence;
    const next = revisionAfterExpiry(revision);
    const { lost, replacement, answered } = replacementOf(evidence);
    const negotiation = lifecycle(revision, 'version-negotiation', `Version Negotiation (the version the latest handshake agreed); ${SEED}`, 'MUST');
    const checks: Check[] = [sessionLost(evidence, negotiation, { status: 404 }, '404'), clientCompleted(evidence, newSessionAfter404(revision))];

    // Both rules are about what follows a replacement handshake. A client that never started one broke the rule of
    // resume/expired-404 (and fails client-completed here): the version after a new handshake was never exercised.
    const handshake = replacement
      ? `the replacement handshake ${label(replacement)} was answered ${answered ?? 'without a version'}`
      : lost
        ? `no replacement handshake followed ${label(lost)}`
        : 'the session never met its 404';
    const unreplaced = replacement === undefined ? `${handshake}: no new handshake for the version to follow` : undefined;
    const reported = evidence.observed.versionAfter;
    checks.push(
      reported === undefined
        ? check('reported-version-follows', { ...negotiation, level: 'MAY' }, false, `${handshake}; the client does not report a version`, replacement ? [replacement] : [])
        : checkIf(
            unreplaced,
            'reported-version-follows',
            negotiation,
            () => answered !== undefined && reported === answered,
            () => `${handshake}; afterwards the client reports ${String(reported)} (it negotiated ${String(evidence.observed.versionBefore)} before)`,
            replacement ? [replacement] : [],
          ),
    );

    // The header rule is the one of the revision the new session speaks (2025-03-26 has no such section; every
    // revision this scenario switches to defines it), so it is cited at that revision.
    // Until the client ends the replacement itself: a session it opens after that has a handshake of its own.
    const later = replacement ? untilEndedByClient(after(operatingTraffic(evidence), replacement.seq), replacement.responseHeaders[HEADERS.session]) : [];
    const wrong = later.filter((exchange) => exchange.requestHeaders[HEADERS.version] !== answered);
    const wrongInFlight = replacement ? onlyInFlight(staleAfter(wrong, replacement, evidence), 'another version', replacement) : undefined;
    checks.push(
      checkIf(
        unreplaced ?? (later.length === 0 ? `${handshake}, and the client sent nothing after it` : wrongInFlight),
        'header-follows',
        protocolVersionHeader(next, `the version negotiated by the latest handshake; ${SEED}`, 'MUST'),
        () => answered !== undefined && wrong.length === 0,
        () =>
          answered === undefined
            ? handshake
            : wrong.length === 0
              ? `all ${later.length} requests after ${label(replacement!)} carried MCP-Protocol-Version: ${answered}`
              : `${handshake}, but ${labels(wrong)} carried ${[...new Set(wrong.map((e) => e.requestHeaders[HEADERS.version] ?? 'no MCP-Protocol-Version'))].join(', ')}`,
        replacement ? [replacement, ...wrong] : [],
      ),
    );
    return checks;
  },
  doctored: [
    sessionNeverLost({ status: 404 }, '404'),
    {
      check: 'header-follows',
      how: `requests after the new handshake carry the revision of the expired session`,
      doctor: staleHeaderAfterReplacement,
    },
    {
      check: 'header-follows',
      how: 'a throwaway session opened first (as mcp-remote does), and requests after the new handshake carry the revision of the expired session',
      doctor: (e) => staleHeaderAfterReplacement(withThrowawaySession(e)),
    },
  ],
});
