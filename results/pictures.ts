// The pictures of report.html, as inline SVG (no script needed to see them, no external asset): a heat map of clients
// × rules (where each client breaks which rule, and how often of the cases that judged it), and the matrix's trend
// across nights when earlier results are given. Also the problems grouped by rule, which the page lists first. Pure.
import { decidingChecks, verdictCounts, VERDICTS, type CellCheck, type MatrixResults } from './results.ts';
import { escapeMarkup } from './markdown.ts';

/** A rule as the reports group by it: the level and section a check cites (one rule, whichever check found it). */
export const ruleKey = (check: Pick<CellCheck, 'level' | 'section'>): string => `${check.level} ${check.section}`;

export interface RuleProblems {
  key: string;
  level: CellCheck['level'];
  section: string;
  /** The worst verdict a cell got on it: fail, warn, or inconclusive (could not be judged). */
  verdict: 'fail' | 'warn' | 'inconclusive';
  /** Indexes (into results.cells) of the cells it decided, in the run's order. */
  cells: number[];
  /** The checks that found it, by name. */
  checks: string[];
  clients: string[];
}

const RANK = { fail: 0, warn: 1, inconclusive: 2 } as const;

/** Every rule a cell failed, warned on or could not judge, worst first, then by how many clients, then cases. */
export function problemsByRule(results: Pick<MatrixResults, 'cells'>): RuleProblems[] {
  const rules = new Map<string, RuleProblems>();
  results.cells.forEach((cell, index) => {
    if (cell.verdict !== 'fail' && cell.verdict !== 'warn' && cell.verdict !== 'inconclusive') return;
    const verdict = cell.verdict;
    for (const check of decidingChecks(cell)) {
      const key = ruleKey(check);
      let rule = rules.get(key);
      if (rule === undefined) rules.set(key, (rule = { key, level: check.level, section: check.section, verdict, cells: [], checks: [], clients: [] }));
      if (RANK[verdict] < RANK[rule.verdict]) rule.verdict = verdict;
      if (!rule.cells.includes(index)) rule.cells.push(index);
      if (!rule.checks.includes(check.name)) rule.checks.push(check.name);
      if (!rule.clients.includes(cell.client)) rule.clients.push(cell.client);
    }
  });
  return [...rules.values()].sort((a, b) => RANK[a.verdict] - RANK[b.verdict] || b.clients.length - a.clients.length || b.cells.length - a.cells.length);
}

export interface HeatCell {
  client: string;
  rule: string;
  /** Cases in which the client broke the rule (a failed MUST or SHOULD check citing it), and of them how many failed. */
  broken: number;
  failed: number;
  /** Cases that judged the rule for this client (a check citing it passed or failed in a judged cell). */
  judged: number;
}

/** The heat map's data: a row per rule some client breaks, a column per client, a cell for each pair. */
export function heatMap(results: Pick<MatrixResults, 'cells' | 'clients'>): { rules: RuleProblems[]; clients: string[]; cells: HeatCell[] } {
  const rules = problemsByRule(results).filter((rule) => rule.verdict !== 'inconclusive');
  const clients = [...new Set([...results.clients.map((client) => client.name), ...results.cells.map((cell) => cell.client)])];
  const counts = new Map<string, HeatCell>();
  for (const rule of rules) for (const client of clients) counts.set(`${client}\u0000${rule.key}`, { client, rule: rule.key, broken: 0, failed: 0, judged: 0 });
  for (const cell of results.cells) {
    if (cell.verdict !== 'pass' && cell.verdict !== 'fail' && cell.verdict !== 'warn') continue;
    const broken = new Set(decidingChecks(cell).map(ruleKey));
    for (const key of new Set(cell.checks.filter((check) => check.outcome !== 'inconclusive' && check.level !== 'MAY').map(ruleKey))) {
      const entry = counts.get(`${cell.client}\u0000${key}`);
      if (entry === undefined) continue;
      entry.judged++;
      if (broken.has(key)) {
        entry.broken++;
        if (cell.verdict === 'fail') entry.failed++;
      }
    }
  }
  return { rules, clients, cells: [...counts.values()] };
}

