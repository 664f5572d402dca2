// Baselines per check, on synthetic results: the format (and its schema), matching, staleness, and writing from a run.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, test } from 'vitest';
import { readSettings } from '../config/settings.ts';
import { REVISIONS, type Revision } from '../protocol/revisions.ts';
import {
  BASELINE_DIR,
  BASELINE_SCHEMA,
  BaselineError,
  baselineFromRun,
  baselineMismatch,
  baselinePath,
  baselineProblems,
  cellKey,
  claimsOf,
  formatBaseline,
  loadBaseline,
  parseBaseline,
  type Baseline,
  type BaselineEntry,
} from './baselines.ts';
import { reasonOf, verdictOf, type Check, type Level, type ScenarioResult } from './scenario.ts';
import { failsGate } from '../api/index.ts';
import { comparedWith } from '../api/index.ts';
import { skipReason } from '../api/test-helpers.ts';

// ── synthetic results ────────────────────────────────────────────────────────────────────────────────────────

const SCENARIO = 'resume/expired-404';
const URL = 'https://modelcontextprotocol.io/specification/2025-06-18/basic/transports#session-management';

type Outcome = 'pass' | 'fail' | 'inconclusive' | 'unmet';
/** A check by name, level and outcome ('unmet': a precondition not met). */
const c = (name: string, outcome: Outcome, level: Level = 'MUST'): Check => ({
  name,
  spec: { url: URL, section: 's', level },
  outcome: outcome === 'unmet' ? 'inconclusive' : outcome,
  ...(outcome === 'unmet' ? { precondition: true as const } : {}),
  detail: `${name} ${outcome}`,
  exchanges: [],
});

/** A result judged as the runner judges it: verdict and reason from the checks. */
function result(checks: Check[], revision: Revision = '2025-06-18', options: { strict?: boolean; scenario?: string } = {}): ScenarioResult {
  const verdict = verdictOf(checks, options.strict);
  const reason = reasonOf(checks, verdict);
  return { scenarioId: options.scenario ?? SCENARIO, adapter: 'x', revision, verdict, ...(reason ? { reason } : {}), checks, durationMs: 0 };
}

const entry = (checks: string[], verdict: BaselineEntry['verdict'] = 'fail', revisions: BaselineEntry['revisions'] = ['2025-06-18'], scenario = SCENARIO): BaselineEntry => ({
  scenario,
  checks,
  revisions,
  verdict,
  reason: `known: ${checks.join(', ')}`,
  spec: URL,
});
const baseline = (...known: BaselineEntry[]): Baseline => ({ adapter: 'x', format: 2, known });

// ── matching ─────────────────────────────────────────────────────────────────────────────────────────────────

