// The verdict table `run` prints for a person at a terminal: the problems first (fail, then warn, then inconclusive
// with why the suite could not judge), then a recap by rule (which check broke, in how many cases, revisions and
// transports, and the one-line why), then the passes and n/a cases counted (listed only with --verbose), then the
// counts. Every line is cut to the terminal's width; --verbose cuts nothing, and --json and the reports keep the full
// text. Pure: lines from results, so it is tested on fixed results.
import { transportOfScenarioId } from '../suites/plan.ts';
import type { ScenarioResult, Verdict } from '../suites/scenario.ts';
import { attemptsNote, cellCheckOf, decidingChecks, type Cell, type CellCheck } from './results.ts';

/** One case as the table reads it: a matrix cell's fields (so a saved run's cells print the same table). */
export type TableCase = Pick<Cell, 'scenario' | 'revision' | 'reason' | 'durationMs' | 'attempts' | 'timeScale'> & { verdict: Verdict; checks: CellCheck[] };

export interface TableOptions {
  /** Columns a line may take; a longer one is cut with `…`. Ignored with `verbose`. */
  width: number;
  /** Every case listed (passes and n/a too), nothing cut. */
  verbose?: boolean;
}

/** The width when stdout is no terminal (a CI log, a pipe): lines stay readable in a log viewer. */
export const DEFAULT_WIDTH = 120;
/** Narrower than this, a terminal still gets lines this long (a cut line must say something). */
const MIN_WIDTH = 60;

/** The width to cut lines to: the terminal's, else $COLUMNS, else DEFAULT_WIDTH. */
export function terminalWidth(stream: { columns?: number; isTTY?: boolean } = process.stdout, env: NodeJS.ProcessEnv = process.env): number {
  const columns = stream.isTTY === true && stream.columns !== undefined && stream.columns > 0 ? stream.columns : Number(env.COLUMNS);
  return Number.isInteger(columns) && columns > 0 ? Math.max(MIN_WIDTH, columns) : DEFAULT_WIDTH;
}

/** A run's result as the table reads it (its checks in a cell's words). */
export function tableCaseOf(result: ScenarioResult): TableCase {
  return {
    scenario: result.scenarioId,
    revision: result.revision,
    verdict: result.verdict,
    ...(result.reason !== undefined ? { reason: result.reason } : {}),
    durationMs: result.durationMs,
    ...(result.attempts !== undefined && result.attempts.length > 0 ? { attempts: result.attempts } : {}),
    ...(result.attempts !== undefined && result.attempts.length > 0 && result.evidence !== undefined ? { timeScale: result.evidence.time.scale } : {}),
    checks: result.checks.map(cellCheckOf),
  };
}

const MARK: Record<Verdict, string> = { fail: '✗', warn: '!', inconclusive: '?', pass: '✓', 'n/a': '-' };
/** The problems, in the order they are listed. */
const PROBLEMS = ['fail', 'warn', 'inconclusive'] as const;
const ORDER: readonly Verdict[] = ['pass', 'fail', 'warn', 'inconclusive', 'n/a'];
const HEADINGS: Record<(typeof PROBLEMS)[number], string> = {
  fail: 'a MUST rule broken (a SHOULD rule too, with --strict)',
  warn: 'a SHOULD rule broken',
  inconclusive: 'the suite could not judge these, which is no verdict on the client',
};

/** Cuts a line to `width` characters (code points), ending it with `…` when cut. */
export function cut(line: string, width: number): string {
  const chars = [...line];
  return chars.length <= width ? line : `${chars.slice(0, Math.max(1, width - 1)).join('')}…`;
}

/** The first line of a text, whitespace runs as one space. */
const oneLine = (text: string) => text.split('\n')[0]!.replace(/\s+/g, ' ').trim();

const plural = (count: number, one: string, many = `${one}s`) => `${count} ${count === 1 ? one : many}`;

/** Why a case is what it is, in one line: its reason (the failing checks), and what its reruns said. */
function reasonOf(row: TableCase): string {
  return [row.reason, attemptsNote(row)].filter((part) => part !== undefined).join(' — ');
}

/** A rule the run's problems break (or could not judge): its level and section, the checks that found it, the cases. */
interface RuleGroup {
  verdict: (typeof PROBLEMS)[number];
  level: CellCheck['level'];
  section: string;
  /** Each check that decided a case on this rule, with the cases it decided (run order). */
  checks: Map<string, { check: CellCheck; cases: TableCase[] }>;
  cases: TableCase[];
}

/** The check whose detail says most: a scenario's own check before the generic `client-completed` (the client threw). */
const GENERIC_CHECKS = new Set(['client-completed']);

/** The deciding checks of every problem case, grouped by rule (level and section), worst verdict first. */
export function rulesBroken(problems: readonly TableCase[]): RuleGroup[] {
  const groups = new Map<string, RuleGroup>();
  for (const row of problems) {
    const verdict = row.verdict as RuleGroup['verdict'];
    for (const check of decidingChecks(row)) {
      const key = `${check.level}\u0000${check.section}`;
      let group = groups.get(key);
      if (group === undefined) groups.set(key, (group = { verdict, level: check.level, section: check.section, checks: new Map(), cases: [] }));
      if (PROBLEMS.indexOf(verdict) < PROBLEMS.indexOf(group.verdict)) group.verdict = verdict;
      if (!group.cases.includes(row)) group.cases.push(row);
      const named = group.checks.get(check.name) ?? { check, cases: [] };
      if (!named.cases.includes(row)) named.cases.push(row);
      group.checks.set(check.name, named);
    }
  }
  // Within a verdict, the rules broken in most cases first, then in the order the run met them (the sort is stable).
  return [...groups.values()].sort((a, b) => PROBLEMS.indexOf(a.verdict) - PROBLEMS.indexOf(b.verdict) || b.cases.length - a.cases.length);
}

