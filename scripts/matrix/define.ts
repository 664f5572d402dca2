// The matrix as vitest tests, so CI can shard it across runners (`vitest --shard`) and merge the blob reports:
// one test file per suite, one describe per client, one test per scenario × revision. A test carries its cell
// in its meta; the matrix reporter (reporter.ts) builds the results from those metas, live or merged.
// A verdict is data, not a test outcome: a test fails only when the suite could not produce a cell.
import { afterAll, describe, test } from 'vitest';
import { runnerOperationTimeoutMs } from '../../clients/load.ts';
import { SUITES } from '../../suites/index.ts';
import { plannedCases } from '../../suites/plan.ts';
import { runScenario } from '../../suites/runner.ts';
import { loadClient, type LoadedClient } from './clients.ts';
import { readMatrixFile } from './matrix-file.ts';
import { cellOf, errorCell, type Cell, type ClientInfo } from './results.ts';
import { MATRIX_ENV, selectEntries } from './settings.ts';

declare module 'vitest' {
  interface TaskMeta {
    matrixCell?: Cell;
    matrixClient?: ClientInfo;
  }
}

export function defineMatrixSuite(suite: keyof typeof SUITES): void {
  const matrix = readMatrixFile(process.env[MATRIX_ENV.file]);
  const entries = selectEntries(matrix.clients, process.env[MATRIX_ENV.clients]);
  const filter = process.env[MATRIX_ENV.scenario];
  const cases = plannedCases(SUITES[suite]).filter(({ scenario }) => filter === undefined || scenario.id.includes(filter));
  const strict = process.env[MATRIX_ENV.strict] === '1';
  const operationTimeoutMs = runnerOperationTimeoutMs();

  for (const entry of entries) {
    describe.concurrent(entry.name, () => {
      // Loaded once per file, by whichever test asks first; a load failure becomes error cells, not a crash.
      let loading: Promise<LoadedClient> | undefined;
      const loaded = () => (loading ??= loadClient(entry, matrix));
      afterAll(async () => {
        if (loading) await (await loading).adapter?.shutdown?.();
      });

      test('client', async ({ task }) => {
        task.meta.matrixClient = (await loaded()).info;
      });

      test.for(cases.map((c) => ({ ...c, title: `${c.scenario.id} @ ${c.revision}` })))('$title', async ({ scenario, revision }, { task }) => {
        const { adapter, info } = await loaded();
        task.meta.matrixCell = adapter
          ? cellOf(entry.name, await runScenario(scenario, adapter, revision, { strict, ...(operationTimeoutMs !== undefined ? { operationTimeoutMs } : {}) }))
          : errorCell(entry.name, scenario.id, revision, `the client could not be loaded: ${info.loadError}`);
      });
    });
  }
}
