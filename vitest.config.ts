import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { basePolicy } from './config/settings.ts';

/**
 * The outer safety net of every test and hook. Scenarios bound every client operation themselves, and a case may run
 * three times with bounds ×1, ×2 and ×4 after its client's calibration (suites/runner.ts runCase): those bounds must
 * always report first, with their reasons, also beside a CPU hog. A stdio case whose connect runs its whole timeout
 * each time (sdk-v2-auto's silent probe) spends about 7 × (connect + close + dispose) bounds, and calibration raises
 * the bound on one operation for a slow client: 48 operation bounds, 4 min at scale 1.
 */
const SAFETY_NET_MS = 48 * basePolicy().ms.operation;

// Every Node process a test starts (the command line, the line-protocol drivers, the matrix's own vitest, the official
// harness) reuses V8's compiled code from one cache instead of compiling its modules again: about a third of their CPU.
process.env.NODE_COMPILE_CACHE ??= join(import.meta.dirname, 'node_modules', '.cache', 'node-compile-cache');

/**
 * The files that run the scenarios, hundreds of cases each (the exhaustive proof's shards thousands), start first, so the workers end together; on a fresh clone
 * too, where vitest knows no durations yet and would start the largest files first.
 */
const LONGEST = [/suites\/self-test\.test\.ts$/, /suites\/shapes\.test\.ts$/, /suites\/conformance\.test\.ts$/, /suites\/exhaustive-\d+\.test\.ts$/];
class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (file: TestSpecification) => {
      const index = LONGEST.findIndex((name) => name.test(file.moduleId));
      return index === -1 ? LONGEST.length : index;
    };
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}

export default defineConfig({
  test: {
    include: ['servers/**/*.test.ts', 'clients/**/*.test.ts', 'suites/**/*.test.ts', 'results/**/*.test.ts', 'scripts/**/*.test.ts', 'api/**/*.test.ts'],
    testTimeout: SAFETY_NET_MS,
    hookTimeout: SAFETY_NET_MS,
    // Real sockets and real servers: the same verdicts on every run, or it is a bug, not a retry.
    retry: 0,
    // One worker a core and one more: the package, matrix and bench files wait on npm, vitest and harness processes
    // of their own, and a third worker fills the CPU they leave (2 cores, a fresh clone: 6 min 41 s → 5 min 22 s quiet,
    // 8 min → 6 min 18 s beside a CPU hog of twice the cores, green both). Twice the cores stalled a worker's event loop
    // for over a second beside the hog, and the reference client's promptness could no longer be judged.
    maxWorkers: availableParallelism() + 1,
    // Scenario runs mostly wait on sockets and timers; this many run at once within a file (describe.concurrent).
    maxConcurrency: 8,
    // A worker evaluates the suite's modules once, not once a file (the servers, the scenarios and the SDKs: a third of
    // the small files' time). A test file that changes the process (an environment variable) gives it back after itself.
    isolate: false,
    reporters: ['default', './scripts/summary-reporter.ts'],
    // A shuffled run (npm run flakes: --sequence.shuffle) keeps vitest's own random order.
    sequence: process.argv.some((arg) => arg.startsWith('--sequence.shuffle')) ? {} : { sequencer: LongestFirst },
  },
});
