// `list`: every scenario with its revisions, the features it needs and its spec reference (api/index.ts listScenarios).
import { defineCommand } from './command.ts';

export const list = defineCommand({
  name: 'list',
  summary: 'print every scenario with its revisions, features and spec reference',
  options: {},
  help: () => 'usage: mcp-client-conformance list\n\nEvery scenario: its id (for run --scenario), title, revisions, the adapter features it needs, and its spec section.',
  async run() {
    const { listScenarios } = await import('../../api/index.ts');
    for (const scenario of listScenarios()) {
      const { spec, seed } = scenario;
      console.log(`${scenario.id}\n  ${scenario.title}`);
      console.log(`  revisions: ${scenario.revisions.join(', ')}`);
      console.log(`  requires:  ${scenario.requires.length > 0 ? scenario.requires.join(', ') : '-'}`);
      console.log(`  spec:      ${spec.level} ${spec.section} <${spec.url}>${seed ? `\n  seed:      ${seed}` : ''}`);
    }
    return 0;
  },
});
