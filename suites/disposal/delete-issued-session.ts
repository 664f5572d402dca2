import { requiresProtocolVersionHeader, specUrl, STREAMABLE_REVISIONS, type Revision } from '../../servers/revisions.ts';
import { check, clientCompleted } from '../checks.ts';
import type { Check, Scenario } from '../scenario.ts';

const sessionManagement = (revision: Revision, level: 'MUST' | 'SHOULD') => ({
  url: specUrl(revision, 'basic/transports', 'session-management'),
  section: 'Transports › Session Management: clients that no longer need a session SHOULD send DELETE with its id',
  level,
});

export const deleteIssuedSession: Scenario = {
  id: 'disposal/delete-issued-session',
  title: 'Closing sends DELETE with the issued session id (and MCP-Protocol-Version from 2025-06-18)',
  revisions: STREAMABLE_REVISIONS,
  requires: [],
  source: { spec: sessionManagement('2025-06-18', 'SHOULD') },
  async run({ connect, bounded, observe }) {
    const client = await connect();
    observe('sessionId', (await bounded(client.info(), 'info')).sessionId);
    await bounded(client.listTools(), 'tools/list');
    await bounded(client.close(), 'close');
  },
  judge(evidence) {
    const { revision } = evidence;
    const issued = evidence.issuedSessions[0];
    const deletes = evidence.exchanges.filter((exchange) => exchange.method === 'DELETE');
    const forIssued = deletes.filter((exchange) => issued !== undefined && exchange.requestHeaders['mcp-session-id'] === issued);
    const checks: Check[] = [
      clientCompleted(evidence, sessionManagement(revision, 'MUST')),
      check(
        'delete-sent',
        sessionManagement(revision, 'SHOULD'),
        forIssued.length > 0,
        issued === undefined
          ? 'the server issued no session (the scenario could not start)'
          : forIssued.length > 0
            ? `DELETE carried the issued id ${issued}`
            : deletes.length > 0
              ? `DELETE was sent, but not with the issued id ${issued}`
              : `closing sent no DELETE for the issued session ${issued}`,
        deletes,
      ),
    ];
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
};
