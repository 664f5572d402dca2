// Compares two matrix runs: which cells got worse (regressions), which got better, which the suite could judge in one
// run and not in the other, which clients came, went or changed version, which cells are new or lost. Cells are
// matched by client name + scenario + revision. A lost cell (judged before, no result now) counts as a regression
// unless the user allows it: an incomplete run or a dropped client never reads as a pass. The verdict order and what
// counts as a regression are documented in docs/matrix-results.md.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
import { EXIT_CODES } from '../../api/exit-codes.ts';
import { whyNotWritable } from '../../api/output-paths.ts';
import { incompleteLine, isProblem, markdownCode, markdownText, packageLabel, printable } from '../../results/markdown.ts';
import { attemptsNote, cellKey, namePatternMatches, parseResults, selects, selectsClient, verdictCounts, VERDICTS, type Cell, type CellCheck, type CellVerdict, type ClientInfo, type MatrixResults } from '../../results/results.ts';

/**
 * How bad a verdict is: pass < warn < fail < error. `error` ranks worst because the case could not be run at all
 * (the client did not load or crashed): a client that stops loading must show up as regressions. `n/a` and
 * `inconclusive` are outside the order: a case that becomes applicable or stops being so is reported as such, and one
 * the suite could not judge in one of the runs is listed as "could not judge" — never as a regression or improvement,
 * since one of the two runs says nothing about the client.
 */
export const VERDICT_RANK: Readonly<Record<CellVerdict, number | undefined>> = { pass: 0, warn: 1, fail: 2, error: 3, inconclusive: undefined, 'n/a': undefined };

export interface CellChange {
  client: string;
  scenario: string;
  revision: string;
  from: CellVerdict;
  to: CellVerdict;
  /** The current cell's reason (why it fails, warns, errs or is n/a now). */
  reason?: string;
  /**
   * The checks that fail now and passed before: MUST and SHOULD checks judged firmly in both runs (pass before, fail
   * now; a check absent, inconclusive or a precondition in either run is not). MAY findings are in `mayFindings`.
   */
  newlyFailedChecks: string[];
  /** What the current cell's reruns say ("judged at time scale 2 after 1 inconclusive run: …"), if it had any. */
  attempts?: string;
}

/** The MAY findings of one cell that one run has and the other has not. */
export interface MayFindingChange {
  client: string;
  scenario: string;
  revision: string;
  /** Failed MAY checks the current run has and the previous had not. */
  appeared: string[];
  /** Failed MAY checks the previous run had and the current has not. */
  gone: string[];
}

export interface VersionChange {
  client: string;
  from: string;
  to: string;
}

export interface Comparison {
  previous: RunSummary;
  current: RunSummary;
  /** Cells whose verdict got worse: pass → warn/fail/error, warn → fail/error, fail → error. */
  regressions: CellChange[];
  /** Cells whose verdict got better (the reverse moves); `→ pass` ones are the new passes. */
  improvements: CellChange[];
  /** Cells that were n/a and now have a verdict (the client declares more, or speaks a new revision). */
  nowApplicable: CellChange[];
  /** Cells that had a verdict and are now n/a: coverage lost, whatever the verdict was. */
  noLongerApplicable: CellChange[];
  /** Cells the suite could judge in one run and not in the other (→ inconclusive, or inconclusive →). */
  couldNotJudge: CellChange[];
  /** Cells whose verdict stayed fail or warn but with a check judged firmly in both runs that passed and now fails. */
  newlyFailingChecks: CellChange[];
  /**
   * Cells of both runs whose MAY findings differ (the runner's cleanup findings, `timers-released` and the like):
   * informational, they never change a verdict and may vary between identical runs, so they are listed apart, never
   * as regressions or newly failing checks.
   */
  mayFindings: MayFindingChange[];
  newClients: ClientInfo[];
  /** Clients of the previous run that the current run selects but does not have (their cells are lost cells). */
  removedClients: ClientInfo[];
  versionChanges: VersionChange[];
  /** Clients of both runs that the current run could not load, with why (their cells are all errors now). */
  notLoaded: { client: string; loadError: string }[];
  /** Cells of clients in both runs that only the current run has (a new scenario or revision, say). */
  newCells: Cell[];
  /**
   * Lost cells: cells of the previous run that the current run's selection covers but that have no result in it (a
   * client or scenario dropped, a shard or worker lost), as the previous run had them. Counted as regressions.
   */
  lostCells: Cell[];
  /** Lost cells that an `--allow-lost` pattern accepts: listed, not counted. */
  allowedLostCells: Cell[];
  /** Cells of the previous run outside the current run's `--clients` / `--scenario` selection: not compared. */
  unselectedCells: number;
  /** Differences between the runs that change how to read the comparison (strict mode, an incomplete run, say). */
  notes: string[];
}

