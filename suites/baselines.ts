// Baselines: the known, reasoned failures of real clients, per check. `npm test` is green when every result matches.
//
// Format 2 (suites/baselines/baseline.schema.json): an entry names a scenario, the checks that fail (or cannot be
// judged) there, the revisions it covers (a set, or "all": every revision the scenario runs at for this adapter), the
// verdict those checks earn, the reason and the spec section. A result matches when every check its verdict rests on is
// named by an entry covering its cell, every check the entries name still shows, and the verdict is the entries' worst:
// a second rule breaking inside a known-failing cell is caught, and an entry goes stale check by check.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative } from 'node:path';
import type { ClientAdapter } from '../clients/adapter.ts';
import { settings } from '../config/settings.ts';
import { REVISIONS, type Revision } from '../protocol/revisions.ts';
import { runnableRevisions } from './plan.ts';
import { notApplicable } from './runner.ts';
import { unmet, type Check, type Scenario, type ScenarioResult, type Verdict } from './scenario.ts';

export const BASELINE_FORMAT = 2;

/** The verdicts an entry can expect: fail or warn (the client breaks a rule), inconclusive (it cannot reach one). */
export type KnownVerdict = 'fail' | 'warn' | 'inconclusive';
const KNOWN_VERDICTS: readonly KnownVerdict[] = ['fail', 'warn', 'inconclusive'];

export interface BaselineEntry {
  scenario: string;
  /** The checks that fail (verdict fail or warn) or cannot be judged (verdict inconclusive) in this scenario. */
  checks: string[];
  /** The revisions the entry covers; "all": every revision the scenario runs at for this adapter. */
  revisions: Revision[] | 'all';
  verdict: KnownVerdict;
  /** Why the client behaves so, in one or two sentences. */
  reason: string;
  /** The spec section (URL) the behaviour breaks, or one URL per revision where the section's address differs. */
  spec: string | string[];
}

export interface Baseline {
  /** The schema, for editors (optional). */
  $schema?: string;
  adapter: string;
  format: typeof BASELINE_FORMAT;
  known: BaselineEntry[];
}

export const BASELINE_DIR = join(import.meta.dirname, 'baselines');
export const BASELINE_SCHEMA = join(BASELINE_DIR, 'baseline.schema.json');

/** A baseline that cannot be read, in one line that says what is wrong and where. */
export class BaselineError extends Error {
  override name = 'BaselineError';
}

/** The command that writes a baseline from a run (and migrates an old one). */
export const WRITE_BASELINE = 'npx node scripts/baseline.ts';

/** The adapter's baseline file: in the user's own folder (MCP_CONFORMANCE_BASELINES) when it has one, else the suite's. */
export function baselinePath(adapter: string, ownDir: string | undefined = settings().baselinesDir): string {
  if (ownDir !== undefined) {
    const own = join(ownDir, `${adapter}.json`);
    if (existsSync(own)) return own;
  }
  return join(BASELINE_DIR, `${adapter}.json`);
}

/** The adapter's baseline; an adapter without a file is expected to pass everything. */
export function loadBaseline(adapter: string, path: string = baselinePath(adapter)): Baseline {
  if (!existsSync(path)) return { adapter, format: BASELINE_FORMAT, known: [] };
  return parseBaseline(readBaselineJson(path), adapter, path);
}

/** A baseline file the user named (`run --baseline`): one that is absent, unreadable or invalid is a BaselineError. */
export function readBaselineFile(path: string, adapter: string): Baseline {
  return parseBaseline(readBaselineJson(path), adapter, path);
}

