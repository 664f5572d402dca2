// security/no-session-leak: one client instance connected to two servers sends each server only the session id
// that server issued: never one server's id to the other (on an initialize, a request, or the DELETE at close).
import { STREAMABLE_REVISIONS } from '../../protocol/revisions.ts';
import type { WireExchange } from '../../servers/wire-record.ts';
import { check, clientCompleted } from '../checks.ts';
import { defineScenario, type Check } from '../scenario.ts';
import { transports } from './support.ts';

const SESSION_HEADER = 'mcp-session-id';
/** 2025-11-25 makes it a MUST ("handle the session ID in a secure manner", Session Hijacking); before, security practice. */
const RULE_2025_11_25 = 'Session Management: the client MUST handle the session ID in a secure manner (security best practices › Session Hijacking)';
const PRACTICE = 'Session Management: a session id is assigned by one server for its session (security practice: never offer it to another server)';

const carried = (exchanges: readonly WireExchange[], ids: readonly string[]) =>
  exchanges.filter((exchange) => exchange.requestHeaders[SESSION_HEADER] !== undefined && ids.includes(exchange.requestHeaders[SESSION_HEADER]!));

const describe = (exchange: WireExchange) => `${exchange.method} ${exchange.requestMessages.map((m) => m.method ?? 'response').join('+')}`.trim();

export const noSessionLeak = defineScenario({
  id: 'security/no-session-leak',
  title: "A client connected to two servers never sends one server's session id to the other",
  revisions: STREAMABLE_REVISIONS,
  requires: [],
  source: { spec: transports('2025-11-25', 'session-management', RULE_2025_11_25, 'MUST') },
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
    const spec =
      revision >= '2025-11-25'
        ? transports(revision, 'session-management', RULE_2025_11_25, 'MUST')
        : transports(revision, 'session-management', PRACTICE, 'SHOULD');
    const other = evidence.otherServers[0];
    const firstIds = evidence.issuedSessions;
    const secondIds = other?.issuedSessions ?? [];
    const toSecond = other ? carried(other.exchanges, firstIds) : [];
    const toFirst = carried(evidence.exchanges, secondIds);
    const leaks = [
      ...toSecond.map((e) => `the second server got the first server's id ${e.requestHeaders[SESSION_HEADER]} on ${describe(e)} (its #${e.seq})`),
      ...toFirst.map((e) => `the first server got the second server's id ${e.requestHeaders[SESSION_HEADER]} on #${e.seq} ${describe(e)}`),
    ];
    const checks: Check[] = [
      clientCompleted(evidence, transports(revision, 'session-management', 'Session Management', 'MUST')),
      check(
        'no-foreign-session-id',
        spec,
        other !== undefined && firstIds.length > 0 && secondIds.length > 0 && leaks.length === 0,
        other === undefined || firstIds.length === 0 || secondIds.length === 0
          ? 'the two servers did not both issue a session (the scenario could not run)'
          : leaks.length === 0
            ? `the first server saw only its ids (${firstIds.join(', ')}), the second only its own (${secondIds.join(', ')})`
            : leaks.join('; '),
        // Seq numbers name the first server's exchanges; the second server's are named in the detail.
        toFirst,
      ),
    ];
    return checks;
  },
});