export interface RunSummary {
  generatedAt: string;
  suiteVersion: string;
  commit?: string;
  strict: boolean;
  /** false: cells the run planned have no result (`missingCells` of them). */
  complete: boolean;
  missingCells: number;
  cells: number;
  counts: Record<CellVerdict, number>;
}

const key = cellKey;

function summary(results: MatrixResults): RunSummary {
  return {
    generatedAt: results.generatedAt,
    suiteVersion: results.run.suiteVersion,
    ...(results.run.commit !== undefined ? { commit: results.run.commit } : {}),
    strict: results.run.strict,
    complete: results.run.complete,
    missingCells: results.run.missingCells,
    cells: results.cells.length,
    counts: verdictCounts(results.cells),
  };
}

/** A check whose outcome is a judgement of the client's rules: MUST or SHOULD, not a precondition, pass or fail. */
const firm = (check: CellCheck) => check.level !== 'MAY' && check.precondition !== true && check.outcome !== 'inconclusive';

function change(before: Cell, after: Cell): CellChange {
  const passedBefore = new Set(before.checks.filter((check) => firm(check) && check.outcome === 'pass').map((check) => check.name));
  const attempts = attemptsNote(after);
  return {
    client: after.client,
    scenario: after.scenario,
    revision: after.revision,
    from: before.verdict,
    to: after.verdict,
    ...(after.reason !== undefined ? { reason: after.reason } : {}),
    newlyFailedChecks: after.checks.filter((check) => firm(check) && check.outcome === 'fail' && passedBefore.has(check.name)).map((check) => check.name),
    ...(attempts !== undefined ? { attempts } : {}),
  };
}

/** The failed MAY checks of a cell that differ between the runs, or undefined when they are the same. */
function mayFindingChange(before: Cell, after: Cell): MayFindingChange | undefined {
  const findings = (cell: Cell) => new Set(cell.checks.filter((check) => check.level === 'MAY' && check.outcome === 'fail').map((check) => check.name));
  const [then, now] = [findings(before), findings(after)];
  const appeared = [...now].filter((name) => !then.has(name));
  const gone = [...then].filter((name) => !now.has(name));
  if (appeared.length === 0 && gone.length === 0) return undefined;
  return { client: after.client, scenario: after.scenario, revision: after.revision, appeared, gone };
}

export interface CompareOptions {
  /**
   * Lost cells to accept: each pattern a client name or a scenario id, or a prefix of one ending in `*` (`*` alone:
   * every lost cell). A client or scenario dropped on purpose is allowed this way for the run that drops it.
   */
  allowLost?: readonly string[];
}

/** Whether an `--allow-lost` pattern accepts a lost cell: it names the cell's client or its scenario. */
const allows = (pattern: string, cell: Cell) => namePatternMatches(pattern, cell.client) || namePatternMatches(pattern, cell.scenario);

