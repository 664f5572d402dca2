// What makes a comparison or a matrix run fail CI, on small synthetic results files: a regression or a lost cell
// fails (exit 1) unless the lost cells are allowed, an incomplete run is never a pass (exit 3), a cell the suite could
// not judge is listed and fails nothing, cells outside the current run's selection are not lost; `--fail-on` counts
// the run's own verdicts; a client row that judged nothing is said and exits 4; a reports folder that cannot be written
// is exit 2 before the run.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { compare, comparisonExitCode, renderComparisonMarkdown, renderComparisonText, runCompare } from './compare.ts';
import { RESULTS_FORMAT, RESULTS_FORMAT_VERSION, selects, type Cell, type CellCheck, type CellVerdict, type ClientInfo, type MatrixResults } from '../../results/results.ts';
import { failingCells, failOnLines, parseFailOn } from './run.ts';
import { notJudgedRows } from './gate.ts';

const CLI = join(import.meta.dirname, '..', 'cli.ts');

const REVISIONS = ['2025-06-18', '2025-11-25'] as const;
const SCENARIOS = ['negotiation/handshake-order', 'negotiation/version-per-revision', 'disposal/delete-issued-session'];

const client = (name: string, extra: Partial<ClientInfo> = {}): ClientInfo => ({ name, description: name, kind: 'module', revisions: [...REVISIONS], features: [], ...extra });
const cell = (clientName: string, scenario: string, revision: string, verdict: CellVerdict): Cell => ({ client: clientName, scenario, revision: revision as Cell['revision'], verdict, durationMs: 1, checks: [] });

/** A run of `clients` × SCENARIOS × REVISIONS, every cell `verdict` unless `verdicts` says otherwise (`client scenario@revision`). */
function run(clients: string[], verdicts: Record<string, CellVerdict> = {}, runInfo: Partial<MatrixResults['run']> = {}): MatrixResults {
  const cells = clients.flatMap((name) => SCENARIOS.flatMap((scenario) => REVISIONS.map((revision) => cell(name, scenario, revision, verdicts[`${name} ${scenario}@${revision}`] ?? 'pass'))));
  return {
    format: RESULTS_FORMAT,
    formatVersion: RESULTS_FORMAT_VERSION,
    generatedAt: '2026-12-01T03:17:00.000Z',
    run: { suiteVersion: '0.1.0', node: 'v24.21.0', platform: 'linux-x64', cpus: 2, durationMs: 1000, strict: false, matrixFile: 'matrix.json', complete: true, plannedCells: cells.length, missingCells: 0, selection: { suites: ['negotiation', 'disposal'] }, ...runInfo },
    scenarios: [],
    clients: clients.map((name) => client(name)),
    cells,
  };
}

/** `results` without the cells `drop` picks, marked incomplete when `incomplete` (a lost shard, say). */
function without(results: MatrixResults, drop: (cell: Cell) => boolean, incomplete = false): MatrixResults {
  const copy = structuredClone(results);
  copy.cells = copy.cells.filter((c) => !drop(c));
  const missing = results.cells.length - copy.cells.length;
  if (incomplete) copy.run = { ...copy.run, complete: false, missingCells: missing, interruption: 'a suite file did not finish: blob-2 missing' };
  return copy;
}

const ALL = ['alpha', 'beta', 'gamma'];
const previous = run(ALL);

