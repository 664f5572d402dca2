// `npm test`: every scenario, for every built-in adapter, judged against that adapter's baseline.
import { afterAll, describe, expect, test } from 'vitest';
import { BUILT_IN_ADAPTERS } from '../clients/index.ts';
import { adaptersFromEnv } from '../clients/load.ts';
import { baselineMismatch, loadBaseline } from './baselines.ts';
import { failOnLeakedHandles } from './leaks.ts';
import { explain } from './evidence.ts';
import { SCENARIOS } from './index.ts';
import { plannedCases } from './plan.ts';
import { runScenario } from './runner.ts';

const strict = process.env.MCP_CONFORMANCE_STRICT === '1';
const cases = plannedCases(SCENARIOS);

// MCP_CONFORMANCE_ADAPTER (a built-in name or ./my-adapter.ts) and MCP_CONFORMANCE_ADAPTER_COMMAND (a line-protocol
// program, docs/line-protocol.md) add an adapter to the list (clients/load.ts); a program is spawned once per run.
const extra = await adaptersFromEnv();
afterAll(async () => {
  await Promise.all(extra.map((adapter) => adapter.shutdown?.()));
});

failOnLeakedHandles();

describe.concurrent.each([...BUILT_IN_ADAPTERS, ...extra].map((adapter) => ({ adapter, name: adapter.name })))('$name', ({ adapter }) => {
  const baseline = loadBaseline(adapter.name);

  test.for(cases.map((c) => ({ ...c, title: `${c.scenario.id} @ ${c.revision}` })))('$title', async ({ scenario, revision }, context) => {
    const result = await runScenario(scenario, adapter, revision, { strict });
    if (result.verdict === 'n/a') return context.skip(`not applicable: ${result.reason}`);
    const mismatch = baselineMismatch(result, baseline);
    if (mismatch) expect.fail(`${mismatch}\n${explain(result)}`);
  });

  test('every baseline entry names a scenario and revision that run', () => {
    const stale = baseline.known.filter((entry) => !cases.some((c) => c.scenario.id === entry.scenario && c.revision === entry.revision));
    expect(stale, 'baseline entries for scenarios that do not exist or do not run').toEqual([]);
    for (const entry of baseline.known) expect(entry.reason.trim(), `${entry.scenario}: a baseline entry needs a reason`).not.toBe('');
  });
});
