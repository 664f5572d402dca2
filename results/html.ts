// The matrix as one self-contained HTML page (report.html): inline CSS and JS, the results embedded as JSON, no request
// to anything (a Content-Security-Policy forbids it). A grid of scenario cases (rows, by suite) × clients (columns),
// each cell coloured by verdict; filters by suite, era/revision and verdict; a cell opens a panel with its checks
// (preconditions marked), spec links, reruns and wire evidence; an incomplete run says so above the grid. The grid is built from the JSON in one pass, and filters only toggle row and table
// classes, so ~5,000 cells stay quick.
import { LEGACY_REVISIONS, STREAMABLE_REVISIONS } from '../protocol/revisions.ts';
import { escapeMarkup, incompleteLine, packageLabel, RESUME_COMMAND, runLine } from './markdown.ts';
import { heatMapSvg, nightsOf, problemsByRule, trendRows, trendSvg } from './pictures.ts';
import { attemptsNote, cellKey, decodeRecord, forReports, verdictCounts, VERDICTS, type CellVerdict, type MatrixResults } from './results.ts';
import { sequenceOf, type SequenceModel } from './sequence.ts';
import { attributionText, sharedVerdicts } from './shared.ts';

/** The transport era a revision belongs to, for the era filter. */
export function eraOf(revision: string): string {
  if (revision === '2024-11-05') return 'HTTP+SSE';
  if ((STREAMABLE_REVISIONS as readonly string[]).includes(revision)) return 'Streamable HTTP';
  if (!(LEGACY_REVISIONS as readonly string[]).includes(revision) && /^\d{4}-\d{2}-\d{2}$/.test(revision)) return 'Modern';
  return 'Other';
}

/** JSON inside <script>: `<` escaped, so no `</script>` or `<!--` in the data can end or confuse the element. */
function embedJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

/** One colour per verdict, each far from the others (inconclusive is blue: informational, neither good nor bad). */
export const VERDICT_COLOURS: Readonly<Record<CellVerdict, string>> = { pass: '#1f883d', warn: '#e3a008', fail: '#cf222e', inconclusive: '#2f81f7', 'n/a': '#c6cfd8', error: '#8250df' };

/** The CSS class of a verdict (`n/a` → `v-na`). */
const verdictClass = (verdict: CellVerdict) => `v-${verdict === 'n/a' ? 'na' : verdict}`;

