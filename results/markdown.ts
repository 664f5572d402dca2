// The matrix as Markdown (summary.md; a CI job summary or a pull-request comment): the run (and whether it is
// complete), a table of clients with their verdict counts, then each client's failures, warnings, inconclusive cases
// and errors by scenario with the rule each one breaks or could not judge, and the cases judged only on a rerun.
import { attemptsNote, cellKey, decidingChecks, verdictCounts, VERDICTS, type Cell, type CellVerdict, type ClientInfo, type MatrixResults } from './results.ts';
import { attributionText, sharedVerdicts, type Attribution } from './shared.ts';

const MARK: Record<CellVerdict, string> = { pass: '✅', fail: '❌', warn: '⚠️', inconclusive: '❔', 'n/a': '➖', error: '💥' };

/** `package@version`, the package alone, or undefined for a client that is no published package. */
export function packageLabel(client: Pick<ClientInfo, 'package' | 'version'>): string | undefined {
  if (client.package === undefined) return client.version;
  return client.version === undefined ? client.package : `${client.package}@${client.version}`;
}

/** Cells a reader has to look at: failures, warnings, cases the suite could not judge, and errors. */
export function isProblem(cell: Cell): boolean {
  return cell.verdict === 'fail' || cell.verdict === 'warn' || cell.verdict === 'inconclusive' || cell.verdict === 'error';
}

/** The command that runs only the cells an incomplete run lacks. */
export const RESUME_COMMAND = 'mcp-client-conformance matrix --resume <reports folder>';

/** "incomplete run: 12 of 148 planned cells have no result (interrupted by SIGINT)"; undefined for a complete run. */
export function incompleteLine(results: MatrixResults): string | undefined {
  const { run } = results;
  if (run.complete) return undefined;
  return `incomplete run: ${run.missingCells} of ${run.plannedCells} planned cells have no result${run.interruption !== undefined ? ` (${run.interruption})` : ''}`;
}

/** Cells grouped by client, every client of the run present (in run order) even without cells. */
export function cellsByClient(results: MatrixResults): Map<string, Cell[]> {
  const byClient = new Map<string, Cell[]>(results.clients.map((client) => [client.name, []]));
  for (const cell of results.cells) {
    const list = byClient.get(cell.client);
    if (list) list.push(cell);
    else byClient.set(cell.client, [cell]);
  }
  return byClient;
}

/**
 * Text with the characters XML 1.0 forbids (C0 controls but tab, LF and CR; lone surrogates; U+FFFE, U+FFFF) written
 * out as `\u001B`, so a crashing client's raw output stays readable in every report instead of breaking it.
 */
export function printable(text: string): string {
  return text.replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, (char) => `\\u${char.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`);
}

/** Text for XML or HTML, in content or a quoted attribute: `printable`, with `& < > "` as references (`>` too, so a `]]>` stays text). */
export function escapeMarkup(value: string): string {
  return printable(value).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** Seconds or minutes, for run durations. */
export function formatDuration(ms: number): string {
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const minutes = Math.floor(ms / 60_000);
  return `${minutes} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** One line: when, which suite, which Node and machine, how long, which matrix file, strict or not. */
export function runLine(results: MatrixResults): string {
  const { run } = results;
  return [
    results.generatedAt.replace('T', ' ').replace(/\.\d+Z$|Z$/, ' UTC'),
    `suite ${run.suiteVersion}${run.commit ? ` (${run.commit})` : ''}`,
    `Node ${run.node}`,
    `${run.platform}, ${run.cpus} CPUs`,
    formatDuration(run.durationMs),
    `matrix file ${run.matrixFile}`,
    run.strict ? 'strict: SHOULD violations fail' : 'SHOULD violations warn',
    ...(run.shards !== undefined ? [`${run.shards} shards`] : []),
  ].join(' · ');
}

/**
 * Text for Markdown from anywhere (client output included): no raw HTML, no table breaks, no @mentions, no emphasis.
 * Newlines become `<br>` in a table cell, spaces elsewhere.
 */
export function markdownText(value: string, inTable = true): string {
  return printable(value)
    .replace(/([\\`*_[\]|~])/g, '\\$1')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/@/g, '&#64;')
    .replace(/\r?\n/g, inTable ? '<br>' : ' ');
}