export function compare(previous: MatrixResults, current: MatrixResults, options: CompareOptions = {}): Comparison {
  const before = new Map(previous.cells.map((cell) => [key(cell), cell]));
  const after = new Map(current.cells.map((cell) => [key(cell), cell]));
  const previousClients = new Map(previous.clients.map((client) => [client.name, client]));
  const currentClients = new Map(current.clients.map((client) => [client.name, client]));
  const inBoth = (client: string) => previousClients.has(client) && currentClients.has(client);
  const selected = (cell: Cell) => selects(current.run.selection, cell);
  const gone = previous.cells.filter((cell) => !after.has(key(cell)));
  const lost = gone.filter(selected);
  const allowLost = options.allowLost ?? [];
  const isAllowed = (cell: Cell) => allowLost.some((pattern) => allows(pattern, cell));

  const comparison: Comparison = {
    previous: summary(previous),
    current: summary(current),
    regressions: [],
    improvements: [],
    nowApplicable: [],
    noLongerApplicable: [],
    couldNotJudge: [],
    newlyFailingChecks: [],
    mayFindings: [],
    newClients: current.clients.filter((client) => !previousClients.has(client.name)),
    removedClients: previous.clients.filter((client) => !currentClients.has(client.name) && selectsClient(current.run.selection, client.name)),
    versionChanges: [],
    notLoaded: current.clients.filter((client) => client.loadError !== undefined && previousClients.has(client.name)).map((client) => ({ client: client.name, loadError: client.loadError! })),
    newCells: current.cells.filter((cell) => inBoth(cell.client) && !before.has(key(cell))),
    lostCells: lost.filter((cell) => !isAllowed(cell)),
    allowedLostCells: lost.filter(isAllowed),
    unselectedCells: gone.length - lost.length,
    notes: [],
  };
  for (const [cellKey, now] of after) {
    const then = before.get(cellKey);
    if (!then) continue;
    const mayChange = mayFindingChange(then, now);
    if (mayChange !== undefined) comparison.mayFindings.push(mayChange);
    const rankThen = VERDICT_RANK[then.verdict];
    const rankNow = VERDICT_RANK[now.verdict];
    if (then.verdict === now.verdict && rankNow === undefined) continue;
    if (then.verdict === 'n/a') comparison.nowApplicable.push(change(then, now));
    else if (now.verdict === 'n/a') comparison.noLongerApplicable.push(change(then, now));
    else if (rankThen === undefined || rankNow === undefined) comparison.couldNotJudge.push(change(then, now));
    else if (rankNow > rankThen) comparison.regressions.push(change(then, now));
    else if (rankNow < rankThen) comparison.improvements.push(change(then, now));
    else if (isProblem(now) && now.verdict !== 'error') {
      const moved = change(then, now);
      if (moved.newlyFailedChecks.length > 0) comparison.newlyFailingChecks.push(moved);
    }
  }
  for (const [name, client] of currentClients) {
    const earlier = previousClients.get(name);
    if (!earlier) continue;
    const from = packageLabel(earlier) ?? '(no package)';
    const to = packageLabel(client) ?? '(no package)';
    if (from !== to) comparison.versionChanges.push({ client: name, from, to });
  }
  const incompletePrevious = incompleteLine(previous);
  if (incompletePrevious !== undefined) comparison.notes.push(`the previous run is an ${incompletePrevious}: those cells show as new cells, not as changes`);
  const incompleteCurrent = incompleteLine(current);
  if (incompleteCurrent !== undefined) comparison.notes.push(`the current run is an ${incompleteCurrent}: those cells are lost cells; matrix --resume on its reports folder runs them, then compare again`);
  if (comparison.unselectedCells > 0) {
    const { clients, scenario, revisions, transports } = current.run.selection;
    const selection = [clients !== undefined ? `--clients ${clients}` : undefined, scenario !== undefined ? `--scenario ${scenario}` : undefined, revisions !== undefined ? `--revision ${revisions.join(',')}` : undefined, transports !== undefined ? `--transport ${transports.join(',')}` : undefined].filter(Boolean).join(' ');
    comparison.notes.push(`${plural(comparison.unselectedCells, 'cell')} of the previous run ${comparison.unselectedCells === 1 ? 'is' : 'are'} outside the current run's selection (${selection}): not compared`);
  }
  for (const pattern of allowLost) {
    if (!lost.some((cell) => allows(pattern, cell))) comparison.notes.push(`--allow-lost ${pattern} matched no lost cell: nothing of that name was lost (an allowance left over?)`);
  }
  if (previous.run.strict !== current.run.strict) {
    comparison.notes.push(`the previous run was ${previous.run.strict ? '' : 'not '}strict and this one is ${current.run.strict ? '' : 'not '}strict: a failed SHOULD check is a fail in one and a warn in the other, so warn ↔ fail changes may come from that alone`);
  }
  if (previous.run.suiteVersion !== current.run.suiteVersion || previous.run.commit !== current.run.commit) {
    comparison.notes.push(`the suite changed between the runs (${previous.run.suiteVersion}${previous.run.commit ? ` ${previous.run.commit}` : ''} → ${current.run.suiteVersion}${current.run.commit ? ` ${current.run.commit}` : ''}): a verdict may have moved because a scenario changed, not the client`);
  }
  return comparison;
}

