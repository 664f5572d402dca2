// security/no-session-leak: one client instance connected to two servers sends each server only the session id
// that server issued: never one server's id to the other (on an initialize, a request, or the DELETE at close).
import { HEADERS } from '../../protocol/http.ts';
import { S } from '../../protocol/revisions.ts';
import type { WireExchange } from '../../servers/wire-record.ts';
import { check, clientCompleted, precondition } from '../checks.ts';
import { defineScenario, type Check } from '../scenario.ts';
import { sessionManagement } from '../spec.ts';
import { label, sessionOf } from '../wire.ts';

/** 2025-11-25 makes it a MUST ("handle the session ID in a secure manner", Session Hijacking); before, security practice. */
const RULE_2025_11_25 = 'the client MUST handle the session ID in a secure manner (security best practices › Session Hijacking)';
const PRACTICE = 'a session id is assigned by one server for its session (security practice: never offer it to another server)';

const carried = (exchanges: readonly WireExchange[], ids: readonly string[]) =>
  exchanges.filter((exchange) => {
    const id = sessionOf(exchange);
    return id !== undefined && ids.includes(id);
  });

export const noSessionLeak = defineScenario({
  id: 'security/no-session-leak',
  title: "A client connected to two servers never sends one server's session id to the other",
  revisions: S,
  requires: [],
  source: { spec: sessionManagement('2025-11-25', RULE_2025_11_25, 'MUST') },
  async run({ connect, bounded, startServer }) {
    // Both connections through the same client instance, open at the same time.
    const first = await connect();
    await bounded(first.listTools(), 'tools/list on the first server');
    const other = await startServer({});
    const second = await connect({}, { server: other });
    await bounded(second.listTools(), 'tools/list on the second server');
    await bounded(first.callTool('echo', { text: 'first' }), 'tools/call echo on the first server');
    await bounded(second.callTool('echo', { text: 'second' }), 'tools/call echo on the second server');
    await bounded(first.close(), 'close the first connection');
    await bounded(second.close(), 'close the second connection');
  },
  judge(evidence) {
    const { revision } = evidence;
    const spec = revision >= '2025-11-25' ? sessionManagement(revision, RULE_2025_11_25, 'MUST') : sessionManagement(revision, PRACTICE, 'SHOULD');
    const other = evidence.otherServers[0];
    const firstIds = evidence.issuedSessions;
    const secondIds = other?.issuedSessions ?? [];
    const toSecond = other ? carried(other.exchanges, firstIds) : [];
    const toFirst = carried(evidence.exchanges, secondIds);
    const leaks = [
      ...toSecond.map((e) => `the second server got the first server's id ${sessionOf(e)} on its ${label(e)}`),
      ...toFirst.map((e) => `the first server got the second server's id ${sessionOf(e)} on ${label(e)}`),
    ];
    const checks: Check[] = [
      // Each server must have issued a session before there is an id to leak.
      precondition(
        'both-sessions-issued',
        spec,
        firstIds.length > 0 && secondIds.length > 0,
        firstIds.length === 0 ? 'the first server issued no session' : secondIds.length === 0 ? `the second server issued no session (${other ? 'the client never completed its second handshake' : 'the script never connected it'})` : `the first server issued ${firstIds.join(', ')}, the second ${secondIds.join(', ')}`,
      ),
      clientCompleted(evidence, sessionManagement(revision, 'the issued id on every later request', 'MUST')),
      check(
        'no-foreign-session-id',
        spec,
        leaks.length === 0,
        leaks.length === 0 ? `the first server saw only its ids (${firstIds.join(', ')}), the second only its own (${secondIds.join(', ')})` : leaks.join('; '),
        // Seq numbers name the first server's exchanges; the second server's are named in the detail.
        toFirst,
      ),
    ];
    return checks;
  },
  doctored: [
    {
      check: 'both-sessions-issued',
      unmet: true,
      how: 'the second server issued no session (the second connect never completed its handshake)',
      doctor: (e) => ({ ...e, otherServers: e.otherServers.map((o) => ({ ...o, issuedSessions: [] })) }),
    },
  ],
});
