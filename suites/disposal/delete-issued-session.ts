import { HEADERS } from '../../protocol/http.ts';
import { requiresProtocolVersionHeader, STREAMABLE_REVISIONS, type Revision } from '../../protocol/revisions.ts';
import { delete405 } from '../../servers/personalities/delete-405.ts';
import { check, checkIf, clientCompleted, precondition } from '../checks.ts';
import { ordinaryRejection } from '../outcome.ts';
import type { Check, Evidence, Level, Scenario } from '../scenario.ts';
import { protocolVersionHeader, sessionManagement } from '../spec.ts';
import { labels, seqNow, serverName, sessionOf, setAsideSessions, withThrowawaySession } from '../wire.ts';

const deleteRule = (revision: Revision, level: Level) => sessionManagement(revision, 'clients that no longer need a session SHOULD send DELETE with its id', level);

/** The server that answers DELETE 405: the first the script starts. */
const KEEPER = 0;

export const deleteIssuedSession: Scenario = {
  id: 'disposal/delete-issued-session',
  title: 'Closing sends DELETE with the issued session id (and MCP-Protocol-Version from 2025-06-18); a 405 answer is not an error',
  revisions: STREAMABLE_REVISIONS,
  requires: [],
  source: { spec: deleteRule('2025-06-18', 'SHOULD') },
  async run({ connect, bounded, observe, server, startServer }) {
    const client = await connect();
    observe('sessionId', (await bounded(client.info(), 'info')).sessionId);
    await bounded(client.listTools(), 'tools/list');
    observe('closeFromSeq', seqNow(server.record));
    await bounded(client.close(), 'close');
    // A server that keeps its sessions answers DELETE 405 (MAY): closing must still succeed.
    const keeper = await startServer({ personalities: [delete405()] });
    const second = await connect({}, { server: keeper });
    await bounded(second.listTools(), 'tools/list on the server that answers DELETE 405');
    observe('keeperCloseFromSeq', seqNow(keeper.record));
    try {
      await bounded(second.close(), 'close against DELETE 405');
    } catch (error) {
      // Only an ordinary rejection is this check's finding; a hang or a broken contract is the client's error.
      observe('closeAfter405Error', ordinaryRejection(error));
    }
  },
  judge(evidence) {
    const { revision, observed } = evidence;
    // Every session the server issued to the client: one it opened and set aside (mcp-remote's connection test) is
    // no longer needed either, so it is DELETEd too.
    const issued = evidence.issuedSessions;
    const setAside = setAsideSessions(evidence);
    const deletes = evidence.exchanges.filter((exchange) => exchange.method === 'DELETE');
    const deleted = (id: string) => deletes.some((exchange) => sessionOf(exchange) === id);
    const forIssued = deletes.filter((exchange) => issued.includes(sessionOf(exchange) ?? ''));
    const undeleted = issued.filter((id) => !deleted(id));
    const named = (id: string) => `${id}${setAside.has(id) ? ' (opened before the client’s own session and never used)' : ''}`;
    const keeper = evidence.otherServers[KEEPER];
    const refused = keeper?.exchanges.filter((exchange) => exchange.method === 'DELETE' && exchange.status === 405) ?? [];
    const closeError = observed.closeAfter405Error;
    const checks: Check[] = [
      precondition(
        'close-reached',
        deleteRule(revision, 'SHOULD'),
        observed.closeFromSeq !== undefined && issued.length > 0,
        observed.closeFromSeq === undefined
          ? 'the script did not reach close(): the client did not connect and list its tools'
          : issued.length === 0
            ? 'the server issued no session before the client closed'
            : `the client closed with the issued session${issued.length === 1 ? '' : 's'} ${issued.join(', ')}`,
      ),
      precondition(
        'keeper-close-reached',
        deleteRule(revision, 'SHOULD'),
        observed.keeperCloseFromSeq !== undefined,
        observed.keeperCloseFromSeq === undefined
          ? `the script did not reach close() on the server that answers DELETE 405 (${serverName(KEEPER)})`
          : `the client closed its session on the server that answers DELETE 405 (${serverName(KEEPER)})`,
      ),
      clientCompleted(evidence, deleteRule(revision, 'MUST')),
      check(
        'delete-sent',
        deleteRule(revision, 'SHOULD'),
        undeleted.length === 0,
        undeleted.length === 0
          ? `DELETE carried the issued id${issued.length === 1 ? '' : 's'} ${issued.join(', ')}`
          : deletes.length > 0
            ? `DELETE was sent, but not with the issued id${undeleted.length === 1 ? '' : 's'} ${undeleted.map(named).join(', ')}`
            : `closing sent no DELETE for the issued session${undeleted.length === 1 ? '' : 's'} ${undeleted.map(named).join(', ')}`,
        deletes,
      ),
      checkIf(
        refused.length === 0 ? `the client sent ${serverName(KEEPER)} no DELETE, so none was answered 405` : undefined,
        'delete-405-not-an-error',
        sessionManagement(revision, 'the server MAY answer DELETE with 405; closing still succeeds', 'SHOULD'),
        () => closeError === undefined,
        () => (closeError === undefined ? `closing succeeded although DELETE got 405 (${serverName(KEEPER)})` : `closing failed because DELETE got 405: ${String(closeError)}`),
      ),
    ];
    if (requiresProtocolVersionHeader(revision)) {
      const unversioned = forIssued.filter((exchange) => exchange.requestHeaders[HEADERS.version] !== revision);
      checks.push(
        checkIf(
          forIssued.length === 0 ? 'no DELETE carried an issued session id' : undefined,
          'delete-carries-version',
          protocolVersionHeader(revision, 'the negotiated version on every request after initialize, the DELETE included', 'MUST'),
          () => unversioned.length === 0,
          () => (unversioned.length === 0 ? `DELETE carried MCP-Protocol-Version: ${revision}` : `DELETE lacked MCP-Protocol-Version: ${revision} (${labels(unversioned)})`),
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
    {
      check: 'close-reached',
      unmet: true,
      how: 'the script stopped before the first close()',
      doctor: (e: Evidence) => ({ ...e, observed: { ...e.observed, closeFromSeq: undefined } }),
    },
    {
      check: 'keeper-close-reached',
      unmet: true,
      how: 'the script stopped before closing on the server that answers DELETE 405',
      doctor: (e: Evidence) => ({ ...e, observed: { ...e.observed, keeperCloseFromSeq: undefined } }),
    },
  ],
};
