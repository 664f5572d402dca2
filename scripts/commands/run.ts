// `run`: the scenarios against one client, through the programmatic API (api/index.ts runConformance): a verdict
// table on stdout, a progress line on stderr, and for CI the results as JSON (the matrix's results.json format, which
// `compare` reads) and JUnit XML, a baseline to gate on, and a baseline written from the run.
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { EXIT_CODES, notJudgedLine } from '../../api/exit-codes.ts';
import type { ConformanceRun } from '../../api/index.ts';
import { whyNotWritable } from '../../api/output-paths.ts';
import type { Transport } from '../../clients/adapter.ts';
import type { Revision } from '../../protocol/revisions.ts';
import type { ScenarioResult, Verdict } from '../../suites/scenario.ts';
import { tableCaseOf, terminalWidth, verdictTable } from '../../results/table.ts';
import { defineCommand, fromUser, optionLines, UsageError } from './command.ts';

const VERDICT_ORDER: readonly Verdict[] = ['pass', 'fail', 'warn', 'inconclusive', 'n/a'];

/** The words of each status of a comparison, in the order they are listed. */
const STATUS_WORDS = { regression: 'regression', stale: 'stale entry', unjudged: 'could not judge' } as const;

/** What the comparison with the baseline says: counts, then each case that does not match, then the baseline's own problems. */
function comparisonText(run: ConformanceRun, shownPath: string): string {
  const { problems } = run.baseline!;
  const compared = run.results.filter((o) => o.comparison !== undefined);
  const count = (status: string) => compared.filter((o) => o.comparison!.status === status).length;
  const lines = [`baseline ${shownPath}: ${count('match')} match, ${count('regression')} regression${count('regression') === 1 ? '' : 's'}, ${count('stale')} stale, ${count('unjudged')} could not be judged, ${count('n/a')} n/a`];
  for (const status of ['regression', 'stale', 'unjudged'] as const) {
    for (const { result, comparison } of compared.filter((o) => o.comparison!.status === status)) {
      lines.push(`  ${STATUS_WORDS[status]}: ${result.scenarioId} @ ${result.revision}`, ...comparison!.differences.map((d) => `    ${d.text.replaceAll('\n', '\n    ')}`));
    }
  }
  if (problems.length > 0) lines.push(`the baseline itself (stale or unknown entries):`, ...problems.map((problem) => `  ${problem}`));
  return lines.join('\n');
}

/** How often a log (stderr not a terminal) gets a progress line: the README says so. */
export const PROGRESS_LINE_EVERY_MS = 5_000;

/**
 * One line on stderr while the run goes: on a terminal redrawn in place (and each second, for the clock), in a log one
 * plain line every PROGRESS_LINE_EVERY_MS, so a long run is never silent.
 */
class Progress {
  private readonly tty = process.stderr.isTTY === true;
  private readonly started = performance.now();
  private timer: NodeJS.Timeout | undefined;
  private drawn = 0;
  private done = 0;
  private readonly tally = Object.fromEntries(VERDICT_ORDER.map((v) => [v, 0])) as Record<Verdict, number>;

  private readonly total: number;
  private readonly enabled: boolean;

  constructor(total: number, enabled: boolean) {
    this.total = total;
    this.enabled = enabled;
  }

  start(): void {
    if (!this.enabled) return;
    this.draw();
    this.timer = setInterval(() => this.draw(), this.tty ? 1_000 : PROGRESS_LINE_EVERY_MS);
    this.timer.unref();
  }

  add(verdict: Verdict): void {
    this.done++;
    this.tally[verdict]++;
    // A terminal shows every case; a log gets a line from the timer only.
    if (this.enabled && this.tty && performance.now() - this.drawn >= 100) this.draw();
  }

  /** Takes the line off a terminal, so that other output can be written; the next draw puts it back. */
  clear(): void {
    if (this.enabled && this.tty) process.stderr.write('\r\x1b[K');
  }

  stop(): void {
    if (!this.enabled) return;
    clearInterval(this.timer);
    if (this.tty) this.clear();
    else this.draw();
  }