const CSS = String.raw`
:root { --pass: ${VERDICT_COLOURS.pass}; --warn: ${VERDICT_COLOURS.warn}; --fail: ${VERDICT_COLOURS.fail}; --inconclusive: ${VERDICT_COLOURS.inconclusive}; --na: ${VERDICT_COLOURS['n/a']}; --error: ${VERDICT_COLOURS.error};
  --fg: #1f2328; --muted: #59636e; --line: #d1d9e0; --soft: #f6f8fa; --accent: #0969da; --sc: 270px; --rv: 92px; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", sans-serif; color: var(--fg); background: #fff; }
a { color: var(--accent); }
code, pre, .mono { font-family: ui-monospace, SFMono-Regular, "SF Mono", Menlo, Consolas, monospace; font-size: 12px; }
header.top { padding: 18px 24px 6px; }
h1 { font-size: 21px; margin: 0 0 4px; }
.run { color: var(--muted); margin: 0; }
main { padding: 0 24px 24px; }
.totals { margin: 10px 0 6px; font-size: 15px; }
.swatch { display: inline-block; width: 12px; height: 12px; border-radius: 3px; vertical-align: -1px; margin-right: 4px; }
.v-pass { background: var(--pass); } .v-warn { background: var(--warn); } .v-fail { background: var(--fail); } .v-inconclusive { background: var(--inconclusive); } .v-na { background: var(--na); } .v-error { background: var(--error); }
.incomplete { margin: 10px 0 6px; padding: 8px 12px; border-radius: 6px; background: #fff8e5; border: 1px solid #f2d07a; font-weight: 600; }
details.clients { margin: 10px 0 14px; }
details.clients > summary { cursor: pointer; font-weight: 600; padding: 4px 0; }
table.summary { border-collapse: collapse; margin-top: 6px; }
table.summary th, table.summary td { padding: 3px 10px 3px 0; text-align: left; border-bottom: 1px solid var(--soft); white-space: nowrap; }
table.summary th { color: var(--muted); font-weight: 600; font-size: 12px; }
table.summary td.n { text-align: right; font-variant-numeric: tabular-nums; }
table.summary td.zero { color: #c6ccd2; }
table.summary .load-error { color: var(--error); font-size: 12px; white-space: normal; max-width: 520px; }
.bar { display: flex; width: 220px; height: 12px; border-radius: 3px; overflow: hidden; background: var(--soft); }
.bar > span { display: block; height: 100%; }
.controls { display: flex; flex-wrap: wrap; gap: 6px 22px; align-items: center; margin: 8px 0 10px; }
.group { display: flex; flex-wrap: wrap; gap: 4px; align-items: center; }
.group > .label { color: var(--muted); font-size: 12px; font-weight: 600; margin-right: 2px; text-transform: uppercase; letter-spacing: .04em; }
.chip { display: inline-flex; align-items: center; gap: 4px; border: 1px solid var(--line); border-radius: 999px; padding: 2px 9px 2px 6px; font-size: 13px; cursor: pointer; user-select: none; background: #fff; }
.chip:has(input:not(:checked)) { opacity: .45; text-decoration: line-through; }
.chip:has(input:focus-visible) { outline: 2px solid var(--accent); outline-offset: 1px; }
.chip input { margin: 0; accent-color: var(--accent); }
.chip .n { color: var(--muted); font-size: 12px; }
.chip.era { font-weight: 600; }
button.link { border: 1px solid var(--line); background: #fff; border-radius: 6px; padding: 2px 10px; font: inherit; font-size: 13px; cursor: pointer; }
#status { color: var(--muted); font-size: 13px; }
.grid-wrap { width: 100%; overflow: auto; max-height: calc(100vh - 16px); border: 1px solid var(--line); border-radius: 6px; }
/* The page's full width: the client columns share what the scenario and revision columns leave. */
table.grid { border-collapse: separate; border-spacing: 0; width: 100%; }
.grid th, .grid td { padding: 0; }
.grid thead th { position: sticky; top: 0; z-index: 2; background: var(--soft); vertical-align: bottom; border-bottom: 1px solid var(--line); }
.grid thead th.corner { z-index: 4; text-align: left; padding: 6px 8px; color: var(--muted); font-size: 12px; font-weight: 600; }
.grid .sc { position: sticky; left: 0; z-index: 1; width: var(--sc); min-width: var(--sc); max-width: var(--sc); background: #fff; text-align: left; font-weight: 500; }
.grid .rv { position: sticky; left: var(--sc); z-index: 1; width: var(--rv); min-width: var(--rv); background: #fff; text-align: left; font-weight: 400; color: var(--muted); border-right: 1px solid var(--line); }
.grid thead .sc, .grid thead .rv { background: var(--soft); }
.grid tbody .sc > span { display: block; padding: 0 8px; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.grid tbody .rv { padding: 0 8px; font-size: 12px; font-variant-numeric: tabular-nums; }
.grid tr.case:not(.first) .sc > span { visibility: hidden; }
.grid tr.case.first > * { border-top: 1px solid var(--line); }
.grid tr.case:focus-within > th { background: #ddf4ff; }
.grid tr.suite > th { background: var(--soft); text-align: left; border-top: 1px solid var(--line); }
.grid tr.suite > th > span { position: sticky; left: 0; display: inline-block; padding: 5px 8px; font-size: 12px; font-weight: 700; text-transform: uppercase; letter-spacing: .05em; color: var(--muted); }
.grid th.ch { min-width: 26px; max-width: 26px; font-weight: 600; }
.grid th.ch.hl { background: #ddf4ff; }
.grid th.ch.not-loaded { color: var(--error); }
.ch .cn { writing-mode: vertical-rl; transform: rotate(180deg); white-space: nowrap; max-height: 240px; overflow: hidden; text-overflow: ellipsis; padding: 8px 0 6px; margin: 0 auto; font-size: 12px; line-height: 13px; }
.ch .mini { display: flex; flex-direction: column-reverse; width: 12px; height: 40px; margin: 2px auto 6px; border-radius: 2px; overflow: hidden; background: var(--soft); }
.ch .mini > span { display: block; width: 100%; }
.ch .cn small { font-weight: 400; color: var(--muted); margin-top: 4px; }
td.c { min-width: 26px; height: 22px; text-align: center; vertical-align: middle; color: #fff; font-weight: 700; font-size: 12px; line-height: 20px; cursor: pointer; border: 1px solid #fff; border-radius: 4px; }
td.c.v-warn { color: #3b2300; }
td.c.v-none { background: repeating-linear-gradient(45deg, #fff, #fff 3px, var(--soft) 3px, var(--soft) 6px); cursor: default; }
td.c:hover { filter: brightness(1.1); }
/* A verdict shared with the SDK the client wraps: a dotted ring inside the cell (its title and panel say with which row). */
td.c.sdk-shared { box-shadow: inset 0 0 0 2px #fff; outline: 2px dotted var(--fg); outline-offset: -4px; }
td.c:focus { outline: 2px solid var(--accent); outline-offset: -1px; box-shadow: inset 0 0 0 2px #fff; }
td.c.sel { outline: 3px solid var(--fg); outline-offset: -2px; box-shadow: inset 0 0 0 3px #fff; }
.grid.hide-pass td.v-pass, .grid.hide-fail td.v-fail, .grid.hide-warn td.v-warn, .grid.hide-inconclusive td.v-inconclusive, .grid.hide-na td.v-na, .grid.hide-error td.v-error { visibility: hidden; }
aside.detail { position: fixed; top: 0; right: 0; bottom: 0; width: min(920px, max(66vw, 640px), 94vw); background: #fff; box-shadow: -10px 0 30px rgba(31, 35, 40, .18); border-left: 1px solid var(--line); overflow: auto; padding: 16px 22px 28px; z-index: 10; }
aside.detail[hidden] { display: none; }
.detail .head { display: flex; align-items: flex-start; gap: 10px; }
.detail h2 { font-size: 16px; margin: 0; flex: 1; word-break: break-word; }
.detail .close { border: 0; background: none; font-size: 22px; line-height: 1; cursor: pointer; color: var(--muted); padding: 0 4px; }
.detail .title { margin: 6px 0 10px; color: var(--muted); }
.badge { display: inline-block; border-radius: 999px; padding: 1px 10px; color: #fff; font-weight: 700; font-size: 12px; text-transform: uppercase; letter-spacing: .04em; white-space: nowrap; }
.badge.v-warn { color: #3b2300; } .badge.v-na { color: var(--fg); }
.detail dl { display: grid; grid-template-columns: max-content 1fr; gap: 3px 14px; margin: 0 0 12px; }
.detail dt { color: var(--muted); }
.detail dd { margin: 0; word-break: break-word; }
.detail h3 { font-size: 13px; margin: 16px 0 6px; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); }
.detail .reason { white-space: pre-wrap; word-break: break-word; margin: 0; padding: 8px 10px; border-radius: 6px; background: #fff6f5; border: 1px solid #ffd8d3; }
.detail .reason.is-warn { background: #fff8e5; border-color: #f2d07a; } .detail .reason.is-inconclusive { background: #f0f6ff; border-color: #b6d4fb; } .detail .reason.is-na { background: var(--soft); border-color: var(--line); } .detail .reason.is-error { background: #fbf7ff; border-color: #d8c8f5; }
.detail .about { display: block; color: var(--muted); font-size: 12px; }
.level { display: inline-block; font-size: 11px; font-weight: 700; border: 1px solid var(--line); border-radius: 4px; padding: 0 4px; color: var(--muted); }
.level.MUST { color: var(--fail); border-color: #ffc1ba; } .level.SHOULD { color: #9a6700; border-color: #f2d07a; }
ul.checks { list-style: none; padding: 0; margin: 0; }
ul.checks li { padding: 6px 0; border-bottom: 1px solid var(--soft); }
ul.checks .mark { display: inline-block; width: 18px; font-weight: 700; }
ul.checks li.ok .mark { color: var(--pass); } ul.checks li.bad .mark { color: var(--fail); } ul.checks li.unknown .mark { color: var(--inconclusive); }
.tag { display: inline-block; font-size: 11px; border-radius: 4px; padding: 0 4px; background: var(--soft); color: var(--muted); border: 1px solid var(--line); }
ol.attempts { margin: 0; padding-left: 22px; } ol.attempts li { padding: 2px 0; word-break: break-word; }
ul.checks .check-detail { margin: 2px 0 0 18px; color: var(--fg); word-break: break-word; }
ul.checks .exchanges { margin-left: 18px; color: var(--muted); font-size: 12px; }
pre.evidence { white-space: pre-wrap; overflow-wrap: anywhere; background: var(--soft); border: 1px solid var(--line); border-radius: 6px; padding: 10px 12px; margin: 0; line-height: 1.5; }
.muted { color: var(--muted); }
h2.section { font-size: 16px; margin: 18px 0 8px; }
h2.section .n { color: var(--muted); font-weight: 400; font-size: 14px; }
/* The first screen: what is wrong (by rule) beside where (the heat map). */
.overview { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 8px 28px; align-items: start; }
@media (max-width: 1100px) { .overview { grid-template-columns: minmax(0, 1fr); } }
.overview > section { min-width: 0; }
.problems-list { max-height: 560px; overflow: auto; border: 1px solid var(--line); border-radius: 6px; padding: 4px 12px; }
.rule-problem { padding: 7px 0; border-bottom: 1px solid var(--soft); }
.rule-problem:last-child { border-bottom: 0; }
.rule-problem .rule-head { display: flex; gap: 8px; align-items: baseline; }
.rule-problem .mark { font-weight: 700; width: 14px; flex: none; }
.rule-problem.fail .mark { color: var(--fail); } .rule-problem.warn .mark { color: #9a6700; } .rule-problem.inconclusive .mark { color: var(--inconclusive); } .rule-problem.error .mark { color: var(--error); }
.rule-problem .section-text { font-weight: 600; }
.rule-problem .meta { color: var(--muted); font-size: 12px; margin: 2px 0 3px 22px; }
.rule-problem .cases { margin-left: 22px; display: flex; flex-wrap: wrap; gap: 3px; }
button.case-link { border: 1px solid var(--line); background: #fff; border-radius: 4px; padding: 0 6px; font: 12px/18px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; cursor: pointer; color: var(--fg); }
button.case-link:hover { border-color: var(--accent); color: var(--accent); }
button.case-link.v-fail { border-left: 4px solid var(--fail); background: #fff; } button.case-link.v-warn { border-left: 4px solid var(--warn); background: #fff; } button.case-link.v-inconclusive { border-left: 4px solid var(--inconclusive); background: #fff; } button.case-link.v-error { border-left: 4px solid var(--error); background: #fff; }
.all-good { padding: 10px 12px; border-radius: 6px; background: #dafbe1; border: 1px solid #aceebb; font-weight: 600; }
.picture { overflow: auto; border: 1px solid var(--line); border-radius: 6px; padding: 8px; background: #fff; }
/* Scaled down to the column it is in, never up: its text stays readable at a few dozen clients. */
svg.heatmap { display: block; max-width: 100%; height: auto; }
svg.heatmap text { font: 12px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; fill: var(--fg); }
svg.heatmap .hm-level { font-weight: 700; font-size: 10px; fill: var(--muted); } svg.heatmap .hm-level.MUST { fill: var(--fail); } svg.heatmap .hm-level.SHOULD { fill: #9a6700; }
svg.heatmap .hm-n { font-size: 11px; font-weight: 700; } svg.heatmap .hm-n.on-dark { fill: #fff; }
svg.heatmap .hm-cell:hover rect { stroke: var(--fg); stroke-width: 1.5; }
.legend { color: var(--muted); font-size: 12px; margin: 4px 0 0; }
svg.trend text { font: 11px system-ui, sans-serif; fill: var(--muted); } svg.trend .trend-n { font-weight: 700; fill: var(--fg); font-size: 12px; } svg.trend .axis { stroke: var(--line); }
table.trend-table { border-collapse: collapse; margin-top: 8px; font-size: 12px; } table.trend-table th, table.trend-table td { padding: 2px 10px 2px 0; text-align: right; } table.trend-table th:first-child, table.trend-table td:first-child { text-align: left; }
table.trend-table td.worse { color: var(--fail); font-weight: 700; } table.trend-table td.better { color: var(--pass); font-weight: 700; }
/* The exchange of a failing case, drawn: lanes for the client and what it talked to, the deciding exchange marked. */
.sequence { overflow-x: auto; border: 1px solid var(--line); border-radius: 6px; padding: 4px 0; }
svg.seq text { font: 11px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; fill: var(--fg); }
svg.seq .lane-head { font: 600 12px system-ui, sans-serif; }
svg.seq .lane-line { stroke: var(--line); stroke-width: 1.5; stroke-dasharray: 4 3; }
svg.seq .arrow { stroke: #57606a; stroke-width: 1.3; fill: none; }
svg.seq .arrow.back { stroke-dasharray: 5 3; }
svg.seq .decided .arrow { stroke: var(--fail); stroke-width: 2.4; }
svg.seq .decided rect.band { fill: #ffebe9; }
svg.seq .decided text.label { fill: #a40e26; font-weight: 700; }
svg.seq text.time { fill: var(--muted); font-size: 10px; }
svg.seq text.why { fill: var(--fail); font: 700 11px system-ui, sans-serif; }
svg.seq text.event { fill: var(--muted); font-style: italic; }
svg.seq text.note { fill: var(--muted); font-size: 10px; }
`;