describe('lost cells', () => {
  test('a client dropped from a complete run: its cells are lost, counted as regressions (exit 1), and said in the title', () => {
    const current = run(['alpha', 'beta']);
    const comparison = compare(previous, current);
    expect(comparison.regressions).toEqual([]);
    expect(comparison.lostCells).toHaveLength(6);
    expect(comparison.removedClients.map((c) => c.name)).toEqual(['gamma']);
    expect(comparisonExitCode(comparison)).toBe(1);
    const text = renderComparisonText(comparison, current);
    expect(text.split('\n')[0]).toBe('matrix comparison: 6 lost cells');
    expect(text).toContain('\n  gamma: 6 cells (were pass 6) — the client is not in the current run\n');
    const markdown = renderComparisonMarkdown(comparison, current);
    expect(markdown.split('\n')[0]).toBe('## Matrix comparison: 6 lost cells');
    expect(markdown).toContain('### Lost cells (6): in the previous run, no result in this one — counted as regressions');
  });

  test('a scenario dropped for every client is lost; a few clients are named, with the revisions and what the cells were', () => {
    const before = run(ALL, { 'beta disposal/delete-issued-session@2025-11-25': 'fail' });
    const current = without(before, (c) => c.scenario === 'disposal/delete-issued-session');
    const comparison = compare(before, current);
    expect(comparison.lostCells).toHaveLength(6);
    expect(renderComparisonText(comparison, current)).toContain('\n  disposal/delete-issued-session: 6 cells of 3 clients (were pass 5, fail 1): alpha @ 2025-06-18, 2025-11-25; beta @ 2025-06-18, 2025-11-25; gamma @ 2025-06-18, 2025-11-25\n');
    expect(comparisonExitCode(comparison)).toBe(1);
  });

  test('--allow-lost accepts lost cells by client name, scenario id or prefix; they are listed, not counted', () => {
    const current = without(run(['alpha', 'beta']), (c) => c.scenario === 'disposal/delete-issued-session');
    for (const allowLost of [['gamma', 'disposal/delete-issued-session'], ['gamma', 'disposal/*'], ['*']]) {
      const comparison = compare(previous, current, { allowLost });
      expect(comparison.lostCells, allowLost.join(' ')).toEqual([]);
      expect(comparison.allowedLostCells).toHaveLength(6 + 4);
      expect(comparisonExitCode(comparison)).toBe(0);
      expect(renderComparisonText(comparison, current).split('\n')[0]).toBe('matrix comparison: no regressions, 10 lost cells allowed');
    }
    // Allowing one client leaves the other loss counted.
    const partly = compare(previous, current, { allowLost: ['gamma'] });
    expect(partly.lostCells.map((c) => `${c.client} ${c.scenario}`)).toEqual(['alpha disposal/delete-issued-session', 'alpha disposal/delete-issued-session', 'beta disposal/delete-issued-session', 'beta disposal/delete-issued-session']);
    expect(comparisonExitCode(partly)).toBe(1);
    expect(renderComparisonText(partly, current).split('\n')[0]).toBe('matrix comparison: 4 lost cells, 6 lost cells allowed');
  });

  test('an allowance that matches nothing lost is said, not silently kept', () => {
    const comparison = compare(previous, structuredClone(previous), { allowLost: ['gamma', 'sdk-v9*'] });
    expect(comparisonExitCode(comparison)).toBe(0);
    expect(comparison.notes).toEqual([expect.stringContaining('--allow-lost gamma matched no lost cell'), expect.stringContaining('--allow-lost sdk-v9* matched no lost cell')]);
  });

  test('an incomplete current run (a shard lost) is never a pass: exit 3, even with every lost cell allowed', () => {
    const current = without(previous, (c) => c.scenario.startsWith('disposal/'), true);
    const comparison = compare(previous, current);
    expect(comparison.lostCells).toHaveLength(6);
    expect(comparisonExitCode(comparison)).toBe(3);
    expect(renderComparisonText(comparison, current).split('\n')[0]).toBe('matrix comparison: 6 lost cells, the current run is incomplete (6 cells missing)');
    expect(comparison.notes).toEqual([expect.stringContaining('the current run is an incomplete run: 6 of 18 planned cells have no result (a suite file did not finish: blob-2 missing): those cells are lost cells; matrix --resume on its reports folder runs them')]);
    expect(comparisonExitCode(compare(previous, current, { allowLost: ['*'] }))).toBe(3);
  });

  test("cells outside the current run's --clients or --scenario selection are not lost: counted in a note", () => {
    const current = run(['alpha', 'beta'], {}, { selection: { clients: 'alpha,b*', suites: ['negotiation', 'disposal'] } });
    const comparison = compare(previous, current);
    expect(comparison.lostCells).toEqual([]);
    expect(comparison.removedClients).toEqual([]);
    expect(comparison.unselectedCells).toBe(6);
    expect(comparison.notes).toEqual(["6 cells of the previous run are outside the current run's selection (--clients alpha,b*): not compared"]);
    expect(comparisonExitCode(comparison)).toBe(0);
    // A cell the selection covers is lost all the same.
    const short = without(current, (c) => c.client === 'beta' && c.scenario === 'negotiation/handshake-order');
    expect(compare(previous, short).lostCells.map((c) => `${c.client} ${c.scenario}@${c.revision}`)).toEqual(['beta negotiation/handshake-order@2025-06-18', 'beta negotiation/handshake-order@2025-11-25']);
    const scenarioOnly = run(ALL, {}, { selection: { scenario: 'negotiation/', suites: ['negotiation'] } });
    expect(compare(previous, without(scenarioOnly, (c) => c.scenario.startsWith('disposal/'))).unselectedCells).toBe(6);
  });

  test('selects: --clients names or prefixes, the scenario filters (run joins its own with commas) and the revisions', () => {
    const at = (client: string, scenario: string, revision = '2025-11-25') => ({ client, scenario, revision: revision as Cell['revision'] });
    expect(selects({}, at('x', 'a/b'))).toBe(true);
    expect(selects({ clients: 'sdk-v2-*, reference' }, at('sdk-v2-auto@2.0', 'a/b'))).toBe(true);
    expect(selects({ clients: 'sdk-v2-*, reference' }, at('reference', 'a/b'))).toBe(true);
    expect(selects({ clients: 'sdk-v2-*' }, at('sdk-v1@1.12', 'a/b'))).toBe(false);
    expect(selects({ scenario: 'disposal' }, at('x', 'disposal/delete-issued-session'))).toBe(true);
    expect(selects({ scenario: 'disposal' }, at('x', 'negotiation/handshake-order'))).toBe(false);
    expect(selects({ scenario: 'negotiation/handshake,disposal/' }, at('x', 'disposal/delete-issued-session'))).toBe(true);
    expect(selects({ scenario: 'negotiation/handshake,disposal/' }, at('x', 'retry/bounded-on-5xx'))).toBe(false);
    expect(selects({ revisions: ['2025-06-18'] }, at('x', 'a/b', '2025-06-18'))).toBe(true);
    expect(selects({ revisions: ['2025-06-18'] }, at('x', 'a/b', '2025-11-25'))).toBe(false);
  });

  test('a client dropped from a run with a scenario filter is still a removed client, its selected cells lost', () => {
    const current = run(['alpha', 'beta'], {}, { selection: { scenario: 'disposal/', suites: ['disposal'] } });
    current.cells = current.cells.filter((c) => c.scenario.startsWith('disposal/'));
    const comparison = compare(previous, current);
    expect(comparison.removedClients.map((c) => c.name)).toEqual(['gamma']);
    expect(comparison.lostCells.map((c) => `${c.client} ${c.scenario}`)).toEqual(['gamma disposal/delete-issued-session', 'gamma disposal/delete-issued-session']);
    expect(comparison.unselectedCells).toBe(12);
    expect(renderComparisonText(comparison, current)).toContain('\n  gamma: 2 cells (were pass 2) — the client is not in the current run\n');
  });
});

