// The compatibility matrix (`npm run matrix`, `mcp-client-conformance matrix`, the nightly CI shards): every client
// of the matrix file across the suites, one test file per suite, in parallel across the cores.
import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['scripts/matrix/shards/*.matrix.ts'],
    pool: 'forks',
    maxWorkers: availableParallelism(),
    // Every client operation is bounded inside a scenario; this only catches a suite that broke.
    testTimeout: 120_000,
    hookTimeout: 60_000,
    retry: 0,
    // Scenarios mostly wait on sockets, but a CPU-starved client misses the scenarios' timing bounds: as many at once
    // in each suite file as `npm test` runs (measured stable there).
    maxConcurrency: 8,
    reporters: ['./scripts/matrix/reporter.ts'],
  },
});
