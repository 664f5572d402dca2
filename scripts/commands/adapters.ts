// `adapters`: the built-in adapters, and the broken variants the self-tests use.
import { defineCommand } from './command.ts';

export const adapters = defineCommand({
  name: 'adapters',
  summary: 'print the built-in adapters (and the broken variants that prove the checks)',
  options: {},
  help: () => 'usage: mcp-client-conformance adapters\n\nOne line per adapter: its name (for run --adapter) and what it drives.',
  async run() {
    const { BROKEN_ADAPTERS, BUILT_IN_ADAPTERS } = await import('../../clients/index.ts');
    for (const adapter of [...BUILT_IN_ADAPTERS, ...BROKEN_ADAPTERS]) console.log(`${adapter.name.padEnd(30)} ${adapter.description}`);
    return 0;
  },
});
