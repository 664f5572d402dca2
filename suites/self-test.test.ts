// Proof of every check: each scenario passes on the reference client, fails on the broken variant that
// breaks its rule, and every single check is shown to fail on some client or doctored record.
import { describe, expect, test } from 'vitest';
import { BROKEN_ADAPTERS } from '../clients/index.ts';
import { referenceClient } from '../clients/reference/index.ts';
import { explain } from './evidence.ts';
import { SCENARIOS } from './index.ts';
import { plannedCases } from './plan.ts';
import { runCase } from './runner.ts';
import { failOnLeakedHandles } from './leaks.ts';
import { SCHEMA_CHECK, schemaCheck } from './schema.ts';
import type { Revision } from '../protocol/revisions.ts';
import { verdictOf, type DoctoredProof, type Evidence, type Scenario, type ScenarioResult } from './scenario.ts';

const ALL = 'every revision';
const LEGACY: Revision[] = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'];
const STREAMABLE: Revision[] = ['2025-03-26', '2025-06-18', '2025-11-25'];
/** The revisions from which `MCP-Protocol-Version` is required. */
const WITH_VERSION_HEADER: Revision[] = ['2025-06-18', '2025-11-25'];

/**
 * For each broken variant, exactly the scenarios it must not pass, and at which revisions: what the
 * variant declares it breaks (at every revision), narrowed where its rule exists only at some.
 */
const EXPECTED_FAILURES: Record<string, Record<string, Revision[] | typeof ALL>> = {
  ...Object.fromEntries(BROKEN_ADAPTERS.map((variant) => [variant.name, Object.fromEntries(variant.breaks.map((id) => [id, ALL]))])),
  'broken-omits-version-header': {
    'negotiation/version-per-revision': WITH_VERSION_HEADER,
    'disposal/delete-issued-session': WITH_VERSION_HEADER,
    'resume/no-rehandshake': WITH_VERSION_HEADER,
    // The replacement session speaks 2025-06-18 or 2025-11-25, whose header it omits.
    'resume/negotiated-version-after-expiry': ALL,
    // Without the header the server serves the POST as 2025-03-26: no priming event, no stream to cut.
    'resume/sse-last-event-id': ['2025-11-25'],
  },
  // At 2025-11-25 the version it offers is the one the server answers.
  'broken-reports-offered-version': {
    'negotiation/version-per-revision': ['2024-11-05', '2025-03-26', '2025-06-18'],
    // At 2025-11-25 every client offers what the server answers: nothing to downgrade.
    'negotiation/downgrade': ['2025-03-26', '2025-06-18'],
    'resume/no-rehandshake': ['2025-03-26', '2025-06-18'],
    'resume/negotiated-version-after-expiry': ['2025-11-25'],
    // It resumes with MCP-Protocol-Version: 2025-11-25 and gets a 400.
    'disposal/keep-persisted-session': ['2025-06-18'],
  },
  // A modern close never DELETEs.
  'broken-adopts-any-session-header': { 'resume/echoed-session-header': ALL, 'disposal/no-delete-unissued': STREAMABLE },
  // Only modern sessions have an affinity key.
  'broken-deletes-affinity-key': { 'disposal/no-delete-unissued': ['2026-07-28'] },
  // There is no DELETE at 2024-11-05 or 2026-07-28.
  'broken-deletes-twice': { 'disposal/idempotent-close': STREAMABLE },
  // Its stray GET needs a DELETE answered 405.
  'broken-falls-back-after-initialize': { 'retry/http-sse-fallback': ALL, 'disposal/quiet-after-close': STREAMABLE },
  // At 2026-07-28 the held request is the probe, not initialize.
  'broken-cancels-initialize': { 'cancellation/never-initialize': ALL, 'disposal/close-during-connect': LEGACY },
  // At 2026-07-28 the closed stream settles the call anyway.
  'broken-waits-after-cancel': { 'cancellation/late-response-ignored': ALL, 'cancellation/legacy-notification': ALL, 'cancellation/timeout-cancels': LEGACY },
  // `retry` exists only at 2025-11-25.
  'broken-ignores-sse-retry': { 'resume/sse-last-event-id': ['2025-11-25'] },
  // The Last-Event-ID path exists only at 2025-11-25 for a tool call.
  'broken-reposts-instead-of-resuming': { 'resume/sse-last-event-id': ALL, 'retry/no-double-execution': ['2025-11-25'] },
  // Fresh ids on re-issue are a modern-session rule.
  'broken-reissues-same-id': { 'retry/modern-only-transport-errors': ALL, 'retry/no-double-execution': ['2026-07-28'] },
  // Pinned to 2026-07-28, a 401 to the probe never reaches the HTTP+SSE fallback.
  // It also takes a 400 -32022 to initialize as a sign of HTTP+SSE and never re-probes (legacy revisions).
  'broken-falls-back-on-auth': { 'retry/no-retry-on-auth': LEGACY, 'retry/http-sse-fallback': ALL, 'negotiation/era-cached': LEGACY },
  // At 2026-07-28 its probe gets a discover result, so it caches the era correctly.
  'broken-falls-back-only-on-method-not-found': { 'negotiation/auto-falls-back': ALL, 'negotiation/era-cached': LEGACY },
  // Sending initialize to a 2026-07-28 server also breaks that revision's message schemas.
  'broken-auto-tries-initialize-first': {
    'negotiation/dual-era-prefers-modern': ALL,
    'negotiation/auto-stays-modern': ALL,
    'negotiation/era-cached': ['2026-07-28'],
    'negotiation/no-fallback-on-failure': ['2026-07-28'],
  },
  // Its own key must also survive a proxy that echoes and injects ids (2026-07-28 only).
  'broken-late-affinity-key': { 'resume/affinity-first-request': ALL, 'resume/echoed-session-header': ['2026-07-28'] },
};