describe('baselineMismatch', () => {
  const known = baseline(entry(['new-initialize']));

  test('a pass with no entry matches, and so does a cell whose failing checks are all named with the verdict they earn', () => {
    expect(baselineMismatch(result([c('new-initialize', 'pass'), c('client-completed', 'pass')]), baseline())).toBeUndefined();
    expect(baselineMismatch(result([c('new-initialize', 'fail'), c('client-completed', 'pass')]), known)).toBeUndefined();
  });

  test('a failure with no entry is a mismatch that names the check', () => {
    expect(baselineMismatch(result([c('new-initialize', 'fail')]), baseline())).toBe('expected pass, got fail\nnew failing check new-initialize [MUST]');
  });

  test('a new failing check inside a known-failing cell is caught, though the verdict is the same', () => {
    const second = result([c('new-initialize', 'fail'), c('dead-id-never-sent-again', 'fail'), c('client-completed', 'pass')]);
    expect(second.verdict).toBe('fail');
    expect(baselineMismatch(second, known)).toBe('new failing check dead-id-never-sent-again [MUST] inside a known-failing cell (baselined: new-initialize)');
    // A SHOULD broken beside a known MUST does not change the verdict either.
    expect(baselineMismatch(result([c('new-initialize', 'fail'), c('adopts-new-id', 'fail', 'SHOULD')]), known)).toMatch(/^new failing check adopts-new-id \[SHOULD\] inside a known-failing cell/);
  });

  test('a failed MAY check never counts, and an entry cannot name one', () => {
    expect(baselineMismatch(result([c('new-initialize', 'fail'), c('connections-released', 'fail', 'MAY')]), known)).toBeUndefined();
    const naming = baseline(entry(['new-initialize', 'connections-released']));
    expect(baselineMismatch(result([c('new-initialize', 'fail'), c('connections-released', 'fail', 'MAY')]), naming)).toMatch(/check connections-released of entry .* is a MAY check, whose failures never count: remove it/);
  });

  test("an entry's check that now passes is stale, per check, at the revision it passes at", () => {
    const two = baseline(entry(['new-initialize', 'dead-id-never-sent-again']));
    const mismatch = baselineMismatch(result([c('new-initialize', 'fail'), c('dead-id-never-sent-again', 'pass')]), two);
    expect(mismatch).toMatch(/^check dead-id-never-sent-again of entry resume\/expired-404 \[new-initialize, dead-id-never-sent-again\] now passes at 2025-06-18: remove it \(.*scripts\/baseline\.ts x rewrites .*\)$/);
    // Every check passing: each is named, and the verdict is said too.
    const passing = baselineMismatch(result([c('new-initialize', 'pass'), c('dead-id-never-sent-again', 'pass')]), two)!.split('\n');
    expect(passing).toHaveLength(3);
    expect(passing[0]).toBe('expected fail (baselined: known: new-initialize, dead-id-never-sent-again), got pass');
  });

  test('an entry naming a check the scenario does not report is a mismatch', () => {
    expect(baselineMismatch(result([c('new-initialize', 'fail')]), baseline(entry(['new-initialize', 'no-such-check'])))).toMatch(/names check no-such-check, which resume\/expired-404 does not report at 2025-06-18 \(its checks: new-initialize\)/);
  });

  test('an entry covers the revisions of its set, or every revision with "all"', () => {
    const set = baseline(entry(['new-initialize'], 'fail', ['2025-03-26', '2025-11-25']));
    const failing = (revision: Revision) => result([c('new-initialize', 'fail')], revision);
    expect(baselineMismatch(failing('2025-03-26'), set)).toBeUndefined();
    expect(baselineMismatch(failing('2025-11-25'), set)).toBeUndefined();
    expect(baselineMismatch(failing('2025-06-18'), set)).toMatch(/^expected pass, got fail/);
    const all = baseline(entry(['new-initialize'], 'fail', 'all'));
    for (const revision of ['2025-03-26', '2025-06-18', '2025-11-25'] as const) expect(baselineMismatch(failing(revision), all)).toBeUndefined();
    expect(baselineMismatch(result([c('new-initialize', 'pass')], '2025-11-25'), all)).toMatch(/now passes at 2025-11-25/);
    // Another scenario's entry covers nothing here.
    expect(baselineMismatch(failing('2025-06-18'), baseline(entry(['new-initialize'], 'fail', 'all', 'retry/session-reestablished')))).toMatch(/^expected pass/);
  });

  test('the verdict is the worst of the entries that apply; when SHOULD failures fail, a warn entry expects fail', () => {
    const both = baseline(entry(['new-initialize']), entry(['adopts-new-id'], 'warn'));
    const checks = [c('new-initialize', 'fail'), c('adopts-new-id', 'fail', 'SHOULD')];
    expect(baselineMismatch(result(checks), both)).toBeUndefined();
    const onlyShould = [c('new-initialize', 'pass'), c('adopts-new-id', 'fail', 'SHOULD')];
    expect(baselineMismatch(result(onlyShould), baseline(entry(['adopts-new-id'], 'warn')))).toBeUndefined();
    expect(baselineMismatch(result(onlyShould, '2025-06-18', { strict: true }), baseline(entry(['adopts-new-id'], 'warn')), { strict: true })).toBeUndefined();
    // A check that became a MUST earns fail where the entry says warn.
    expect(baselineMismatch(result([c('adopts-new-id', 'fail')]), baseline(entry(['adopts-new-id'], 'warn')))).toBe('expected warn (baselined: known: adopts-new-id), got fail');
  });

  test('an inconclusive result matches only an inconclusive entry naming what could not be judged', () => {
    const unreached = result([c('reached-expiry', 'unmet'), c('new-initialize', 'inconclusive'), c('client-completed', 'fail')]);
    expect(unreached.verdict).toBe('inconclusive');
    expect(baselineMismatch(unreached, baseline())).toBe('inconclusive (reached-expiry: reached-expiry unmet), but the baseline expects pass: an inconclusive case matches only an entry with verdict inconclusive and its reason');
    expect(baselineMismatch(unreached, known)).toMatch(/^inconclusive \(reached-expiry: reached-expiry unmet\), but the baseline expects fail/);
    // With an unmet precondition the verdict rests on it alone: the failure beside it is not the client's.
    expect(baselineMismatch(unreached, baseline(entry(['reached-expiry'], 'inconclusive')))).toBeUndefined();
    expect(baselineMismatch(unreached, baseline(entry(['other-precondition'], 'inconclusive')))).toMatch(/new inconclusive check reached-expiry \[MUST\] inside a known-inconclusive cell/);
    // No precondition unmet: the rules never exercised are what the entry names.
    const unexercised = result([c('new-initialize', 'inconclusive'), c('client-completed', 'pass')]);
    expect(baselineMismatch(unexercised, baseline(entry(['new-initialize'], 'inconclusive')))).toBeUndefined();
    // The client now reaches the rule and breaks it: no longer what the entry says.
    expect(baselineMismatch(result([c('reached-expiry', 'pass'), c('new-initialize', 'fail')]), baseline(entry(['reached-expiry'], 'inconclusive')))).toMatch(
      /^expected inconclusive \(baselined: .*\), got fail\nnew failing check new-initialize \[MUST\]/,
    );
  });

  test('not applicable always matches', () => {
    expect(baselineMismatch({ ...result([]), verdict: 'n/a', reason: 'x does not speak 2025-06-18' }, known)).toBeUndefined();
  });
});

