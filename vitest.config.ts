import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['servers/**/*.test.ts', 'clients/**/*.test.ts', 'suites/**/*.test.ts', 'scripts/**/*.test.ts'],
    // Scenarios bound every client operation themselves; these are the outer safety nets.
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Real sockets and real servers: the same verdicts on every run, or it is a bug, not a retry.
    retry: 0,
    // Every core (vitest's default leaves one idle): most files wait on sockets, timers and child processes.
    maxWorkers: availableParallelism(),
    // Scenario runs mostly wait on sockets and timers; this many run at once within a file (describe.concurrent).
    maxConcurrency: 8,
    reporters: ['default', './scripts/summary-reporter.ts'],
  },
});
