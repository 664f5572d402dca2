import { M, MODERN_REVISION } from '../../protocol/revisions.ts';
import { check, checkIf, clientCompleted, precondition } from '../checks.ts';
import type { Check, Scenario } from '../scenario.ts';
import { versioning } from '../spec.ts';
import { carrying, labels } from '../wire.ts';
import { operationsDeclaring } from './support.ts';

// The `dual` server serves 2026-07-28 and sessionful 2025-11-25 on one URL, choosing per request (an initialize
// selects legacy). A dual-era client in auto mode that speaks 2026-07-28 should end modern: its newest revision.
export const dualEraPrefersModern: Scenario = {
  id: 'negotiation/dual-era-prefers-modern',
  title: 'Against a server serving both eras on one URL, auto mode ends modern',
  revisions: M,
  requires: ['mode-auto'],
  setup: () => ({ server: { era: 'dual' }, state: undefined }),
  source: {
    spec: versioning('backward-compatibility-with-initialization-based-versions', 'Backward Compatibility: Dual-era client × dual-era server — the client stays modern', 'SHOULD'),
  },
  async run({ connect, bounded, observe }) {
    const client = await connect({ negotiation: 'auto' });
    await bounded(client.listTools(), 'tools/list');
    // Asked after the first operation: a lazy client negotiates there.
    const info = await bounded(client.info(), 'info');
    observe('era', info.era);
    observe('negotiatedVersion', info.negotiatedVersion);
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
    const { operations, others: legacyOperations } = operationsDeclaring(evidence.exchanges, MODERN_REVISION);
    const era = evidence.observed.era;
    const version = evidence.observed.negotiatedVersion;
    // How the client opens is the behaviour under test: the case says something once its connect reached the server.
    const opened = evidence.exchanges[0];
    const checks: Check[] = [
      precondition('connect-reached-server', spec, opened !== undefined, opened ? `the client opened with ${labels([opened])}` : 'nothing reached the server: the client never opened', opened ? [opened] : []),
      clientCompleted(evidence, spec),
      check('no-initialize', spec, handshakes.length === 0, handshakes.length === 0 ? 'no initialize: the server was never asked for a legacy session' : `the client opened legacy: ${labels(handshakes)}`, handshakes),
      checkIf(
        operations.length === 0 ? 'no tools/list or tools/call reached the server' : undefined,
        'operations-modern',
        spec,
        () => legacyOperations.length === 0,
        () =>
          legacyOperations.length === 0
            ? `tools/list and tools/call declared ${MODERN_REVISION} in _meta`
            : `${labels(legacyOperations.map(({ exchange }) => exchange))} carried no ${MODERN_REVISION} envelope`,
        legacyOperations.map(({ exchange }) => exchange),
      ),
      era === undefined
        ? check('reports-modern', { ...spec, level: 'MAY' }, false, 'the client does not report its era')
        : check('reports-modern', spec, era === 'modern' && (version === undefined || version === MODERN_REVISION), `the client reports era ${String(era)}, version ${String(version)}`),
    ];
    return checks;
  },
  doctored: [
    { check: 'connect-reached-server', unmet: true, how: 'the client never reached the server (its start-up outlasted the connect)', doctor: (e) => ({ ...e, exchanges: [], observed: {} }) },
    { check: 'reports-modern', how: 'the client reports the legacy era', doctor: (e) => ({ ...e, observed: { ...e.observed, era: 'legacy' } }) },
  ],
};
