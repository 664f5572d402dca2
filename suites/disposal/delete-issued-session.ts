import { delete405 } from '../../servers/personalities/delete-405.ts';
import { requiresProtocolVersionHeader, specUrl, STREAMABLE_REVISIONS, type Revision } from '../../protocol/revisions.ts';
import { check, clientCompleted } from '../checks.ts';
import { setAsideSessions, withThrowawaySession } from '../wire.ts';
import type { Check, Scenario } from '../scenario.ts';

const sessionManagement = (revision: Revision, level: 'MUST' | 'SHOULD') => ({
  url: specUrl(revision, 'basic/transports', 'session-management'),
  section: 'Transports › Session Management: clients that no longer need a session SHOULD send DELETE with its id',
  level,
});

export const deleteIssuedSession: Scenario = {
  id: 'disposal/delete-issued-session',
  title: 'Closing sends DELETE with the issued session id (and MCP-Protocol-Version from 2025-06-18); a 405 answer is not an error',
  revisions: STREAMABLE_REVISIONS,
  requires: [],
  source: { spec: sessionManagement('2025-06-18', 'SHOULD') },
  async run({ connect, bounded, observe, startServer }) {
    const client = await connect();
    observe('sessionId', (await bounded(client.info(), 'info')).sessionId);
    await bounded(client.listTools(), 'tools/list');
    await bounded(client.close(), 'close');
    // A server that keeps its sessions answers DELETE 405 (MAY): closing must still succeed.
    const keeper = await startServer({ personalities: [delete405()] });
    const second = await connect({}, { server: keeper });
    await bounded(second.listTools(), 'tools/list on the server that answers DELETE 405');
    try {
      await bounded(second.close(), 'close against DELETE 405');
    } catch (error) {
      observe('closeAfter405Error', String(error));
    }
  },
  judge(evidence) {
    const { revision } = evidence;
    // Every session the server issued to the client: one it opened and set aside (mcp-remote's connection test) is
    // no longer needed either, so it is DELETEd too.
    const issued = evidence.issuedSessions;
    const setAside = setAsideSessions(evidence);
    const deletes = evidence.exchanges.filter((exchange) => exchange.method === 'DELETE');
    const deleted = (id: string) => deletes.some((exchange) => exchange.requestHeaders['mcp-session-id'] === id);
    const forIssued = deletes.filter((exchange) => issued.includes(exchange.requestHeaders['mcp-session-id'] ?? ''));
    const undeleted = issued.filter((id) => !deleted(id));
    const named = (id: string) => `${id}${setAside.has(id) ? ' (opened before the client’s own session and never used)' : ''}`;
    const checks: Check[] = [
      clientCompleted(evidence, sessionManagement(revision, 'MUST')),
      check(
        'delete-sent',
        sessionManagement(revision, 'SHOULD'),
        issued.length > 0 && undeleted.length === 0,
        issued.length === 0
          ? 'the server issued no session (the scenario could not start)'
          : undeleted.length === 0
            ? `DELETE carried the issued id${issued.length === 1 ? '' : 's'} ${issued.join(', ')}`
            : deletes.length > 0
              ? `DELETE was sent, but not with the issued id${undeleted.length === 1 ? '' : 's'} ${undeleted.map(named).join(', ')}`
              : `closing sent no DELETE for the issued session${undeleted.length === 1 ? '' : 's'} ${undeleted.map(named).join(', ')}`,
        deletes,
      ),
    ];
    const keeper = evidence.otherServers[0];
    const refused = keeper?.exchanges.filter((exchange) => exchange.method === 'DELETE' && exchange.status === 405) ?? [];
    const closeError = evidence.observed.closeAfter405Error;
    checks.push(
      check(
        'delete-405-not-an-error',
        { ...sessionManagement(revision, 'SHOULD'), section: 'Transports › Session Management: the server MAY answer DELETE with 405' },
        closeError === undefined,
        closeError === undefined
          ? refused.length > 0
            ? 'closing succeeded although DELETE got 405'
            : 'closing succeeded (no DELETE reached the server that answers 405)'
          : `closing failed because DELETE got 405: ${String(closeError)}`,
        refused,
      ),
    );
    if (requiresProtocolVersionHeader(revision) && forIssued.length > 0) {
      const unversioned = forIssued.filter((exchange) => exchange.requestHeaders['mcp-protocol-version'] !== revision);
      checks.push(
        check(
          'delete-carries-version',
          { url: specUrl(revision, 'basic/transports', 'protocol-version-header'), section: 'Transports › Protocol Version Header', level: 'MUST' },
          unversioned.length === 0,
          unversioned.length === 0 ? `DELETE carried MCP-Protocol-Version: ${revision}` : `DELETE lacked MCP-Protocol-Version: ${revision}`,
          unversioned,
        ),
      );
    }
    return checks;
  },
  doctored: [
    {
      check: 'delete-sent',
      how: 'a throwaway session opened first (as mcp-remote does) and never DELETEd, the client’s own one DELETEd',
      doctor: withThrowawaySession,
    },
  ],
};
