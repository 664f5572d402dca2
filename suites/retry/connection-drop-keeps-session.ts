import { HEADERS } from '../../protocol/http.ts';
import { STREAMABLE_REVISIONS, type Revision } from '../../protocol/revisions.ts';
import { FIXTURE_TOOLS } from '../../servers/fixtures.ts';
import { dropConnection, type DropConnection } from '../../servers/personalities/drop-connection.ts';
import { check, clientCompleted, precondition } from '../checks.ts';
import { settle } from '../outcome.ts';
import { defineScenario, type Level, type SpecRef } from '../scenario.ts';
import { sendingMessages, sessionManagement } from '../spec.ts';
import { label, labels, noted, operatingSession, operatingTraffic, requests, seqNow, sessionOf, withThrowawaySession } from '../wire.ts';

const WHEN = ['before', 'after'] as const;
/** The `observed` key of the record's length when the tools/list dropped `when` the handler had settled. */
const settledAt = (when: (typeof WHEN)[number]) => `settled-${when}-at-seq`;

/** seed 000, on the legacy session a dropped transport leaves behind. */
const dropIsNotAVerdict = (revision: Revision, level: Level): SpecRef =>
  sessionManagement(
    revision,
    "only a 404 ends a session; a dropped connection (no HTTP answer) is not the server's verdict, so the session id is kept and no new initialize is sent (seed 000)",
    level,
  );

/**
 * The connection is reset under a tools/list, once before the server handled it and once after: neither is the
 * server ending the session. Whatever the client does next (send tools/list again, or surface the drop and let the
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
    await bounded(client.listTools(), 'tools/list');
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
    // What each drop binds: the session it hit, kept for the rest of the client's traffic; or, where the client ended
    // that session itself (its DELETE) before the operation was over, as a client with a session per operation ends
    // each one, within that operation: its later operations open sessions of their own, not because of the drop.
    const scopes = WHEN.flatMap((when, index) => {
      const drop = drops[index];
      if (drop === undefined) return [];
      const hit = sessionOf(drop);
      const mark = evidence.observed[settledAt(when)];
      const rest = traffic.filter((exchange) => exchange.seq > drop.seq);
      const operation = typeof mark === 'number' ? rest.filter((exchange) => exchange.seq <= mark) : [];
      const ended = operation.find((exchange) => exchange.method === 'DELETE' && hit !== undefined && sessionOf(exchange) === hit);
      return [{ drop, hit, ended, judged: ended ? operation : rest }];
    });
    const judged = [...new Map(scopes.flatMap((scope) => scope.judged.map((exchange) => [exchange.seq, { exchange, hit: scope.hit }] as const))).values()];
    const after = judged.map(({ exchange }) => exchange);
    const offSession = judged.filter(({ exchange, hit }) => hit === undefined || sessionOf(exchange) !== hit).map(({ exchange }) => exchange);
    const initializes = requests(after, 'initialize');
    const endedOwn = scopes.filter((scope) => scope.ended !== undefined);
    const within =
      endedOwn.length === 0
        ? ''
        : ` (within the operation the connection dropped under, until the client ended that session itself: ${endedOwn.map((scope) => `${label(scope.drop)} to ${label(scope.ended!)}`).join('; ')})`;
    const sessionsHit = [...new Set(scopes.map((scope) => scope.hit ?? 'no session id'))].join(', ');

    // Sent again: a call of idempotent_count between this drop and the next one; after the last drop, one besides the script's own later call.
    const lists = requests(exchanges, 'tools/call', FIXTURE_TOOLS.idempotentCount);
    const resent = drops.map((drop, index) => {
      if (!drop) return false;
      const last = index === drops.length - 1;
      const next = last ? Infinity : (drops[index + 1]?.seq ?? Infinity);
      return lists.filter((s) => s.exchange.seq > drop.seq && s.exchange.seq < next).length >= (last ? 2 : 1);
    });

    return [
      // The first drop is the suite's doing; whether the client sends the later tools/list (the second drop) is its own.
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
