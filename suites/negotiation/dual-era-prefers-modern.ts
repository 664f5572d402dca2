import { check, clientCompleted } from '../checks.ts';
import type { Check, Scenario } from '../scenario.ts';
import { carrying, envelopeOf, list, META_VERSION, MODERN, requests, versioning } from './support.ts';

// The `dual` server serves 2026-07-28 and sessionful 2025-11-25 on one URL, choosing per request (an initialize
// selects legacy). A dual-era client in auto mode that speaks 2026-07-28 should end modern: its newest revision.
export const dualEraPrefersModern: Scenario = {
  id: 'negotiation/dual-era-prefers-modern',
  title: 'Against a server serving both eras on one URL, auto mode ends modern',
  revisions: [MODERN],
  requires: ['mode-auto'],
  setup: () => ({ server: { era: 'dual' }, state: undefined }),
  source: {
    spec: versioning('backward-compatibility-with-initialization-based-versions', 'Backward Compatibility: Dual-era client × dual-era server — the client stays modern', 'SHOULD'),
  },
  async run({ connect, bounded, observe }) {
    const client = await connect({ negotiation: 'auto' });
    const info = await bounded(client.info(), 'info');
    observe('era', info.era);
    observe('negotiatedVersion', info.negotiatedVersion);
    await bounded(client.listTools(), 'tools/list');
    await bounded(client.callTool('echo', { text: 'hello' }), 'tools/call echo');
    await bounded(client.close(), 'close');
  },
  judge(evidence) {
    const spec = versioning(
      'backward-compatibility-with-initialization-based-versions',
      'Backward Compatibility: a dual-era server selects the era from how the client opens; a dual-era client that speaks 2026-07-28 opens modern (its latest version)',
      'SHOULD',
    );
    const handshakes = carrying(evidence.exchanges, 'initialize');
    const operations = requests(evidence.exchanges).filter(({ message }) => message.method === 'tools/list' || message.method === 'tools/call');
    const legacyOperations = operations.filter(({ message }) => envelopeOf(message)?.[META_VERSION] !== MODERN);
    const era = evidence.observed.era;
    const version = evidence.observed.negotiatedVersion;
    const checks: Check[] = [
      clientCompleted(evidence, spec),
      check('no-initialize', spec, handshakes.length === 0, handshakes.length === 0 ? 'no initialize: the server was never asked for a legacy session' : `the client opened legacy: ${list(handshakes)}`, handshakes),
      check(
        'operations-modern',
        spec,
        operations.length > 0 && legacyOperations.length === 0,
        operations.length === 0
          ? 'no tools/list or tools/call reached the server'
          : legacyOperations.length === 0
            ? `tools/list and tools/call declared ${MODERN} in _meta`
            : `${list(legacyOperations.map(({ exchange }) => exchange))} carried no ${MODERN} envelope`,
        legacyOperations.map(({ exchange }) => exchange),
      ),
      era === undefined
        ? check('reports-modern', { ...spec, level: 'MAY' }, false, 'the client does not report its era')
        : check('reports-modern', spec, era === 'modern' && (version === undefined || version === MODERN), `the client reports era ${String(era)}, version ${String(version)}`),
    ];
    return checks;
  },
  doctored: [{ check: 'reports-modern', how: 'the client reports the legacy era', doctor: (e) => ({ ...e, observed: { ...e.observed, era: 'legacy' } }) }],
};