describe('what fails and what does not', () => {
  test('a regression fails; a cell inconclusive in one of the runs is listed as could not judge and fails nothing', () => {
    const worse = run(ALL, { 'alpha negotiation/handshake-order@2025-11-25': 'fail' });
    expect(comparisonExitCode(compare(previous, worse))).toBe(1);
    const unjudged = run(ALL, { 'alpha negotiation/handshake-order@2025-11-25': 'inconclusive' });
    for (const [from, to] of [[previous, unjudged], [unjudged, previous]] as const) {
      const comparison = compare(from, to);
      expect(comparison.couldNotJudge).toHaveLength(1);
      expect(comparison.regressions).toEqual([]);
      expect(comparisonExitCode(comparison)).toBe(0);
      expect(renderComparisonText(comparison, to).split('\n')[0]).toBe('matrix comparison: no regressions, 1 cell could not be judged in one of the runs');
    }
  });

  test('new clients and cells fail nothing; an incomplete previous run makes new cells, not lost ones', () => {
    const earlier = without(previous, (c) => c.client === 'beta' && c.scenario.startsWith('disposal/'), true);
    const comparison = compare(earlier, run([...ALL, 'delta']));
    expect(comparison.newCells).toHaveLength(2);
    expect(comparison.newClients.map((c) => c.name)).toEqual(['delta']);
    expect(comparison.lostCells).toEqual([]);
    expect(comparisonExitCode(comparison)).toBe(0);
  });
});