/** Exit code of a matrix run that lacks planned cells (`matrix --resume` completes it), and of its comparison. */
export const INCOMPLETE_EXIT = EXIT_CODES.incomplete;

/**
 * What a comparison means for a CI gate: 3 when the current run is incomplete (whatever else it says: the comparison is
 * not final), 1 when a cell regressed or was lost without an allowance, else 0. A cell the suite could not judge in
 * one of the runs is listed, never a failure.
 */
export function comparisonExitCode(comparison: Comparison): 0 | 1 | 3 {
  if (!comparison.current.complete) return INCOMPLETE_EXIT;
  return comparison.regressions.length > 0 || comparison.lostCells.length > 0 ? 1 : 0;
}

/** Refuses a file whose cells or clients are ambiguous: a comparison keyed on them would silently pick one. */
function checkUnique(results: MatrixResults, where: string): void {
  const clients = new Set<string>();
  for (const client of results.clients) {
    if (clients.has(client.name)) throw new Error(`${where} names client "${client.name}" twice`);
    clients.add(client.name);
  }
  const cells = new Set<string>();
  for (const cell of results.cells) {
    if (cells.has(key(cell))) throw new Error(`${where} has two cells for ${cell.client}: ${cell.scenario} @ ${cell.revision}`);
    cells.add(key(cell));
  }
}

// — rendering: one outline, written as plain text or as Markdown —

interface Style {
  title(text: string): string;
  heading(title: string): string;
  item(text: string, depth?: number): string;
  code(text: string): string;
  text(text: string): string;
}

const PLAIN: Style = {
  title: (text) => `matrix comparison: ${text}`,
  heading: (title) => `\n${title}\n${'─'.repeat(Math.min(title.length, 80))}`,
  item: (text, depth = 0) => `${'  '.repeat(depth + 1)}${text}`,
  code: (text) => printable(text),
  text: (text) => printable(text).replace(/\r?\n/g, ' '),
};

const MARKDOWN: Style = {
  title: (text) => `## Matrix comparison: ${text}`,
  heading: (title) => `\n### ${title}\n`,
  item: (text, depth = 0) => `${'  '.repeat(depth)}- ${text}`,
  code: (text) => markdownCode(text, false),
  text: (text) => markdownText(text, false),
};

/** The longest reason shown for a changed cell; the full one is in the reports. */
const REASON_CHARS = 300;

const plural = (count: number, one: string, many = `${one}s`) => `${count} ${count === 1 ? one : many}`;

function countsText(counts: Record<CellVerdict, number>): string {
  return VERDICTS.filter((verdict) => counts[verdict] > 0)
    .map((verdict) => `${verdict} ${counts[verdict]}`)
    .join(', ');
}

function runText(run: RunSummary, style: Style): string {
  return `${run.generatedAt} · suite ${run.suiteVersion}${run.commit ? ` ${style.code(run.commit)}` : ''}${run.strict ? ' · strict' : ''} · ${run.cells} cells (${countsText(run.counts)})`;
}

/**
 * Changes grouped by client (with its version change, or why it did not load), then by scenario: the revisions of a
 * scenario that moved the same way share a line, with the reason seen at the first of them.
 */