// ── what is wrong with a baseline beyond its shape ───────────────────────────────────────────────────────────

describe('what a gate makes of a comparison (npm test, as the package\'s test entries)', () => {
  // The checks of stdio/requests-answered on a busy machine: a deadline missed, which the machine may have caused.
  const busy = c('requests-answered', 'inconclusive');
  busy.detail = 'held only within a rerun\'s larger bounds; the machine was busy (busy 2 s of 3 s), so the lateness cannot be told from the machine\'s';

  test('a case the suite could not judge is skipped with its reason, never a failure, whatever verdict the baseline expects', () => {
    for (const known of [baseline(), baseline(entry(['requests-answered'])), baseline(entry(['requests-answered'], 'warn'))]) {
      const outcome = comparedWith(result([busy, c('client-completed', 'pass')]), known);
      expect(outcome.result.verdict).toBe('inconclusive');
      expect(outcome.comparison?.status).toBe('unjudged');
      expect(failsGate(outcome)).toBe(false);
      expect(skipReason(outcome)).toBe(`inconclusive: ${outcome.result.reason}`);
    }
    // A baselined failing check the machine left inconclusive beside another that still fails: not stale, skipped.
    const half = comparedWith(result([c('new-initialize', 'fail'), { ...busy, name: 'dead-id-never-sent-again' }]), baseline(entry(['new-initialize', 'dead-id-never-sent-again'])));
    expect(half.comparison?.status).toBe('unjudged');
    expect(failsGate(half)).toBe(false);
    expect(skipReason(half)).toMatch(/^could not judge what the baseline expects: check dead-id-never-sent-again of entry .* no longer fails at 2025-06-18 but is inconclusive/);
  });

  test('a regression or a stale entry still fails; a match of a judged case is neither skipped nor failed', () => {
    expect(failsGate(comparedWith(result([c('requests-answered', 'fail')]), baseline()))).toBe(true);
    expect(failsGate(comparedWith(result([c('requests-answered', 'pass')]), baseline(entry(['requests-answered']))))).toBe(true);
    const match = comparedWith(result([c('requests-answered', 'pass')]), baseline());
    expect([failsGate(match), skipReason(match)]).toEqual([false, undefined]);
  });

  test("a built-in adapter's baseline expects inconclusive only of the client's shape, never of the machine", () => {
    // The machine can take a judgement away (a deadline it may have caused to be missed: inconclusive, skipped above);
    // an entry expecting inconclusive must hold on a quiet machine too: the client never reaches the behaviour.
    for (const file of readdirSync(BASELINE_DIR).filter((name) => name.endsWith('.json') && name !== 'baseline.schema.json')) {
      const { known } = JSON.parse(readFileSync(join(BASELINE_DIR, file), 'utf8')) as Baseline;
      for (const e of known.filter((e) => e.verdict === 'inconclusive')) expect(e.reason, `${file}: ${e.scenario}`).not.toMatch(/\b(machine|busy|load|slow|in time|deadline)\b/i);
    }
  });
});

