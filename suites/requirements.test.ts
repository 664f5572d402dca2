// suites/requirements.json held to the suites (a frozen set names only scenarios and checks this suite still gives),
// to the official suite's sets (the same revisions), and the scoring of a set (requirements.ts) on made-up results.
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, test } from 'vitest';
import type { Revision } from '../protocol/revisions.ts';
import { SCENARIOS } from './index.ts';
import { checksOnNothing } from './judged.ts';
import { NOT_SCORED_REASONS, requirementReport, requirementRevisions, requirementSet, requirementsOutcome, requirementSets } from './requirements.ts';
import type { Check, ScenarioResult, Verdict } from './scenario.ts';
import { SCHEMA_CHECK } from './schema.ts';

const OFFICIAL = dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/conformance/package.json'));

describe('suites/requirements.json', () => {
  test('has a set for each revision the official suite has one for', () => {
    const official = readdirSync(join(OFFICIAL, 'requirements')).map((file) => file.replace(/\.yaml$/, '')).sort();
    expect(requirementRevisions().sort()).toEqual(official);
  });

  test.each(requirementRevisions())('%s: every scored scenario is defined at the revision and gives each frozen check there', (revision) => {
    const set = requirementSet(revision);
    const wrong = Object.entries(set.scored).flatMap(([id, checks]) => {
      const scenario = SCENARIOS.find((s) => s.id === id);
      if (scenario === undefined || !scenario.revisions.includes(revision)) return [`${id}: not a scenario at ${revision}`];
      const given = new Set([SCHEMA_CHECK, ...checksOnNothing(scenario, revision).map((check) => check.name)]);
      return checks.filter((check) => !given.has(check)).map((check) => `${id}: gives no check ${check} (renamed? the frozen set changes only on purpose)`);
    });
    expect(wrong).toEqual([]);
  });

  test.each(requirementRevisions())('%s: a scenario not scored is defined at the revision, not also scored, with a known reason and a note', (revision) => {
    const set = requirementSet(revision);
    const wrong = Object.entries(set.notScored).flatMap(([id, entry]) => [
      ...(SCENARIOS.some((s) => s.id === id && s.revisions.includes(revision)) ? [] : [`${id}: not a scenario at ${revision}`]),
      ...(id in set.scored ? [`${id}: both scored and not`] : []),
      ...(Object.hasOwn(NOT_SCORED_REASONS, entry.reason) && entry.note.length > 20 ? [] : [`${id}: reason ${entry.reason}, note "${entry.note}"`]),
    ]);
    expect(wrong).toEqual([]);
  });

  test.each(requirementRevisions())('%s: comparable with the official set: each counterpart (suites/official-checks.json) of a check the official set scores is scored here', (revision) => {
    // The official set's client scenarios: the `client:` list of requirements/<revision>.yaml, one `- name` a line.
    const yaml = readFileSync(join(OFFICIAL, 'requirements', `${revision}.yaml`), 'utf8');
    const officialScored = new Set(/\nclient:\n((?:\s+- \S+\n)+)/.exec(yaml)![1]!.split('\n').map((line) => line.replace(/^\s+- /, '')).filter((name) => name !== ''));
    expect(officialScored.has('tools_call')).toBe(true);
    const { checks } = JSON.parse(readFileSync(join(import.meta.dirname, 'official-checks.json'), 'utf8')) as { checks: Record<string, { official: string; scenario?: string; check?: string }> };
    const set = requirementSet(revision);
    const unscored = Object.entries(checks).filter(([, entry]) => officialScored.has(entry.official) && entry.scenario !== undefined && !set.scored[entry.scenario]?.includes(entry.check!));
    expect(unscored.map(([id, entry]) => `${id} → ${entry.scenario} › ${entry.check}`)).toEqual([]);
  });

  test('says when it was frozen', () => {
    expect(requirementSets().frozen).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });
});

// Made-up results of the set's scored scenarios: each a pass unless told otherwise.
const REVISION: Revision = '2026-07-28';
const ENVELOPE = 'negotiation/modern-envelope';
const spec = (level: Check['spec']['level']) => ({ url: 'https://modelcontextprotocol.io/specification/2026-07-28/basic', section: 'made up', level });
const checkOf = (name: string, outcome: Check['outcome'], level: Check['spec']['level'] = 'MUST'): Check => ({ name, spec: spec(level), outcome, detail: 'made up', exchanges: [] });
function results(changed: Partial<Record<string, { verdict: Verdict; checks?: Check[]; reason?: string }>> = {}): ScenarioResult[] {
  return Object.keys(requirementSet(REVISION).scored).map((scenarioId) => ({ scenarioId, adapter: 'made-up', revision: REVISION, verdict: 'pass', checks: [], durationMs: 0, ...changed[scenarioId] }));
}
const report = (given: ScenarioResult[], options: { speaks?: boolean; strict?: boolean } = {}) => requirementReport(REVISION, given, { speaks: options.speaks ?? true, ...(options.strict !== undefined ? { strict: options.strict } : {}) });
const lineOf = (r: ReturnType<typeof report>, id: string) => [...r.scored, ...r.notScored].find((line) => line.scenario === id);