function changeLines(changes: CellChange[], comparison: Comparison, style: Style): string[] {
  const versions = new Map(comparison.versionChanges.map((change) => [change.client, change]));
  const notLoaded = new Map(comparison.notLoaded.map((entry) => [entry.client, entry.loadError]));
  const lines: string[] = [];
  for (const [client, cells] of Map.groupBy(changes, (c) => c.client)) {
    const version = versions.get(client);
    const loadError = notLoaded.get(client);
    const why = loadError !== undefined ? ` — not loaded: ${style.text(loadError.split('\n')[0]!)}` : '';
    lines.push(style.item(`${style.code(client)}${version ? ` (${style.code(version.from)} → ${style.code(version.to)})` : ''}: ${plural(cells.length, 'cell')}${why}`));
    for (const same of Map.groupBy(cells, (c) => [c.scenario, c.from, c.to, c.attempts ?? '', ...c.newlyFailedChecks].join('\u0000')).values()) {
      const [first] = same as [CellChange];
      const revisions = same.map((cell) => cell.revision).join(', ');
      // A client that did not load has the same reason everywhere: said once, above.
      const shown = first.reason && first.to !== 'pass' && loadError === undefined ? first.reason : undefined;
      const reason = shown ? ` — ${style.text(shown.length > REASON_CHARS ? `${shown.slice(0, REASON_CHARS)}…` : shown)}${same.length > 1 ? ` (at ${first.revision})` : ''}` : '';
      const checks = first.newlyFailedChecks.length > 0 && first.to !== 'n/a' && first.to !== 'inconclusive' ? ` [newly failed: ${first.newlyFailedChecks.map(style.code).join(', ')}]` : '';
      const attempts = first.attempts !== undefined ? ` (${style.text(first.attempts.length > REASON_CHARS ? `${first.attempts.slice(0, REASON_CHARS)}…` : first.attempts)})` : '';
      lines.push(style.item(`${style.code(`${first.scenario} @ ${revisions}`)}: ${first.from} → ${first.to}${checks}${reason}${attempts}`, 1));
    }
  }
  return lines;
}

/** New cells grouped by scenario case: a new scenario shows up once, with how each client fared. */
function cellLines(cells: Cell[], style: Style): string[] {
  return [...Map.groupBy(cells, (cell) => `${cell.scenario} @ ${cell.revision}`)].map(([scenarioCase, group]) => {
    const notPassing = group.filter(isProblem).map((cell) => `${style.code(cell.client)} ${cell.verdict}`);
    return style.item(`${style.code(scenarioCase)}: ${countsText(verdictCounts(group))}${notPassing.length > 0 ? ` (${notPassing.join(', ')})` : ''}`);
  });
}

/**
 * Lost cells: a client no longer in the run is one line; the other lost cells (a scenario dropped, a shard lost) are
 * grouped by scenario, naming the clients when they are few. Each says what the cells were.
 */
function lostLines(cells: Cell[], comparison: Comparison, style: Style): string[] {
  const removed = new Set(comparison.removedClients.map((client) => client.name));
  const lines: string[] = [];
  for (const [client, lost] of Map.groupBy(cells.filter((cell) => removed.has(cell.client)), (cell) => cell.client)) {
    lines.push(style.item(`${style.code(client)}: ${plural(lost.length, 'cell')} (were ${countsText(verdictCounts(lost))}) — the client is not in the current run`));
  }
  for (const [scenario, lost] of Map.groupBy(cells.filter((cell) => !removed.has(cell.client)), (cell) => cell.scenario)) {
    const byClient = Map.groupBy(lost, (cell) => cell.client);
    const named = byClient.size <= 3 ? `: ${[...byClient].map(([client, own]) => `${style.code(client)} @ ${own.map((cell) => cell.revision).join(', ')}`).join('; ')}` : '';
    lines.push(style.item(`${style.code(scenario)}: ${plural(lost.length, 'cell')} of ${plural(byClient.size, 'client')} (were ${countsText(verdictCounts(lost))})${named}`));
  }
  return lines;
}

/** The most cells a MAY finding's line names; the reports have every one. */
const MAY_CELLS_NAMED = 4;

/** MAY findings that differ, by client and check: in how many cells each appeared or went, naming a few. */
function mayLines(changes: MayFindingChange[], style: Style): string[] {
  const lines: string[] = [];
  for (const [client, cells] of Map.groupBy(changes, (change) => change.client)) {
    lines.push(style.item(`${style.code(client)}:`));
    const moves = cells.flatMap((cell) => [...cell.appeared.map((check) => ({ check, how: 'appeared in', cell })), ...cell.gone.map((check) => ({ check, how: 'gone from', cell }))]);
    for (const [what, same] of Map.groupBy(moves, (move) => `${move.check}\u0000${move.how}`)) {
      const [check, how] = what.split('\u0000') as [string, string];
      const named = same.slice(0, MAY_CELLS_NAMED).map(({ cell }) => style.code(`${cell.scenario} @ ${cell.revision}`)).join(', ');
      lines.push(style.item(`${style.code(check)} ${how} ${plural(same.length, 'cell')}: ${named}${same.length > MAY_CELLS_NAMED ? ', …' : ''}`, 1));
    }
  }
  return lines;
}