describe('newly failing checks: judged firmly in both runs; MAY findings apart', () => {
  const URL = 'https://modelcontextprotocol.io/specification/2025-06-18/basic/lifecycle';
  const check = (name: string, outcome: CellCheck['outcome'], level: CellCheck['level'] = 'MUST', precondition = false): CellCheck => ({ name, outcome, level, section: 's', url: URL, detail: `${name} ${outcome}`, exchanges: [], ...(precondition ? { precondition: true as const } : {}) }) as CellCheck;
  /** A run whose one fail cell of alpha has these checks. */
  const failing = (checks: CellCheck[]) => {
    const results = run(['alpha'], { 'alpha negotiation/handshake-order@2025-06-18': 'fail' });
    results.cells.find((c) => c.verdict === 'fail')!.checks = checks;
    return results;
  };

  test('two identical runs but for the MAY findings (timers-released, connections-released): no newly failing check, the findings listed apart, exit 0', () => {
    const before = failing([check('initialized-sent', 'fail'), check('timers-released', 'fail', 'MAY')]);
    const after = failing([check('initialized-sent', 'fail'), check('connections-released', 'fail', 'MAY')]);
    const comparison = compare(before, after);
    expect(comparison.newlyFailingChecks).toEqual([]);
    expect(comparison.mayFindings).toEqual([{ client: 'alpha', scenario: 'negotiation/handshake-order', revision: '2025-06-18', appeared: ['connections-released'], gone: ['timers-released'] }]);
    expect(comparisonExitCode(comparison)).toBe(0);
    const text = renderComparisonText(comparison, after);
    expect(text.split('\n')[0]).toBe('matrix comparison: no regressions');
    expect(text).not.toContain('Newly failing checks');
    expect(text).toContain('\nMAY findings that differ (1 cell): informational, never a regression (they may vary between identical runs)\n');
    expect(text).toContain('\n  alpha:\n    connections-released appeared in 1 cell: negotiation/handshake-order @ 2025-06-18\n    timers-released gone from 1 cell: negotiation/handshake-order @ 2025-06-18\n');
    // A pass cell that gains a MAY finding is listed the same way, and is no regression.
    const passing = run(['alpha']);
    const withFinding = structuredClone(passing);
    withFinding.cells[0]!.checks = [check('timers-released', 'fail', 'MAY')];
    expect(compare(passing, withFinding)).toMatchObject({ regressions: [], newlyFailingChecks: [], mayFindings: [{ appeared: ['timers-released'], gone: [] }] });
  });

  test('a check newly fails only when it passed before: not when it was absent, inconclusive or an unmet precondition, nor a MAY check', () => {
    const now = failing([check('initialized-sent', 'fail'), check('absent-before', 'fail'), check('inconclusive-before', 'fail'), check('precondition', 'fail', 'MUST', true), check('passed-before', 'fail'), check('should-passed-before', 'fail', 'SHOULD')]);
    const then = failing([check('initialized-sent', 'fail'), check('inconclusive-before', 'inconclusive'), check('precondition', 'pass', 'MUST', true), check('passed-before', 'pass'), check('should-passed-before', 'pass', 'SHOULD')]);
    expect(compare(then, now).newlyFailingChecks).toEqual([expect.objectContaining({ from: 'fail', to: 'fail', newlyFailedChecks: ['passed-before', 'should-passed-before'] })]);
    // A regression names only the checks that passed before too.
    const passed = run(['alpha']);
    passed.cells.find((c) => c.scenario === 'negotiation/handshake-order' && c.revision === '2025-06-18')!.checks = [check('initialized-sent', 'pass')];
    const regressed = failing([check('initialized-sent', 'fail'), check('timers-released', 'fail', 'MAY'), check('new-check', 'fail')]);
    expect(compare(passed, regressed).regressions).toEqual([expect.objectContaining({ from: 'pass', to: 'fail', newlyFailedChecks: ['initialized-sent'] })]);
  });
});

