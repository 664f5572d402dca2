// Proof of every check: each scenario passes on the reference client, fails on the broken variant that
// breaks its rule, and every single check is shown to fail on some client or doctored record.
import { describe, expect, test } from 'vitest';
import { provisionally } from '../config/time.ts';
import { BROKEN_ADAPTERS } from '../clients/index.ts';
import { referenceClient } from '../clients/reference/index.ts';
import { explain } from './evidence.ts';
import { SCENARIOS } from './index.ts';
import { plannedCases } from './plan.ts';
import { runCase } from './runner.ts';
import { failOnLeakedHandles } from './leaks.ts';
import { SCHEMA_CHECK } from './schema.ts';
import { caseKey, expectedVerdict } from './exhaustive.ts';
import { judgeCase, recordOf } from './judge.ts';
import type { DoctoredProof, Evidence, Scenario, ScenarioResult } from './scenario.ts';

/** Doctored proofs: each scenario's own, plus a client error for every scenario's `client-completed`. */
const DOCTORED: (DoctoredProof & { scenario: string })[] = SCENARIOS.flatMap((scenario): (DoctoredProof & { scenario: string })[] => [
  ...(scenario.doctored ?? []).map((proof) => ({ scenario: scenario.id, ...proof })),
  { scenario: scenario.id, check: 'client-completed', how: 'the client raised an error', doctor: (e: Evidence) => ({ ...e, clientError: 'Error: connection reset' }) },
  {
    scenario: scenario.id,
    check: SCHEMA_CHECK,
    how: 'every message sent without jsonrpc',
    doctor: (e: Evidence) => ({
      ...e,
      exchanges: e.exchanges.map((x) => ({ ...x, requestMessages: x.requestMessages.map(({ jsonrpc: _jsonrpc, ...m }) => m) })),
    }),
  },
]);

const cases = plannedCases(SCENARIOS);

/**
 * Each variant runs the scenarios it is expected to fail, at every revision: it must fail exactly where expected and
 * pass elsewhere. Every other case where the reference reads the variant's rule is the exhaustive proof's
 * (suites/exhaustive.ts: MCP_CONFORMANCE_EXHAUSTIVE=1, `npm run test:exhaustive`, which CI runs).
 */
const casesFor = (variant: string) => cases.filter((c) => BROKEN_ADAPTERS.find((v) => v.name === variant)?.breaks.includes(c.scenario.id));

failOnLeakedHandles();
const referenceResults = new Map<string, ScenarioResult>();
const provenFailing = new Map<string, Set<string>>(SCENARIOS.map((s) => [s.id, new Set<string>()]));
/** Preconditions seen unmet on a doctored record, per scenario: a precondition that can never be unmet guards nothing. */
const provenUnmet = new Map<string, Set<string>>(SCENARIOS.map((s) => [s.id, new Set<string>()]));

/**
 * Records the checks a run saw failing. A case that failed on a provisional run (another check failed firmly) is not
 * run again, so a deadline it missed there stayed "time ran out": its record judged firmly, as a last run would, shows
 * that check failing too.
 */
function seeFailing(scenario: Scenario, result: ScenarioResult): void {
  const record = result.record;
  const firmly = record?.evidence.time.provisional ? judgeCase(scenario, { ...record, evidence: { ...record.evidence, time: provisionally(record.evidence.time, false) } }).checks : [];
  for (const check of [...result.checks, ...firmly]) if (check.outcome === 'fail') provenFailing.get(scenario.id)!.add(check.name);
}