function clientLines(clients: ClientInfo[], results: MatrixResults | undefined, style: Style): string[] {
  return clients.map((client) => {
    const label = packageLabel(client);
    const counts = results ? ` — ${countsText(verdictCounts(results.cells.filter((cell) => cell.client === client.name)))}` : '';
    return style.item(`${style.code(client.name)}${label ? ` (${style.code(label)})` : ''}${client.loadError !== undefined ? ' (not loaded)' : ''}${counts}`);
  });
}

function render(comparison: Comparison, current: MatrixResults | undefined, style: Style): string {
  const { regressions, improvements, lostCells, allowedLostCells } = comparison;
  const newPasses = improvements.filter((change) => change.to === 'pass').length;
  const unjudged = comparison.couldNotJudge.length;
  // What fails the gate first (regressions, lost cells), then what the reader must know: cells lost with an allowance,
  // cells the suite could not judge (never "nothing changed"), a current run that is incomplete.
  const failing = [regressions.length > 0 ? plural(regressions.length, 'regression') : undefined, lostCells.length > 0 ? plural(lostCells.length, 'lost cell') : undefined].filter(Boolean);
  const verdict = [
    failing.length > 0 ? failing.join(', ') : 'no regressions',
    ...(allowedLostCells.length > 0 ? [`${plural(allowedLostCells.length, 'lost cell')} allowed`] : []),
    ...(unjudged > 0 ? [`${plural(unjudged, 'cell')} could not be judged in one of the runs`] : []),
    ...(!comparison.current.complete ? [`the current run is incomplete (${plural(comparison.current.missingCells, 'cell')} missing)`] : []),
  ].join(', ');
  const lines = [
    style.title(verdict),
    '',
    style.item(`previous: ${runText(comparison.previous, style)}`),
    style.item(`current:  ${runText(comparison.current, style)}`),
    style.item(`${plural(improvements.length, 'improvement')} (${plural(newPasses, 'new pass', 'new passes')}), ${unjudged} could not judge, ${plural(comparison.newClients.length, 'new client')}, ${comparison.removedClients.length} removed, ${plural(comparison.versionChanges.length, 'version change')}`),
  ];
  const section = (title: string, body: string[]) => {
    if (body.length > 0) lines.push(style.heading(title), ...body);
  };
  section('Notes', comparison.notes.map((note) => style.item(style.text(note))));
  section(`Regressions (${regressions.length}): verdicts that got worse`, changeLines(regressions, comparison, style));
  section(`Lost cells (${lostCells.length}): in the previous run, no result in this one — counted as regressions unless --allow-lost names their client or scenario`, lostLines(lostCells, comparison, style));
  section(`Lost cells allowed (${allowedLostCells.length}): by --allow-lost, not counted`, lostLines(allowedLostCells, comparison, style));
  section(`Improvements (${improvements.length}): verdicts that got better`, changeLines(improvements, comparison, style));
  section(`Could not judge (${unjudged}): inconclusive in one of the runs, so neither a regression nor an improvement`, changeLines(comparison.couldNotJudge, comparison, style));
  section(`Newly failing checks (${comparison.newlyFailingChecks.length}): same verdict, a MUST or SHOULD check that passed in the previous run fails now`, changeLines(comparison.newlyFailingChecks, comparison, style));
  section(`Now applicable (${comparison.nowApplicable.length}): n/a before`, changeLines(comparison.nowApplicable, comparison, style));
  section(`No longer applicable (${comparison.noLongerApplicable.length}): coverage lost`, changeLines(comparison.noLongerApplicable, comparison, style));
  section(`New clients (${comparison.newClients.length})`, clientLines(comparison.newClients, current, style));
  section(`MAY findings that differ (${comparison.mayFindings.length} ${comparison.mayFindings.length === 1 ? 'cell' : 'cells'}): informational, never a regression (they may vary between identical runs)`, mayLines(comparison.mayFindings, style));
  section(`Removed clients (${comparison.removedClients.length})`, clientLines(comparison.removedClients, undefined, style));
  section(
    `Version changes (${comparison.versionChanges.length})`,
    comparison.versionChanges.map((change) => style.item(`${style.code(change.client)}: ${style.code(change.from)} → ${style.code(change.to)}`)),
  );
  section(`New cells (${comparison.newCells.length})`, cellLines(comparison.newCells, style));
  return `${lines.join('\n').trimEnd()}\n`;
}

