// Requirement sets per revision (`run --requirements <revision>`): which scenarios, and which of their checks, are
// scored for a client that claims a revision, frozen in suites/requirements.json the way the official suite freezes
// its sets (@modelcontextprotocol/conformance requirements/<revision>.yaml), and whether a run's results meet one.
//
// Scoring, as the official tier check scores a set: a scored case is met when none of its frozen checks failed; a
// failed SHOULD (a warn) does not count against the set (the official suite counts FAILURE only), unless strict, where
// it fails as everywhere in `run`. What is not scored, and why: a scenario not defined at the revision; one the set
// lists as not scored (`convention`: its headline rule is no spec text; `pending`); one added after the set was frozen;
// a case the client's declarations take out of scope (an optional feature or transport it does not declare, or a
// shape the scenario cannot drive). A client that does not speak the revision does not meet its set.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Revision } from '../protocol/revisions.ts';
import { SCENARIOS } from './index.ts';
import type { ScenarioResult } from './scenario.ts';

/** Why a scenario defined at the revision is run and reported but not scored (the official suite's word where it has one). */
export const NOT_SCORED_REASONS = {
  convention: 'its headline rule is no spec text (an interoperability practice or a library convention, docs/traceability.md status C)',
  pending: 'the scenario cannot yet give a true verdict on every correct client',
} as const;
export type NotScoredReason = keyof typeof NOT_SCORED_REASONS;

export interface RequirementSet {
  /** Each scored scenario with the checks scored in it (its judge's checks at that revision when the set was frozen). */
  scored: Record<string, string[]>;
  /** Scenarios defined at the revision that run and are reported but never count, each with why. */
  notScored: Record<string, { reason: NotScoredReason; note: string }>;
}

export interface RequirementSets {
  frozen: string;
  anchor: string;
  sets: Partial<Record<Revision, RequirementSet>>;
}

export const REQUIREMENTS_FILE = join(import.meta.dirname, 'requirements.json');

let loaded: RequirementSets | undefined;
export function requirementSets(): RequirementSets {
  loaded ??= JSON.parse(readFileSync(REQUIREMENTS_FILE, 'utf8')) as RequirementSets;
  return loaded;
}

/** The revisions that have a frozen set. */
export const requirementRevisions = (): Revision[] => Object.keys(requirementSets().sets) as Revision[];

export class RequirementsError extends Error {}

export function requirementSet(revision: string): RequirementSet {
  const set = requirementSets().sets[revision as Revision];
  if (set === undefined) throw new RequirementsError(`no requirement set for ${revision}; sets: ${requirementRevisions().join(', ')}`);
  return set;
}

/** One scenario of the report: scored (with the case's verdict on the set) or not, and why. */
export interface RequirementLine {
  scenario: string;
  /** met: no frozen check failed; not-met; undecided: the case was inconclusive (or did not run); out of scope: not scored for this client. */
  status: 'met' | 'not-met' | 'undecided' | 'not-scored';
  /** Why it is not met, undecided or not scored; for a met case, SHOULD warnings and failed checks outside the set, if any. */
  why?: string;
}

export interface RequirementReport {
  revision: Revision;
  /** met: every scored case met; not-met: a scored case failed or the client does not speak the revision; undecided: none failed, some could not be judged. */
  verdict: 'met' | 'not-met' | 'undecided';
  /** Why not met or undecided, in one line. */
  summary: string;
  scored: RequirementLine[];
  notScored: RequirementLine[];
  /** Scenarios not defined at this revision (never run for it). */
  notApplicable: string[];
}

/**
 * Whether results meet the frozen set of `revision`. `results` may hold other revisions' cases (they are ignored);
 * `speaks`: the client declares the revision at all; `strict`: a SHOULD violation counts against the set.
 */
export function requirementReport(revision: Revision, results: readonly ScenarioResult[], options: { speaks: boolean; strict?: boolean }): RequirementReport {
  const set = requirementSet(revision);
  const byScenario = new Map(results.filter((r) => r.revision === revision).map((r) => [r.scenarioId, r]));
  const defined = SCENARIOS.filter((s) => s.revisions.includes(revision)).map((s) => s.id);
  const scored: RequirementLine[] = [];
  const notScored: RequirementLine[] = [];
  for (const id of defined) {
    const frozen = set.scored[id];
    const listed = set.notScored[id];
    if (frozen === undefined) {
      notScored.push({ scenario: id, status: 'not-scored', why: listed !== undefined ? `${listed.reason}: ${listed.note}` : `added after the set was frozen (${requirementSets().frozen})` });
      continue;
    }
    // A client that does not speak the revision cannot meet any of it: each scored scenario is simply not met.
    const line = options.speaks ? scoredLine(id, frozen, byScenario.get(id), options.strict ?? false) : { scenario: id, status: 'not-met' as const, why: `the client does not speak ${revision}` };
    (line.status === 'not-scored' ? notScored : scored).push(line);
  }
  // A frozen scenario this suite no longer has cannot be met: it counts as not run (requirements.test.ts keeps none).
  for (const id of Object.keys(set.scored).filter((id) => !defined.includes(id))) scored.push({ scenario: id, status: 'undecided', why: 'this suite no longer defines it at this revision' });
  const count = (status: RequirementLine['status']) => scored.filter((line) => line.status === status).length;
  const verdict = !options.speaks || count('not-met') > 0 ? 'not-met' : count('undecided') > 0 ? 'undecided' : 'met';
  const summary = !options.speaks
    ? `the client does not speak ${revision}`
    : verdict === 'met'
      ? `${count('met')} scored ${count('met') === 1 ? 'scenario' : 'scenarios'} met`
      : `${count('not-met')} of ${scored.length} scored scenarios not met, ${count('undecided')} undecided`;
  return { revision, verdict, summary, scored, notScored, notApplicable: SCENARIOS.filter((s) => !s.revisions.includes(revision)).map((s) => s.id) };
}

