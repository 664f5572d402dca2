// Nothing a scenario run started may outlive it: no server, socket or timer. Test files that run scenarios
// take a snapshot of the process's handles first and compare at the end.
import { afterAll, beforeAll, expect } from 'vitest';

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

/**
 * Snapshots the handles before the file's tests and fails the file if any kind has grown after them. Both ends
 * run in hooks, so the test runner's own hook timer is on both sides of the comparison.
 */
export function failOnLeakedHandles(): void {
  let before: Record<string, number> = {};
  beforeAll(() => {
    before = activeResources();
  });
  afterAll(async () => {
    // Closed handles are released a loop turn or two after their close callbacks: a bounded number of turns.
    for (let turn = 0; turn < 100 && Object.keys(grownSince(before)).length > 0; turn++) {
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(grownSince(before), 'handles left open by the scenario runs of this file').toEqual({});
  });
}
