// A saved run judged again: every judged cell's record (results.ts `record`) through today's judges (suites/judge.ts
// `judgeCase`, the one function every run judges with), no client run. A fixed judge so re-judges last night's matrix.
import { judgeCase } from '../suites/judge.ts';
import { SCENARIOS } from '../suites/index.ts';
import type { ScenarioResult } from '../suites/scenario.ts';
import { cellOf, decodeRecord, errorCell, RESULTS_FORMAT_VERSION, type Cell, type MatrixResults } from './results.ts';

/** Why a results file cannot be judged again (it has no records), or undefined when it can. */
export function notRejudgeable(results: MatrixResults, where = 'the results file'): string | undefined {
  return results.formatVersion < RESULTS_FORMAT_VERSION ? `${where} is of format version ${results.formatVersion}, which saves no records: it can be compared, not re-judged` : undefined;
}

/**
 * One cell judged again. `n/a` and `error` cells are kept (nothing was judged); a cell whose scenario this suite no
 * longer has, or that has no record, becomes an error cell saying so (`problem`). A judged one comes with its result.
 */
export function rejudgeCell(cell: Cell, strict: boolean): { cell: Cell; result?: ScenarioResult; problem?: string } {
  if (cell.verdict === 'n/a' || cell.verdict === 'error') return { cell };
  const scenario = SCENARIOS.find((s) => s.id === cell.scenario);
  const why = scenario === undefined ? `this suite has no scenario ${cell.scenario} (removed or renamed)` : cell.record === undefined ? 'the cell has no saved record' : undefined;
  if (scenario === undefined || cell.record === undefined) {
    const problem = `${cell.scenario} @ ${cell.revision} on ${cell.client} not re-judged: ${why}`;
    return { cell: errorCell(cell.client, cell.scenario, cell.revision, `not re-judged: ${why}`), problem };
  }
  const record = decodeRecord(cell.record);
  const { checks, verdict, reason } = judgeCase(scenario, record, strict);
  const result: ScenarioResult = {
    scenarioId: cell.scenario,
    adapter: cell.client,
    revision: cell.revision,
    verdict,
    ...(reason !== undefined ? { reason } : {}),
    checks,
    evidence: record.evidence,
    record,
    durationMs: cell.durationMs,
    ...(cell.attempts !== undefined ? { attempts: cell.attempts } : {}),
  };
  // The saved record as it was (encoding it again would only cost time).
  return { cell: { ...cellOf(cell.client, result, cell.record), ...(cell.timeScale !== undefined ? { timeScale: cell.timeScale } : {}) }, result };
}

/**
 * Every cell of a saved run judged again, as strictly as the run was (`run.strict`) unless `strict` is given; the
 * problems are the cells that could not be (one line each). Throws when the file saves no records (format version 2).
 */
export function rejudgeResults(results: MatrixResults, options: { strict?: boolean; where?: string } = {}): { results: MatrixResults; problems: string[] } {
  const refused = notRejudgeable(results, options.where);
  if (refused !== undefined) throw new Error(refused);
  const strict = options.strict ?? results.run.strict;
  const problems: string[] = [];
  const cells = results.cells.map((saved) => {
    const { cell, problem } = rejudgeCell(saved, strict);
    if (problem !== undefined) problems.push(problem);
    return cell;
  });
  return { results: { ...results, formatVersion: RESULTS_FORMAT_VERSION, generatedAt: new Date().toISOString(), run: { ...results.run, strict }, cells }, problems };
}
