// What a finished matrix run says to a gate beyond comparisons and --fail-on: the client rows it judged nothing of
// (the rule `run` exits 4 by, api/exit-codes.ts), one line each. A client that did not load is not one: its row is
// error cells, which `--fail-on error` gates on (and an entry the matrix file skips on purpose is never a failure).
import { judgedSomething, notJudgedLine } from '../../api/exit-codes.ts';
import type { MatrixResults } from '../../results/results.ts';

/** One line per client that loaded and whose row has no cell of pass, fail or warn: every cell n/a, inconclusive or an error. */
export function notJudgedRows(results: MatrixResults): string[] {
  const cells = Map.groupBy(results.cells, (cell) => cell.client);
  return results.clients.flatMap((client) => {
    const own = cells.get(client.name) ?? [];
    return client.loadError === undefined && own.length > 0 && !judgedSomething(own.map((cell) => cell.verdict)) ? [notJudgedLine(client.name, own)] : [];
  });
}
