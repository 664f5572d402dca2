import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { basePolicy } from './config/settings.ts';

/**
 * The outer safety net of every test and hook. Scenarios bound every client operation themselves, and a case may run
 * three times with bounds ×1, ×2 and ×4 after its client's calibration (suites/runner.ts runCase): those bounds must
 * always report first, with their reasons, also beside a CPU hog. 24 operation bounds: 2 min at scale 1.
 */
const SAFETY_NET_MS = 24 * basePolicy().ms.operation;

export default defineConfig({
  test: {
    include: ['servers/**/*.test.ts', 'clients/**/*.test.ts', 'suites/**/*.test.ts', 'results/**/*.test.ts', 'scripts/**/*.test.ts', 'api/**/*.test.ts'],
    testTimeout: SAFETY_NET_MS,
    hookTimeout: SAFETY_NET_MS,
    // Real sockets and real servers: the same verdicts on every run, or it is a bug, not a retry.
    retry: 0,
    // Every core (vitest's default leaves one idle): most files wait on sockets, timers and child processes.
    maxWorkers: availableParallelism(),
    // Scenario runs mostly wait on sockets and timers; this many run at once within a file (describe.concurrent).
    maxConcurrency: 8,
    reporters: ['default', './scripts/summary-reporter.ts'],
  },
});
