import { HEADERS } from '../../protocol/http.ts';
import { L, requiresProtocolVersionHeader } from '../../protocol/revisions.ts';
import type { WireExchange } from '../../servers/wire-record.ts';
import { check, checkIf, clientCompleted, precondition } from '../checks.ts';
import type { Check, Scenario } from '../scenario.ts';
import { lifecycle, protocolVersionHeader } from '../spec.ts';
import { initializeAnsweredAt, labels, mcpExchanges, withThrowawaySession } from '../wire.ts';

export const versionPerRevision: Scenario = {
  id: 'negotiation/version-per-revision',
  title: 'Against a server pinned to revision X the client reports X and sends `MCP-Protocol-Version: X` on every later request',
  revisions: L,
  requires: [],
  source: { spec: protocolVersionHeader('2025-06-18', 'the negotiated version on every request after initialize', 'MUST') },
  async run({ connect, bounded, observe }) {
    const client = await connect();
    await bounded(client.listTools(), 'tools/list');
    // Asked after the first operation: a lazy client negotiates there.
    observe('negotiatedVersion', (await bounded(client.info(), 'info')).negotiatedVersion);
    await bounded(client.callTool('echo', { text: 'hello' }), 'tools/call echo');
    await bounded(client.close(), 'close');
  },
  judge(evidence) {
    const { revision } = evidence;
    const negotiation = lifecycle(revision, 'version-negotiation', 'Version Negotiation', 'MUST');
    const reported = evidence.observed.negotiatedVersion;
    // Both rules are about what follows a handshake: a client that never got an initialize result showed nothing.
    const handshake = initializeAnsweredAt(evidence);
    const checks: Check[] = [
      precondition(
        'handshake-answered',
        negotiation,
        handshake !== undefined,
        handshake ? `${labels([handshake.exchange])} was answered with a result` : `no initialize was answered with a result (${labels(evidence.exchanges)})`,
        handshake ? [handshake.exchange] : [],
      ),
      clientCompleted(evidence, negotiation),
      // A client that does not expose the version it negotiated cannot be judged on it: informational.
      reported === undefined
        ? check('reported-version', { ...negotiation, level: 'MAY' }, false, `the client does not report the version it negotiated (the server answered ${revision})`)
        : check('reported-version', negotiation, reported === revision, `the server answered ${revision}; the client reports ${String(reported)}`),
    ];
    // The header is HTTP's: over stdio the version travels in initialize alone.
    if (requiresProtocolVersionHeader(revision) && evidence.stdio === undefined) {
      // The requests to the MCP endpoint after the first initialize, except a further initialize: each opens a session
      // of its own whose version is not yet agreed (mcp-remote runs a connection-test session first, then the host's).
      // OAuth discovery, registration and token requests go elsewhere and are no MCP requests.
      const isInitialize = (exchange: WireExchange) => exchange.requestMessages.some((m) => m.method === 'initialize');
      const first = evidence.exchanges.find(isInitialize);
      const later = first === undefined ? [] : mcpExchanges(evidence.exchanges, revision).filter((exchange) => exchange.seq > first.seq && !isInitialize(exchange));
      const wrong = later.filter((exchange) => exchange.requestHeaders[HEADERS.version] !== revision);
      checks.push(
        checkIf(
          later.length === 0 ? `no request followed initialize (${labels(evidence.exchanges)})` : undefined,
          'header-on-every-request',
          protocolVersionHeader(revision, 'the negotiated version on every request after initialize', 'MUST'),
          () => wrong.length === 0,
          () =>
            wrong.length === 0
              ? `all ${later.length} requests after initialize carried MCP-Protocol-Version: ${revision}`
              : `${wrong.length} of ${later.length} requests after initialize lacked MCP-Protocol-Version: ${revision} (${wrong
                  .map((e) => `${e.method} #${e.seq}: ${e.requestHeaders[HEADERS.version] ?? 'absent'}`)
                  .join(', ')})`,
          wrong,
        ),
      );
    }
    return checks;
  },
  doctored: [
    {
      check: 'header-on-every-request',
      how: 'a throwaway session opened first (as mcp-remote does), and the tools/call sent without MCP-Protocol-Version',
      doctor: (e) => {
        const opened = withThrowawaySession(e);
        const unversioned = (x: WireExchange): WireExchange => {
          const { [HEADERS.version]: _omitted, ...requestHeaders } = x.requestHeaders;
          return { ...x, requestHeaders };
        };
        return { ...opened, exchanges: opened.exchanges.map((x) => (x.requestMessages.some((m) => m.method === 'tools/call') ? unversioned(x) : x)) };
      },
    },
    {
      check: 'handshake-answered',
      unmet: true,
      how: 'the client gave up before the server answered its initialize',
      doctor: (e) => ({ ...e, exchanges: e.exchanges.map((x) => ({ ...x, responseMessages: [] })) }),
    },
    { check: 'reported-version', how: 'the client reports 1999-01-01', doctor: (e) => ({ ...e, observed: { ...e.observed, negotiatedVersion: '1999-01-01' } }) },
  ],
};
