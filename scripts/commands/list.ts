// `list`: every scenario with its transport, revisions, the features it needs and its spec reference (api/index.ts
// listScenarios), or only those over one transport.
import type { Transport } from '../../clients/adapter.ts';
import { defineCommand, optionLines, UsageError } from './command.ts';

export const list = defineCommand({
  name: 'list',
  summary: 'print every scenario with its transport, revisions, features and spec reference',
  options: { transport: { type: 'string' } },
  help: () =>
    [
      'usage: mcp-client-conformance list [--transport http|stdio]',
      '',
      'Every scenario (or only those over one transport): its id (for run --scenario), title, transport (http: the client',
      'connects to a URL; stdio: it launches the suite\'s server), revisions, the adapter features it needs, and its spec section.',
      '',
      optionLines([['--transport <http|stdio>', 'only the scenarios over this transport']]),
    ].join('\n'),
  async run(values) {
    const { listScenarios } = await import('../../api/index.ts');
    const { TRANSPORTS } = await import('../../clients/adapter.ts');
    const transport = values.transport as Transport | undefined;
    if (transport !== undefined && !Object.hasOwn(TRANSPORTS, transport)) throw new UsageError(`--transport takes ${Object.keys(TRANSPORTS).join(' or ')}, not "${transport}"`);
    for (const scenario of listScenarios().filter((s) => transport === undefined || s.transport === transport)) {
      const { spec, seed } = scenario;
      console.log(`${scenario.id}\n  ${scenario.title}`);
      console.log(`  transport: ${scenario.transport ?? 'http'}${scenario.twinOf !== undefined ? ` (${scenario.twinOf} run over stdio)` : ''}`);
      console.log(`  revisions: ${scenario.revisions.join(', ')}`);
      console.log(`  requires:  ${scenario.requires.length > 0 ? scenario.requires.join(', ') : '-'}`);
      console.log(`  spec:      ${spec.level} ${spec.section} <${spec.url}>${seed ? `\n  seed:      ${seed}` : ''}`);
    }
    return 0;
  },
});
