// The exhaustive proof (`npm run test:exhaustive`, MCP_CONFORMANCE_EXHAUSTIVE=1, which CI runs): every broken variant
// on every case where the reference client reads the variant's rule, proving that each fails nothing it does not
// declare. The cases it declares it breaks are self-test.test.ts's (the default proof); here are all the others.
//
// A variant whose rule the reference never read in a case runs the very same code as the reference there, so it is
// skipped, saying so: each case's reference run goes through a proxy on its rules that records every rule it reads,
// once per case, before the variants of that case run. The cases are dealt round-robin to SHARDS test files
// (suites/exhaustive-<n>.test.ts), so the proof runs on every worker instead of one file's.
import { describe, expect, test } from 'vitest';
import { settings } from '../config/settings.ts';
import { BROKEN_ADAPTERS } from '../clients/index.ts';
import { createReferenceClient, referenceClient, SPEC_RULES } from '../clients/reference/index.ts';
import type { ClientAdapter } from '../clients/adapter.ts';
import type { Revision } from '../protocol/revisions.ts';
import { explain } from './evidence.ts';
import { SCENARIOS } from './index.ts';
import { failOnLeakedHandles } from './leaks.ts';
import { plannedCases } from './plan.ts';
import { runCase } from './runner.ts';
import type { Scenario } from './scenario.ts';

/** How many test files share the exhaustive proof: the workers of a two-core machine (vitest.config.ts). */
export const SHARDS = 4;

/** Whether a variant declares it breaks this scenario at this revision (clients/reference/variants.ts, the one proof table). */
export function expectedToFail(variant: string, scenario: string, revision: Revision): boolean {
  const declared = BROKEN_ADAPTERS.find((v) => v.name === variant);
  if (!declared?.breaks.includes(scenario)) return false;
  return declared.only?.[scenario]?.at.includes(revision) ?? true;
}

/**
 * What a variant must come out as: fail where it breaks the scenario, inconclusive where it never reaches its rule, n/a
 * where it is on the wire a correct client of another shape, else pass.
 */
export function expectedVerdict(variant: string, scenario: string, revision: Revision): 'fail' | 'inconclusive' | 'n/a' | 'pass' {
  if (expectedToFail(variant, scenario, revision)) return 'fail';
  const declared = BROKEN_ADAPTERS.find((v) => v.name === variant);
  if (declared?.shaped?.[scenario]?.at.includes(revision)) return 'n/a';
  return declared?.unreached?.[scenario]?.at.includes(revision) ? 'inconclusive' : 'pass';
}

export const caseKey = (scenario: Scenario, revision: string) => `${scenario.id}@${revision}`;

/** The rules the reference client reads in a case, over every run of it (runCase may run it again): its one run, memoized. */
function rulesReader(): (scenario: Scenario, revision: Revision) => Promise<ReadonlySet<string>> {
  const read = new Map<string, Promise<ReadonlySet<string>>>();
  return (scenario, revision) => {
    const key = caseKey(scenario, revision);
    let found = read.get(key);
    if (found === undefined) {
      const rules = new Set<string>();
      const reading = {
        get(target: typeof SPEC_RULES, name: string | symbol, receiver: unknown) {
          if (typeof name === 'string') rules.add(name);
          return Reflect.get(target, name, receiver) as unknown;
        },
      };
      const tracing: ClientAdapter = { ...referenceClient, start: async () => createReferenceClient({ rules: new Proxy(SPEC_RULES, reading) }) };
      found = runCase(scenario, tracing, revision, { strict: true }).then(() => rules);
      read.set(key, found);
    }
    return found;
  };
}

/** Shard `shard` (from 1) of SHARDS: its cases, for every variant that does not declare it breaks them. */
export function exhaustiveProof(shard: number): void {
  const title = `the exhaustive proof, shard ${shard} of ${SHARDS}`;
  if (!settings().exhaustive) {
    test.skip(`${title}: runs with MCP_CONFORMANCE_EXHAUSTIVE=1 (npm run test:exhaustive)`, () => {});
    return;
  }
  const cases = plannedCases(SCENARIOS).filter((_, index) => index % SHARDS === shard - 1);
  const rulesRead = rulesReader();
  failOnLeakedHandles();

  describe(title, () => {
    describe.concurrent.each(BROKEN_ADAPTERS.map((adapter) => ({ adapter, name: adapter.name })))('$name', ({ adapter }) => {
      const others = cases.filter((c) => !adapter.breaks.includes(c.scenario.id));
      test.for(others.map((c) => ({ ...c, title: caseKey(c.scenario, c.revision) })))('$title', async ({ scenario, revision }, context) => {
        if (!(await rulesRead(scenario, revision)).has(adapter.rule)) return context.skip(`the reference never read ${adapter.rule} here: ${adapter.name} runs the very same code`);
        const result = await runCase(scenario, adapter, revision, { strict: true });
        expect(result.verdict, explain(result)).toBe(expectedVerdict(adapter.name, scenario.id, revision));
      });
    });
  });
}