describe('a requirement set scored', () => {
  test('every scored case passing meets it; what the set does not score and what is not defined at the revision are listed', () => {
    const met = report(results());
    expect(met.verdict).toBe('met');
    expect(met.scored.every((line) => line.status === 'met')).toBe(true);
    // The set's own entries, with their reasons; a scenario added since the freeze is listed as that, never scored.
    const later = met.notScored.filter((line) => line.why!.startsWith('added after the set was frozen'));
    const listed = met.notScored.filter((line) => !later.includes(line));
    expect(listed.map((line) => line.scenario)).toEqual(Object.keys(requirementSet(REVISION).notScored).filter((id) => met.notScored.some((line) => line.scenario === id)));
    expect(listed.every((line) => line.why!.startsWith('convention: ') || line.why!.startsWith('pending: '))).toBe(true);
    expect(later.every((line) => requirementSet(REVISION).scored[line.scenario] === undefined)).toBe(true);
    expect(met.notApplicable).toContain('negotiation/handshake-order');
  });

  test('a failed MUST check of the set is not met; a warn is met unless strict', () => {
    const failed = report(results({ [ENVELOPE]: { verdict: 'fail', checks: [checkOf('method-header', 'fail')] } }));
    expect(failed.verdict).toBe('not-met');
    expect(lineOf(failed, ENVELOPE)).toEqual({ scenario: ENVELOPE, status: 'not-met', why: 'method-header (MUST)' });
    const warned = results({ [ENVELOPE]: { verdict: 'warn', checks: [checkOf('method-header', 'fail', 'SHOULD')] } });
    expect(report(warned).verdict).toBe('met');
    expect(lineOf(report(warned), ENVELOPE)!.why).toBe('method-header (SHOULD, a warning: not counted)');
    expect(report(warned, { strict: true }).verdict).toBe('not-met');
    const mayNotTaken = report(results({ [ENVELOPE]: { verdict: 'pass', checks: [checkOf('method-header', 'fail', 'MAY')] } }));
    expect(lineOf(mayNotTaken, ENVELOPE)).toEqual({ scenario: ENVELOPE, status: 'met' });
  });

  test('a check the frozen set does not name does not count', () => {
    const outside = report(results({ [ENVELOPE]: { verdict: 'fail', checks: [checkOf('a-check-added-later', 'fail')] } }));
    expect(outside.verdict).toBe('met');
    expect(lineOf(outside, ENVELOPE)!.why).toBe('a-check-added-later (added after the set was frozen: not counted)');
  });

  test('an inconclusive case leaves it undecided, a missing one too; a failure outweighs both', () => {
    const inconclusive = results({ [ENVELOPE]: { verdict: 'inconclusive', reason: 'the suite could not' } });
    expect(report(inconclusive).verdict).toBe('undecided');
    expect(report(results().slice(1)).verdict).toBe('undecided');
    const both = results({ [ENVELOPE]: { verdict: 'inconclusive' }, 'resume/sse-comments-ignored': { verdict: 'fail', checks: [checkOf('answers-delivered', 'fail')] } });
    expect(report(both).verdict).toBe('not-met');
  });

  test('a case the client is out of scope for (n/a) is not scored; a client that does not speak the revision does not meet it', () => {
    const optional = report(results({ 'server-requests/roots-input-required': { verdict: 'n/a', reason: 'made-up does not declare roots' } }));
    expect(optional.verdict).toBe('met');
    expect(lineOf(optional, 'server-requests/roots-input-required')).toEqual({ scenario: 'server-requests/roots-input-required', status: 'not-scored', why: 'does not apply to this client: made-up does not declare roots' });
    expect(report(results(), { speaks: false }).verdict).toBe('not-met');
  });

  test('the outcome of several sets is met only when none is not met', () => {
    const given = results({ [ENVELOPE]: { verdict: 'fail', checks: [checkOf('method-header', 'fail')] } });
    expect(requirementsOutcome(['2025-11-25', REVISION], given, { revisions: ['2025-11-25', REVISION], strict: false }).met).toBe(false);
    expect(requirementsOutcome([REVISION], results(), { revisions: [REVISION], strict: false })).toMatchObject({ met: true });
  });
});
