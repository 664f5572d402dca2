import type { TimePolicy } from '../../config/time.ts';
import { HEADERS } from '../../protocol/http.ts';
import { STREAMABLE_REVISIONS, type Revision } from '../../protocol/revisions.ts';
import { delayed404, type Delayed404 } from '../../servers/personalities/delayed-404.ts';
import { FIXTURE_TOOLS } from '../../servers/fixtures.ts';
import { expiringSessions, type ExpiringSessions } from '../../servers/personalities/expiring-sessions.ts';
import type { ReferenceServer } from '../../servers/reference-server.ts';
import type { WireExchange, WireRecord } from '../../servers/wire-record.ts';
import { check, checkIf, clientCompleted, precondition } from '../checks.ts';
import { settle } from '../outcome.ts';
import { defineScenario, type Evidence, type Level, type SpecRef } from '../scenario.ts';
import { newSessionAfter404, sessionManagement } from '../spec.ts';
import { callsTool, label, labels, operatingSession, operatingTraffic, requests, sessionOf, withThrowawaySession } from '../wire.ts';
import { markSessionsEnded, unlessKeptNoSession } from '../resume/support.ts';
import { sessionEnded } from './support.ts';

function bounds(time: TimePolicy) {
  // Each wait for the client to react on the wire (both requests held, the replacement session served).
  const reactMs = 4 * time.ms.react;
  // A hold ends by itself after this, so a client that sends more requests with the dead id cannot stall the run; it
  // outlasts the script's own two waits before it releases everything (a hold that ended by itself loses the order).
  const maxHoldMs = 2 * reactMs + time.ms.react;
  return { maxHoldMs, reactMs };
}

const held = (record: { exchanges: readonly WireExchange[] }) => record.exchanges.filter((exchange) => exchange.notes.includes('delayed-404'));

/**
 * The two requests in flight when the session ends: calls of idempotent_count (annotated idempotentHint: true), which a
 * client may send again on its new session. Calls, not listings: a listing may be answered from the client's cache.
 */
const IN_FLIGHT = FIXTURE_TOOLS.idempotentCount;
const inFlightCall = (exchange: WireExchange) => callsTool(exchange, IN_FLIGHT);

/** The replacement session has served a call: a session id other than the dead one answered one with a result. */
function replacementServed(server: ReferenceServer, dead: string | undefined): boolean {
  return server.record.exchanges.some(
    (exchange) =>
      sessionOf(exchange) !== undefined &&
      sessionOf(exchange) !== dead &&
      inFlightCall(exchange) &&
      exchange.responseMessages.some(({ message }) => message.result !== undefined),
  );
}

const staleRule = (revision: Revision, level: Level): SpecRef =>
  sessionManagement(
    revision,
    'a 404 for an id that is no longer the current one (a request that was in flight with the old id) does not tear down the session that replaced it (seed 002)',
    level,
  );

/** The session the client's requests ran on (not one it set aside before), and its requests answered 404, in the order answered: the first, then the stale one. */
function the404s(evidence: Evidence) {
  const dead = operatingSession(evidence);
  const answered404 = evidence.exchanges
    // Not the DELETE that ends the session (close's): it asks for no new session.
    .filter((exchange) => dead !== undefined && exchange.method !== 'DELETE' && sessionOf(exchange) === dead && exchange.status === 404 && exchange.headersAt !== undefined)
    .sort((a, b) => a.headersAt! - b.headersAt!);
  const first404 = answered404[0];
  const stale404 = answered404.find((exchange) => exchange !== first404 && inFlightCall(exchange));
  return { dead, answered404, first404, stale404 };
}

/**
 * The session ends and two calls of idempotent_count leave with its id at once; the server holds both 404s. The first
 * is released: the client starts a new session (and, the call being idempotent, may retry there). Then the second, now stale, 404
 * is released: it answers a request that carried the old id, so the replacement stays and the next request uses it.
 */
