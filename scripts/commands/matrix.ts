// `matrix`: every client of a matrix file across the suites (scripts/matrix/run.ts), and `matrix --resume`.
import { EXIT_CODES } from '../../api/exit-codes.ts';
import { whyNotWritable } from '../../api/output-paths.ts';
import { DEFAULT_REPORTS_DIR } from '../matrix/settings.ts';
import { defineCommand, fromUser, optionLines, UsageError } from './command.ts';

export const matrix = defineCommand({
  name: 'matrix',
  summary: 'run every client of the matrix file across the suites, in parallel, and write its reports',
  options: {
    config: { type: 'string' },
    clients: { type: 'string' },
    scenario: { type: 'string', multiple: true },
    out: { type: 'string' },
    shard: { type: 'string' },
    strict: { type: 'boolean' },
    compare: { type: 'string' },
    'allow-lost': { type: 'string', multiple: true },
    'fail-on': { type: 'string' },
    resume: { type: 'string' },
    rejudge: { type: 'string' },
    history: { type: 'string', multiple: true },
  },
  help: () =>
    [
      'usage: mcp-client-conformance matrix [options]',
      '       mcp-client-conformance matrix --resume <dir>',
      '       mcp-client-conformance matrix --rejudge <results.json> [--out <dir>] [--strict] [--compare <file>] [--fail-on <verdicts>]',
      '',
      'Runs every client of the matrix file across the suites, in parallel, and writes results.json, summary.md,',
      'junit.xml and report.html (docs/matrix-results.md).',
      '',
      optionLines([
        ['--config <file>', 'the matrix file (default: matrix.json of the suite)'],
        ['--clients <a,b,c*>', 'only these entries (a trailing * matches a prefix)'],
        ['--scenario <text>', 'only scenarios whose id contains <text> (repeatable: any of them)'],
        ['--out <dir>', 'the reports folder (default: reports/matrix)'],
        ['--shard <i/n>', 'only this shard of the suite files, as vitest --shard'],
        ['--strict', 'SHOULD violations fail instead of warning'],
        ['--compare <file>', 'an earlier results.json: list regressions and lost cells (cells it has that this run\nlacks), exit 1 if any'],
        ['--allow-lost <name>', 'with --compare: accept the lost cells of this client or scenario (a trailing * matches\na prefix; repeatable)'],
        ['--fail-on <verdicts>', 'exit 1 when a cell has one of these verdicts: fail, warn, error (comma-separated;\nthe errors of an entry the matrix file skips do not count)'],
        ['--rejudge <file>', 'run no client: judge every cell of a saved results.json (format version 3) again with this\nsuite\'s judges and write the four files into --out; a cell whose scenario is gone is an error cell'],
        ['--history <file>', 'an earlier night\'s results.json, for report.html\'s trend across nights (repeatable, oldest first;\n--compare\'s file is one too)'],
        ['--resume <dir>', 'complete an interrupted or killed matrix run: run only the cells missing from the reports\nfolder <dir>, with the selection it was started with, and write complete results'],
      ]),
      '',
      'exit code: 0 done, 1 regressions or lost cells against --compare or a cell --fail-on counts, 2 bad usage or',
      'bad input (a reports folder that cannot be written included), 3 an incomplete run, whatever else (--resume',
      `completes it), ${EXIT_CODES.notJudged} a client that loaded but whose row judged nothing (no cell of pass, fail or warn: every`,
      'cell n/a or inconclusive; a client that did not load is --fail-on error\'s), after 1; 130 or 143 interrupted',
    ].join('\n'),
  async run(values) {
    // The reports folder, checked before the run: a run of an hour must not end on a folder it cannot write.
    const [option, folder] = values.resume !== undefined ? ['--resume', values.resume] : values.out !== undefined ? ['--out', values.out] : ['the reports folder', DEFAULT_REPORTS_DIR];
    const why = whyNotWritable(fromUser(folder), 'folder');
    if (why !== undefined) throw new UsageError(`${option} ${folder} cannot be written: ${why}`);
    const { runMatrix } = await import('../matrix/run.ts');
    const { config, clients, out, shard, strict, compare, resume, rejudge, history } = values;
    const gates = { allowLost: values['allow-lost'], failOn: values['fail-on'] };
    return runMatrix({ config, clients, out, shard, strict, compare, resume, rejudge, history, ...gates, scenario: values.scenario?.join(',') }).catch((error: Error) => {
      throw new UsageError(error.message);
    });
  },
});