const SCRIPT = String.raw`
(function () {
  'use strict';
  var started = performance.now();
  var data = JSON.parse(document.getElementById('matrix-results').textContent);
  var eras = JSON.parse(document.getElementById('matrix-eras').textContent);
  var VERDICTS = JSON.parse(document.getElementById('matrix-verdicts').textContent);
  var CLS = {}, HIDE = {};
  VERDICTS.forEach(function (v) { CLS[v] = 'v-' + (v === 'n/a' ? 'na' : v); HIDE[v] = 'hide-' + (v === 'n/a' ? 'na' : v); });
  var GLYPH = { pass: '\u2713', fail: '\u2717', warn: '!', inconclusive: '?', 'n/a': '', error: '\u26a1' };
  var PROBLEMS = ['fail', 'warn', 'inconclusive', 'error'];

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = text;
    return node;
  }
  function pkg(client) {
    if (client.package === undefined) return client.version || '';
    return client.version === undefined ? client.package : client.package + '@' + client.version;
  }
  // Only web links: a results file is data, and a javascript: URL in it must not become a live link.
  function link(text, url) {
    if (!/^https?:\/\//i.test(url || '')) return el('span', null, text);
    var a = el('a', null, text);
    a.href = url;
    a.target = '_blank';
    a.rel = 'noopener noreferrer';
    return a;
  }
  /** Text whose backtick spans (scenario titles use them) become <code>. */
  function withCode(node, text) {
    text.split(/(\x60[^\x60]+\x60)/).forEach(function (part) {
      if (/^\x60[^\x60]+\x60$/.test(part)) node.appendChild(el('code', null, part.slice(1, -1)));
      else if (part) node.appendChild(document.createTextNode(part));
    });
    return node;
  }
  function zero() { var counts = {}; VERDICTS.forEach(function (v) { counts[v] = 0; }); return counts; }
  /** What the reruns of a case say, in results.ts attemptsNote's words (worked out when the page was written). */
  var notes = JSON.parse(document.getElementById('matrix-notes').textContent);
  /** Cell index → whether the SDK the client wraps shares its verdict, in results/shared.ts attributionText's words. */
  var sdkNotes = JSON.parse(document.getElementById('matrix-sdk').textContent);
  /** Cell index → its exchange as a sequence diagram's data (results/sequence.ts), for fail, warn and inconclusive cells. */
  var sequences = JSON.parse(document.getElementById('matrix-sequences').textContent);
  function countsText(counts) {
    return VERDICTS.filter(function (v) { return counts[v] > 0; }).map(function (v) { return counts[v] + ' ' + v; }).join(', ');
  }

  // — the model: clients (run order, plus any only cells name), scenario cases (scenario order, then revision) —
  var clients = data.clients.slice();
  var clientIndex = new Map(clients.map(function (c, i) { return [c.name, i]; }));
  var scenarioOrder = new Map(data.scenarios.map(function (s, i) { return [s.id, i]; }));
  var scenarioInfo = new Map(data.scenarios.map(function (s) { return [s.id, s]; }));
  var caseMap = new Map();
  var counts = [];
  var totals = zero();
  data.cells.forEach(function (cell, i) {
    if (!clientIndex.has(cell.client)) {
      clientIndex.set(cell.client, clients.length);
      clients.push({ name: cell.client, description: '', kind: 'module', revisions: [], features: [] });
    }
    var ci = clientIndex.get(cell.client);
    (counts[ci] = counts[ci] || zero())[cell.verdict]++;
    totals[cell.verdict]++;
    var key = cell.scenario + '\n' + cell.revision;
    var entry = caseMap.get(key);
    if (!entry) caseMap.set(key, entry = { scenario: cell.scenario, revision: cell.revision, cells: [], verdicts: new Set() });
    entry.cells[ci] = i;
    entry.verdicts.add(cell.verdict);
  });
  var cases = Array.from(caseMap.values()).sort(function (a, b) {
    var oa = scenarioOrder.has(a.scenario) ? scenarioOrder.get(a.scenario) : Infinity;
    var ob = scenarioOrder.has(b.scenario) ? scenarioOrder.get(b.scenario) : Infinity;
    return oa - ob || (a.scenario < b.scenario ? -1 : a.scenario > b.scenario ? 1 : 0) || (a.revision < b.revision ? -1 : a.revision > b.revision ? 1 : 0);
  });
  function suiteOf(id) { var info = scenarioInfo.get(id); return info ? info.suite : id.split('/')[0]; }
  var suites = [];
  var revisions = [];
  cases.forEach(function (c) {
    c.suite = suiteOf(c.scenario);
    if (suites.indexOf(c.suite) < 0) suites.push(c.suite);
    if (revisions.indexOf(c.revision) < 0) revisions.push(c.revision);
  });
  revisions.sort();

  // — clients summary —
  var summaryBody = document.querySelector('#clients tbody');
  /** A bar of verdict shares: horizontal in the summary, vertical under each column's name. */
  function shares(className, c, dimension) {
    var total = VERDICTS.reduce(function (sum, v) { return sum + c[v]; }, 0) || 1;
    var bar = el('div', className);
    bar.title = countsText(c);
    VERDICTS.forEach(function (v) {
      if (!c[v]) return;
      var part = el('span', CLS[v]);
      part.style[dimension] = (100 * c[v] / total) + '%';
      bar.appendChild(part);
    });
    return bar;
  }
  clients.forEach(function (client, ci) {
    var c = counts[ci] || zero();
    var tr = el('tr');
    var name = el('td');
    var strong = el('strong', null, client.name);
    strong.title = client.description || '';
    name.appendChild(strong);
    if (client.loadError !== undefined) name.appendChild(el('div', 'load-error', 'not loaded: ' + client.loadError.split('\n')[0]));
    tr.appendChild(name);
    var pkgCell = el('td', 'mono', pkg(client) || '\u2014');
    if (client.wraps) pkgCell.appendChild(el('div', 'muted', 'on ' + client.wraps.package + '@' + client.wraps.version));
    tr.appendChild(pkgCell);
    tr.appendChild(el('td', 'muted', client.kind));
    var barCell = el('td');
    barCell.appendChild(shares('bar', c, 'width'));
    tr.appendChild(barCell);
    VERDICTS.forEach(function (v) { tr.appendChild(el('td', c[v] ? 'n' : 'n zero', String(c[v]))); });
    summaryBody.appendChild(tr);
  });
  document.getElementById('clients-count').textContent = String(clients.length);

  // — controls: the verdict legend is the verdict filter; suites; revisions grouped by era —
  var hiddenVerdicts = new Set();
  var suiteOn = new Set(suites);
  var revisionOn = new Set(revisions);
  var controls = document.getElementById('controls');
  function chip(labelText, count, checked, onChange, extraClass, swatchClass) {
    var label = el('label', 'chip' + (extraClass ? ' ' + extraClass : ''));
    var input = el('input');
    input.type = 'checkbox';
    input.checked = checked;
    input.addEventListener('change', function () { onChange(input.checked); });
    label.appendChild(input);
    if (swatchClass) label.appendChild(el('span', 'swatch ' + swatchClass));
    label.appendChild(document.createTextNode(labelText));
    if (count !== undefined) label.appendChild(el('span', 'n', String(count)));
    return { label: label, input: input };
  }
  function group(title) {
    var g = el('div', 'group');
    g.setAttribute('role', 'group');
    g.setAttribute('aria-label', title);
    g.appendChild(el('span', 'label', title));
    controls.appendChild(g);
    return g;
  }
  var verdictGroup = group('Verdict');
  var verdictInputs = {};
  VERDICTS.forEach(function (v) {
    var c = chip(v, totals[v], true, function (on) { if (on) hiddenVerdicts.delete(v); else hiddenVerdicts.add(v); apply(); }, 'verdict', CLS[v]);
    c.label.dataset.verdict = v;
    verdictInputs[v] = c.input;
    verdictGroup.appendChild(c.label);
  });
  var suiteGroup = group('Suite');
  suites.forEach(function (s) {
    var n = cases.filter(function (c) { return c.suite === s; }).length;
    var c = chip(s, n, true, function (on) { if (on) suiteOn.add(s); else suiteOn.delete(s); apply(); });
    c.label.dataset.suite = s;
    suiteGroup.appendChild(c.label);
  });
  var revisionGroup = group('Era / revision');
  var eraNames = [];
  revisions.forEach(function (r) { var e = eras[r] || 'Other'; if (eraNames.indexOf(e) < 0) eraNames.push(e); });
  var revisionInputs = {};
  eraNames.forEach(function (era) {
    var members = revisions.filter(function (r) { return (eras[r] || 'Other') === era; });
    var eraChip = chip(era, undefined, true, function (on) {
      members.forEach(function (r) { revisionInputs[r].checked = on; if (on) revisionOn.add(r); else revisionOn.delete(r); });
      apply();
    }, 'era');
    eraChip.label.dataset.era = era;
    revisionGroup.appendChild(eraChip.label);
    members.forEach(function (r) {
      var c = chip(r, undefined, true, function (on) {
        if (on) revisionOn.add(r); else revisionOn.delete(r);
        eraChip.input.checked = members.some(function (m) { return revisionOn.has(m); });
        apply();
      });
      c.label.dataset.revision = r;
      revisionInputs[r] = c.input;
      revisionGroup.appendChild(c.label);
    });
  });
  var actions = el('div', 'group');
  var problemsOnly = el('button', 'link', 'Problems only');
  problemsOnly.type = 'button';
  function showProblemsOnly() {
    VERDICTS.forEach(function (v) { var show = PROBLEMS.indexOf(v) >= 0; verdictInputs[v].checked = show; if (show) hiddenVerdicts.delete(v); else hiddenVerdicts.add(v); });
  }
  problemsOnly.addEventListener('click', function () { showProblemsOnly(); apply(); });
  var showAll = el('button', 'link', 'Show all');
  showAll.type = 'button';
  showAll.addEventListener('click', function () {
    controls.querySelectorAll('input').forEach(function (input) { input.checked = true; });
    hiddenVerdicts.clear();
    suites.forEach(function (s) { suiteOn.add(s); });
    revisions.forEach(function (r) { revisionOn.add(r); });
    apply();
  });
  actions.appendChild(problemsOnly);
  actions.appendChild(showAll);
  actions.appendChild(el('span', null)).id = 'status';
  controls.appendChild(actions);

  // — the grid —
  var table = document.getElementById('grid');
  var headRow = el('tr');
  var corner = el('th', 'corner sc', 'scenario');
  corner.scope = 'col';
  headRow.appendChild(corner);
  var cornerRv = el('th', 'corner rv', 'revision');
  cornerRv.scope = 'col';
  headRow.appendChild(cornerRv);
  var headers = clients.map(function (client, ci) {
    var th = el('th', 'ch' + (client.loadError !== undefined ? ' not-loaded' : ''));
    th.scope = 'col';
    var label = pkg(client);
    th.title = [client.name, label, client.description, countsText(counts[ci] || zero()), client.loadError !== undefined ? 'not loaded: ' + client.loadError : ''].filter(Boolean).join('\n');
    var name = el('div', 'cn', client.name);
    if (label) { name.appendChild(document.createElement('br')); name.appendChild(el('small', null, label)); }
    th.appendChild(name);
    th.appendChild(shares('mini', counts[ci] || zero(), 'height'));
    headRow.appendChild(th);
    return th;
  });
  var thead = el('thead');
  thead.appendChild(headRow);
  table.appendChild(thead);
  var tbody = el('tbody');
  var suiteRows = new Map();
  var caseRows = [];
  var lastSuite = null;
  cases.forEach(function (c) {
    if (c.suite !== lastSuite) {
      lastSuite = c.suite;
      var sr = el('tr', 'suite');
      var sth = el('th');
      sth.colSpan = clients.length + 2;
      sth.scope = 'rowgroup';
      sth.appendChild(el('span', null, c.suite));
      sr.appendChild(sth);
      tbody.appendChild(sr);
      suiteRows.set(c.suite, sr);
    }
    var info = scenarioInfo.get(c.scenario);
    var tr = el('tr', 'case');
    tr.dataset.suite = c.suite;
    tr.dataset.revision = c.revision;
    tr.dataset.scenario = c.scenario;
    var sc = el('th', 'sc');
    sc.scope = 'row';
    var span = el('span', null, c.scenario.slice(c.scenario.indexOf('/') + 1));
    span.title = c.scenario + (info ? '\n' + info.title + '\n' + info.spec.level + ' \u00b7 ' + info.spec.section : '');
    sc.appendChild(span);
    tr.appendChild(sc);
    tr.appendChild(el('th', 'rv', c.revision));
    var where = c.scenario + ' @ ' + c.revision;
    for (var ci = 0; ci < clients.length; ci++) {
      var index = c.cells[ci];
      var td = el('td');
      td.setAttribute('role', 'gridcell');
      if (index === undefined) {
        td.className = 'c v-none';
        td.title = clients[ci].name + ' \u00b7 ' + where + ': no result';
      } else {
        var cell = data.cells[index];
        td.className = 'c ' + CLS[cell.verdict];
        td.textContent = GLYPH[cell.verdict];
        td.dataset.i = String(index);
        td.tabIndex = -1;
        var sdk = sdkNotes[index];
        if (sdk && sdk.shared) td.classList.add('sdk-shared');
        td.title = cell.client + ' \u00b7 ' + where + ': ' + cell.verdict + (sdk ? ' (' + sdk.text + ')' : '') + (cell.reason ? '\n' + (cell.reason.length > 240 ? cell.reason.slice(0, 240) + '\u2026' : cell.reason) : '') + (notes[index] ? '\n' + notes[index] : '');
        td.setAttribute('aria-label', cell.client + ', ' + where + ': ' + cell.verdict + (sdk ? ', ' + sdk.text : ''));
      }
      tr.appendChild(td);
    }
    c.row = tr;
    caseRows.push(c);
    tbody.appendChild(tr);
  });
  table.appendChild(tbody);
  table.setAttribute('aria-rowcount', String(cases.length + 1));
  table.setAttribute('aria-colcount', String(clients.length + 2));

  // — filtering: rows hide, hidden verdicts blank their cells (a table class) —
  var visible = [];
  var active = null;
  function apply() {
    table.className = 'grid' + Array.from(hiddenVerdicts).map(function (v) { return ' ' + HIDE[v]; }).join('');
    visible = [];
    var shownSuites = new Set();
    var previous = null;
    var cellsShown = 0;
    caseRows.forEach(function (c) {
      var show = suiteOn.has(c.suite) && revisionOn.has(c.revision) && Array.from(c.verdicts).some(function (v) { return !hiddenVerdicts.has(v); });
      c.row.hidden = !show;
      if (!show) return;
      visible.push(c);
      shownSuites.add(c.suite);
      c.row.classList.toggle('first', c.scenario !== previous);
      previous = c.scenario;
      for (var ci = 0; ci < clients.length; ci++) {
        var index = c.cells[ci];
        if (index !== undefined && !hiddenVerdicts.has(data.cells[index].verdict)) cellsShown++;
      }
    });
    suiteRows.forEach(function (row, suite) { row.hidden = !shownSuites.has(suite); });
    document.getElementById('status').textContent = 'showing ' + visible.length + ' of ' + cases.length + ' cases, ' + cellsShown + ' of ' + data.cells.length + ' cells';
    if (!active || !focusable(active)) setActive(firstFocusable(), false);
  }
  function focusable(td) {
    return td && td.dataset.i !== undefined && !td.parentNode.hidden && !hiddenVerdicts.has(data.cells[Number(td.dataset.i)].verdict);
  }
  function firstFocusable() {
    for (var r = 0; r < visible.length; r++) {
      var tds = visible[r].row.cells;
      for (var k = 2; k < tds.length; k++) if (focusable(tds[k])) return tds[k];
    }
    return null;
  }
  function setActive(td, focus) {
    if (active) active.tabIndex = -1;
    active = td;
    if (!td) return;
    td.tabIndex = 0;
    if (focus) td.focus();
  }

  // — keyboard: arrows move between shown cells (one tab stop for the grid), Enter or Space opens a cell —
  function step(td, dRow, dCol) {
    var rowAt = visible.findIndex(function (c) { return c.row === td.parentNode; });
    var col = td.cellIndex;
    for (var r = rowAt + dRow, k = col + dCol; r >= 0 && r < visible.length && k >= 2 && k < clients.length + 2; r += dRow, k += dCol) {
      var next = visible[r].row.cells[k];
      if (focusable(next)) return next;
    }
    return null;
  }
  /** The first (or last) shown cell of a row. */
  function edge(row, last) {
    var tds = Array.from(row.cells).slice(2);
    if (last) tds.reverse();
    return tds.find(focusable) || null;
  }
  tbody.addEventListener('keydown', function (event) {
    var td = event.target.closest && event.target.closest('td.c');
    if (!td) return;
    var next = null;
    switch (event.key) {
      case 'ArrowRight': next = step(td, 0, 1); break;
      case 'ArrowLeft': next = step(td, 0, -1); break;
      case 'ArrowDown': next = step(td, 1, 0); break;
      case 'ArrowUp': next = step(td, -1, 0); break;
      case 'Home': next = event.ctrlKey ? firstFocusable() : edge(td.parentNode, false); break;
      case 'End': next = edge(td.parentNode, true); break;
      case 'Enter': case ' ': open(td); event.preventDefault(); return;
      case 'Escape': close(); return;
      default: return;
    }
    event.preventDefault();
    if (next) { setActive(next, true); if (!panel.hidden) open(next); }
  });
  tbody.addEventListener('click', function (event) {
    var td = event.target.closest && event.target.closest('td.c');
    if (!td || td.dataset.i === undefined) return;
    setActive(td, true);
    open(td);
  });
  var highlighted = null;
  tbody.addEventListener('focusin', function (event) {
    var td = event.target.closest && event.target.closest('td.c');
    if (highlighted) highlighted.classList.remove('hl');
    highlighted = td ? headers[td.cellIndex - 2] : null;
    if (highlighted) highlighted.classList.add('hl');
  });

  // — the detail panel —
  var panel = document.getElementById('detail');
  var selected = null;
  function open(td) {
    if (td.dataset.i === undefined) return;
    var cell = data.cells[Number(td.dataset.i)];
    var client = clients[clientIndex.get(cell.client)];
    var info = scenarioInfo.get(cell.scenario);
    if (selected) selected.classList.remove('sel');
    selected = td;
    td.classList.add('sel');
    panel.replaceChildren();
    var head = el('div', 'head');
    head.appendChild(el('span', 'badge ' + CLS[cell.verdict], cell.verdict));
    var h2 = el('h2', null, cell.scenario + ' @ ' + cell.revision);
    h2.id = 'detail-title';
    head.appendChild(h2);
    var closeButton = el('button', 'close', '\u00d7');
    closeButton.type = 'button';
    closeButton.setAttribute('aria-label', 'Close the details');
    closeButton.addEventListener('click', close);
    head.appendChild(closeButton);
    panel.appendChild(head);
    if (info) panel.appendChild(withCode(el('p', 'title'), info.title));
    var dl = el('dl');
    function row(term, value) {
      dl.appendChild(el('dt', null, term));
      var dd = el('dd');
      if (typeof value === 'string') dd.textContent = value; else dd.appendChild(value);
      dl.appendChild(dd);
    }
    var who = el('span', null, cell.client);
    if (pkg(client)) { who.appendChild(document.createTextNode(' ')); who.appendChild(el('code', null, pkg(client))); }
    if (client.description) who.appendChild(el('span', 'about', client.description));
    row('Client', who);
    row('Revision', cell.revision + ' (' + (eras[cell.revision] || 'Other') + ')');
    row('Verdict', cell.verdict + (cell.durationMs > 0 ? ' in ' + cell.durationMs + ' ms' : '') + (notes[td.dataset.i] ? ', ' + notes[td.dataset.i] : ''));
    if (sdkNotes[td.dataset.i]) row('SDK', sdkNotes[td.dataset.i].text);
    if (info) {
      var rule = el('span', 'spec');
      rule.appendChild(link(info.spec.section, info.spec.url));
      rule.appendChild(document.createTextNode(' '));
      rule.appendChild(el('span', 'level ' + info.spec.level, info.spec.level));
      row('Rule', rule);
      if (info.seed) row('Seed', info.seed);
    }
    panel.appendChild(dl);
    if (cell.reason) {
      panel.appendChild(el('h3', null, cell.verdict === 'n/a' ? 'Not applicable because' : cell.verdict === 'inconclusive' ? 'Could not judge because' : cell.verdict === 'error' ? 'Error' : 'Reason'));
      panel.appendChild(el('p', 'reason is-' + CLS[cell.verdict].slice(2), cell.reason));
    }
    if (client.loadError !== undefined) {
      panel.appendChild(el('h3', null, 'Why the client was not loaded'));
      panel.appendChild(el('pre', 'evidence', client.loadError));
    }
    if (cell.attempts) {
      panel.appendChild(el('h3', null, 'Runs (' + (cell.attempts.length + 1) + ')'));
      var runs = el('ol', 'attempts');
      cell.attempts.forEach(function (a) { runs.appendChild(el('li', null, a.verdict + ' at time scale ' + a.scale + (a.reason ? ': ' + a.reason : ''))); });
      runs.appendChild(el('li', null, cell.verdict + (cell.timeScale !== undefined ? ' at time scale ' + cell.timeScale : '') + ' (this verdict)'));
      panel.appendChild(runs);
    }
    var sequence = sequences[td.dataset.i];
    if (sequence) {
      panel.appendChild(el('h3', null, 'The exchange' + (sequence.steps.some(function (step) { return step.decided.length > 0; }) ? ' (in red: what decided the verdict)' : '')));
      var box = el('div', 'sequence');
      panel.appendChild(box);
      panel.hidden = false;
      box.appendChild(drawSequence(sequence, Math.max(620, box.clientWidth - 8)));
    }
    if (cell.checks.length > 0) {
      var failed = cell.checks.filter(function (check) { return check.outcome === 'fail'; }).length;
      var unknown = cell.checks.filter(function (check) { return check.outcome === 'inconclusive'; }).length;
      panel.appendChild(el('h3', null, 'Checks (' + cell.checks.length + (failed ? ', ' + failed + ' failed' : '') + (unknown ? ', ' + unknown + ' inconclusive' : '') + ')'));
      var list = el('ul', 'checks');
      var MARKS = { pass: ['ok', '\u2713'], fail: ['bad', '\u2717'], inconclusive: ['unknown', '?'] };
      // Failed checks first (a MAY finding after the rules), then those not judged, then the passes.
      var OUTCOME_ORDER = { fail: 0, inconclusive: 1, pass: 2 };
      var ordered = cell.checks.slice().sort(function (a, b) { return (OUTCOME_ORDER[a.outcome] - OUTCOME_ORDER[b.outcome]) || ((a.level === 'MAY') - (b.level === 'MAY')); });
      ordered.forEach(function (check) {
        var mark = MARKS[check.outcome] || MARKS.inconclusive;
        var li = el('li', mark[0]);
        li.dataset.outcome = check.outcome;
        li.appendChild(el('span', 'mark', mark[1]));
        li.appendChild(el('code', null, check.name));
        li.appendChild(document.createTextNode(' '));
        if (check.precondition) { li.appendChild(el('span', 'tag', 'precondition')); li.appendChild(document.createTextNode(' ')); }
        li.appendChild(el('span', 'level ' + check.level, check.level));
        li.appendChild(document.createTextNode(' '));
        li.appendChild(link(check.section, check.url));
        li.appendChild(el('div', 'check-detail', check.detail));
        if (check.exchanges.length > 0) li.appendChild(el('div', 'exchanges', 'decided by exchanges ' + check.exchanges.map(function (n) { return '#' + n; }).join(', ')));
        list.appendChild(li);
      });
      panel.appendChild(list);
    }
    if (cell.evidence) {
      panel.appendChild(el('h3', null, 'Wire evidence'));
      panel.appendChild(el('pre', 'evidence', cell.evidence));
    }
    panel.hidden = false;
  }
  function close() {
    if (panel.hidden) return;
    panel.hidden = true;
    if (selected) { selected.classList.remove('sel'); if (focusable(selected)) selected.focus(); }
    selected = null;
  }
  document.addEventListener('keydown', function (event) { if (event.key === 'Escape') close(); });

  // — the exchange of a failing case as a sequence diagram: lanes, a row per exchange in time order —
  var SVGNS = 'http://www.w3.org/2000/svg';
  function svg(tag, attributes, text) {
    var node = document.createElementNS(SVGNS, tag);
    Object.keys(attributes || {}).forEach(function (name) { node.setAttribute(name, String(attributes[name])); });
    if (text !== undefined) node.textContent = text;
    return node;
  }
  function clipText(text, pixels) {
    var max = Math.max(4, Math.floor(pixels / 6.7));
    return text.length > max ? text.slice(0, max - 1) + '\u2026' : text;
  }
  function drawSequence(model, width) {
    var left = 64, right = 24;
    var lanes = model.lanes;
    var spacing = lanes.length > 1 ? (width - left - right) / (lanes.length - 1) : 0;
    var laneX = {};
    lanes.forEach(function (lane, i) { laneX[lane.id] = left + i * spacing; });
    var rows = [];
    model.steps.forEach(function (step) { rows.push({ at: step.at, step: step }); });
    model.events.forEach(function (event) { rows.push({ at: event.at, event: event }); });
    rows.sort(function (a, b) { return a.at - b.at || (a.event ? -1 : 1); });
    var root = svg('svg', { class: 'seq', width: width, role: 'img', 'aria-label': 'The exchanges of this case, in time order' });
    var defs = svg('defs');
    [['seq-head', '#57606a'], ['seq-head-red', '#cf222e']].forEach(function (pair) {
      var marker = svg('marker', { id: pair[0], viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 9, markerHeight: 9, markerUnits: 'userSpaceOnUse', orient: 'auto-start-reverse' });
      marker.appendChild(svg('path', { d: 'M0,0 L10,5 L0,10 z', fill: pair[1] }));
      defs.appendChild(marker);
    });
    root.appendChild(defs);
    var lines = svg('g');
    root.appendChild(lines);
    lanes.forEach(function (lane) {
      var head = svg('text', { class: 'lane-head', x: laneX[lane.id], y: 16, 'text-anchor': lane.id === 'client' ? 'start' : lanes.indexOf(lane) === lanes.length - 1 ? 'end' : 'middle' }, clipText(lane.label, Math.max(spacing, 90)));
      head.dataset.lane = lane.kind;
      root.appendChild(head);
    });
    var y = 40;
    rows.forEach(function (row) {
      if (row.event) {
        var ex = laneX[row.event.lane];
        root.appendChild(svg('circle', { cx: ex, cy: y, r: 3.5, fill: '#59636e' }));
        root.appendChild(svg('text', { class: 'time', x: 4, y: y + 4 }, '+' + row.event.at + ' ms'));
        var rightmost = lanes[lanes.length - 1].id === row.event.lane;
        root.appendChild(svg('text', { class: 'event', x: rightmost ? ex - 7 : ex + 7, y: y + 4, 'text-anchor': rightmost ? 'end' : 'start' }, row.event.text));
        y += 20;
        return;
      }
      var step = row.step;
      var decided = step.decided.length > 0;
      var group = svg('g', { class: 'step' + (decided ? ' decided' : '') });
      group.dataset.seq = String(step.seq);
      var height = 34 + (step.notes.length ? 12 : 0) + (decided ? 14 : 0);
      if (decided) group.appendChild(svg('rect', { class: 'band', x: 0, y: y - 16, width: width, height: height, rx: 4 }));
      var cx = laneX.client, sx = laneX[step.lane];
      var span = Math.abs(sx - cx) - 12;
      var mid = (cx + sx) / 2;
      var head = decided ? 'url(#seq-head-red)' : 'url(#seq-head)';
      group.appendChild(svg('text', { class: 'time', x: 4, y: y + 4 }, '+' + step.at + ' ms'));
      if (step.kind === 'request') {
        group.appendChild(svg('text', { class: 'label', x: mid, y: y - 4, 'text-anchor': 'middle' }, clipText('#' + step.seq + ' ' + step.sent, span)));
        group.appendChild(svg('line', { class: 'arrow', x1: cx, y1: y, x2: sx - 2, y2: y, 'marker-end': head }));
        // No answer: no arrow back, the words by the lane that kept silent.
        if (step.answer === 'no answer') group.appendChild(svg('text', { class: 'note', x: sx - 6, y: y + 13, 'text-anchor': 'end' }, 'no answer'));
        else {
          group.appendChild(svg('text', { class: 'label', x: mid, y: y + 13, 'text-anchor': 'middle' }, clipText(step.answer, span)));
          group.appendChild(svg('line', { class: 'arrow back', x1: sx, y1: y + 17, x2: cx + 2, y2: y + 17, 'marker-end': head }));
        }
      } else {
        group.appendChild(svg('text', { class: 'label', x: mid, y: y - 4, 'text-anchor': 'middle' }, clipText('#' + step.seq + ' ' + step.answer, span)));
        group.appendChild(svg('line', { class: 'arrow back', x1: sx, y1: y, x2: cx + 2, y2: y, 'marker-end': head }));
      }
      var below = y + 17 + 13;
      if (step.notes.length) { group.appendChild(svg('text', { class: 'note', x: mid, y: below, 'text-anchor': 'middle' }, clipText(step.notes.join(' \u00b7 '), Math.max(span, 200)))); below += 12; }
      if (decided) group.appendChild(svg('text', { class: 'why', x: cx + 4, y: below + 1 }, '\u2717 decided ' + step.decided.join(', ')));
      root.appendChild(group);
      y += height + 6;
    });
    if (model.omitted > 0) { root.appendChild(svg('text', { class: 'event', x: left, y: y + 4 }, model.omitted + ' more exchanges, far from the marked ones, are in the wire evidence below')); y += 20; }
    if (model.clientError) { root.appendChild(svg('text', { class: 'why', x: 4, y: y + 4 }, clipText('client error: ' + model.clientError, width - 8))); y += 20; }
    lanes.forEach(function (lane) { lines.appendChild(svg('line', { class: 'lane-line', x1: laneX[lane.id], y1: 24, x2: laneX[lane.id], y2: y })); });
    root.setAttribute('height', String(y + 6));
    return root;
  }

  // — the problems listed first: each case opens its panel, wherever the filters leave its row —
  document.querySelectorAll('button.case-link').forEach(function (button) {
    button.addEventListener('click', function () {
      var td = tbody.querySelector('td.c[data-i="' + button.dataset.i + '"]');
      if (!td) return;
      setActive(td, false);
      open(td);
    });
  });

  // The grid shows the problems first when there are any; "Show all" shows every cell.
  if (PROBLEMS.some(function (v) { return totals[v] > 0; })) showProblemsOnly();
  apply();
  document.documentElement.dataset.renderMs = String(Math.round(performance.now() - started));
  document.documentElement.dataset.ready = 'true';
})();
`;