export const stale404AfterReplacement = defineScenario<{ expiring: ExpiringSessions; delayed: Delayed404 }>({
  id: 'retry/stale-404-after-replacement',
  title: 'Two requests in flight when the session expires: the first 404 starts a new session; a delayed 404 for the old id does not tear it down',
  revisions: STREAMABLE_REVISIONS,
  requires: [],
  source: { spec: staleRule('2025-11-25', 'SHOULD'), seed: 'seed 002 (a delayed 404 for a legacy session already replaced must not drop the valid replacement)' },
  setup: (_revision, time) => {
    // expiring-sessions before delayed-404: the session must have ended when delayed-404 looks at the request.
    const expiring = expiringSessions();
    const delayed = delayed404({ maxHoldMs: bounds(time).maxHoldMs });
    return { server: { personalities: [expiring, delayed] }, state: { expiring, delayed } };
  },
  async run(context) {
    const { connect, bounded, state, observe, server, time } = context;
    const { reactMs } = bounds(time);
    const client = await connect();
    await bounded(client.listTools(), 'tools/list');
    // The session the tools/list ran on (a client may have opened one before that it set aside).
    const dead = operatingSession({ exchanges: server.record.exchanges, issuedSessions: server.issuedSessions() });
    const issuedSince = () => dead !== undefined && server.issuedSessions().indexOf(dead) < server.issuedSessions().length - 1;
    await state.expiring.expireNow();
    markSessionsEnded(context);
    const inFlight = [1, 2].map((n) => settle(bounded(client.callTool(IN_FLIGHT, {}), `tools/call ${IN_FLIGHT} ${n}, in flight when the session ended`)));
    const heldCalls = (record: WireRecord) => held(record).filter(inFlightCall).length;
    await server.record.waitFor((record) => heldCalls(record) >= 2, `both calls of ${IN_FLIGHT} to be held`, reactMs).catch(() => {});
    state.delayed.releaseDelayed(1);
    // The first 404 reaches the client: wait until its replacement session serves, the client gives up on the
    // request, or it sends something else the server holds (a request with the dead id).
    const heldBefore = held(server.record).length;
    let raced = false;
    const reacted = server.record
      .waitFor(() => raced || replacementServed(server, dead) || held(server.record).length > heldBefore, 'the client to react to the first 404', reactMs)
      .catch(() => {});
    await Promise.race([reacted, ...inFlight]);
    raced = true;
    // Now the stale 404 (and whatever else was held).
    state.delayed.releaseDelayed();
    observe('inFlight', await Promise.all(inFlight));
    // A client that started no new session has nothing to keep: a further call would only wait on a held 404.
    if (issuedSince()) observe('after', await settle(bounded(client.callTool(FIXTURE_TOOLS.echo, { text: 'after the stale 404' }), 'tools/call echo after the stale 404')));
    await bounded(client.close(), 'close');
    await reacted;
  },
  judge(evidence) {
    const { revision, exchanges } = evidence;
    const { dead, answered404, first404, stale404 } = the404s(evidence);
    // The two calls in flight when the session ended, held by the server; the script releases them one by one.
    const inFlight = held(evidence).filter(inFlightCall).slice(0, 2);
    const timedOut = inFlight.filter((exchange) => exchange.notes.includes('delayed-404-timeout'));
    const laterThan = (at: number | undefined) => (at === undefined ? [] : exchanges.filter((exchange) => exchange.startedAt >= at));
    const traffic = new Set(operatingTraffic(evidence));

    const reinit = requests(laterThan(first404?.headersAt), 'initialize')[0];
    const issued = reinit?.exchange.responseHeaders[HEADERS.session];
    const newSession = reinit !== undefined && sessionOf(reinit.exchange) === undefined && issued !== undefined && issued !== dead;
    const replacement = issued !== dead ? issued : undefined;

    const afterStale = laterThan(stale404?.headersAt).filter((exchange) => traffic.has(exchange));
    const reinitAfterStale = requests(afterStale, 'initialize').map((s) => s.exchange);
    const offReplacement = afterStale.filter((exchange) => replacement === undefined || sessionOf(exchange) !== replacement);
    // What the stale-404 rules need: a replacement to keep, and a second 404 for the old id after it.
    const notExercised = !newSession
      ? 'no replacement session was started: nothing to keep (new-session-after-first-404 says why)'
      : stale404 === undefined
        ? `only ${answered404.length} request with the old id was answered 404: no stale 404 reached the client (were the two calls not in flight together?)`
        : stale404.headersAt !== undefined && reinit.exchange.startedAt >= stale404.headersAt
          ? `the client started its one new session (${label(reinit.exchange)}) only after both 404s had reached it: there was no replacement for the stale ${label(stale404)} to tear down`
          : undefined;

    return [
      unlessKeptNoSession(sessionEnded(revision, dead, first404), evidence),
      unlessKeptNoSession(
        precondition(
          'held-in-order',
          staleRule(revision, 'SHOULD'),
          inFlight.length === 2 && timedOut.length === 0,
          inFlight.length < 2
            ? `${inFlight.length} call${inFlight.length === 1 ? '' : 's'} of ${IN_FLIGHT} with the old id ${inFlight.length === 1 ? 'was' : 'were'} held: the two were not in flight together`
            : timedOut.length > 0
              ? `the hold of ${labels(timedOut)} ended by itself before the script released it: the 404s did not arrive in the order the scenario needs`
              : `${labels(inFlight)} were held, then released one by one`,
          inFlight,
        ),
        evidence,
        'no two requests were in flight on a session that ended',
      ),
      clientCompleted(evidence, sessionManagement(revision, 'the session is replaced and used', 'MUST')),
      check(
        'new-session-after-first-404',
        newSessionAfter404(revision),
        newSession,
        !first404
          ? 'the session never met its 404'
          : newSession
            ? `after ${label(first404)} the client sent initialize without a session id (${label(reinit.exchange)}) and got ${issued}`
            : reinit === undefined
              ? `after ${label(first404)} no new initialize was sent`
              : `the initialize after ${label(first404)} ${sessionOf(reinit.exchange) !== undefined ? `carried the dead id ${sessionOf(reinit.exchange)}` : 'got no new session id'} (${label(reinit.exchange)})`,
        [...(first404 ? [first404] : []), ...(reinit ? [reinit.exchange] : [])],
      ),
      checkIf(
        notExercised,
        'no-reinitialize-on-stale-404',
        staleRule(revision, 'SHOULD'),
        () => reinitAfterStale.length === 0,
        () => (reinitAfterStale.length === 0 ? `the stale ${label(stale404!)} led to no new initialize` : `the stale ${label(stale404!)} led to a new initialize: ${labels(reinitAfterStale)}`),
        [...(stale404 ? [stale404] : []), ...reinitAfterStale],
      ),
      checkIf(
        notExercised,
        'replacement-kept',
        staleRule(revision, 'SHOULD'),
        () => afterStale.length > 0 && offReplacement.length === 0,
        () =>
          afterStale.length === 0
            ? `nothing was sent after the stale ${label(stale404!)}`
            : offReplacement.length === 0
              ? `all ${afterStale.length} requests after the stale ${label(stale404!)} carried the replacement id ${replacement}`
              : `after the stale ${label(stale404!)} ${offReplacement.length} requests did not carry the replacement id ${replacement}: ${offReplacement
                  .map((e: WireExchange) => `${label(e)} with ${sessionOf(e) ?? 'no session id'}`)
                  .join(', ')}`,
        [...(stale404 ? [stale404] : []), ...offReplacement],
      ),
    ];
  },
  doctored: [
    {
      check: 'held-in-order',
      unmet: true,
      how: 'the hold of the first call ended by itself (a client too slow for the script’s waits)',
      doctor: (e) => {
        const first = held(e).find(inFlightCall);
        return { ...e, exchanges: e.exchanges.map((x) => (x === first ? { ...x, notes: [...x.notes, 'delayed-404-timeout'] } : x)) };
      },
    },
    {
      check: 'session-ended',
      unmet: true,
      how: 'no request with the issued id was answered 404 (the session never ended under the client)',
      doctor: (e) => ({ ...e, exchanges: e.exchanges.map((x) => (x.status === 404 ? { ...x, status: 200 } : x)) }),
    },
    {
      check: 'replacement-kept',
      how: 'a throwaway session opened first (as mcp-remote does), and every request after the stale 404 sent with the dead id',
      doctor: (e) => {
        const opened = withThrowawaySession(e);
        const { dead, stale404 } = the404s(opened);
        if (!stale404 || dead === undefined) return opened;
        const moved = (x: WireExchange) => x.startedAt >= stale404.headersAt! && sessionOf(x) !== undefined;
        return { ...opened, exchanges: opened.exchanges.map((x) => (moved(x) ? { ...x, requestHeaders: { ...x.requestHeaders, [HEADERS.session]: dead } } : x)) };
      },
    },
  ],
});
