// Nothing a scenario run started may outlive it: no server, socket or timer. Test files that run scenarios
// take a snapshot of the process's handles first and compare at the end.
import { afterAll, beforeAll, expect } from 'vitest';
import { basePolicy } from '../config/settings.ts';

/** Active handles by kind, e.g. { TCPSocketWrap: 2, Timeout: 1 }. */
export function activeResources(): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const kind of process.getActiveResourcesInfo()) counts[kind] = (counts[kind] ?? 0) + 1;
  return counts;
}

/** Kinds of handle of which there are more now than in `before`, with how many more. */
export function grownSince(before: Record<string, number>): Record<string, number> {
  const grown: Record<string, number> = {};
  for (const [kind, count] of Object.entries(activeResources())) if (count > (before[kind] ?? 0)) grown[kind] = count - (before[kind] ?? 0);
  return grown;
}

/** How long handles may take to drain after the last scenario before they count as leaked: a client operation's bound (the wait ends as soon as they have). */
const drainMs = () => basePolicy().ms.operation;

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
    // Closed handles are released a loop turn or two after their close callbacks, and a client's own short timers
    // (a reconnection delay it was about to drop) end by themselves: wait for that, bounded, then judge.
    const deadline = performance.now() + drainMs();
    while (Object.keys(grownSince(before)).length > 0 && performance.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(grownSince(before), `handles still open ${drainMs()} ms after the scenario runs of this file`).toEqual({});
  });
}
