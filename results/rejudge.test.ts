// A saved run judged again (`run --rejudge`, `matrix --rejudge`): the same cells as the run itself, a doctored record
// judged to its new verdict, and a scenario this suite no longer has said so, never a crash.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { rejudgeRun, resultsFile, runConformance, SelectionError } from '../api/index.ts';
import { referenceClient } from '../clients/reference/index.ts';
import { rejudgeResults } from './rejudge.ts';
import { decodeRecord, encodeRecord, type Cell, type MatrixResults } from './results.ts';

/** What a cell's judgement is: verdict, reason and every check (the record and the run's timing aside). */
const judgementOf = ({ client, scenario, revision, verdict, reason, checks }: Cell) => ({ client, scenario, revision, verdict, reason, checks });

/** The saved run as written to disk and read back: the records go through JSON and gzip. */
const onDisk = (results: MatrixResults): MatrixResults => JSON.parse(JSON.stringify(results)) as MatrixResults;

let saved: MatrixResults;

beforeAll(async () => {
  // A real run of the reference client: a pass, and a stdio scenario (its record carries the processes).
  const run = await runConformance({ adapter: referenceClient, scenarios: ['negotiation/handshake-order', 'stdio/handshake-order'], revisions: ['2025-06-18'] });
  saved = onDisk(resultsFile(run));
}, 120_000);

describe('a saved run judged again', () => {
  test('gives the very cells the run gave: verdicts, reasons and checks', () => {
    const judged = saved.cells.filter((cell) => cell.verdict !== 'n/a');
    expect(judged.length).toBeGreaterThan(0);
    expect(judged.every((cell) => cell.record !== undefined)).toBe(true);
    const { results, problems } = rejudgeResults(saved);
    expect(problems).toEqual([]);
    expect(results.cells.map(judgementOf)).toEqual(saved.cells.map(judgementOf));
    const run = rejudgeRun({ results: saved });
    expect(resultsFile(run).cells.map(judgementOf)).toEqual(saved.cells.map(judgementOf));
  });

  test('a record doctored with a client error is judged to its new verdict', () => {
    const doctored = structuredClone(saved);
    const cell = doctored.cells.find((c) => c.verdict === 'pass')!;
    const record = decodeRecord(cell.record!);
    cell.record = encodeRecord({ ...record, evidence: { ...record.evidence, clientError: 'Error: connection reset' } });
    const again = rejudgeResults(doctored).results.cells.find((c) => c.scenario === cell.scenario && c.revision === cell.revision)!;
    expect(again.verdict).toBe('fail');
    expect(again.checks.find((c) => c.name === 'client-completed')).toMatchObject({ outcome: 'fail', detail: 'the client failed: Error: connection reset' });
  });

  test('a cell whose scenario this suite no longer has says so', () => {
    const renamed = structuredClone(saved);
    const cell = renamed.cells.find((c) => c.verdict === 'pass')!;
    cell.scenario = 'negotiation/no-such-scenario';
    const { results, problems } = rejudgeResults(renamed);
    expect(results.cells.find((c) => c.scenario === cell.scenario)).toMatchObject({ verdict: 'error', reason: 'not re-judged: this suite has no scenario negotiation/no-such-scenario (removed or renamed)', checks: [] });
    expect(problems).toHaveLength(1);
    const run = rejudgeRun({ results: renamed });
    expect(run.notJudged).toEqual(problems);
    expect(run.results.map((o) => o.result.scenarioId)).not.toContain(cell.scenario);
  });

  test('a file of format version 2 has no records: it is refused, saying so', () => {
    const old = { ...structuredClone(saved), formatVersion: 2 };
    const path = join(mkdtempSync(join(tmpdir(), 'rejudge-')), 'old.json');
    writeFileSync(path, JSON.stringify(old));
    expect(() => rejudgeRun({ results: path })).toThrow(SelectionError);
    expect(() => rejudgeRun({ results: path })).toThrow(/format version 2, which saves no records: it can be compared, not re-judged/);
  });
});
