import { HEADERS } from '../../protocol/http.ts';
import { STREAMABLE_REVISIONS, type Revision } from '../../protocol/revisions.ts';
import { FIXTURE_TOOLS } from '../../servers/fixtures.ts';
import { dropConnection, type DropConnection } from '../../servers/personalities/drop-connection.ts';
import { check, clientCompleted, precondition } from '../checks.ts';
import { settle } from '../outcome.ts';
import { defineScenario, type Evidence, type Level, type SpecRef } from '../scenario.ts';
import { sendingMessages, sessionManagement } from '../spec.ts';
import type { WireExchange } from '../../servers/wire-record.ts';
import { carrying, label, labels, noted, operatingSession, operatingTraffic, requests, seqNow, sessionKey, sessionOf, withThrowawaySession } from '../wire.ts';

const WHEN = ['before', 'after'] as const;
/** The `observed` key of the record's length when the idempotent_count call dropped `when` the handler had settled. */
const settledAt = (when: (typeof WHEN)[number]) => `settled-${when}-at-seq`;

/** The `observed` keys of the record's length after connect() and after the first tools/list (before any drop). */
const CONNECTED_AT = 'connected-at-seq';
const LISTED_AT = 'listed-before-drops-at-seq';

/** The session an initialize in `exchanges` was issued, for each such exchange (`sessionKey`: the id its answer issued). */
function sessionsInitialized(all: readonly WireExchange[], exchanges: readonly WireExchange[]): string[] {
  return carrying(exchanges, 'initialize').map((exchange) => sessionKey(all, exchange));
}

/**
 * The client keeps a session per operation, read from the wire before the first drop: the first operation and the one
 * the drop hit each began with an initialize of their own, and the drop hit that new session. Such a client's later
 * operations open sessions of their own whatever the drop did (and one that gives up a dropped session without a
 * DELETE, as mcp 1.30 does, has not moved off it): only the operation the drop hit is judged.
 */
function sessionPerOperation(evidence: Evidence, traffic: readonly WireExchange[], drop: WireExchange): { per: boolean; detail: string } {
  const connected = (evidence.observed[CONNECTED_AT] as number | undefined) ?? 0;
  const listed = evidence.observed[LISTED_AT] as number | undefined;
  if (listed === undefined) return { per: false, detail: '' };
  const first = traffic.filter((exchange) => exchange.seq > connected && exchange.seq <= listed);
  const dropped = traffic.filter((exchange) => exchange.seq > listed && exchange.seq <= drop.seq);
  const firstSessions = sessionsInitialized(evidence.exchanges, first);
  const droppedSessions = sessionsInitialized(evidence.exchanges, dropped);
  const hit = sessionOf(drop);
  const listedOn = requests(first, 'tools/list').map((request) => sessionOf(request.exchange));
  const per =
    hit !== undefined &&
    droppedSessions.includes(hit) &&
    !firstSessions.includes(hit) &&
    listedOn.length > 0 &&
    listedOn.every((session) => session !== undefined && firstSessions.includes(session));
  return {
    per,
    detail: per ? ` (a session per operation, read from the wire before the drop: the first tools/list ran on ${listedOn[0]}, its own initialize's; the dropped one on ${hit}, opened for it; only the operation the drop hit is judged)` : '',
  };
}

/** seed 000, on the legacy session a dropped transport leaves behind. */
const dropIsNotAVerdict = (revision: Revision, level: Level): SpecRef =>
  sessionManagement(
    revision,
    "only a 404 ends a session; a dropped connection (no HTTP answer) is not the server's verdict, so the session id is kept and no new initialize is sent (seed 000)",
    level,
  );

/**
 * The connection is reset under a tools/call of idempotent_count, once before the server handled it and once after: neither is the
 * server ending the session. Whatever the client does next (send the call again, or surface the drop and let the
 * caller go on), it stays on the session it was issued.
 */
