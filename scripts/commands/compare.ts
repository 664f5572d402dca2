// `compare <old> <new>`: two results.json files side by side (scripts/matrix/compare.ts).
import { defineCommand, fromUser, optionLines } from './command.ts';

export const compare = defineCommand({
  name: 'compare',
  summary: 'compare two results.json files: regressions, new passes, cells that could not be judged, new clients',
  options: {
    markdown: { type: 'string' },
  },
  positionals: { min: 2, max: 2, names: 'two results files, <old> and <new>' },
  help: () =>
    [
      'usage: mcp-client-conformance compare <old.json> <new.json> [--markdown <file>]',
      '',
      'Compares two results files (of matrix, or of run --json): regressions, new passes, cells that could not be',
      'judged, new and removed clients, version changes.',
      '',
      optionLines([['--markdown <file>', 'also write the comparison as Markdown']]),
      '',
      'exit code: 0 without regressions, 1 with regressions, 2 bad usage or bad input',
    ].join('\n'),
  async run(values, positionals) {
    const { runCompare } = await import('../matrix/compare.ts');
    return runCompare([...positionals.map(fromUser), ...(values.markdown !== undefined ? ['--markdown', fromUser(values.markdown)] : [])]);
  },
});