/** Text cut to `max` characters with an ellipsis. */
const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** The heat map as SVG: rules down, clients across; a cell's colour says fail (red) or warn (amber), its strength how often. */
export function heatMapSvg(results: Pick<MatrixResults, 'cells' | 'clients'>, colours: { fail: string; warn: string; pass: string }): string {
  const { rules, clients, cells } = heatMap(results);
  if (rules.length === 0) return '';
  const label = 370;
  const head = Math.min(170, 12 + 6.6 * Math.max(...clients.map((client) => client.length)));
  const w = clients.length > 24 ? 24 : 34;
  const h = 22;
  // Room on the right for the last client's slanted name.
  const width = label + clients.length * w + Math.round(head * 0.5);
  const height = head + rules.length * h + 4;
  const byKey = new Map(cells.map((cell) => [`${cell.client}\u0000${cell.rule}`, cell]));
  const parts: string[] = [];
  clients.forEach((client, c) => {
    const x = label + c * w + w / 2 + 4;
    parts.push(`<text class="hm-client" transform="translate(${x} ${head - 6}) rotate(-60)">${escapeMarkup(clip(client, 26))}<title>${escapeMarkup(client)}</title></text>`);
  });
  rules.forEach((rule, r) => {
    const y = head + r * h;
    parts.push(`<text class="hm-level ${rule.level}" x="2" y="${y + h / 2 + 4}">${rule.level}</text>`);
    parts.push(`<text class="hm-rule" x="52" y="${y + h / 2 + 4}">${escapeMarkup(clip(rule.section, 50))}<title>${escapeMarkup(`${rule.level} ${rule.section}\nchecks: ${rule.checks.join(', ')}`)}</title></text>`);
    clients.forEach((client, c) => {
      const cell = byKey.get(`${client}\u0000${rule.key}`)!;
      const x = label + c * w;
      const share = cell.judged === 0 ? 0 : cell.broken / cell.judged;
      const [fill, opacity, kind] = cell.broken > 0 ? [cell.failed > 0 ? colours.fail : colours.warn, 0.35 + 0.65 * share, cell.failed > 0 ? 'fail' : 'warn'] : cell.judged > 0 ? [colours.pass, 0.18, 'kept'] : ['#eef1f4', 1, 'unjudged'];
      const words = cell.broken > 0 ? `broke it in ${cell.broken} of ${cell.judged} cases that judged it` : cell.judged > 0 ? `kept it in all ${cell.judged} cases that judged it` : 'never judged on it';
      parts.push(
        `<g class="hm-cell ${kind}" data-client="${escapeMarkup(client)}" data-rule="${escapeMarkup(rule.key)}"><rect x="${x + 1}" y="${y + 1}" width="${w - 2}" height="${h - 2}" rx="3" fill="${fill}" fill-opacity="${opacity.toFixed(2)}"/>` +
          (cell.broken > 0 ? `<text x="${x + w / 2}" y="${y + h / 2 + 4}" text-anchor="middle" class="hm-n${share > 0.5 ? ' on-dark' : ''}">${cell.broken}</text>` : '') +
          `<title>${escapeMarkup(`${client} · ${rule.level} ${rule.section}: ${words}`)}</title></g>`,
      );
    });
  });
  return `<svg class="heatmap" id="heatmap" role="img" aria-label="Clients (columns) by rules they break (rows)" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" xmlns="http://www.w3.org/2000/svg">${parts.join('')}</svg>`;
}

/** A night of the trend: when it ran, and its verdict counts, overall and per client. */
export interface Night {
  label: string;
  counts: Record<string, number>;
  perClient: Map<string, Record<string, number>>;
}

export function nightsOf(history: readonly MatrixResults[], current: MatrixResults): Night[] {
  const runs = [...history, current].sort((a, b) => a.generatedAt.localeCompare(b.generatedAt));
  return runs.map((run) => ({
    label: run.generatedAt.slice(0, 16).replace('T', ' '),
    counts: verdictCounts(run.cells),
    perClient: new Map(run.clients.map((client) => [client.name, verdictCounts(run.cells.filter((cell) => cell.client === client.name))])),
  }));
}

/** The trend as SVG: a bar per night, its verdicts stacked by share, the count of problem cells above it. */
export function trendSvg(nights: readonly Night[], colours: Readonly<Record<string, string>>): string {
  if (nights.length < 2) return '';
  const bar = 46;
  const gap = 34;
  const plot = 150;
  const top = 26;
  // Bars start right of the axis's words.
  const first = 120;
  const width = first + 10 + nights.length * (bar + gap);
  const height = top + plot + 48;
  const parts: string[] = [`<line x1="${first - 10}" x2="${width - 10}" y1="${top + plot}" y2="${top + plot}" class="axis"/>`];
  nights.forEach((night, n) => {
    const x = first + n * (bar + gap);
    const total = VERDICTS.reduce((sum, verdict) => sum + (night.counts[verdict] ?? 0), 0) || 1;
    let y = top + plot;
    for (const verdict of VERDICTS) {
      const count = night.counts[verdict] ?? 0;
      if (count === 0) continue;
      const height = (plot * count) / total;
      y -= height;
      parts.push(`<rect class="trend-bar" data-verdict="${verdict}" x="${x}" y="${y.toFixed(1)}" width="${bar}" height="${height.toFixed(1)}" fill="${colours[verdict]}"><title>${escapeMarkup(`${night.label}: ${count} ${verdict}`)}</title></rect>`);
    }
    const problems = (night.counts.fail ?? 0) + (night.counts.warn ?? 0) + (night.counts.error ?? 0);
    parts.push(`<text x="${x + bar / 2}" y="${top - 8}" text-anchor="middle" class="trend-n">${problems}</text>`);
    parts.push(`<text x="${x + bar / 2}" y="${top + plot + 16}" text-anchor="middle" class="trend-label">${escapeMarkup(night.label.slice(0, 10))}</text>`);
    parts.push(`<text x="${x + bar / 2}" y="${top + plot + 30}" text-anchor="middle" class="trend-label">${escapeMarkup(night.label.slice(11))}</text>`);
  });
  parts.push(`<text x="4" y="${top - 8}" class="trend-label">fail+warn+error</text>`);
  return `<svg class="trend" id="trend" role="img" aria-label="Verdicts of each night" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" xmlns="http://www.w3.org/2000/svg">${parts.join('')}</svg>`;
}

/** Per client, its fail and warn counts night by night, as table rows (`client`, then one cell per night). */
export function trendRows(nights: readonly Night[]): { client: string; values: (number | undefined)[] }[] {
  const clients = [...new Set(nights.flatMap((night) => [...night.perClient.keys()]))];
  return clients.map((client) => ({ client, values: nights.map((night) => { const counts = night.perClient.get(client); return counts === undefined ? undefined : (counts.fail ?? 0) + (counts.warn ?? 0); }) }));
}