describe('runCompare', () => {
  const work = mkdtempSync(join(tmpdir(), 'matrix-gate-'));
  afterAll(() => rmSync(work, { recursive: true, force: true }));
  const write = (name: string, results: MatrixResults) => {
    const path = join(work, name);
    writeFileSync(path, JSON.stringify(results));
    return path;
  };
  const compareFiles = async (argv: string[]) => {
    let out = '';
    let err = '';
    const code = await runCompare(argv, { out: (text) => (out += text), err: (text) => (err += text) });
    return { code, out, err };
  };

  test('exit 1 on lost cells, 0 with them allowed, 3 for an incomplete current run; the Markdown lists them', async () => {
    const old = write('old.json', previous);
    const lost = write('lost.json', run(['alpha', 'beta']));
    const markdown = join(work, 'comparison.md');
    expect(await compareFiles([old, lost, '--markdown', markdown])).toMatchObject({ code: 1, err: '', out: expect.stringMatching(/^matrix comparison: 6 lost cells\n/) });
    expect(readFileSync(markdown, 'utf8')).toContain('- `gamma`: 6 cells (were pass 6) — the client is not in the current run');
    expect(await compareFiles([old, lost, '--allow-lost', 'gamma'])).toMatchObject({ code: 0, out: expect.stringMatching(/^matrix comparison: no regressions, 6 lost cells allowed\n/) });
    expect(await compareFiles([old, lost, '--allow-lost', 'alpha', '--allow-lost', 'gam*'])).toMatchObject({ code: 0 });
    const cut = write('cut.json', without(previous, (c) => c.scenario.startsWith('disposal/'), true));
    expect(await compareFiles([old, cut, '--allow-lost', '*'])).toMatchObject({ code: 3 });
  });

  test('--markdown: a path that cannot be written is exit 2 before anything is read; one that fails at the end is exit 5, the comparison printed', async () => {
    const old = write('markdown-old.json', previous);
    writeFileSync(join(work, 'a-file'), '');
    const blocked = join(work, 'a-file', 'comparison.md');
    expect(await compareFiles([join(work, 'absent.json'), old, '--markdown', blocked])).toEqual({ code: 2, out: '', err: `mcp-client-conformance compare: --markdown ${blocked} cannot be written: ${join(work, 'a-file')} is a file, not a folder\n` });
    // A link to a folder that is gone: the path checks out (its folder is there), the write through it fails.
    const link = join(work, 'dangling.md');
    symlinkSync(join(work, 'gone', 'comparison.md'), link);
    const lost = await compareFiles([old, write('markdown-lost.json', run(['alpha', 'beta'])), '--markdown', link]);
    expect(lost.code).toBe(5);
    expect(lost.out).toMatch(/^matrix comparison: 6 lost cells\n/);
    expect(lost.err).toMatch(new RegExp(`^mcp-client-conformance compare: --markdown ${link.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} could not be written: ENOENT: [^\n]+\n$`));
  });

  test('an empty --allow-lost is bad usage (exit 2), not a silent allow-nothing', async () => {
    const old = write('same.json', previous);
    expect(await compareFiles([old, old, '--allow-lost', ' '])).toMatchObject({ code: 2, err: expect.stringContaining('--allow-lost takes a client name or a scenario id') });
    expect(await compareFiles([old, old, '--allow-lost'])).toMatchObject({ code: 2, err: expect.stringContaining("Option '--allow-lost <value>' argument missing") });
  });
});

describe('matrix --fail-on', () => {
  test('takes fail, warn and error, comma-separated; anything else is refused', () => {
    expect(parseFailOn('fail,error')).toEqual(['fail', 'error']);
    expect(parseFailOn(' warn ')).toEqual(['warn']);
    for (const bad of ['', ',', 'inconclusive', 'n/a', 'fail,pass', 'regression']) expect(() => parseFailOn(bad), bad).toThrow(/--fail-on takes verdicts among fail, warn, error/);
  });

  test('counts the cells of those verdicts, but not the error cells of an entry the matrix file skips', () => {
    const results = run(['alpha', 'beta', 'skipped'], { 'alpha negotiation/handshake-order@2025-11-25': 'fail', 'beta disposal/delete-issued-session@2025-06-18': 'warn', 'beta negotiation/handshake-order@2025-06-18': 'error', 'alpha disposal/delete-issued-session@2025-06-18': 'inconclusive' });
    for (const c of results.cells) if (c.client === 'skipped') c.verdict = 'error';
    results.clients[2]!.loadError = 'skipped: needs a Docker engine';
    expect(failingCells(results, ['fail']).map((c) => c.client)).toEqual(['alpha']);
    expect(failingCells(results, ['fail', 'warn', 'error']).map((c) => `${c.client} ${c.verdict}`)).toEqual(['alpha fail', 'beta error', 'beta warn']);
    results.clients[2]!.loadError = 'Cannot find module ./missing.ts';
    expect(failingCells(results, ['error'])).toHaveLength(1 + 6);
    expect(failOnLines(failingCells(results, ['fail', 'error']), ['fail', 'error'])).toEqual(['--fail-on fail,error: 8 cells of 3 clients', '  alpha: fail 1', '  beta: error 1', '  skipped: error 6']);
    expect(failingCells(run(['alpha']), ['fail', 'warn', 'error'])).toEqual([]);
  });
});