export interface HtmlOptions {
  /** Earlier runs (results.json of other nights, a `--compare` input), for the trend; any order. */
  history?: readonly MatrixResults[];
}

/** A case as a button of the problems list: it opens the cell's panel. */
const caseLink = (results: MatrixResults, index: number) => {
  const cell = results.cells[index]!;
  return `<button type="button" class="case-link ${verdictClass(cell.verdict)}" data-i="${index}" title="${escapeMarkup(`${cell.client} · ${cell.scenario} @ ${cell.revision}: ${cell.verdict}`)}">${escapeMarkup(`${cell.client} · ${cell.scenario}@${cell.revision}`)}</button>`;
};
/** The most case buttons a rule lists; the grid has the rest. */
const MAX_LINKS = 24;
const RULE_MARK = { fail: '\u2717', warn: '!', inconclusive: '?', error: '\u26a1' } as const;

/** The problems first: every rule broken or not judged, with its cases, then the cases the suite could not run. */
function problemsHtml(results: MatrixResults): string {
  const rules = problemsByRule(results);
  const errors = results.cells.flatMap((cell, index) => (cell.verdict === 'error' ? [index] : []));
  if (rules.length === 0 && errors.length === 0) return '<p class="all-good" id="all-good">No problems: every case judged passed.</p>';
  const links = (indexes: number[]) => indexes.slice(0, MAX_LINKS).map((index) => caseLink(results, index)).join('') + (indexes.length > MAX_LINKS ? `<span class="muted">and ${indexes.length - MAX_LINKS} more in the grid</span>` : '');
  const items = rules.map((rule) => {
    const revisions = new Set(rule.cells.map((index) => results.cells[index]!.revision)).size;
    const verb = rule.verdict === 'inconclusive' ? 'could not be judged in' : 'broken in';
    return `<div class="rule-problem ${rule.verdict}" data-rule="${escapeMarkup(rule.key)}"><div class="rule-head"><span class="mark">${RULE_MARK[rule.verdict]}</span><span class="level ${rule.level}">${rule.level}</span><span class="section-text">${escapeMarkup(rule.section)}</span></div><div class="meta">${verb} ${rule.cells.length} case${rule.cells.length === 1 ? '' : 's'} (${revisions} revision${revisions === 1 ? '' : 's'}) of ${rule.clients.length} client${rule.clients.length === 1 ? '' : 's'} · checks: ${escapeMarkup(rule.checks.join(', '))}</div><div class="cases">${links(rule.cells)}</div></div>`;
  });
  const byClient = Map.groupBy(errors, (index) => results.cells[index]!.client);
  for (const [client, indexes] of byClient) {
    const reason = (results.cells[indexes[0]!]!.reason ?? '').split('\n')[0]!;
    items.push(`<div class="rule-problem error"><div class="rule-head"><span class="mark">${RULE_MARK.error}</span><span class="section-text">${escapeMarkup(client)}: the suite could not run ${indexes.length} case${indexes.length === 1 ? '' : 's'}</span></div><div class="meta">${escapeMarkup(reason.length > 200 ? `${reason.slice(0, 199)}…` : reason)}</div><div class="cases">${links(indexes)}</div></div>`);
  }
  return `<div class="problems-list" id="problems-list">${items.join('')}</div>`;
}