describe('baselineProblems', () => {
  const runs = new Map<string, Revision[]>([
    [SCENARIO, ['2025-03-26', '2025-06-18', '2025-11-25']],
    ['negotiation/modern-envelope', []],
  ]);
  test('a correct baseline has none', () => {
    expect(baselineProblems(baseline(entry(['a']), entry(['b'], 'warn', 'all')), runs)).toEqual([]);
  });
  test('an unknown scenario, a scenario that does not run, a revision it does not run at', () => {
    expect(baselineProblems(baseline(entry(['a'], 'fail', 'all', 'resume/nope'), entry(['a'], 'fail', 'all', 'negotiation/modern-envelope'), entry(['a'], 'fail', ['2024-11-05', '2025-06-18'])), runs)).toEqual([
      'entry resume/nope [a]: no scenario resume/nope',
      'entry negotiation/modern-envelope [a]: negotiation/modern-envelope runs at no revision on x',
      'entry resume/expired-404 [a]: resume/expired-404 does not run at 2024-11-05 on x (it runs at 2025-03-26, 2025-06-18, 2025-11-25)',
    ]);
  });
  test('a check named twice for one cell, and a cell both known to fail and known to be inconclusive', () => {
    expect(baselineProblems(baseline(entry(['a', 'b']), entry(['b'], 'warn', 'all')), runs)).toEqual(['resume/expired-404 @ 2025-06-18: b named by more than one entry']);
    expect(baselineProblems(baseline(entry(['a']), entry(['p'], 'inconclusive', 'all')), runs)).toEqual(['resume/expired-404 @ 2025-06-18: entries expect both inconclusive and fail; a cell is one or the other']);
  });
});

// ── the format ───────────────────────────────────────────────────────────────────────────────────────────────

describe('the baseline format', () => {
  const schema = JSON.parse(readFileSync(BASELINE_SCHEMA, 'utf8'));
  const validate = new Ajv2020({ allErrors: true, strict: true }).compile(schema);
  const shipped = readdirSync(BASELINE_DIR).filter((file) => file.endsWith('.json') && file !== 'baseline.schema.json');

  test('every shipped baseline is format 2, valid against its schema, and read as it is written', () => {
    expect(shipped.length).toBeGreaterThan(0);
    for (const file of shipped) {
      const raw = JSON.parse(readFileSync(join(BASELINE_DIR, file), 'utf8'));
      expect(validate(raw), `${file}: ${JSON.stringify(validate.errors)}`).toBe(true);
      const adapter = file.replace(/\.json$/, '');
      expect(loadBaseline(adapter, join(BASELINE_DIR, file))).toEqual(raw);
      expect(formatBaseline(raw), `${file} is formatted as scripts/baseline.ts writes it`).toBe(readFileSync(join(BASELINE_DIR, file), 'utf8'));
    }
  });

  test('the example in clients/WRITING-AN-ADAPTER.md is a valid baseline', () => {
    const guide = readFileSync(join(import.meta.dirname, '..', 'clients', 'WRITING-AN-ADAPTER.md'), 'utf8');
    const example = JSON.parse(/```json\n(\{\n  "adapter": "my-client"[\s\S]*?)```/.exec(guide)![1]!);
    expect(validate(example), JSON.stringify(validate.errors)).toBe(true);
    expect(parseBaseline(example, 'my-client')).toEqual(example);
  });

  test("the schema's revisions are the protocol's", () => {
    expect(schema.$defs.entry.properties.revisions.oneOf[1].items.enum).toEqual([...REVISIONS]);
  });

  test('an old file (no format) is refused with one line that says how to migrate it', () => {
    const old = { adapter: 'x', known: [{ scenario: SCENARIO, revision: '2025-06-18', verdict: 'fail', reason: 'r', spec: URL }] };
    expect(() => parseBaseline(old, 'x', '/somewhere/x.json')).toThrow(BaselineError);
    expect(() => parseBaseline(old, 'x', '/somewhere/x.json')).toThrow(
      /^\/somewhere\/x\.json: an old baseline \(one entry per scenario × revision, no "format"\); migrate it to format 2 \(one entry per check\) with: npx node scripts\/baseline\.ts x --from \/somewhere\/x\.json$/,
    );
    expect(validate(old)).toBe(false);
  });

  test('the reader and the schema refuse the same malformed entries', () => {
    const good = entry(['new-initialize']);
    const bad: [string, unknown][] = [
      ['no checks', { ...good, checks: [] }],
      ['a check twice', { ...good, checks: ['a', 'a'] }],
      ['a check name that is not kebab-case', { ...good, checks: ['New Initialize'] }],
      ['a revision that does not exist', { ...good, revisions: ['2025-01-01'] }],
      ['no revisions', { ...good, revisions: [] }],
      ['revisions neither a list nor "all"', { ...good, revisions: 'every' }],
      ['verdict pass', { ...good, verdict: 'pass' }],
      ['an empty reason', { ...good, reason: '  ' }],
      ['a spec that is not a URL', { ...good, spec: 'transports' }],
      ['an unknown field', { ...good, revision: '2025-06-18' }],
      ['no scenario', { ...good, scenario: undefined }],
    ];
    for (const [what, known] of bad) {
      const raw = JSON.parse(JSON.stringify({ adapter: 'x', format: 2, known: [known] }));
      expect(() => parseBaseline(raw, 'x'), what).toThrow(BaselineError);
      expect(validate(raw), what).toBe(false);
    }
    for (const raw of [{ ...good, revisions: 'all' }, { ...good, spec: [URL, URL.replace('2025-06-18', '2025-11-25')] }].map((known) => ({ adapter: 'x', format: 2, known: [known] }))) {
      expect(parseBaseline(raw, 'x')).toEqual(raw);
      expect(validate(raw)).toBe(true);
    }
    expect(() => parseBaseline({ adapter: 'x', format: 3, known: [] }, 'x')).toThrow(/baseline format 3 is not one this suite reads/);
    expect(() => parseBaseline({ adapter: 'y', format: 2, known: [] }, 'x')).toThrow(/a baseline for "y", not for "x"/);
  });

  test("MCP_CONFORMANCE_BASELINES: the user's folder is looked at first (resolved where npm was run), else the suite's", () => {
    const own = mkdtempSync(join(tmpdir(), 'baselines-'));
    try {
      const dir = readSettings({ MCP_CONFORMANCE_BASELINES: '.', INIT_CWD: own }).baselinesDir;
      expect(dir).toBe(own);
      expect(baselinePath('sdk-v1', dir)).toBe(join(BASELINE_DIR, 'sdk-v1.json'));
      writeFileSync(join(own, 'sdk-v1.json'), formatBaseline(baseline()).replace('"x"', '"sdk-v1"'));
      expect(baselinePath('sdk-v1', dir)).toBe(join(own, 'sdk-v1.json'));
      expect(loadBaseline('sdk-v1', baselinePath('sdk-v1', dir)).known).toEqual([]);
      expect(loadBaseline('no-such-adapter', baselinePath('no-such-adapter', dir))).toEqual({ adapter: 'no-such-adapter', format: 2, known: [] });
    } finally {
      rmSync(own, { recursive: true, force: true });
    }
  });
});

