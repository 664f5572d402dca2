import { HEADERS } from '../../protocol/http.ts';
import { STREAMABLE_REVISIONS, type Revision } from '../../protocol/revisions.ts';
import { dropConnection, type DropConnection } from '../../servers/personalities/drop-connection.ts';
import { check, clientCompleted, precondition } from '../checks.ts';
import { settle } from '../outcome.ts';
import { defineScenario, type Level, type SpecRef } from '../scenario.ts';
import { sendingMessages, sessionManagement } from '../spec.ts';
import { label, labels, noted, operatingSession, operatingTraffic, requests, sessionOf, withThrowawaySession } from '../wire.ts';

const WHEN = ['before', 'after'] as const;

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
  async run({ connect, bounded, state, observe }) {
    const client = await connect();
    await bounded(client.listTools(), 'tools/list');
    for (const when of WHEN) {
      state.drop.dropNext(1, { method: 'tools/list', when });
      observe(`dropped-${when}`, await settle(bounded(client.listTools(), `tools/list whose connection drops ${when} the handler`)));
    }
    await bounded(client.listTools(), 'tools/list after the drops');
    await bounded(client.close(), 'close');
  },
  judge(evidence) {
    const { revision, exchanges } = evidence;
    // The session the client's requests ran on (not one it set aside before, as mcp-remote's connection test).
    const issued = operatingSession(evidence);
    const drops = WHEN.map((when) => noted(exchanges, `dropped-${when}-handler`)[0]);
    const firstDrop = drops.find((drop) => drop !== undefined);
    const firstDropLabel = firstDrop ? label(firstDrop) : 'the drop';
    const after = firstDrop ? operatingTraffic(evidence).filter((exchange) => exchange.seq > firstDrop.seq) : [];
    const offSession = after.filter((exchange) => issued === undefined || sessionOf(exchange) !== issued);
    const initializes = firstDrop ? requests(exchanges, 'initialize').filter((s) => s.exchange.seq > firstDrop.seq) : [];

    // Sent again: a tools/list between this drop and the next one; after the last drop, one besides the script's own later call.
    const lists = requests(exchanges, 'tools/list');
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
        firstDrop === undefined ? 'no tools/list was dropped: the scenario could not drive the client there' : `${label(firstDrop)}: the connection was reset under the tools/list`,
        firstDrop ? [firstDrop] : [],
      ),
      clientCompleted(evidence, dropIsNotAVerdict(revision, 'MUST')),
      check(
        'same-session-after-drop',
        dropIsNotAVerdict(revision, 'SHOULD'),
        offSession.length === 0,
        offSession.length === 0
          ? `all ${after.length} requests after the drops carried the issued id ${issued}`
          : `after ${firstDropLabel} ${offSession.length} requests did not carry the issued id ${issued}: ${offSession.map((e) => `${label(e)} with ${sessionOf(e) ?? 'no session id'}`).join(', ')}`,
        [...drops.filter((d) => d !== undefined), ...offSession],
      ),
      check(
        'no-new-initialize',
        dropIsNotAVerdict(revision, 'SHOULD'),
        initializes.length === 0,
        initializes.length === 0 ? `no initialize after ${firstDropLabel}` : `${initializes.length} initialize after the drops: ${labels(initializes.map((s) => s.exchange))}`,
        initializes.map((s) => s.exchange),
      ),
      check(
        'dropped-request-sent-again',
        sendingMessages(revision, 'disconnection MAY occur at any time; an idempotent request (tools/list) may be sent again on the same session (informational)', 'MAY'),
        resent.every(Boolean),
        WHEN.map((when, index) => `dropped ${when} the handler: ${drops[index] === undefined ? 'no such drop (the client sent no tools/list there)' : resent[index] ? 'sent again on the session' : 'not sent again (the drop was surfaced)'}`).join('; '),
        drops.filter((d) => d !== undefined),
      ),
    ];
  },
  doctored: [
    {
      check: 'connection-dropped',
      unmet: true,
      how: 'no tools/list was dropped',
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
      how: 'every tools/list after the first drop removed',
      doctor: (e) => {
        const first = noted(e.exchanges, 'dropped-before-handler')[0]!;
        return { ...e, exchanges: e.exchanges.filter((x) => x.seq <= first.seq || !x.requestMessages.some((m) => m.method === 'tools/list')) };
      },
    },
  ],
});
