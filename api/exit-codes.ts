// What a run comes to for a CI gate, in one place: the command line's exit codes (`run`, `matrix`, `compare`), the
// GitHub Action's `exit-code` output and the API's `exitCodeOf` say the same, and the help and the README list them
// from here (scripts/cli.test.ts holds the README to it).

/** Every exit code the command line ends with, by what it means. */
export const EXIT_CODES = {
  /** Judged, and nothing failed (with a baseline: every result matches it). */
  ok: 0,
  /** A case failed, a result does not match the baseline (a regression or a stale entry), a cell regressed or was lost. */
  failed: 1,
  /** Bad usage or bad input (an unknown option, an unreadable baseline, an output path that cannot be written): nothing ran. */
  usage: 2,
  /** A matrix run (or the run a comparison reads) ended incomplete: `matrix --resume` completes it. */
  incomplete: 3,
  /** Nothing was judged: no case got a verdict (pass, fail or warn), every one n/a or inconclusive. */
  notJudged: 4,
  /** The run was judged and its table printed, but an output file (--json, --junit, --write-baseline, --markdown) could not be written. */
  notWritten: 5,
  /** Interrupted by SIGINT (Ctrl-C) or SIGTERM. */
  sigint: 130,
  sigterm: 143,
} as const;

/** The verdicts that judge a client; inconclusive and n/a say nothing of it. */
const JUDGING = new Set(['pass', 'fail', 'warn']);

/**
 * Whether a run, or one client's row of a matrix, judged something: some case got a verdict of pass, fail or warn.
 * A run whose every case is n/a (the client declares nothing the selection needs) or inconclusive (the suite could not
 * judge it: the client process killed in every case, say) judged nothing, and proves nothing either way.
 */
export const judgedSomething = (verdicts: Iterable<string>): boolean => [...verdicts].some((verdict) => JUDGING.has(verdict));

/** The longest reason quoted in that line (the table and the reports have it whole). */
const REASON_CHARS = 200;

/** The one line that says why nothing was judged: every case n/a, or each applicable one inconclusive (with the commonest reason). */
export function notJudgedLine(client: string, results: readonly { verdict: string; reason?: string }[]): string {
  const applied = results.filter((r) => r.verdict !== 'n/a');
  if (applied.length === 0) return `nothing was judged: no scenario applies to ${client} (${results.length} ${results.length === 1 ? 'case' : 'cases'} n/a): check the revisions, features and transports it declares`;
  const reasons = [...Map.groupBy(applied, (r) => r.reason ?? 'no reason given')].sort(([, a], [, b]) => b.length - a.length);
  const [reason, times] = [reasons[0]![0], reasons[0]![1].length];
  const commonest = reason.length > REASON_CHARS ? `${reason.slice(0, REASON_CHARS)}…` : reason;
  const why = times === applied.length ? `each: ${commonest}` : `most often (${times}): ${commonest}`;
  if (applied.length === 1) return `nothing was judged: the one case that applied to ${client} got no verdict, the suite could not judge it (${commonest})`;
  return `nothing was judged: none of the ${applied.length} cases that applied to ${client} got a verdict, the suite could not judge them (${why})`;
}