/** A code span that survives backticks in its text (and, in a table cell, pipes). */
export function markdownCode(value: string, inTable = true): string {
  const longest = Math.max(0, ...(value.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  const padded = value.startsWith('`') || value.endsWith('`') ? ` ${value} ` : value;
  const body = printable(padded).replace(/\r?\n/g, ' ');
  return `${fence}${inTable ? body.replace(/\|/g, '\\|') : body}${fence}`;
}

const text = (value: string) => markdownText(value);
const code = (value: string) => markdownCode(value);

function link(label: string, url: string): string {
  return /^https?:\/\//.test(url) ? `[${text(label)}](${url.replace(/[()\s]/g, encodeURIComponent)})` : text(label);
}

function countsLine(counts: Record<CellVerdict, number>): string {
  const parts = VERDICTS.filter((verdict) => counts[verdict] > 0).map((verdict) => `${MARK[verdict]} ${counts[verdict]} ${verdict}`);
  return parts.length > 0 ? parts.join(' · ') : 'none';
}

function clientTable(results: MatrixResults, byClient: Map<string, Cell[]>): string[] {
  const info = new Map(results.clients.map((client) => [client.name, client]));
  const rows = [...byClient].map(([name, cells]) => {
    const counts = verdictCounts(cells);
    const label = packageLabel(info.get(name) ?? {});
    const wraps = info.get(name)?.wraps;
    const on = wraps !== undefined ? ` on ${code(`${wraps.package}@${wraps.version}`)}` : '';
    const loadError = info.get(name)?.loadError !== undefined ? ' (not loaded)' : '';
    return `| **${text(name)}**${loadError} | ${label ? code(label) : '—'}${on} | ${VERDICTS.map((verdict) => (counts[verdict] > 0 ? String(counts[verdict]) : '·')).join(' | ')} |`;
  });
  return [`| client | package | ${VERDICTS.map((verdict) => `${MARK[verdict]} ${verdict}`).join(' | ')} |`, `|---|---|${VERDICTS.map(() => '--:').join('|')}|`, ...rows];
}

/** Suite-written text (scenario titles) whose `code` spans are meant as code. */
function withCode(value: string): string {
  return value
    .split(/(`[^`]+`)/)
    .map((part) => (/^`[^`]+`$/.test(part) ? code(part.slice(1, -1)) : text(part)))
    .join('');
}

/**
 * The rows of one problem cell: a row per check that decided it (revision and verdict on the first) — failed checks,
 * or for an inconclusive cell its unmet preconditions or the rules never exercised — or the reason of an error; then
 * what its reruns say, if it had any.
 */
function cellRows(cell: Cell, attribution: Attribution | undefined): string[] {
  // A client built on an SDK: whether that SDK's own row gives the same verdict, at once beside it.
  const first = `${text(cell.revision)} | ${MARK[cell.verdict]} ${cell.verdict}${attribution !== undefined ? ` (${text(attributionText(attribution))})` : ''}`;
  const deciding = decidingChecks(cell);
  const rows =
    deciding.length === 0
      ? [`| ${first} | — | — | — | ${text(cell.reason ?? '')} |`]
      : deciding.map((check, index) => `| ${index === 0 ? first : ' | '} | ${code(check.name)}${check.precondition ? ' (precondition)' : ''} | ${check.level} | ${link(check.section, check.url)} | ${text(check.detail)} |`);
  const note = attemptsNote(cell);
  return note === undefined ? rows : [...rows, `|  |  | — | — | — | ${text(note)} |`];
}

function clientProblems(client: string, cells: Cell[], titles: Map<string, string>, shared: Map<string, Attribution>): string[] {
  const problems = cells.filter(isProblem);
  if (problems.length === 0) return [];
  const byScenario = Map.groupBy(problems, (cell) => cell.scenario);
  const attributed = problems.flatMap((cell) => shared.get(cellKey(cell)) ?? []);
  const sharedCount = attributed.filter((attribution) => attribution.shared).length;
  const sdk = attributed.length > 0 ? `; ${sharedCount} of the ${attributed.length} fail and warn cells its SDK's row judged are shared with it` : '';
  const lines = ['<details>', `<summary><b>${text(client)}</b> — ${countsLine(verdictCounts(problems))}${text(sdk)}</summary>`, ''];
  for (const [scenario, scenarioCells] of byScenario) {
    const title = titles.get(scenario);
    lines.push(`**${text(scenario)}**${title ? ` — ${withCode(title)}` : ''}`, '', '| revision | verdict | check | level | rule | detail |', '|---|---|---|---|---|---|', ...scenarioCells.flatMap((cell) => cellRows(cell, shared.get(cellKey(cell)))), '');
  }
  lines.push('</details>', '');
  return lines;
}

/** The most cases listed under "Judged on a rerun" (a busy night can rerun hundreds); the rest are counted. */
const MAX_RERUN_LINES = 100;

/** The passing cases that were inconclusive first and judged on a rerun with larger bounds (problem cells say it in their rows). */
function rerunLines(results: MatrixResults): string[] {
  const rerun = results.cells.filter((cell) => cell.attempts !== undefined && !isProblem(cell));
  if (rerun.length === 0) return [];
  const lines = ['## Judged on a rerun', '', 'Inconclusive at first (time ran out, say), then judged with larger bounds.', ''];
  lines.push(...rerun.slice(0, MAX_RERUN_LINES).map((cell) => `- **${text(cell.client)}** ${code(`${cell.scenario} @ ${cell.revision}`)}: ${MARK[cell.verdict]} ${cell.verdict} — ${text(attemptsNote(cell)!)}`));
  if (rerun.length > MAX_RERUN_LINES) lines.push(`- and ${rerun.length - MAX_RERUN_LINES} more (results.json has them all)`);
  return [...lines, ''];
}

/** GitHub refuses a job summary over 1 MiB; the details stop short of that (in UTF-8 bytes), saying so. */
export const MARKDOWN_MAX_BYTES = 1_000_000;

export function renderMarkdown(results: MatrixResults, maxBytes = MARKDOWN_MAX_BYTES): string {
  const byClient = cellsByClient(results);
  const titles = new Map(results.scenarios.map((scenario) => [scenario.id, scenario.title]));
  const cases = new Set(results.cells.map((cell) => `${cell.scenario}@${cell.revision}`)).size;
  const incomplete = incompleteLine(results);
  const reruns = rerunLines(results);
  const lines = [
    '# MCP client conformance matrix',
    '',
    text(runLine(results)),
    '',
    ...(incomplete !== undefined ? [`**${text(incomplete)}**: ${code(RESUME_COMMAND)} runs only those.`, ''] : []),
    `${results.clients.length} clients × ${cases} scenario cases = ${results.cells.length} cells: ${countsLine(verdictCounts(results.cells))}`,
    '',
    ...clientTable(results, byClient),
    '',
  ];
  const unloaded = results.clients.filter((client) => client.loadError !== undefined);
  if (unloaded.length > 0) {
    lines.push('## Clients not loaded', '', 'Every case of these clients is an error.', '');
    for (const client of unloaded) lines.push(`**${text(client.name)}**${packageLabel(client) ? ` (${code(packageLabel(client)!)})` : ''}`, '', '```text', printable(client.loadError!).replace(/```/g, '`\u200b``'), '```', '');
  }
  // A client that did not load has one error for every case; its load error above says it all.
  const shared = sharedVerdicts(results);
  const sections = [...byClient].filter(([name]) => !unloaded.some((client) => client.name === name)).map(([name, cells]) => clientProblems(name, cells, titles, shared).join('\n')).filter(Boolean);
  if (sections.length > 0) {
    lines.push('## Failures, warnings, inconclusive cases and errors', '', 'Each failed check with the rule it breaks (MUST fails, SHOULD warns); an inconclusive case names what the suite could not set up or drive (never blamed on the client); errors are cases the suite could not run.', '');
    let size = Buffer.byteLength(lines.join('\n')) + Buffer.byteLength(reruns.join('\n'));
    const kept = sections.findIndex((section) => (size += Buffer.byteLength(section) + 1) > maxBytes - 300);
    lines.push(...(kept === -1 ? sections : sections.slice(0, kept)));
    if (kept !== -1) lines.push(`The details of ${sections.length - kept} more clients are left out to keep this summary under ${Math.round(maxBytes / 1000)} kB; report.html and junit.xml have them all.`, '');
  } else if (results.cells.length > 0) lines.push('No failures, warnings, inconclusive cases or errors.', '');
  lines.push(...reruns);
  return `${lines.join('\n').trimEnd()}\n`;
}
