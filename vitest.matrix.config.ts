// The compatibility matrix (`npm run matrix`, `mcp-client-conformance matrix`, the nightly CI shards): every client
// of the matrix file across the suites, one test file per suite, in parallel across the cores.
import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { join } from 'node:path';
import { CODE_ROOT, COMPILED, MODULE_EXTENSION, moduleFile } from './config/layout.ts';
import { basePolicy } from './config/settings.ts';
import { ATTEMPT_GROWTH, MAX_ATTEMPTS } from './config/time.ts';

// Every client operation is bounded inside a scenario, and an inconclusive case runs again with bounds twice as large,
// up to MAX_ATTEMPTS runs: this only catches a suite that broke, so it leaves room for every run of a case, each a
// dozen client operations long, at the settings' time scale.
const { operation } = basePolicy().ms;
const everyRun = Array.from({ length: MAX_ATTEMPTS }, (_, attempt) => ATTEMPT_GROWTH ** attempt).reduce((sum, factor) => sum + factor, 0);

export default defineConfig({
  test: {
    // The modules are .ts in the repository and .js in the installed package (config/layout.ts).
    include: [`scripts/matrix/shards/*.matrix${MODULE_EXTENSION}`],
    pool: 'forks',
    maxWorkers: availableParallelism(),
    testTimeout: operation * everyRun * 12,
    // Loading a client and shutting it down, each bounded by its adapter.
    hookTimeout: operation * 12,
    retry: 0,
    // Scenarios mostly wait on sockets, but a CPU-starved client misses the scenarios' timing bounds: as many at once
    // in each suite file as `npm test` runs (measured stable there).
    maxConcurrency: 8,
    // An absolute path: vitest imports a reporter named by a relative one from the working directory, not from `root`,
    // so `npx mcp-client-conformance matrix` in the checkout ran dist/'s tests under the sources' reporter (another
    // layout: no suite recognised, an empty plan, a run always "complete"), and a consumer project with a file there
    // would have had its own.
    reporters: [join(CODE_ROOT, moduleFile('scripts/matrix/reporter.ts'))],
    // Installed, the package's folder is not the user's to write in: no results cache there (it only orders the files).
    ...(COMPILED ? { cache: false, fsModuleCache: false } : {}),
  },
});
