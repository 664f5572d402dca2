import { L } from '../../protocol/revisions.ts';
import { check, clientCompleted, precondition } from '../checks.ts';
import type { Scenario } from '../scenario.ts';
import { lifecycle } from '../spec.ts';
import { carrying, labels } from '../wire.ts';

export const legacyModeNoProbe: Scenario = {
  id: 'negotiation/legacy-mode-no-probe',
  title: 'Legacy mode never sends server/discover: the wire of existing callers is unchanged',
  revisions: L,
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
    // How the client opens is the behaviour under test: a connect that never reached the server showed nothing.
    const opened = evidence.exchanges[0];
    return [
      precondition('connect-reached-server', spec, opened !== undefined, opened ? `the client opened with ${labels([opened])}` : 'nothing reached the server: the client never opened', opened ? [opened] : []),
      clientCompleted(evidence, spec),
      check('no-server-discover', spec, probes.length === 0, probes.length === 0 ? 'no server/discover was sent' : `legacy mode sent ${labels(probes)}`, probes),
    ];
  },
  doctored: [{ check: 'connect-reached-server', unmet: true, how: 'the client never reached the server (its start-up outlasted the connect)', doctor: (e) => ({ ...e, exchanges: [], observed: {} }) }],
};