/** "9 cases (3 revisions; http)". */
function spread(cases: readonly TableCase[]): string {
  const revisions = new Set(cases.map((row) => row.revision));
  const transports = [...new Set(cases.map((row) => transportOfScenarioId(row.scenario)))].sort();
  return `${plural(cases.length, 'case')} (${plural(revisions.size, 'revision')}; ${transports.join(', ')})`;
}

/** "resume/expired-404: new-initialize, dead-id-never-sent-again · retry/session-reestablished: new-session-after-404". */
function checksByScenario(group: RuleGroup): string {
  const byScenario = new Map<string, string[]>();
  for (const [name, { cases }] of group.checks) {
    for (const scenario of new Set(cases.map((row) => row.scenario))) byScenario.set(scenario, [...(byScenario.get(scenario) ?? []), name]);
  }
  return [...byScenario].map(([scenario, names]) => `${scenario}: ${names.join(', ')}`).join(' · ');
}

/** The one-line why of a rule: the detail of its most telling check, in the first case it decided. */
function whyOf(group: RuleGroup): string {
  const checks = [...group.checks.values()];
  return (checks.find(({ check }) => !GENERIC_CHECKS.has(check.name)) ?? checks[0]!).check.detail;
}

/** What a problem case broke (fail, warn: its deciding checks' names) or why it could not be judged (its reason). */
function problemOf(row: TableCase): string {
  if (row.verdict === 'inconclusive') return `why: ${oneLine(reasonOf(row))}`;
  const names = decidingChecks(row).map((check) => check.name);
  return names.length > 0 ? `broke ${names.join(', ')}` : oneLine(reasonOf(row));
}

/** Every case, one row each, nothing cut: scenario, revision, verdict, time, and the whole reason. */
function everyCase(rows: readonly TableCase[]): string[] {
  // An inconclusive case is marked: the suite could not judge it, which is neither a pass nor a failure.
  const cells = rows.map((row) => [row.scenario, row.revision, row.verdict === 'inconclusive' ? '? inconclusive' : row.verdict, `${row.durationMs.toFixed(0)} ms`, reasonOf(row)]);
  const header = ['scenario', 'revision', 'verdict', 'time', 'reason'];
  const widths = header.map((name, i) => Math.max(name.length, ...cells.map((cell) => (i === 4 ? 0 : cell[i]!.length))));
  const line = (cell: string[]) => cell.map((text, i) => (i === 4 ? text : text.padEnd(widths[i]!))).join('  ').trimEnd();
  return [line(header), ...cells.map(line)];
}

/** The table's lines (no trailing newline): problems, the recap by rule, the rest counted, the counts. */
export function verdictTable(rows: readonly TableCase[], options: TableOptions): string[] {
  const verbose = options.verbose === true;
  const fit = (line: string) => (verbose ? line : cut(line, options.width));
  const lines: string[] = [];
  const problems = rows.filter((row) => (PROBLEMS as readonly Verdict[]).includes(row.verdict));
  const count = (verdict: Verdict) => rows.filter((row) => row.verdict === verdict).length;

  if (problems.length === 0) lines.push(rows.length === 0 ? 'no case finished' : `no problems: ${plural(count('pass'), 'case')} passed${count('n/a') > 0 ? `, ${count('n/a')} n/a` : ''}`);
  for (const verdict of PROBLEMS) {
    const own = problems.filter((row) => row.verdict === verdict);
    if (own.length === 0) continue;
    if (lines.length > 0) lines.push('');
    lines.push(fit(`${verdict.toUpperCase()} (${own.length}): ${HEADINGS[verdict]}`));
    // A scenario's cases that broke the same checks (or could not be judged for the same reason) share two lines.
    // (Grouped by the checks that decided them: the first case's reason stands for the rest; --verbose lists each case.)
    const together = Map.groupBy(own, (row) => `${row.scenario}\u0000${decidingChecks(row).map((check) => check.name).join()}\u0000${decidingChecks(row).length === 0 ? reasonOf(row) : ''}`);
    for (const rows of together.values()) {
      lines.push(fit(`  ${MARK[verdict]} ${rows[0]!.scenario} @ ${rows.map((row) => row.revision).join(', ')}`));
      lines.push(fit(`      ${problemOf(rows[0]!)}`));
    }
  }

  const groups = rulesBroken(problems);
  if (groups.length > 0) {
    const broken = groups.filter((group) => group.verdict !== 'inconclusive').length;
    lines.push('', fit(`BY RULE: ${plural(broken, 'rule')} broken${broken < groups.length ? `, ${plural(groups.length - broken, 'rule')} not judged` : ''}`));
    for (const group of groups) {
      lines.push(fit(`  ${MARK[group.verdict]} ${group.level} ${group.section}`));
      lines.push(fit(`      ${spread(group.cases)}: ${checksByScenario(group)}`));
      lines.push(fit(`      why: ${verbose ? whyOf(group) : oneLine(whyOf(group))}`));
    }
  }

  const rest = count('pass') + count('n/a');
  if (verbose && rows.length > 0) lines.push('', `EVERY CASE (${rows.length}), in run order`, ...everyCase(rows));
  else if (rest > 0 && problems.length > 0) lines.push('', fit(`${plural(count('pass'), 'pass', 'passes')}${count('n/a') > 0 ? ` and ${count('n/a')} n/a` : ''} not listed (--verbose lists every case)`));
  lines.push('', ORDER.map((verdict) => `${count(verdict)} ${verdict}`).join(', '));
  return lines;
}
