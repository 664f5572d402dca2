// The matrix as vitest tests, so CI can shard it across runners (`vitest --shard`) and merge the blob reports:
// one test file per suite, one describe per client, one test per scenario × revision. A test carries its cell
// in its meta; the matrix reporter (reporter.ts) builds the results from those metas, live or merged.
// A verdict is data, not a test outcome: a test fails only when the suite could not produce a cell.
// Each case runs as the suites run it (suites/runner.ts runCase): with the client's calibrated time policy, and again
// with larger bounds while it is inconclusive for lack of time. A resumed run (`matrix --resume`) defines only the
// cells its reports folder does not hold yet.
import { resolve } from 'node:path';
import { afterAll, describe, test } from 'vitest';
import { runnerOperationTimeoutMs } from '../../clients/load.ts';
import { readSettings } from '../../config/settings.ts';
import { runCase } from '../../suites/runner.ts';
import { loadClient, type LoadedClient } from './clients.ts';
import { readSaved } from './journal.ts';
import { readMatrixFile, type MatrixEntry } from './matrix-file.ts';
import { suiteCases, type SuiteName } from './plan.ts';
import { cellKey, cellOf, errorCell, type Cell, type ClientInfo } from '../../results/results.ts';
import { MATRIX_ENV, selectEntries } from './settings.ts';

declare module 'vitest' {
  interface TaskMeta {
    matrixCell?: Cell;
    matrixClient?: ClientInfo;
  }
}

const ROOT = resolve(import.meta.dirname, '..', '..');

/** The cells a resumed run already has (none for a fresh run). */
function cellsDone(): Set<string> {
  const folder = process.env[MATRIX_ENV.resume];
  if (folder === undefined) return new Set();
  return new Set(readSaved(resolve(folder), ROOT)?.cells.keys());
}

export function defineMatrixSuite(suite: SuiteName): void {
  const matrix = readMatrixFile(process.env[MATRIX_ENV.file]);
  const entries = selectEntries(matrix.clients, process.env[MATRIX_ENV.clients]);
  const cases = suiteCases(suite, process.env[MATRIX_ENV.scenario]);
  const done = cellsDone();
  const strict = readSettings().strict;
  const operationTimeoutMs = runnerOperationTimeoutMs();

  const toRun = (entry: MatrixEntry) => cases.filter(({ scenario, revision }) => !done.has(cellKey({ client: entry.name, scenario: scenario.id, revision })));
  const pending = entries.filter((entry) => toRun(entry).length > 0);
  // vitest fails a file that defines no test: one that plans nothing here says so instead.
  if (pending.length === 0) test.skip(`no case of the ${suite} suite to run for this selection`, () => {});
  for (const entry of pending) {
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

      test.for(toRun(entry).map((c) => ({ ...c, title: `${c.scenario.id} @ ${c.revision}` })))('$title', async ({ scenario, revision }, { task }) => {
        const { adapter, info } = await loaded();
        task.meta.matrixCell = adapter
          ? cellOf(entry.name, await runCase(scenario, adapter, revision, { strict, ...(operationTimeoutMs !== undefined ? { operationTimeoutMs } : {}) }))
          : errorCell(entry.name, scenario.id, revision, `the client could not be loaded: ${info.loadError}`);
      });
    });
  }
}
