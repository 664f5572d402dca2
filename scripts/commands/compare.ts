// `compare <old> <new>`: two results.json files side by side (scripts/matrix/compare.ts).
import { defineCommand, fromUser, optionLines } from './command.ts';

export const compare = defineCommand({
  name: 'compare',
  summary: 'compare two results.json files: regressions, new passes, cells that could not be judged, new clients',
  options: {
    markdown: { type: 'string' },
    'allow-lost': { type: 'string', multiple: true },
  },
  positionals: { min: 2, max: 2, names: 'two results files, <old> and <new>' },
  help: () =>
    [
      'usage: mcp-client-conformance compare <old.json> <new.json> [--markdown <file>] [--allow-lost <name>]...',
      '',
      'Compares two results files (of matrix, or of run --json): regressions, new passes, cells that could not be',
      'judged, new and removed clients, version changes, and lost cells: cells of <old> that <new> was asked to run',
      '(its --clients and --scenario) and has no result for, which count as regressions.',
      '',
      optionLines([
        ['--markdown <file>', 'also write the comparison as Markdown'],
        ['--allow-lost <name>', 'accept the lost cells of this client or scenario (a trailing * matches a prefix;\nrepeatable)'],
      ]),
      '',
      'A check counts as newly failing only when it was judged firmly in both runs (a MUST or SHOULD check that passed',
      'and now fails); MAY findings that differ (timers-released, connections-released: they may vary between identical',
      'runs) are listed in their own section, never as regressions.',
      '',
      'exit code: 0 without regressions or lost cells, 1 with a regression or a lost cell --allow-lost does not',
      'accept, 2 bad usage or bad input (a --markdown path that cannot be written included, checked first), 3 when',
      '<new> is an incomplete run (matrix --resume completes it), 5 when the --markdown file could not be written after',
      'all (the comparison is printed)',
    ].join('\n'),
  async run(values, positionals) {
    const { runCompare } = await import('../matrix/compare.ts');
    const allowLost = (values['allow-lost'] ?? []).flatMap((pattern) => ['--allow-lost', pattern]);
    return runCompare([...positionals.map(fromUser), ...(values.markdown !== undefined ? ['--markdown', fromUser(values.markdown)] : []), ...allowLost]);
  },
});