  private draw(): void {
    this.drawn = performance.now();
    const counts = VERDICT_ORDER.map((v) => `${v} ${this.tally[v]}`).join(' · ');
    const line = `run: ${this.done}/${this.total} cases · ${counts} · ${((this.drawn - this.started) / 1000).toFixed(0)} s`;
    process.stderr.write(this.tty ? `\r${line}\x1b[K` : `${line}\n`);
  }
}

/** An output file the user named, checked before the run: a path that cannot be written is bad input, not a lost run. */
function outputPath(option: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const path = fromUser(value);
  const why = whyNotWritable(path);
  if (why !== undefined) throw new UsageError(`--${option} ${value} cannot be written: ${why}`);
  return path;
}

/**
 * Writes beside, then renames: a reader sees the old file or the new one, never a part. Returns why it could not (the
 * folder gone or full since the run started, say), or undefined: a failed write never ends the command.
 */
function write(path: string, text: string): string | undefined {
  const temporary = `${path}.${process.pid}.tmp`;
  try {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(temporary, text);
    renameSync(temporary, path);
    return undefined;
  } catch (error) {
    try {
      rmSync(temporary, { force: true });
    } catch {
      // Its folder is gone too.
    }
    return (error as Error).message;
  }
}

export const run = defineCommand({
  name: 'run',
  summary: 'run the scenarios against one client (an adapter): a verdict table, JSON and JUnit files, a baseline gate',
  options: {
    adapter: { type: 'string' },
    'adapter-command': { type: 'string' },
    scenario: { type: 'string', multiple: true },
    revision: { type: 'string', multiple: true },
    transport: { type: 'string', multiple: true },
    strict: { type: 'boolean' },
    verbose: { type: 'boolean' },
    json: { type: 'string' },
    junit: { type: 'string' },
    baseline: { type: 'string' },
    'write-baseline': { type: 'string' },
    concurrency: { type: 'string' },
    quiet: { type: 'boolean' },
    rejudge: { type: 'string' },
    requirements: { type: 'string', multiple: true },
  },
  help: () =>
    [
      'usage: mcp-client-conformance run (--adapter <name or file> | --adapter-command "<program>") [options]',
      '       mcp-client-conformance run --rejudge <results.json> [--adapter <client>] [options]',
      '',
      optionLines([
        ['--adapter <name>', 'a built-in adapter (see `mcp-client-conformance adapters`)'],
        ['--adapter <file>', 'the adapter a module exports (./my-adapter.ts: its default export or "adapter", a\nClientAdapter or a function returning one, or a "processAdapter" config)'],
        ['--adapter-command <c>', 'a client program speaking the line protocol (docs/line-protocol.md), e.g.\n"python3 clients/drivers/python/driver.py"; its deadlines: MCP_CONFORMANCE_OPERATION_TIMEOUT_MS,\nMCP_CONFORMANCE_HELLO_TIMEOUT_MS'],
        ['--scenario <text>', 'only scenarios whose id contains <text> (repeatable)'],
        ['--revision <rev>', 'only cases at this revision (repeatable)'],
        ['--transport <http|stdio>', 'only scenarios over this transport (repeatable): stdio cases have the client launch the\nsuite\'s stdio server'],
        ['--strict', 'SHOULD violations fail instead of warning (also MCP_CONFORMANCE_STRICT=1)'],
        ['--baseline <file>', 'your baseline (its format: baseline.schema.json, in suites/baselines/ of the package): exit 0 when every result matches\nit, 1 on a regression or a stale entry, 2 when it cannot be read or is invalid'],
        ['--write-baseline <file>', 'write a baseline from this run, keeping the reasons and spec URLs of the entries the\nfile (or --baseline) has; a new failing check gets an entry whose reason you replace'],
        ['--json <file>', 'write the results as a results.json (docs/matrix-results.md), which `compare` reads'],
        ['--junit <file>', 'write the results as JUnit XML (fail → failure, n/a and inconclusive → skipped)'],
        ['--concurrency <n>', 'cases run at once (default 8)'],
        ['--verbose', 'print the evidence of every result that is not a pass'],
        ['--quiet', 'no progress line on stderr'],
        ['--requirements <rev>', 'run every scenario of the revision and report the requirement set frozen for it\n(suites/requirements.json): which scenarios are scored, which not and why, and whether the client meets\nthe set (repeatable; sets: 2025-11-25, 2026-07-28). A warn is met unless --strict; exit 1 when a set is not met'],
        ['--rejudge <file>', 'run no client: judge the cells of a saved run (a results.json of format version 3) again\nwith this suite\'s judges, and write the same table and files (--adapter names the client of a matrix\'s file)'],
      ]),
      '',
      'Each case runs with the client\'s calibrated time bounds; one inconclusive for lack of time runs again with bounds',
      'twice as large (at most 3 runs), and the table says so. Ctrl-C prints the table of the cases that finished, writes',
      'the --json and --junit files of those (marked incomplete) and exits 130 (143 on SIGTERM).',
      '',
      'exit code:',
      optionLines([
        [String(EXIT_CODES.ok), 'judged, and nothing failed (with --baseline: every result matches it; an inconclusive case\ndoes not fail)'],
        [String(EXIT_CODES.failed), 'a case failed, or (with --baseline) a result regressed or an entry is stale'],
        [String(EXIT_CODES.usage), 'bad usage or bad input, an output path that cannot be written included: nothing ran'],
        [String(EXIT_CODES.incomplete), '--rejudge of a saved run that was incomplete'],
        [String(EXIT_CODES.notJudged), 'nothing was judged: no case got a verdict of pass, fail or warn (every case n/a, or each\none that applied inconclusive); a line on stderr says why'],
        [String(EXIT_CODES.notWritten), 'the run was judged and the table printed, but --json, --junit or --write-baseline could\nnot be written at the end (one line each on stderr; the other files are written)'],
        [`${EXIT_CODES.sigint}, ${EXIT_CODES.sigterm}`, 'interrupted by SIGINT or SIGTERM'],
      ]),
      'When several apply, the first of: 2, 130/143, 5, 3, 1, 4. With --requirements the sets are the gate in place of 1 and',
      '4: 1 when a set is not met (an undecided set does not fail), the --baseline gate holding too.',
    ].join('\n'),
  async run(values) {
    const concurrency = values.concurrency === undefined ? undefined : Number(values.concurrency);
    if (concurrency !== undefined && !(Number.isInteger(concurrency) && concurrency > 0)) throw new UsageError(`--concurrency takes a positive whole number, not "${values.concurrency}"`);
    const json = outputPath('json', values.json);
    const junit = outputPath('junit', values.junit);
    const written = outputPath('write-baseline', values['write-baseline']);
    const paths = [json, junit, written].filter((path) => path !== undefined);
    if (new Set(paths).size < paths.length) throw new UsageError('--json, --junit and --write-baseline must name different files');

    // Loaded here, not at the top: `--help` and the other commands do not pay for the whole suite.
    const [{ exitCodeOf, explainOutcome, junitReport, OutputPathError, rejudgeRun, resultsFile, runConformance, SelectionError }, { AdapterLoadError }, { SettingsError }, { BaselineError }, { requirementRevisionsOf, requirementsOutcome, RequirementsError }] = await Promise.all([
      import('../../api/index.ts'),
      import('../../clients/load.ts'),
      import('../../config/settings.ts'),
      import('../../suites/baselines.ts'),
      import('../../suites/requirements.ts'),
    ]);

    // A requirement set is every scenario of its revision: a narrower selection would score a part of it.
    let requirements: Revision[] | undefined;
    if (values.requirements !== undefined) {
      const narrowing = (['scenario', 'revision', 'transport'] as const).filter((option) => values[option] !== undefined);
      if (narrowing.length > 0) throw new UsageError(`--requirements runs every scenario of the revision's set: drop ${narrowing.map((option) => `--${option}`).join(', ')}`);
      try {
        requirements = requirementRevisionsOf(values.requirements);
      } catch (error) {
        if (error instanceof RequirementsError) throw new UsageError(error.message);
        throw error;
      }
    }

    if (values.rejudge !== undefined) {
      const given = (['adapter-command', 'scenario', 'revision', 'transport', 'concurrency'] as const).filter((option) => values[option] !== undefined);
      if (given.length > 0) throw new UsageError(`--rejudge judges the saved run's cells as they are: drop ${given.map((option) => `--${option}`).join(', ')}`);
    }
    if (values.adapter !== undefined && values['adapter-command'] !== undefined) throw new UsageError('give --adapter or --adapter-command, not both');
    if (values.rejudge === undefined && values.adapter === undefined && values['adapter-command'] === undefined) throw new UsageError('run needs --adapter <name or module> or --adapter-command "<program>"; see `mcp-client-conformance adapters`');

    // Ctrl-C (or a CI job's SIGTERM) once cases run: what finished is judged and must not be lost. The run returns at
    // once with it, the case in flight dropped, the client given its bounded shutdown; a second signal ends the
    // process at once. Before that (loading the client) nothing is judged yet: the signal ends the process as usual.
    const controller = new AbortController();
    let signalled: NodeJS.Signals | undefined;
    const interrupt = (signal: NodeJS.Signals) => {
      signalled = signal;
      process.once(signal, () => process.exit(signal === 'SIGINT' ? EXIT_CODES.sigint : EXIT_CODES.sigterm));
      controller.abort(`interrupted by ${signal}`);
    };

    let progress: Progress | undefined;
    let outcome: ConformanceRun;
    try {
      if (values.rejudge !== undefined) {
        outcome = rejudgeRun({
          results: values.rejudge,
          cwd: fromUser('.'),
          ...(values.adapter !== undefined ? { client: values.adapter } : {}),
          ...(values.strict ? { strict: true } : {}),
          ...(values.baseline !== undefined ? { baseline: values.baseline } : {}),
          ...(values['write-baseline'] !== undefined ? { writeBaseline: values['write-baseline'] } : {}),
        });
        for (const line of outcome.notJudged ?? []) console.error(`mcp-client-conformance: ${line}`);
        if (values.verbose) for (const finished of outcome.results.filter((o) => o.result.verdict !== 'pass')) console.log(`${explainOutcome(finished)}\n`);
      } else {
        const selection = {
          ...(values.scenario !== undefined ? { scenarios: values.scenario } : {}),
          ...(values.revision !== undefined ? { revisions: values.revision as Revision[] } : {}),
          ...(requirements !== undefined ? { revisions: requirements } : {}),
          ...(values.transport !== undefined ? { transports: values.transport as Transport[] } : {}),
        };
        outcome = await runConformance({
          adapter: values.adapter ?? { command: values['adapter-command']! },
          cwd: fromUser('.'),
          ...selection,
          ...(values.strict ? { strict: true } : {}),
          ...(values.baseline !== undefined ? { baseline: values.baseline } : {}),
          ...(values['write-baseline'] !== undefined ? { writeBaseline: values['write-baseline'] } : {}),
          ...(concurrency !== undefined ? { concurrency } : {}),
          signal: controller.signal,
          onStart: ({ total }) => {
            process.once('SIGINT', interrupt);
            process.once('SIGTERM', interrupt);
            progress = new Progress(total, !values.quiet);
            progress.start();
          },
          onResult: (finished) => {
            progress?.add(finished.result.verdict);
            if (values.verbose && finished.result.verdict !== 'pass') {
              progress?.clear();
              console.log(`${explainOutcome(finished)}\n`);
            }
          },
        });
      }
    } catch (error) {
      if (error instanceof AdapterLoadError || error instanceof BaselineError || error instanceof SelectionError || error instanceof SettingsError || error instanceof OutputPathError) throw new UsageError(error.message);
      throw error;
    } finally {
      progress?.stop();
      process.off('SIGINT', interrupt);
      process.off('SIGTERM', interrupt);
    }

    const results = outcome.results.map((o) => o.result);
    console.log(verdictTable(results.map(tableCaseOf), { width: terminalWidth(), verbose: values.verbose === true }).join('\n'));
    // Each file is attempted whatever became of another; each one lost is one line, and the exit code says so.
    const notWritten = [
      { option: '--json', path: json, why: json === undefined ? undefined : write(json, `${JSON.stringify(resultsFile(outcome), null, 1)}\n`) },
      { option: '--junit', path: junit, why: junit === undefined ? undefined : write(junit, junitReport(outcome)) },
      { option: '--write-baseline', path: outcome.notWritten?.path, why: outcome.notWritten?.reason },
    ].filter((file) => file.why !== undefined);
    for (const { option, path, why } of notWritten) console.error(`mcp-client-conformance: ${option} ${path} could not be written: ${why}`);
    if (signalled !== undefined) {
      const code = signalled === 'SIGINT' ? EXIT_CODES.sigint : EXIT_CODES.sigterm;
      const lost = new Set(notWritten.map((file) => file.path));
      const files = [json, junit].filter((file) => file !== undefined && !lost.has(file));
      console.error(`mcp-client-conformance: interrupted by ${signalled} after ${results.length} of ${outcome.planned} cases; the table above has the ones that finished${files.length > 0 ? ` (and ${files.join(', ')}, marked incomplete)` : ''}${written !== undefined ? `; no baseline written` : ''}`);
      // The cases dropped may still hold sockets and timers: the process ends here.
      process.exit(code);
    }

    // A run in which nothing was judged proves nothing: say why, and do not let CI read it as a success (exit 4).
    const inconclusive = outcome.counts.inconclusive;
    if (outcome.gate === 'not-judged') console.error(`mcp-client-conformance: ${notJudgedLine(outcome.adapter.name, results)} (exit ${EXIT_CODES.notJudged})`);
    // Not a failure (nothing was blamed on the client), but never silent either.
    else if (inconclusive > 0) console.error(`mcp-client-conformance: ${inconclusive} ${inconclusive === 1 ? 'case was' : 'cases were'} inconclusive: the suite could not judge ${inconclusive === 1 ? 'it' : 'them'} (the table says why)`);
    if (outcome.baseline !== undefined) {
      // Each regression with its evidence (--verbose printed it as it came).
      const mismatched = values.verbose ? [] : outcome.results.filter((o) => o.comparison?.status === 'regression');
      for (const regression of mismatched) console.log(`\n${explainOutcome(regression)}`);
      console.log(`\n${comparisonText(outcome, values.baseline!)}`);
    }
    if (outcome.written !== undefined) {
      const { notes, baseline, mismatches } = outcome.written;
      console.log(`\nbaseline written to ${values['write-baseline']}: ${baseline.known.length} ${baseline.known.length === 1 ? 'entry' : 'entries'}`);
      for (const note of notes) console.log(`  - ${note}`);
      for (const mismatch of mismatches) console.log(`  still a mismatch: ${mismatch}`);
    }
    const met = requirements === undefined ? undefined : requirementsOutcome(requirements, results, { revisions: outcome.adapter.revisions, strict: outcome.strict, verbose: values.verbose ?? false });
    if (met !== undefined) console.log(`\n${met.text}`);
    // The table is out: whatever a client left behind (a socket, a timer of its own) must not keep the run alive.
    setTimeout(() => process.exit(), 2_000).unref();
    if (notWritten.length > 0) return EXIT_CODES.notWritten;
    // With --requirements the sets are the gate (and the baseline too, when there is one).
    if (met !== undefined) return met.met && (outcome.baseline === undefined || outcome.ok) ? EXIT_CODES.ok : EXIT_CODES.failed;
    // The gate (api/index.ts exitCodeOf): the baseline when there is one; else a written baseline that holds the run;
    // else no failure; and something judged.
    return exitCodeOf(outcome);
  },
});