function scoredLine(id: string, frozen: readonly string[], result: ScenarioResult | undefined, strict: boolean): RequirementLine {
  if (result === undefined) return { scenario: id, status: 'undecided', why: 'not run' };
  if (result.verdict === 'n/a') {
    // The client declares no feature or transport the scenario needs, or is of a shape it cannot drive: out of its scope.
    return { scenario: id, status: 'not-scored', why: `does not apply to this client: ${result.reason ?? 'n/a'}` };
  }
  const inSet = new Set(frozen);
  const counted = (level: string) => level === 'MUST' || (strict && level === 'SHOULD');
  const failedIn = result.checks.filter((check) => check.outcome === 'fail' && inSet.has(check.name));
  const failing = failedIn.filter((check) => counted(check.spec.level));
  if (failing.length > 0) return { scenario: id, status: 'not-met', why: failing.map((check) => `${check.name} (${check.spec.level})`).join(', ') };
  if (result.verdict === 'inconclusive') return { scenario: id, status: 'undecided', why: `inconclusive: ${result.reason ?? 'the suite could not judge it'}` };
  const notes = [
    // A MAY the client does not take is no warning: only SHOULDs are noted.
    ...failedIn.filter((check) => check.spec.level === 'SHOULD').map((check) => `${check.name} (SHOULD, a warning: not counted)`),
    ...result.checks.filter((check) => check.outcome === 'fail' && check.spec.level !== 'MAY' && !inSet.has(check.name)).map((check) => `${check.name} (added after the set was frozen: not counted)`),
  ];
  return { scenario: id, status: 'met', ...(notes.length > 0 ? { why: notes.join(', ') } : {}) };
}

/** The report for a person: the verdict, then each scored scenario not met or undecided, then what is not scored and why. */
export function requirementText(report: RequirementReport, options: { verbose?: boolean } = {}): string {
  const lines = [`requirements ${report.revision}: ${report.verdict === 'met' ? 'MET' : report.verdict === 'not-met' ? 'NOT MET' : 'UNDECIDED'} — ${report.summary}`];
  if (report.verdict === 'not-met' && report.scored.every((line) => line.why === report.summary)) {
    lines.push(` scored: ${report.scored.length} scenarios, none run; not scored by the set: ${report.notScored.length}`);
    return lines.join('\n');
  }
  const shown = (line: RequirementLine) => `  ${line.scenario}${line.why !== undefined ? `: ${line.why}` : ''}`;
  const group = (title: string, of: RequirementLine[]) => (of.length > 0 ? [` ${title} (${of.length}):`, ...of.map(shown)] : []);
  const met = report.scored.filter((line) => line.status === 'met');
  lines.push(
    ...group('scored, not met', report.scored.filter((line) => line.status === 'not-met')),
    ...group('scored, undecided', report.scored.filter((line) => line.status === 'undecided')),
    ...(options.verbose ? group('scored, met', met) : [` scored, met: ${met.length}${met.some((line) => line.why) ? ` (with notes: ${met.filter((line) => line.why).map((line) => line.scenario).join(', ')})` : ''}`]),
    ...group('not scored', report.notScored),
    ` not defined at ${report.revision}: ${report.notApplicable.length} scenarios${options.verbose ? ` (${report.notApplicable.join(', ')})` : ''}`,
  );
  return lines.join('\n');
}

/**
 * `run --requirements`: the report of each revision's set from a run's results, and whether the run meets them all —
 * not when a set is not met; an undecided set (a scored case inconclusive, none failed) is said, and is no failure,
 * as an inconclusive case never fails `run`.
 */
export function requirementsOutcome(revisions: readonly Revision[], results: readonly ScenarioResult[], client: { revisions: readonly Revision[]; strict: boolean; verbose?: boolean }): { reports: RequirementReport[]; text: string; met: boolean } {
  const reports = revisions.map((revision) => requirementReport(revision, results, { speaks: client.revisions.includes(revision), strict: client.strict }));
  return { reports, text: reports.map((report) => requirementText(report, { verbose: client.verbose ?? false })).join('\n\n'), met: reports.every((report) => report.verdict !== 'not-met') };
}

/** The revisions `--requirements` was given, each checked: a revision with no frozen set is bad usage. */
export function requirementRevisionsOf(given: readonly string[]): Revision[] {
  for (const revision of given) requirementSet(revision);
  return [...new Set(given)] as Revision[];
}
