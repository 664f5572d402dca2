import { LEGACY_REVISIONS, requiresProtocolVersionHeader, specUrl } from '../../servers/revisions.ts';
import { check, clientCompleted } from '../checks.ts';
import type { Check, Scenario } from '../scenario.ts';

export const versionPerRevision: Scenario = {
  id: 'negotiation/version-per-revision',
  title: 'Against a server pinned to revision X the client reports X and sends `MCP-Protocol-Version: X` on every later request',
  revisions: LEGACY_REVISIONS,
  requires: [],
  source: { spec: { url: specUrl('2025-06-18', 'basic/transports', 'protocol-version-header'), section: 'Transports › Protocol Version Header', level: 'MUST' } },
  async run({ connect, bounded, observe }) {
    const client = await connect();
    observe('negotiatedVersion', (await bounded(client.info(), 'info')).negotiatedVersion);
    await bounded(client.listTools(), 'tools/list');
    await bounded(client.callTool('echo', { text: 'hello' }), 'tools/call echo');
    await bounded(client.close(), 'close');
  },
  judge(evidence) {
    const { revision } = evidence;
    const negotiation = { url: specUrl(revision, 'basic/lifecycle', 'version-negotiation'), section: 'Lifecycle › Version Negotiation', level: 'MUST' as const };
    const reported = evidence.observed.negotiatedVersion;
    const checks: Check[] = [
      clientCompleted(evidence, negotiation),
      // A client that does not expose the version it negotiated cannot be judged on it: informational.
      reported === undefined
        ? check('reported-version', { ...negotiation, level: 'MAY' }, false, `the client does not report the version it negotiated (the server answered ${revision})`)
        : check('reported-version', negotiation, reported === revision, `the server answered ${revision}; the client reports ${String(reported)}`),
    ];
    if (requiresProtocolVersionHeader(revision)) {
      const initIndex = evidence.exchanges.findIndex((exchange) => exchange.requestMessages.some((m) => m.method === 'initialize'));
      const later = initIndex < 0 ? [] : evidence.exchanges.slice(initIndex + 1);
      const wrong = later.filter((exchange) => exchange.requestHeaders['mcp-protocol-version'] !== revision);
      checks.push(
        check(
          'header-on-every-request',
          { url: specUrl(revision, 'basic/transports', 'protocol-version-header'), section: 'Transports › Protocol Version Header', level: 'MUST' },
          later.length > 0 && wrong.length === 0,
          later.length === 0
            ? 'no request followed initialize'
            : wrong.length === 0
              ? `all ${later.length} requests after initialize carried MCP-Protocol-Version: ${revision}`
              : `${wrong.length} of ${later.length} requests after initialize lacked MCP-Protocol-Version: ${revision} (${wrong
                  .map((e) => `${e.method} #${e.seq}: ${e.requestHeaders['mcp-protocol-version'] ?? 'absent'}`)
                  .join(', ')})`,
          wrong,
        ),
      );
    }
    return checks;
  },
  doctored: [
    { check: 'reported-version', how: 'the client reports 1999-01-01', doctor: (e) => ({ ...e, observed: { ...e.observed, negotiatedVersion: '1999-01-01' } }) },
  ],
};
