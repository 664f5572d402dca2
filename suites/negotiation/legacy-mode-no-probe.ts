import { LEGACY_REVISIONS } from '../../protocol/revisions.ts';
import { check, clientCompleted } from '../checks.ts';
import type { Scenario } from '../scenario.ts';
import { carrying, lifecycle, list } from './support.ts';

export const legacyModeNoProbe: Scenario = {
  id: 'negotiation/legacy-mode-no-probe',
  title: 'Legacy mode never sends server/discover: the wire of existing callers is unchanged',
  revisions: LEGACY_REVISIONS,
  requires: ['mode-legacy'],
  source: { spec: lifecycle('2025-06-18', 'initialization', 'Initialization: the initialization phase MUST be the first interaction', 'MUST'), seed: "seed 000 (legacy mode leaves every existing caller's wire behaviour unchanged)" },
  async run({ connect, bounded }) {
    const client = await connect({ negotiation: 'legacy' });
    await bounded(client.listTools(), 'tools/list');
    await bounded(client.close(), 'close');
  },
  judge(evidence) {
    const spec = lifecycle(
      evidence.revision,
      'initialization',
      'Initialization: the initialization phase MUST be the first interaction — a legacy-mode client sends initialize first, never server/discover (seed 000: wire unchanged for existing callers)',
      'MUST',
    );
    const probes = carrying(evidence.exchanges, 'server/discover');
    return [
      clientCompleted(evidence, spec),
      check('no-server-discover', spec, probes.length === 0, probes.length === 0 ? 'no server/discover was sent' : `legacy mode sent ${list(probes)}`, probes),
    ];
  },
};