// Scenario runs wait on sockets and timers, not on the CPU: several at once keep the wall time down.
// The coverage checks at the end add up what the runs before them proved, so this file keeps its order even in a
// shuffled run (npm run flakes); each case above them is independent of the others.
describe('the proof', { shuffle: false }, () => {
  describe.concurrent('reference client', () => {
    test.each(cases.map((c) => ({ ...c, title: caseKey(c.scenario, c.revision) })))('passes $title', async ({ scenario, revision }) => {
      const result = await runCase(scenario, referenceClient, revision, { strict: true });
      referenceResults.set(caseKey(scenario, revision), result);
      // An informational (MAY) check may fail on the reference too: that is seeing it fail.
      seeFailing(scenario, result);
      expect(result.verdict, explain(result)).toBe('pass');
    });
  });

  describe.concurrent.each(BROKEN_ADAPTERS.map((adapter) => ({ adapter, name: adapter.name })))('$name', ({ adapter }) => {
    test('declares what it breaks, and narrows only scenarios it breaks', () => {
      expect(adapter.breaks.length, `${adapter.name} breaks nothing`).toBeGreaterThan(0);
      expect(Object.keys(adapter.only ?? {}).filter((id) => !adapter.breaks.includes(id))).toEqual([]);
    });

    test.for(casesFor(adapter.name).map((c) => ({ ...c, title: caseKey(c.scenario, c.revision) })))('$title', async ({ scenario, revision }) => {
      const result = await runCase(scenario, adapter, revision, { strict: true });
      seeFailing(scenario, result);
      expect(result.verdict, explain(result)).toBe(expectedVerdict(adapter.name, scenario.id, revision));
    });
  });

  describe('doctored records', () => {
    test.each(DOCTORED.map((d) => ({ ...d, title: `${d.scenario} › ${d.check}${d.unmet ? ' (precondition)' : ''}` })))('$title fails', async ({ scenario: id, check, unmet, doctor }) => {
      const scenario = SCENARIOS.find((s) => s.id === id)!;
      let proven = 0;
      for (const revision of plannedCases([scenario]).map((c) => c.revision)) {
        // The reference runs above normally provide the evidence; a filtered run (-t) makes its own.
        const reference = referenceResults.get(caseKey(scenario, revision)) ?? (await runCase(scenario, referenceClient, revision, { strict: true }));
        // Judged as a last run judges, firmly (a deadline missed is a fail there, never "time ran out"), by the judgement
        // every run gets (judge.ts), on the reference's record with its evidence doctored.
        const evidence = structuredClone(reference.evidence!);
        const doctored = doctor({ ...evidence, time: provisionally(evidence.time, false) });
        const { checks: judged, verdict } = judgeCase(scenario, { ...(reference.record ?? recordOf(evidence)), evidence: doctored }, true);
        const target = judged.find((c) => c.name === check);
        // Some checks exist only at some revisions (a header from 2025-06-18 on, say).
        if (!target) continue;
        if (unmet) {
          expect(target.precondition, `${check} is no precondition`).toBe(true);
          expect(target.outcome, `${check} should be unmet on the record doctored so: ${reference.revision}`).toBe('inconclusive');
          // One the client kept unmet lets what it broke stand (a client that never reached the behaviour failed
          // something first): then the case is anything but a pass; one the suite could not meet, inconclusive.
          if (target.unmetBy === 'client') expect(verdict, `an unmet ${check} leaves the case unpassed at ${reference.revision}`).not.toBe('pass');
          // One a correct client of another shape never meets (its own declaration, say): the scenario does not apply.
          else if (target.unmetBy === 'shape') expect(verdict, `an unmet ${check} makes the case n/a at ${reference.revision}`).toBe('n/a');
          else expect(verdict, `an unmet ${check} leaves the case inconclusive at ${reference.revision}`).toBe('inconclusive');
        } else {
          expect(target.outcome, `${check} should fail on the record doctored so: ${reference.revision}`).toBe('fail');
        }
        proven++;
      }
      expect(proven, `${id} has no check named ${check} at any revision`).toBeGreaterThan(0);
      (unmet ? provenUnmet : provenFailing).get(id)!.add(check);
    });
  });

  describe('coverage of the proof', () => {

    test('every scenario fails on at least one broken variant', () => {
      const failedSomewhere = new Set(BROKEN_ADAPTERS.flatMap((variant) => variant.breaks));
      expect(SCENARIOS.map((s) => s.id).filter((id) => !failedSomewhere.has(id))).toEqual([]);
    });

    test('every check of every scenario has been seen failing', () => {
      const unproven: string[] = [];
      for (const result of referenceResults.values()) {
        for (const check of result.checks) {
          if (!check.precondition && !provenFailing.get(result.scenarioId)!.has(check.name)) unproven.push(`${result.scenarioId} › ${check.name}`);
        }
      }
      expect([...new Set(unproven)], `never seen failing: ${[...new Set(unproven)].join(', ')}`).toEqual([]);
    });

    test('every precondition of every scenario has been seen unmet (a doctored record), so none guards a vacuous pass', () => {
      const unproven: string[] = [];
      for (const result of referenceResults.values()) {
        for (const check of result.checks) {
          if (check.precondition && !provenUnmet.get(result.scenarioId)!.has(check.name)) unproven.push(`${result.scenarioId} › ${check.name}`);
        }
      }
      expect([...new Set(unproven)], `never seen unmet: ${[...new Set(unproven)].join(', ')}`).toEqual([]);
    });
  });
});