export const connectionDropKeepsSession = defineScenario<{ drop: DropConnection }>({
  id: 'retry/connection-drop-keeps-session',
  title: 'A dropped connection is not the server’s verdict: the reconnect keeps the same session id, no new initialize',
  revisions: STREAMABLE_REVISIONS,
  requires: [],
  source: {
    spec: dropIsNotAVerdict('2025-11-25', 'SHOULD'),
    seed: "seed 000 (a dropped transport is not the server's verdict on the session: the reconnect resumes it instead of starting a cold one)",
  },
  setup: () => {
    const drop = dropConnection();
    return { server: { personalities: [drop] }, state: { drop } };
  },
  async run({ connect, bounded, state, observe, wire }) {
    const client = await connect();
    // Where the first operation began and ended on the wire: the client's shape (a session per operation?) is read there.
    observe(CONNECTED_AT, seqNow(wire.record));
    await bounded(client.listTools(), 'tools/list');
    observe(LISTED_AT, seqNow(wire.record));
    // Calls from here on, not listings (a listing may be answered from the client's cache and never meet a drop): of
    // idempotent_count, annotated idempotentHint: true, so a client may send a dropped one again.
    for (const when of WHEN) {
      state.drop.dropNext(1, { method: 'tools/call', when });
      observe(`dropped-${when}`, await settle(bounded(client.callTool(FIXTURE_TOOLS.idempotentCount, {}), `tools/call idempotent_count whose connection drops ${when} the handler`)));
      // Where that operation ended on the wire: what came after it belongs to the client's later operations.
      observe(settledAt(when), seqNow(wire.record));
    }
    await bounded(client.callTool(FIXTURE_TOOLS.idempotentCount, {}), 'tools/call idempotent_count after the drops');
    await bounded(client.close(), 'close');
  },
  judge(evidence) {
    const { revision, exchanges } = evidence;
    const drops = WHEN.map((when) => noted(exchanges, `dropped-${when}-handler`)[0]);
    const firstDrop = drops.find((drop) => drop !== undefined);
    const firstDropLabel = firstDrop ? label(firstDrop) : 'the drop';
    const traffic = operatingTraffic(evidence);
    const shape = firstDrop === undefined ? { per: false, detail: '' } : sessionPerOperation(evidence, traffic, firstDrop);
    // What each drop binds: the session it hit, kept for the rest of the client's traffic; or, for a client with a
    // session per operation (read from the wire before the first drop), or where the client ended that session itself
    // (its DELETE) before the operation was over, within that operation: its later operations open sessions of their
    // own, not because of the drop.
    const scopes = WHEN.flatMap((when, index) => {
      const drop = drops[index];
      if (drop === undefined) return [];
      const hit = sessionOf(drop);
      const mark = evidence.observed[settledAt(when)];
      const rest = traffic.filter((exchange) => exchange.seq > drop.seq);
      const operation = typeof mark === 'number' ? rest.filter((exchange) => exchange.seq <= mark) : [];
      const ended = operation.find((exchange) => exchange.method === 'DELETE' && hit !== undefined && sessionOf(exchange) === hit);
      return [{ drop, hit, ended, operation, judged: ended || shape.per ? operation : rest }];
    });
    const judged = [...new Map(scopes.flatMap((scope) => scope.judged.map((exchange) => [exchange.seq, { exchange, hit: scope.hit }] as const))).values()];
    const after = judged.map(({ exchange }) => exchange);
    const offSession = judged.filter(({ exchange, hit }) => hit === undefined || sessionOf(exchange) !== hit).map(({ exchange }) => exchange);
    const initializes = requests(after, 'initialize');
    const endedOwn = scopes.filter((scope) => scope.ended !== undefined);
    const within =
      shape.per
        ? shape.detail
        : endedOwn.length === 0
          ? ''
          : ` (within the operation the connection dropped under, until the client ended that session itself: ${endedOwn.map((scope) => `${label(scope.drop)} to ${label(scope.ended!)}`).join('; ')})`;
    const sessionsHit = [...new Set(scopes.map((scope) => scope.hit ?? 'no session id'))].join(', ');

    // Sent again: a call of idempotent_count between this drop and the next one; after the last drop, one besides the script's own later call.
    const lists = requests(exchanges, 'tools/call', FIXTURE_TOOLS.idempotentCount);
    const resent = drops.map((drop, index) => {
      if (!drop) return false;
      // A session per operation: sent again within the operation the drop hit, on its session (the next operation's own call is not).
      if (shape.per) {
        const scope = scopes.find((s) => s.drop === drop)!;
        return requests(scope.operation, 'tools/call', FIXTURE_TOOLS.idempotentCount).some((s) => s.exchange.seq > drop.seq && sessionOf(s.exchange) === scope.hit);
      }
      const last = index === drops.length - 1;
      const next = last ? Infinity : (drops[index + 1]?.seq ?? Infinity);
      return lists.filter((s) => s.exchange.seq > drop.seq && s.exchange.seq < next).length >= (last ? 2 : 1);
    });

    return [
      // The first drop is the suite's doing; whether the client sends the later call (the second drop) is its own.
      precondition(
        'connection-dropped',
        dropIsNotAVerdict(revision, 'SHOULD'),
        firstDrop !== undefined,
        firstDrop === undefined ? 'no tools/call was dropped: the scenario could not drive the client there' : `${label(firstDrop)}: the connection was reset under the tools/call`,
        firstDrop ? [firstDrop] : [],
      ),
      clientCompleted(evidence, dropIsNotAVerdict(revision, 'MUST')),
      check(
        'same-session-after-drop',
        dropIsNotAVerdict(revision, 'SHOULD'),
        offSession.length === 0,
        offSession.length === 0
          ? `all ${after.length} requests after the drops carried the id of the session the drop hit, ${sessionsHit}${within}`
          : `after ${firstDropLabel} ${offSession.length} requests did not carry the id of the session the drop hit, ${sessionsHit}${within}: ${offSession.map((e) => `${label(e)} with ${sessionOf(e) ?? 'no session id'}`).join(', ')}`,
        [...drops.filter((d) => d !== undefined), ...offSession],
      ),
      check(
        'no-new-initialize',
        dropIsNotAVerdict(revision, 'SHOULD'),
        initializes.length === 0,
        initializes.length === 0 ? `no initialize after ${firstDropLabel}${within}` : `${initializes.length} initialize after the drops${within}: ${labels(initializes.map((s) => s.exchange))}`,
        initializes.map((s) => s.exchange),
      ),
      check(
        'dropped-request-sent-again',
        sendingMessages(revision, 'disconnection MAY occur at any time; an idempotent request (a tools/call of idempotent_count, annotated idempotentHint: true) may be sent again on the same session (informational)', 'MAY'),
        resent.every(Boolean),
        WHEN.map((when, index) => `dropped ${when} the handler: ${drops[index] === undefined ? 'no such drop (the client sent no tools/call there)' : resent[index] ? 'sent again on the session' : 'not sent again (the drop was surfaced)'}`).join('; '),
        drops.filter((d) => d !== undefined),
      ),
    ];
  },
  doctored: [
    {
      check: 'connection-dropped',
      unmet: true,
      how: 'no tools/call was dropped',
      doctor: (e) => ({ ...e, exchanges: e.exchanges.map((x) => ({ ...x, notes: x.notes.filter((note) => !note.startsWith('dropped-')) })) }),
    },
    {
      check: 'no-new-initialize',
      how: 'a throwaway session opened first (as mcp-remote does), and the client’s own initialize sent again after the drops',
      doctor: (e) => {
        const opened = withThrowawaySession(e);
        const own = opened.exchanges.find((x) => x.requestMessages.some((m) => m.method === 'initialize') && x.responseHeaders[HEADERS.session] === operatingSession(opened));
        const last = opened.exchanges.at(-1);
        if (!own || !last) return opened;
        return { ...opened, exchanges: [...opened.exchanges, { ...structuredClone(own), seq: last.seq + 1, startedAt: last.startedAt + 1 }] };
      },
    },
    {
      check: 'dropped-request-sent-again',
      how: 'every tools/call after the first drop removed',
      doctor: (e) => {
        const first = noted(e.exchanges, 'dropped-before-handler')[0]!;
        return { ...e, exchanges: e.exchanges.filter((x) => x.seq <= first.seq || !x.requestMessages.some((m) => m.method === 'tools/call')) };
      },
    },
  ],
});