/** The trend across nights: a bar per night, and per client its fail and warn counts night by night. */
function trendHtml(results: MatrixResults, history: readonly MatrixResults[]): string {
  if (history.length === 0) return '';
  const nights = nightsOf(history, results);
  const rows = trendRows(nights)
    .map(({ client, values }) => {
      const cells = values.map((value, n) => {
        const before = n > 0 ? values[n - 1] : undefined;
        const change = value !== undefined && before !== undefined ? (value > before ? ' class="worse"' : value < before ? ' class="better"' : '') : '';
        return `<td${change}>${value === undefined ? '\u2014' : value}</td>`;
      });
      return `<tr><td>${escapeMarkup(client)}</td>${cells.join('')}</tr>`;
    })
    .join('');
  return `<section id="trend-section"><h2 class="section">Across nights <span class="n">${nights.length} runs</span></h2><div class="picture">${trendSvg(nights, VERDICT_COLOURS)}<table class="trend-table" id="trend-table"><thead><tr><th>fail + warn per client</th>${nights.map((night) => `<th>${escapeMarkup(night.label)}</th>`).join('')}</tr></thead><tbody>${rows}</tbody></table></div></section>`;
}

export function renderHtml(saved: MatrixResults, options: HtmlOptions = {}): string {
  // The page embeds the cells with their evidence as text: the records stay in results.json. A failing cell's record is
  // drawn as its exchange (results/sequence.ts).
  const sequences: Record<number, SequenceModel> = {};
  saved.cells.forEach((cell, index) => {
    if (cell.record === undefined || (cell.verdict !== 'fail' && cell.verdict !== 'warn' && cell.verdict !== 'inconclusive')) return;
    const model = sequenceOf(cell, decodeRecord(cell.record));
    if (model !== undefined) sequences[index] = model;
  });
  const results = forReports(saved);
  const problems = results.cells.filter((cell) => cell.verdict === 'fail' || cell.verdict === 'warn' || cell.verdict === 'inconclusive' || cell.verdict === 'error').length;
  const heatmap = heatMapSvg(results, VERDICT_COLOURS);
  const counts = verdictCounts(results.cells);
  const eras = Object.fromEntries([...new Set(results.cells.map((cell) => cell.revision))].map((revision) => [revision, eraOf(revision)]));
  const totals = VERDICTS.map((verdict) => `<span class="swatch ${verdictClass(verdict)}"></span>${counts[verdict]} ${verdict}`).join(' &nbsp; ');
  const incomplete = incompleteLine(results);
  const notes = Object.fromEntries(results.cells.flatMap((cell, index) => (cell.attempts !== undefined ? [[index, attemptsNote(cell)]] : [])));
  const shared = sharedVerdicts(results);
  const sdkNotes = Object.fromEntries(
    results.cells.flatMap((cell, index) => {
      const attribution = shared.get(cellKey(cell));
      return attribution !== undefined ? [[index, { shared: attribution.shared, text: attributionText(attribution) }]] : [];
    }),
  );
  const title = `MCP client conformance matrix · ${results.generatedAt.slice(0, 10)}`;
  const clientsWithPackages = results.clients.filter((client) => packageLabel(client) !== undefined).length;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'">
<meta name="referrer" content="no-referrer">
<title>${escapeMarkup(title)}</title>
<link rel="icon" href="data:,">
<style>${CSS}</style>
</head>
<body>
<header class="top">
<h1>MCP client conformance matrix</h1>
<p class="run">${escapeMarkup(runLine(results))}</p>
</header>
<main>
${incomplete !== undefined ? `<p class="incomplete" id="incomplete">${escapeMarkup(incomplete)}: <code>${escapeMarkup(RESUME_COMMAND)}</code> runs only those.</p>\n` : ''}<p class="totals"><strong>${results.clients.length}</strong> clients (${clientsWithPackages} published packages) · <strong>${results.cells.length}</strong> cells: ${totals} · <a href="#clients-summary">per client</a></p>
<div class="overview">
<section id="problems"><h2 class="section">Problems <span class="n">${problems} of ${results.cells.length} cells, by rule</span></h2>
${problemsHtml(results)}
</section>
${heatmap !== '' ? `<section id="where"><h2 class="section">Where each client breaks which rule</h2><div class="picture">${heatmap}</div><p class="legend">A row per rule some client breaks, a column per client: red where it failed, amber where it warned (stronger the more of the cases that judged it broke it, the number of them written in), pale green where it kept the rule, grey where it was never judged on it.</p></section>` : ''}
</div>
${trendHtml(results, options.history ?? [])}
<h2 class="section">Every case <span class="n">${problems > 0 ? 'at first only the problems are shown; the verdict filter brings back the rest' : ''}</span></h2>
<noscript><p>This report draws its grid with JavaScript; the same results are in results.json, summary.md and junit.xml.</p></noscript>
<div class="controls" id="controls" aria-label="Filters"></div>
<div class="grid-wrap"><table class="grid" id="grid" role="grid" aria-label="Verdict of every client (columns) on every scenario case (rows)"></table></div>
<aside class="detail" id="detail" role="region" aria-labelledby="detail-title" hidden></aside>
<details class="clients" id="clients-summary" open>
<summary>Clients (<span id="clients-count">${results.clients.length}</span>)</summary>
<table class="summary" id="clients"><thead><tr><th>client</th><th>package</th><th>kind</th><th>results</th>${VERDICTS.map((verdict) => `<th>${verdict}</th>`).join('')}</tr></thead><tbody></tbody></table>
</details>
</main>
<script type="application/json" id="matrix-results">${embedJson(results)}</script>
<script type="application/json" id="matrix-eras">${embedJson(eras)}</script>
<script type="application/json" id="matrix-verdicts">${embedJson(VERDICTS)}</script>
<script type="application/json" id="matrix-notes">${embedJson(notes)}</script>
<script type="application/json" id="matrix-sdk">${embedJson(sdkNotes)}</script>
<script type="application/json" id="matrix-sequences">${embedJson(sequences)}</script>
<script>${SCRIPT}</script>
</body>
</html>
`;
}
