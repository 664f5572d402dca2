// Each bench section added for the harness comparison and the whole-run timings, at a tiny size: proof that it runs
// and reports what it should. Never an assertion on a time.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { failOnLeakedHandles } from '../../suites/leaks.ts';
import { runTimed } from './child.ts';
import { CASE_COST_ROWS, caseCosts } from './case-costs.ts';
import { EQUIVALENTS, harnessComparison } from './harness.ts';
import { fullSuite, matrixGrowth, matrixShards } from './whole-runs.ts';

failOnLeakedHandles();

const TINY_SCENARIO = 'negotiation/handshake-order';
/**
 * Matches one scenario in each of two suite files (negotiation/handshake-order, resume/no-rehandshake): a shard is a
 * share of the suite files, and the matrix starts only the files with planned cases, so two shards need two files.
 */
const TWO_SUITES_SCENARIO = 'handshake';
const temp = mkdtempSync(join(tmpdir(), 'mcp-bench-test-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

describe('bench sections at a tiny size', () => {
  test('harness: the official harness passes with the minimal client on each scenario, and ours runs the equivalent', { timeout: 120_000 }, async () => {
    const result = await harnessComparison({ runs: 1, ourRuns: 1, warmup: 0, ourWarmup: 0 });
    expect(result.scenarios.map((s) => [s.harnessScenario, s.ourScenario])).toEqual(EQUIVALENTS.map((e) => [e.harness, e.ours]));
    for (const scenario of result.scenarios) {
      // Every check the harness ran passed (harnessRun throws otherwise); at least one ran.
      expect(scenario.harness.checksPassed).toMatch(/^([1-9]\d*)\/\1$/);
      expect(scenario.ours.map((o) => o.adapter)).toEqual(['sdk-v1', 'reference']);
      for (const ours of scenario.ours) {
        expect(ours.runs).toBe(1);
        expect(ours.verdicts, ours.notPassed.join('\n')).toEqual({ pass: 2 });
        expect(scenario.ratios[ours.adapter]).toBeGreaterThan(0);
      }
      // Every phase of the harness run was seen (a phase can come out slightly negative: chunks of output are timed when read).
      expect(Object.keys(scenario.harness.phasesMs)).toHaveLength(7);
      for (const phase of Object.values(scenario.harness.phasesMs)) expect(Number.isFinite(phase)).toBe(true);
    }
    expect(result.alongside.clientAlone.wallMs).toBeGreaterThan(0);
  });

  test('cases: one case over HTTP and over stdio, in process and through the Node driver, each passing', { timeout: 120_000 }, async () => {
    const chosen = CASE_COST_ROWS.filter((row) => row.language === 'TypeScript');
    const { rows } = await caseCosts({ runs: 1, rows: chosen });
    const measured = rows.filter((row) => 'transport' in row);
    expect(measured.map((row) => `${row.client} ${row.path} ${row.transport}`)).toEqual(chosen.flatMap((row) => ['http', 'stdio'].map((transport) => `${row.client} ${row.path} ${transport}`)));
    for (const row of measured) expect(row.verdicts).toEqual({ pass: 2 });
  });

  test('full: vitest run on one file, counted from the summary line', { timeout: 120_000 }, async () => {
    const result = await fullSuite({ files: ['suites/verdicts.test.ts'] });
    expect(result.tests.passed + result.tests.failed + result.tests.skipped).toBeGreaterThan(0);
    expect(result.files).toMatch(/\b1\b/);
  });

  test('matrix: one client, then two, on one scenario', { timeout: 120_000 }, async () => {
    const { rows } = await matrixGrowth({ clients: ['reference', 'sdk-v1@latest'], counts: [1, 2], scenario: TINY_SCENARIO });
    expect(rows.map((row) => row.names)).toEqual([['reference'], ['reference', 'sdk-v1@latest']]);
    expect(rows[0]!.cells).toBeGreaterThan(0);
    expect(rows[1]!.cells).toBeGreaterThan(rows[0]!.cells);
    expect(rows[0]!.verdicts, rows[0]!.notPassed.join('\n')).toEqual({ pass: rows[0]!.cells });
  });

  test('shards: one shard and two hold the same cells between them', { timeout: 120_000 }, async () => {
    const { rows } = await matrixShards({ clients: ['reference'], shardCounts: [1, 2], scenario: TWO_SUITES_SCENARIO });
    expect(rows.map((row) => row.perShard.map((s) => s.shard))).toEqual([['1/1'], ['1/2', '2/2']]);
    expect(rows[1]!.cells).toBe(rows[0]!.cells);
    expect(rows[1]!.maxMs).toBe(Math.max(...rows[1]!.perShard.map((s) => s.wallMs)));
  });

  test('the bench command writes the sections it ran, with the load average, to --out', { timeout: 60_000 }, async () => {
    const out = join(temp, 'bench.json');
    const run = await runTimed(process.execPath, [join(import.meta.dirname, '..', 'bench.ts'), '--only', 'servers', '--runs', '1', '--out', out], { timeoutMs: 50_000 });
    expect(run.code, run.output).toBe(0);
    const written = JSON.parse(readFileSync(out, 'utf8'));
    expect(written.loadavg.start).toHaveLength(3);
    expect(written.loadavg.end).toHaveLength(3);
    expect(Object.keys(written)).toContain('servers');
    expect(written.servers.rows.length).toBeGreaterThan(0);
    expect(written.servers.loadavg.start).toHaveLength(3);
  });
});