function expectedToFail(variant: string, scenario: string, revision: Revision): boolean {
  const revisions = EXPECTED_FAILURES[variant]?.[scenario];
  return revisions === ALL || (revisions?.includes(revision) ?? false);
}

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
 * By default each variant runs the scenarios it is expected to fail, at every revision (it must fail exactly
 * where expected and pass elsewhere). MCP_CONFORMANCE_EXHAUSTIVE=1 (`npm run test:exhaustive`, which CI runs)
 * runs every variant on every scenario, proving that each fails nothing else.
 */
const EXHAUSTIVE = process.env.MCP_CONFORMANCE_EXHAUSTIVE === '1';
const casesFor = (variant: string) => (EXHAUSTIVE ? cases : cases.filter((c) => EXPECTED_FAILURES[variant]?.[c.scenario.id] !== undefined));

failOnLeakedHandles();
const referenceResults = new Map<string, ScenarioResult>();
const provenFailing = new Map<string, Set<string>>(SCENARIOS.map((s) => [s.id, new Set<string>()]));
/** Preconditions seen unmet on a doctored record, per scenario: a precondition that can never be unmet guards nothing. */
const provenUnmet = new Map<string, Set<string>>(SCENARIOS.map((s) => [s.id, new Set<string>()]));
const key = (scenario: Scenario, revision: string) => `${scenario.id}@${revision}`;

// Scenario runs wait on sockets and timers, not on the CPU: several at once keep the wall time down.
// The coverage checks at the end add up what the runs before them proved, so this file keeps its order even in a
// shuffled run (npm run flakes); each case above them is independent of the others.
describe('the proof', { shuffle: false }, () => {
  describe.concurrent('reference client', () => {
    test.each(cases.map((c) => ({ ...c, title: key(c.scenario, c.revision) })))('passes $title', async ({ scenario, revision }) => {
      const result = await runCase(scenario, referenceClient, revision, { strict: true });
      referenceResults.set(key(scenario, revision), result);
      // An informational (MAY) check may fail on the reference too: that is seeing it fail.
      for (const check of result.checks) if (check.outcome === 'fail') provenFailing.get(scenario.id)!.add(check.name);
      expect(result.verdict, explain(result)).toBe('pass');
    });
  });

  describe.concurrent.each(BROKEN_ADAPTERS.map((adapter) => ({ adapter, name: adapter.name })))('$name', ({ adapter }) => {
    const expected = EXPECTED_FAILURES[adapter.name];

    test('has declared expectations', () => {
      expect(expected, `add ${adapter.name} to EXPECTED_FAILURES`).toBeDefined();
    });

    test.each(casesFor(adapter.name).map((c) => ({ ...c, title: key(c.scenario, c.revision) })))('$title', async ({ scenario, revision }) => {
      const result = await runCase(scenario, adapter, revision, { strict: true });
      for (const check of result.checks) if (check.outcome === 'fail') provenFailing.get(scenario.id)!.add(check.name);
      expect(result.verdict, explain(result)).toBe(expectedToFail(adapter.name, scenario.id, revision) ? 'fail' : 'pass');
    });
  });

  describe('doctored records', () => {
    test.each(DOCTORED.map((d) => ({ ...d, title: `${d.scenario} › ${d.check}${d.unmet ? ' (precondition)' : ''}` })))('$title fails', async ({ scenario: id, check, unmet, doctor }) => {
      const scenario = SCENARIOS.find((s) => s.id === id)!;
      let proven = 0;
      for (const revision of plannedCases([scenario]).map((c) => c.revision)) {
        // The reference runs above normally provide the evidence; a filtered run (-t) makes its own.
        const reference = referenceResults.get(key(scenario, revision)) ?? (await runCase(scenario, referenceClient, revision, { strict: true }));
        const doctored = doctor(structuredClone(reference.evidence!));
        const judged = [...scenario.judge(doctored), schemaCheck(doctored)];
        const target = judged.find((c) => c.name === check);
        // Some checks exist only at some revisions (a header from 2025-06-18 on, say).
        if (!target) continue;
        if (unmet) {
          expect(target.precondition, `${check} is no precondition`).toBe(true);
          expect(target.outcome, `${check} should be unmet on the record doctored so: ${reference.revision}`).toBe('inconclusive');
          expect(verdictOf(judged, true), `an unmet ${check} leaves the case inconclusive at ${reference.revision}`).toBe('inconclusive');
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
      const failedSomewhere = new Set(Object.values(EXPECTED_FAILURES).flatMap((byScenario) => Object.keys(byScenario)));
      expect(SCENARIOS.map((s) => s.id).filter((id) => !failedSomewhere.has(id))).toEqual([]);
    });

    test('every check of every scenario has been seen failing', () => {
      const unproven: string[] = [];
      for (const result of referenceResults.values()) {
        for (const check of result.checks) {
          if (!check.precondition && !provenFailing.get(result.scenarioId)!.has(check.name)) unproven.push(`${result.scenarioId} › ${check.name}`);
        }
      }
      expect([...new Set(unproven)]).toEqual([]);
    });

    test('every precondition of every scenario has been seen unmet (a doctored record), so none guards a vacuous pass', () => {
      const unproven: string[] = [];
      for (const result of referenceResults.values()) {
        for (const check of result.checks) {
          if (check.precondition && !provenUnmet.get(result.scenarioId)!.has(check.name)) unproven.push(`${result.scenarioId} › ${check.name}`);
        }
      }
      expect([...new Set(unproven)]).toEqual([]);
    });
  });
});
