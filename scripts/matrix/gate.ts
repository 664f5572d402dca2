// What a finished matrix run says to a gate beyond comparisons and --fail-on: the client rows it judged nothing of
// (the rule `run` exits 4 by, api/exit-codes.ts), one line each. An entry the matrix file skips on purpose is not one.
import { judgedSomething, notJudgedLine } from '../../api/exit-codes.ts';
import type { MatrixResults } from '../../results/results.ts';

/** One line per client whose row has no cell of pass, fail or warn: it did not load, or every cell is n/a or inconclusive. */
export function notJudgedRows(results: MatrixResults): string[] {
  const cells = Map.groupBy(results.cells, (cell) => cell.client);
  return results.clients.flatMap((client) => {
    if (client.loadError?.startsWith('skipped: ')) return [];
    const own = cells.get(client.name) ?? [];
    if (judgedSomething(own.map((cell) => cell.verdict))) return [];
    if (client.loadError !== undefined) return [`nothing was judged of ${client.name}: it did not load (${client.loadError.split('\n')[0]})`];
    return [notJudgedLine(client.name, own)];
  });
}