describe('a client row that judged nothing', () => {
  test('is one of a client that loaded whose every cell is n/a or inconclusive: said in one line each; a row with one verdict, or of a client that did not load (--fail-on error gates on those), is not', () => {
    const results = run(['judged', 'narrow', 'killed', 'broken', 'skipped']);
    const mark = (client: string, verdict: (cell: Cell, index: number) => CellVerdict, reason?: string) =>
      results.cells.filter((c) => c.client === client).forEach((c, index) => Object.assign(c, { verdict: verdict(c, index) }, reason !== undefined ? { reason } : {}));
    mark('judged', (_, index) => (index === 0 ? 'fail' : 'inconclusive'), 'time ran out');
    mark('narrow', () => 'n/a', 'narrow does not speak it');
    mark('killed', (_, index) => (index === 0 ? 'n/a' : 'inconclusive'), 'client-running: the client process was killed');
    mark('broken', () => 'error', 'Cannot find module ./gone.ts');
    mark('skipped', () => 'error', 'skipped: needs a Docker engine');
    results.clients.find((c) => c.name === 'broken')!.loadError = 'Cannot find module ./gone.ts\n  at …';
    results.clients.find((c) => c.name === 'skipped')!.loadError = 'skipped: needs a Docker engine';
    expect(notJudgedRows(results)).toEqual([
      'nothing was judged: no scenario applies to narrow (6 cases n/a): check the revisions, features and transports it declares',
      'nothing was judged: none of the 5 cases that applied to killed got a verdict, the suite could not judge them (each: client-running: the client process was killed)',
    ]);
    expect(notJudgedRows(run(ALL))).toEqual([]);
  });

  const work = mkdtempSync(join(tmpdir(), 'matrix-gate-cli-'));
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  test('matrix: a complete run with such a row exits 4, saying which; a reports folder that cannot be written is exit 2 before the run', () => {
    // A saved run judged again (no client run): its n/a and error cells stay as they are.
    const saved = run(['narrow', 'skipped'], Object.fromEntries(SCENARIOS.flatMap((scenario) => REVISIONS.flatMap((revision) => [[`narrow ${scenario}@${revision}`, 'n/a'], [`skipped ${scenario}@${revision}`, 'error']]))));
    saved.clients.find((c) => c.name === 'skipped')!.loadError = 'skipped: needs a Docker engine';
    const path = join(work, 'saved.json');
    writeFileSync(path, JSON.stringify(saved));
    const matrix = (...args: string[]) => spawnSync(process.execPath, [CLI, 'matrix', ...args], { encoding: 'utf8' });
    const rejudged = matrix('--rejudge', path, '--out', join(work, 'reports'));
    expect(rejudged.status, rejudged.stderr).toBe(4);
    expect(rejudged.stderr.split('\n').filter((line) => line.includes('nothing was judged'))).toEqual(['mcp-client-conformance: nothing was judged: no scenario applies to narrow (6 cases n/a): check the revisions, features and transports it declares']);
    // --history: report.html draws the trend across the earlier night and this one; a night that is not there is bad input.
    const night = matrix('--rejudge', path, '--out', join(work, 'night'), '--history', path);
    expect(night.status, night.stderr).toBe(4);
    expect(readFileSync(join(work, 'night', 'report.html'), 'utf8')).toContain('id="trend-section"');
    expect(readFileSync(join(work, 'reports', 'report.html'), 'utf8')).not.toContain('id="trend-section"');
    const gone = matrix('--rejudge', path, '--out', join(work, 'night'), '--history', join(work, 'gone.json'));
    expect(gone.status).toBe(2);
    expect(gone.stderr).toBe(`mcp-client-conformance: --history: ${join(work, 'gone.json')} not found\n`);
    writeFileSync(join(work, 'file'), '');
    const unwritable = matrix('--rejudge', path, '--out', join(work, 'file', 'reports'));
    expect(unwritable.status).toBe(2);
    expect(unwritable.stderr).toBe(`mcp-client-conformance: --out ${join(work, 'file', 'reports')} cannot be written: ${join(work, 'file')} is a file, not a folder\n`);
  });
});