/** The comparison as plain text, for a terminal or a CI log. */
export function renderComparisonText(comparison: Comparison, current?: MatrixResults): string {
  return render(comparison, current, PLAIN);
}

/** The comparison as Markdown, for a job summary or a pull-request comment. */
export function renderComparisonMarkdown(comparison: Comparison, current?: MatrixResults): string {
  return render(comparison, current, MARKDOWN);
}

const COMPARE_USAGE = 'usage: mcp-client-conformance compare <previous.json> <current.json> [--markdown <out.md>] [--allow-lost <client or scenario>]...';

export interface CompareOutput {
  out(text: string): void;
  err(text: string): void;
}

const STANDARD_OUTPUT: CompareOutput = { out: (text) => process.stdout.write(text), err: (text) => process.stderr.write(text) };

async function readResults(path: string): Promise<MatrixResults> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new Error(`cannot read ${path}: ${code === 'ENOENT' ? 'no such file' : (error as Error).message}`);
  }
  const results = parseResults(text, path);
  checkUnique(results, path);
  return results;
}

/**
 * `compare <previous.json> <current.json> [--markdown <out.md>] [--allow-lost <pattern>]...`: prints the comparison
 * and returns the exit code: 0 without regressions or lost cells, 1 with a regression or a lost cell no `--allow-lost`
 * accepts, 3 when the current run is incomplete, 2 on bad usage or bad input (unreadable, not JSON, not a results
 * file, an unknown format version, duplicate cells, an empty pattern, or a Markdown path that cannot be written,
 * checked first), 5 when the Markdown file could not be written after all (the comparison is printed; said in one line).
 */
export async function runCompare(argv: string[], output: CompareOutput = STANDARD_OUTPUT): Promise<number> {
  const fail = (message: string) => {
    output.err(`mcp-client-conformance compare: ${message}\n`);
    return 2;
  };
  let parsed: { values: { markdown?: string; 'allow-lost'?: string[] }; positionals: string[] };
  try {
    parsed = parseArgs({ args: argv, options: { markdown: { type: 'string' }, 'allow-lost': { type: 'string', multiple: true } }, allowPositionals: true, strict: true });
  } catch (error) {
    return fail(`${(error as Error).message}\n${COMPARE_USAGE}`);
  }
  const allowLost = parsed.values['allow-lost'] ?? [];
  if (allowLost.some((pattern) => pattern.trim() === '')) return fail(`--allow-lost takes a client name or a scenario id (or a prefix ending in *), not an empty string\n${COMPARE_USAGE}`);
  const [previousPath, currentPath, ...extra] = parsed.positionals;
  if (previousPath === undefined || currentPath === undefined || extra.length > 0) return fail(`expected two results files\n${COMPARE_USAGE}`);
  const markdown = parsed.values.markdown;
  const unwritable = markdown === undefined ? undefined : whyNotWritable(markdown);
  if (unwritable !== undefined) return fail(`--markdown ${markdown} cannot be written: ${unwritable}`);
  let previous: MatrixResults;
  let current: MatrixResults;
  try {
    [previous, current] = await Promise.all([readResults(previousPath), readResults(currentPath)]);
  } catch (error) {
    return fail((error as Error).message);
  }
  const comparison = compare(previous, current, { allowLost });
  output.out(renderComparisonText(comparison, current));
  if (markdown !== undefined) {
    try {
      await mkdir(dirname(markdown), { recursive: true });
      await writeFile(markdown, renderComparisonMarkdown(comparison, current));
    } catch (error) {
      output.err(`mcp-client-conformance compare: --markdown ${markdown} could not be written: ${(error as Error).message}\n`);
      return EXIT_CODES.notWritten;
    }
  }
  return comparisonExitCode(comparison);
}
