// After a scenario, nothing it started is left running: no server, socket or timer.
import { expect, test } from 'vitest';
import { BROKEN_ADAPTERS, BUILT_IN_ADAPTERS } from '../clients/index.ts';
import { SCENARIOS } from './index.ts';
import { plannedCases } from './plan.ts';
import { runScenario } from './runner.ts';

/** Active handles by kind, e.g. { TCPSocketWrap: 2, Timeout: 1 }. */
function activeResources(): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const kind of process.getActiveResourcesInfo()) counts[kind] = (counts[kind] ?? 0) + 1;
  return counts;
}

/** Kinds of handle of which there are more now than in `before`, with how many more. */
function grownSince(before: Record<string, number>): Record<string, number> {
  const grown: Record<string, number> = {};
  for (const [kind, count] of Object.entries(activeResources())) if (count > (before[kind] ?? 0)) grown[kind] = count - (before[kind] ?? 0);
  return grown;
}

test('every scenario on every adapter leaves no socket, server or timer behind', async () => {
  const before = activeResources();
  for (const adapter of [...BUILT_IN_ADAPTERS, ...BROKEN_ADAPTERS]) {
    for (const { scenario, revision } of plannedCases(SCENARIOS)) await runScenario(scenario, adapter, revision);
  }
  // Closed handles are released a loop turn or two after their close callbacks: give it a bounded number of turns.
  for (let turn = 0; turn < 100 && Object.keys(grownSince(before)).length > 0; turn++) {
    await new Promise((resolve) => setImmediate(resolve));
  }
  expect(grownSince(before), 'handles left open').toEqual({});
});