/** A baseline file's JSON, not yet checked; one that cannot be read or parsed is a BaselineError. */
export function readBaselineJson(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new BaselineError(`${shown(path)}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'a folder, not a baseline file' : (error as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new BaselineError(`${shown(path)}: not JSON (${(error as Error).message})`);
  }
}

/** A path as the user reads it: relative to where they are when it is below, else as it is. */
function shown(path: string): string {
  const below = relative(process.cwd(), path);
  return below === '' || below.startsWith('..') || isAbsolute(below) ? path : below;
}

/** Checks the shape of a baseline (the same rules as baseline.schema.json) and refuses the old format. */
export function parseBaseline(raw: unknown, adapter: string, path = `${adapter}.json`): Baseline {
  const fail = (what: string): never => {
    throw new BaselineError(`${shown(path)}: ${what}`);
  };
  if (!isObject(raw)) return fail('not a baseline (a JSON object with adapter, format and known)');
  if (raw.format === undefined) {
    fail(`an old baseline (one entry per scenario × revision, no "format"); migrate it to format ${BASELINE_FORMAT} (one entry per check) with: ${WRITE_BASELINE} ${adapter} --from ${shown(path)}`);
  }
  if (raw.format !== BASELINE_FORMAT) fail(`baseline format ${JSON.stringify(raw.format)} is not one this suite reads (format ${BASELINE_FORMAT})`);
  if (raw.adapter !== adapter) fail(`a baseline for ${JSON.stringify(raw.adapter)}, not for "${adapter}"`);
  unexpectedKeys(raw, ['$schema', 'adapter', 'format', 'known'], 'the baseline', fail);
  if (raw.$schema !== undefined && typeof raw.$schema !== 'string') fail('"$schema" must be a string');
  if (!Array.isArray(raw.known)) return fail('"known" must be a list of entries');
  raw.known.forEach((entry: unknown, index) => checkEntry(entry, `known[${index}]`, fail));
  return raw as unknown as Baseline;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const NAME = /^[a-z0-9][a-z0-9-]*$/;
const SCENARIO_ID = /^[a-z0-9][a-z0-9-]*\/[a-z0-9][a-z0-9-]*$/;
const URL_PATTERN = /^https?:\/\/\S+$/;
const ENTRY_KEYS = ['scenario', 'checks', 'revisions', 'verdict', 'reason', 'spec'];

function unexpectedKeys(object: Record<string, unknown>, allowed: readonly string[], where: string, fail: (what: string) => never): void {
  const extra = Object.keys(object).filter((key) => !allowed.includes(key));
  if (extra.length > 0) fail(`${where} has unknown ${extra.length === 1 ? 'field' : 'fields'} ${extra.map((k) => `"${k}"`).join(', ')} (it has ${allowed.join(', ')})`);
}

const uniqueStrings = (value: unknown, valid: (item: string) => boolean): value is string[] =>
  Array.isArray(value) && value.length > 0 && value.every((item) => typeof item === 'string' && valid(item)) && new Set(value).size === value.length;

function checkEntry(entry: unknown, where: string, fail: (what: string) => never): void {
  if (!isObject(entry)) fail(`${where} must be an object with ${ENTRY_KEYS.join(', ')}`);
  const e = entry as Record<string, unknown>;
  unexpectedKeys(e, ENTRY_KEYS, where, fail);
  if (typeof e.scenario !== 'string' || !SCENARIO_ID.test(e.scenario)) fail(`${where}.scenario must be a scenario id such as "resume/expired-404"`);
  if (!uniqueStrings(e.checks, (name) => NAME.test(name))) fail(`${where}.checks must be a non-empty list of distinct check names such as "new-initialize"`);
  if (e.revisions !== 'all' && !uniqueStrings(e.revisions, (r) => (REVISIONS as readonly string[]).includes(r))) {
    fail(`${where}.revisions must be "all" or a non-empty list of distinct revisions among ${REVISIONS.join(', ')}`);
  }
  if (!KNOWN_VERDICTS.includes(e.verdict as KnownVerdict)) fail(`${where}.verdict must be one of ${KNOWN_VERDICTS.join(', ')}`);
  if (typeof e.reason !== 'string' || e.reason.trim() === '') fail(`${where}.reason must say why the client behaves so`);
  if (!(typeof e.spec === 'string' && URL_PATTERN.test(e.spec)) && !uniqueStrings(e.spec, (url) => URL_PATTERN.test(url))) {
    fail(`${where}.spec must be the URL of the spec section the behaviour breaks (or a list of them)`);
  }
}

export const covers = (entry: BaselineEntry, revision: Revision): boolean => entry.revisions === 'all' || entry.revisions.includes(revision);

/** The entries that cover a cell. */
export function entriesFor(baseline: Baseline, scenario: string, revision: Revision): BaselineEntry[] {
  return baseline.known.filter((entry) => entry.scenario === scenario && covers(entry, revision));
}

/** How an entry is named in messages: `resume/expired-404 [new-initialize, dead-id-never-sent-again]`. */
export const entryLabel = (entry: BaselineEntry): string => `${entry.scenario} [${entry.checks.join(', ')}]`;

/**
 * The checks a verdict rests on, which a baseline must name: for fail or warn every failed MUST and SHOULD check (a
 * failed MAY never counts); for inconclusive the unmet preconditions, else the MUST and SHOULD rules never exercised.
 */
export function verdictChecks(result: ScenarioResult): Check[] {
  const counts = (check: Check) => check.spec.level !== 'MAY';
  if (result.verdict === 'fail' || result.verdict === 'warn') return result.checks.filter((check) => check.outcome === 'fail' && counts(check));
  if (result.verdict === 'inconclusive') {
    const preconditions = result.checks.filter(unmet);
    return preconditions.length > 0 ? preconditions : result.checks.filter((check) => check.outcome === 'inconclusive' && counts(check));
  }
  return [];
}

const SEVERITY: Record<KnownVerdict, number> = { inconclusive: 0, warn: 1, fail: 2 };

/** The verdict a cell's entries expect: the worst of them (a warn entry expects fail when SHOULD failures fail). */
export function expectedVerdict(entries: readonly BaselineEntry[], strict = false): Verdict {
  if (entries.length === 0) return 'pass';
  const verdicts = entries.map((entry) => (strict && entry.verdict === 'warn' ? 'fail' : entry.verdict));
  return verdicts.reduce((worst, verdict) => (SEVERITY[verdict] > SEVERITY[worst] ? verdict : worst));
}

/**
 * How a result differs from the baseline, one line per difference, each of a kind: `regression` (the client does
 * worse than the baseline says: a new failing check, a worse verdict), `stale` (the baseline says worse than the
 * client does, or names what is not there: an entry to remove or fix), `unjudged` (the suite could not judge what the
 * baseline expects: an inconclusive case or check, which is never the client's fault).
 */
export type DifferenceKind = 'regression' | 'stale' | 'unjudged';
export interface Difference {
  kind: DifferenceKind;
  text: string;
}

export interface CompareOptions {
  strict?: boolean;
  /** How to rewrite the baseline, said with an entry that now passes (default: the suite's own baseline command). */
  rewrite?: string;
}

/** Every difference between a result and the baseline; empty when it matches. Not applicable always matches. */
export function baselineDifferences(result: ScenarioResult, baseline: Baseline, options: CompareOptions = {}): Difference[] {
  if (result.verdict === 'n/a') return [];
  const { scenarioId: scenario, revision } = result;
  const entries = entriesFor(baseline, scenario, revision);
  const expected = expectedVerdict(entries, options.strict);
  const rewrite = options.rewrite ?? `${WRITE_BASELINE} ${baseline.adapter} rewrites ${shown(baselinePath(baseline.adapter))} from a run`;

  // A case the suite could not judge matches only what a baseline says cannot be judged, and nothing else is said of it.
  if (result.verdict === 'inconclusive' && expected !== 'inconclusive') {
    return [{ kind: 'unjudged', text: `inconclusive (${result.reason ?? 'no reason given'}), but the baseline expects ${expected}: an inconclusive case matches only an entry with verdict inconclusive and its reason` }];
  }
  const differences: Difference[] = [];
  const add = (kind: DifferenceKind, text: string) => differences.push({ kind, text });
  if (result.verdict !== expected) {
    // Both are judged verdicts here, or the baseline expects inconclusive and the case was judged after all.
    const rank = (verdict: Verdict) => ['pass', 'warn', 'fail'].indexOf(verdict);
    const worse = expected === 'inconclusive' ? result.verdict !== 'pass' : rank(result.verdict) > rank(expected);
    add(worse ? 'regression' : 'stale', entries.length === 0 ? `expected pass, got ${result.verdict}` : `expected ${expected} (baselined: ${entries.map((e) => e.reason).join(' / ')}), got ${result.verdict}`);
  }
  const named = new Set(entries.flatMap((entry) => entry.checks));
  for (const check of verdictChecks(result)) {
    if (named.has(check.name)) continue;
    const inconclusive = result.verdict === 'inconclusive';
    add(inconclusive ? 'unjudged' : 'regression', `${inconclusive ? 'new inconclusive check' : 'new failing check'} ${check.name} [${check.spec.level}]${entries.length > 0 ? ` inside a known-${expected === 'inconclusive' ? 'inconclusive' : 'failing'} cell (baselined: ${[...named].join(', ')})` : ''}`);
  }
  for (const entry of entries) {
    for (const name of entry.checks) {
      const check = result.checks.find((c) => c.name === name);
      const of = `check ${name} of entry ${entryLabel(entry)}`;
      if (check === undefined) add('stale', `entry ${entryLabel(entry)} names check ${name}, which ${scenario} does not report at ${revision} (its checks: ${result.checks.map((c) => c.name).join(', ')})`);
      else if (check.outcome === 'pass') add('stale', `${of} now passes at ${revision}: remove it (${rewrite})`);
      else if (check.spec.level === 'MAY') add('stale', `${of} is a MAY check, whose failures never count: remove it`);
      else if (entry.verdict === 'inconclusive' && check.outcome === 'fail') add('regression', `${of} (inconclusive) now fails at ${revision}: ${check.detail}`);
      else if (entry.verdict !== 'inconclusive' && check.outcome === 'inconclusive') add('unjudged', `${of} no longer fails at ${revision} but is inconclusive: ${check.detail}`);
    }
  }
  return differences;
}

/**
 * Compares a result with the baseline. Not applicable always matches (it is reported, not judged). Returns undefined
 * when it matches, or what is wrong, one line per problem.
 */
export function baselineMismatch(result: ScenarioResult, baseline: Baseline, options: CompareOptions = {}): string | undefined {
  const differences = baselineDifferences(result, baseline, options);
  return differences.length > 0 ? differences.map((d) => d.text).join('\n') : undefined;
}

/**
 * What a result's differences come to, for a gate: `regression` or `stale` fail it; `unjudged` (the case, or a check
 * the baseline names, could not be judged) and `n/a` do not; `match` is a match.
 */
export type CaseStatus = 'match' | 'regression' | 'stale' | 'unjudged' | 'n/a';
export function caseStatus(result: ScenarioResult, differences: readonly Difference[]): CaseStatus {
  if (result.verdict === 'n/a') return 'n/a';
  if (differences.length === 0) return 'match';
  // An inconclusive case cannot show that an entry went stale either: nothing of it is judged.
  if (result.verdict === 'inconclusive') return 'unjudged';
  if (differences.some((d) => d.kind === 'regression')) return 'regression';
  return differences.some((d) => d.kind === 'stale') ? 'stale' : 'unjudged';
}

/** The revisions each scenario runs at for this adapter (its runnable revisions the adapter can take part in). */
export function revisionsRun(adapter: ClientAdapter, scenarios: readonly Scenario[]): Map<string, Revision[]> {
  return new Map(scenarios.map((scenario) => [scenario.id, runnableRevisions(scenario).filter((revision) => notApplicable(scenario, adapter, revision) === undefined)]));
}

/** The revisions an entry covers, "all" resolved. */
export function coveredRevisions(entry: BaselineEntry, runs: ReadonlyMap<string, readonly Revision[]>): Revision[] {
  const run = runs.get(entry.scenario) ?? [];
  return entry.revisions === 'all' ? [...run] : entry.revisions;
}

/**
 * What is wrong with a baseline beyond its shape, given where each scenario runs for its adapter: an entry must name a
 * scenario that runs at every revision it covers, no check may be named twice for one cell, and a cell cannot be both
 * known to fail and known to be inconclusive. (That each named check exists is seen when its cases run.)
 */
export function baselineProblems(baseline: Baseline, runs: ReadonlyMap<string, readonly Revision[]>): string[] {
  const problems: string[] = [];
  for (const entry of baseline.known) {
    const run = runs.get(entry.scenario);
    if (run === undefined) problems.push(`entry ${entryLabel(entry)}: no scenario ${entry.scenario}`);
    else if (run.length === 0) problems.push(`entry ${entryLabel(entry)}: ${entry.scenario} runs at no revision on ${baseline.adapter}`);
    else if (entry.revisions !== 'all') {
      const missing = entry.revisions.filter((revision) => !run.includes(revision));
      if (missing.length > 0) problems.push(`entry ${entryLabel(entry)}: ${entry.scenario} does not run at ${missing.join(', ')} on ${baseline.adapter} (it runs at ${run.join(', ')})`);
    }
  }
  const cells = new Map<string, BaselineEntry[]>();
  for (const entry of baseline.known) {
    for (const revision of coveredRevisions(entry, runs)) {
      const key = `${entry.scenario} @ ${revision}`;
      cells.set(key, [...(cells.get(key) ?? []), entry]);
    }
  }
  for (const [cell, entries] of cells) {
    const names = entries.flatMap((entry) => entry.checks);
    const twice = [...new Set(names.filter((name, index) => names.indexOf(name) !== index))];
    if (twice.length > 0) problems.push(`${cell}: ${twice.join(', ')} named by more than one entry`);
    const inconclusive = entries.filter((entry) => entry.verdict === 'inconclusive');
    if (inconclusive.length > 0 && inconclusive.length < entries.length) problems.push(`${cell}: entries expect both inconclusive and ${expectedVerdict(entries.filter((e) => e.verdict !== 'inconclusive'))}; a cell is one or the other`);
  }
  return problems;
}

// ── writing a baseline from a run (scripts/baseline.ts) ──────────────────────────────────────────────────────────

/** What a baseline says of one cell: the input of a rewrite. `checks` undefined: the whole cell (the old format). */
export interface Claim {
  scenario: string;
  revision: Revision;
  checks?: readonly string[];
  verdict: string;
  reason: string;
  /** The spec URLs that cite this revision. */
  spec: string[];
}

export const cellKey = (scenario: string, revision: Revision): string => `${scenario} @ ${revision}`;

/**
 * The cells a baseline file names, in either format (an old file is read here only, to migrate it), with its reasons
 * and spec URLs. Cells at a scenario or revision that does not run are left out, with a note.
 */
export function claimsOf(raw: unknown, adapter: string, path: string, runs: ReadonlyMap<string, readonly Revision[]>, notes: string[]): Claim[] {
  const runsAt = (scenario: string, revision: Revision, what: string) => {
    const ok = runs.get(scenario)?.includes(revision) ?? false;
    if (!ok) notes.push(`${cellKey(scenario, revision)}: ${runs.has(scenario) ? `does not run on ${adapter}` : 'no such scenario'}; ${what} dropped`);
    return ok;
  };
  if (isObject(raw) && raw.format === undefined && Array.isArray(raw.known)) {
    if (raw.adapter !== adapter) throw new BaselineError(`${shown(path)}: a baseline for ${JSON.stringify(raw.adapter)}, not for "${adapter}"`);
    return raw.known.flatMap((entry: unknown, index): Claim[] => {
      const e = isObject(entry) ? entry : {};
      const strings = ['scenario', 'revision', 'verdict', 'reason', 'spec'].every((key) => typeof e[key] === 'string');
      if (!strings) throw new BaselineError(`${shown(path)}: known[${index}] is not an entry of the old format (scenario, revision, verdict, reason, spec)`);
      const [scenario, revision] = [e.scenario as string, e.revision as Revision];
      return runsAt(scenario, revision, 'its entry') ? [{ scenario, revision, verdict: e.verdict as string, reason: e.reason as string, spec: [e.spec as string] }] : [];
    });
  }
  const baseline = parseBaseline(raw, adapter, path);
  return baseline.known.flatMap((entry) => {
    const specs = typeof entry.spec === 'string' ? [entry.spec] : entry.spec;
    const revisions = entry.revisions === 'all' ? [...(runs.get(entry.scenario) ?? [])] : entry.revisions.filter((revision) => runsAt(entry.scenario, revision, `entry ${entryLabel(entry)}`));
    return revisions.map((revision) => {
      const cited = specs.filter((url) => url.includes(`/${revision}/`));
      return { scenario: entry.scenario, revision, checks: entry.checks, verdict: entry.verdict, reason: entry.reason, spec: cited.length > 0 ? cited : specs };
    });
  });
}

export interface FromRunOptions {
  /**
   * Also write what no entry names (a failing or inconclusive check in a cell no entry claims, or one the entries of
   * its cell leave out) as new entries under this reason, which the user is to replace with the real one. Without
   * it such checks are only noted: a reason is never invented.
   */
  newReason?: string;
}

/**
 * The baseline a run gives: for each cell claimed, the checks its verdict now rests on (verdictChecks), under the reason
 * and spec of the entry that named them (a cell with one entry, or an old cell, takes every such check), grouped across
 * revisions into one entry per (scenario, checks, verdict, reason); a revision set that is every revision the scenario
 * runs at becomes "all". A claimed cell the run did not run (a run of some scenarios only) keeps its entries as they
 * were. What changed is said in `notes`: entries that now pass, checks that no longer fail, new ones.
 */
export function baselineFromRun(adapter: string, claims: readonly Claim[], results: ReadonlyMap<string, ScenarioResult>, runs: ReadonlyMap<string, readonly Revision[]>, notes: string[], options: FromRunOptions = {}): Baseline {
  const cells = new Map<string, Claim[]>();
  for (const claim of claims) {
    const key = cellKey(claim.scenario, claim.revision);
    cells.set(key, [...(cells.get(key) ?? []), claim]);
  }
  interface Row { scenario: string; revision: Revision; checks: string[]; verdict: KnownVerdict; reason: string; spec: string[] }
  const rows: Row[] = [];
  const verdictOf = (result: ScenarioResult, checks: readonly Check[]): KnownVerdict => (result.verdict === 'inconclusive' ? 'inconclusive' : checks.some((c) => c.spec.level === 'MUST') ? 'fail' : 'warn');
  /** Checks no entry names: new entries under the placeholder reason when there is one, else a note. */
  const unnamed = (result: ScenarioResult, checks: readonly Check[], where: string) => {
    if (checks.length === 0) return;
    const names = checks.map((c) => c.name).join(', ');
    if (options.newReason === undefined) {
      notes.push(`${where}: ${names} named by no entry: not written (add an entry with its reason)`);
      return;
    }
    notes.push(`${where}: ${names} ${result.verdict === 'inconclusive' ? 'inconclusive' : 'failing'}, written as a new entry: replace its reason with why the client behaves so`);
    rows.push({ scenario: result.scenarioId, revision: result.revision, checks: checks.map((c) => c.name), verdict: verdictOf(result, checks), reason: options.newReason, spec: [...new Set(checks.map((c) => c.spec.url))] });
  };
  for (const [cell, claimed] of cells) {
    const result = results.get(cell);
    if (result === undefined) {
      const whole = claimed.find((claim) => claim.checks === undefined);
      if (whole) throw new Error(`no result for ${cell}: an entry of the old format cannot be kept without a run`);
      for (const claim of claimed) rows.push({ scenario: claim.scenario, revision: claim.revision, checks: [...claim.checks!], verdict: claim.verdict as KnownVerdict, reason: claim.reason, spec: claim.spec });
      continue;
    }
    if (result.verdict === 'n/a' || result.verdict === 'pass') {
      notes.push(`${cell}: ${result.verdict === 'pass' ? 'now passes' : `not applicable (${result.reason})`}; its ${claimed.length === 1 ? 'entry' : 'entries'} dropped`);
      continue;
    }
    const resting = verdictChecks(result);
    const taken = new Set<string>();
    for (const claim of claimed) {
      const mine = claimed.length === 1 ? resting : resting.filter((check) => claim.checks?.includes(check.name));
      mine.forEach((check) => taken.add(check.name));
      if (claim.checks === undefined && claim.verdict !== result.verdict) notes.push(`${cell}: was ${claim.verdict}, now ${result.verdict} (${mine.map((c) => c.name).join(', ')})`);
      if (claim.checks !== undefined) {
        const gone = claim.checks.filter((name) => !mine.some((c) => c.name === name));
        const added = mine.filter((c) => !claim.checks!.includes(c.name)).map((c) => c.name);
        if (gone.length > 0) notes.push(`${cell}: ${gone.join(', ')} no longer ${result.verdict === 'inconclusive' ? 'inconclusive' : 'failing'}; removed`);
        if (added.length > 0) notes.push(`${cell}: new ${added.join(', ')} added under the reason "${claim.reason}": check that it still holds`);
      }
      if (mine.length === 0) continue;
      rows.push({ scenario: claim.scenario, revision: claim.revision, checks: mine.map((c) => c.name), verdict: verdictOf(result, mine), reason: claim.reason, spec: claim.spec });
    }
    unnamed(result, resting.filter((check) => !taken.has(check.name)), cell);
  }
  // The cells of the run no entry claims (a caller that runs only the claimed cells has none).
  for (const [cell, result] of results) {
    if (cells.has(cell) || result.verdict === 'pass' || result.verdict === 'n/a') continue;
    unnamed(result, verdictChecks(result), cell);
  }
  const groups = new Map<string, Row[]>();
  for (const row of rows) {
    const key = JSON.stringify([row.scenario, row.checks, row.verdict, row.reason]);
    groups.set(key, [...(groups.get(key) ?? []), row]);
  }
  const known = [...groups.values()].map((group): BaselineEntry => {
    const { scenario, checks, verdict, reason } = group[0]!;
    const revisions = REVISIONS.filter((revision) => group.some((row) => row.revision === revision));
    const run = runs.get(scenario) ?? [];
    const all = revisions.length > 1 && run.length === revisions.length && run.every((revision) => revisions.includes(revision));
    const specs = [...new Set(revisions.flatMap((revision) => group.filter((row) => row.revision === revision).flatMap((row) => row.spec)))];
    return { scenario, checks, revisions: all ? 'all' : revisions, verdict, reason, spec: specs.length === 1 ? specs[0]! : specs };
  });
  return { adapter, format: BASELINE_FORMAT, known };
}

/**
 * Writes the baseline a run gives to `to`, keeping the reasons and spec URLs of the file `from` (default `to`) when it
 * exists (claimsOf, baselineFromRun): `scripts/baseline.ts` and `run --write-baseline` both write through here. The
 * file is replaced atomically and points at the schema. Returns what was written and the notes of what changed.
 */
export function writeBaselineFromRun(args: {
  adapter: string;
  to: string;
  from?: string;
  results: Iterable<ScenarioResult>;
  runs: ReadonlyMap<string, readonly Revision[]>;
  options?: FromRunOptions;
}): { baseline: Baseline; notes: string[]; entriesBefore: number } {
  const from = args.from ?? args.to;
  const notes: string[] = [];
  const raw = existsSync(from) ? readBaselineJson(from) : undefined;
  const claims = raw === undefined ? [] : claimsOf(raw, args.adapter, from, args.runs, notes);
  const results = new Map([...args.results].map((result) => [cellKey(result.scenarioId, result.revision), result]));
  const written = baselineFromRun(args.adapter, claims, results, args.runs, notes, args.options);
  const baseline: Baseline = { $schema: schemaReference(args.to), ...written };
  mkdirSync(dirname(args.to), { recursive: true });
  const temporary = `${args.to}.${process.pid}.tmp`;
  writeFileSync(temporary, formatBaseline(baseline));
  renameSync(temporary, args.to);
  const entriesBefore = isObject(raw) && Array.isArray(raw.known) ? raw.known.length : 0;
  return { baseline, notes, entriesBefore };
}

/** The baseline schema as a file at `path` names it: beside the suite's own baselines, else a relative path to it. */
function schemaReference(path: string): string {
  return dirname(path) === BASELINE_DIR ? './baseline.schema.json' : relative(dirname(path), BASELINE_SCHEMA);
}

/** A baseline as its file holds it: one field per line, lists of names and revisions on one line. */
export function formatBaseline(baseline: Baseline): string {
  const inline = (value: unknown): string => (Array.isArray(value) ? `[${value.map(inline).join(', ')}]` : JSON.stringify(value));
  const entry = (e: BaselineEntry) => ['    {', ...ENTRY_KEYS.map((key, i) => `      "${key}": ${inline(e[key as keyof BaselineEntry])}${i < ENTRY_KEYS.length - 1 ? ',' : ''}`), '    }'].join('\n');
  const head = [...(baseline.$schema !== undefined ? [`  "$schema": ${inline(baseline.$schema)},`] : []), `  "adapter": ${inline(baseline.adapter)},`, `  "format": ${baseline.format},`];
  const known = baseline.known.length === 0 ? '  "known": []' : `  "known": [\n${baseline.known.map(entry).join(',\n')}\n  ]`;
  return `{\n${head.join('\n')}\n${known}\n}\n`;
}