// ── writing a baseline from a run ────────────────────────────────────────────────────────────────────────────

describe('baselineFromRun', () => {
  const S = ['2025-03-26', '2025-06-18', '2025-11-25'] as const;
  const runs = new Map<string, Revision[]>([
    [SCENARIO, [...S]],
    ['disposal/in-flight-settled', [...S]],
  ]);
  const spec = (revision: Revision) => URL.replace('2025-06-18', revision);
  const old = {
    adapter: 'x',
    known: [
      ...S.map((revision) => ({ scenario: SCENARIO, revision, verdict: 'fail', reason: 'a 404 is surfaced', spec: spec(revision) })),
      ...S.map((revision) => ({ scenario: 'disposal/in-flight-settled', revision, verdict: 'warn', reason: 'no cancel', spec: spec(revision) })),
      { scenario: 'resume/gone', revision: '2025-06-18', verdict: 'fail', reason: 'r', spec: URL },
    ],
  };
  const run = (checksAt: (scenario: string, revision: Revision) => Check[]) =>
    new Map(S.flatMap((revision) => [SCENARIO, 'disposal/in-flight-settled'].map((scenario) => [cellKey(scenario, revision), result(checksAt(scenario, revision), revision, { scenario })] as const)));

  test('an old file: each cell gets the checks that fail, grouped across revisions with every spec URL, "all" for every revision', () => {
    const notes: string[] = [];
    const claims = claimsOf(old, 'x', 'x.json', runs, notes);
    expect(notes).toEqual(['resume/gone @ 2025-06-18: no such scenario; its entry dropped']);
    const results = run((scenario, revision) =>
      scenario === SCENARIO
        ? [c('new-initialize', 'fail'), c('dead-id-never-sent-again', revision === '2025-03-26' ? 'pass' : 'fail'), c('client-completed', 'pass')]
        : [c('cancelled-on-the-wire', revision === '2025-11-25' ? 'pass' : 'fail', 'SHOULD'), c('connections-released', 'fail', 'MAY')],
    );
    const written = baselineFromRun('x', claims, results, runs, notes);
    expect(written.known).toEqual([
      { scenario: SCENARIO, checks: ['new-initialize'], revisions: ['2025-03-26'], verdict: 'fail', reason: 'a 404 is surfaced', spec: spec('2025-03-26') },
      { scenario: SCENARIO, checks: ['new-initialize', 'dead-id-never-sent-again'], revisions: ['2025-06-18', '2025-11-25'], verdict: 'fail', reason: 'a 404 is surfaced', spec: [spec('2025-06-18'), spec('2025-11-25')] },
      { scenario: 'disposal/in-flight-settled', checks: ['cancelled-on-the-wire'], revisions: ['2025-03-26', '2025-06-18'], verdict: 'warn', reason: 'no cancel', spec: [spec('2025-03-26'), spec('2025-06-18')] },
    ]);
    expect(notes.slice(1)).toEqual(['disposal/in-flight-settled @ 2025-11-25: now passes; its entry dropped']);
    // What was written from the run matches the run.
    for (const r of results.values()) expect(baselineMismatch(r, written), cellKey(r.scenarioId, r.revision)).toBeUndefined();

    // Run again on what it wrote (format 2), with every revision failing alike: one entry with "all".
    const again = run((scenario) => (scenario === SCENARIO ? [c('new-initialize', 'fail'), c('dead-id-never-sent-again', 'fail')] : [c('cancelled-on-the-wire', 'pass', 'SHOULD')]));
    const notes2: string[] = [];
    const rewritten = baselineFromRun('x', claimsOf(written, 'x', 'x.json', runs, notes2), again, runs, notes2);
    expect(rewritten.known).toEqual([{ scenario: SCENARIO, checks: ['new-initialize', 'dead-id-never-sent-again'], revisions: 'all', verdict: 'fail', reason: 'a 404 is surfaced', spec: S.map(spec) }]);
    expect(notes2).toEqual([
      'resume/expired-404 @ 2025-03-26: new dead-id-never-sent-again added under the reason "a 404 is surfaced": check that it still holds',
      'disposal/in-flight-settled @ 2025-03-26: now passes; its entry dropped',
      'disposal/in-flight-settled @ 2025-06-18: now passes; its entry dropped',
    ]);
  });

  test('an inconclusive cell is written as inconclusive, naming what could not be judged; a cell of several entries gets no check without a reason', () => {
    const two: Baseline = baseline(entry(['new-initialize'], 'fail', 'all'), { ...entry(['adopts-new-id'], 'warn', 'all'), reason: 'keeps the old id' });
    const results = run((scenario, revision) =>
      scenario !== SCENARIO ? [] : revision === '2025-03-26' ? [c('reached-expiry', 'unmet'), c('new-initialize', 'inconclusive')] : [c('new-initialize', 'fail'), c('adopts-new-id', 'fail', 'SHOULD'), c('dead-id-never-sent-again', 'fail')],
    );
    const notes: string[] = [];
    const written = baselineFromRun('x', claimsOf(two, 'x', 'x.json', runs, notes), results, runs, notes);
    expect(written.known).toEqual([
      { ...entry(['new-initialize'], 'fail', ['2025-06-18', '2025-11-25']) },
      { ...entry(['adopts-new-id'], 'warn', ['2025-06-18', '2025-11-25']), reason: 'keeps the old id' },
    ]);
    expect(notes).toContain('resume/expired-404 @ 2025-06-18: dead-id-never-sent-again named by no entry: not written (add an entry with its reason)');
    expect(notes).toContain('resume/expired-404 @ 2025-03-26: reached-expiry named by no entry: not written (add an entry with its reason)');

    const one = baselineFromRun('x', claimsOf(baseline(entry(['new-initialize'], 'fail', 'all')), 'x', 'x.json', runs, []), results, runs, []);
    expect(one.known[0]).toEqual({ ...entry(['reached-expiry'], 'inconclusive', ['2025-03-26']), reason: 'known: new-initialize' });
    expect(baselineMismatch(results.get(cellKey(SCENARIO, '2025-03-26'))!, one)).toBeUndefined();
  });
});
