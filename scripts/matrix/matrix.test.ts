// The matrix runner end to end: the matrix file's checks, `mcp-client-conformance matrix` writing all four reports,
// and the nightly CI path (vitest shards with blob reports, merged) giving the same verdicts as one run.
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { DEFAULT_MATRIX_FILE, installedPackage, readMatrixFile } from './matrix-file.ts';
import { parseResults, type Cell, type MatrixResults } from './results.ts';
import { MATRIX_ENV, selectEntries } from './settings.ts';

const ROOT = resolve(import.meta.dirname, '..', '..');
const NODE = process.execPath;
const work = mkdtempSync(join(tmpdir(), 'matrix-test-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function writeMatrix(name: string, clients: unknown[]): string {
  const path = join(work, name);
  writeFileSync(path, JSON.stringify({ clients }));
  return path;
}

describe('the matrix file', () => {
  test('matrix.json follows its schema, names each client once, and every package it names is installed', () => {
    const schema = JSON.parse(readFileSync(join(import.meta.dirname, 'matrix.schema.json'), 'utf8'));
    const validate = new Ajv2020({ allErrors: true, strict: false }).compile(schema);
    const file = JSON.parse(readFileSync(DEFAULT_MATRIX_FILE, 'utf8'));
    expect(validate(file), JSON.stringify(validate.errors)).toBe(true);
    const matrix = readMatrixFile();
    expect(matrix.clients.length).toBeGreaterThanOrEqual(10);
    const missing = matrix.clients.filter((entry) => entry.package !== undefined && installedPackage(entry.package, matrix.path) === undefined);
    expect(missing.map((entry) => entry.package)).toEqual([]);
  });

  test('each problem of a broken matrix file is named with its entry', () => {
    const path = writeMatrix('broken.json', [{ name: 'a', adapter: 'reference' }, { name: 'a', adapter: 'reference' }, { name: 'b' }, { name: 'c', command: 'x', adapter: 'y' }, { name: 'd', adapter: 'reference', colour: 'red' }]);
    expect(() => readMatrixFile(path)).toThrow(/clients\[1\] \(a\): the name is used twice[\s\S]*clients\[2\] \(b\) needs exactly one of[\s\S]*clients\[3\] \(c\) needs exactly one of[\s\S]*clients\[4\] \(d\): unknown key "colour"/);
    expect(() => readMatrixFile(join(work, 'nope.json'))).toThrow(/nope.json: not found/);
    expect(() => selectEntries(readMatrixFile().clients, 'reference,sdk-v9*')).toThrow(/no matrix entry named "sdk-v9\*"/);
    expect(selectEntries(readMatrixFile().clients, 'sdk-v1@*').map((entry) => entry.name)).toEqual(['sdk-v1@1.12', 'sdk-v1@1.17', 'sdk-v1@1.24', 'sdk-v1@latest']);
  });
});

describe('a matrix run', () => {
  // A reference client, one that breaks a rule, one whose module is missing and one whose package is not installed.
  const clients = [
    { name: 'reference', adapter: 'reference' },
    { name: 'never-deletes', adapter: 'broken-never-deletes' },
    { name: 'missing-module', adapter: './no-such-adapter.ts' },
    { name: 'not-installed', package: 'no-such-package', adapter: 'reference' },
  ];
  const scenario = 'session';
  const cellKey = (cell: Cell) => `${cell.client} ${cell.scenario} ${cell.revision} ${cell.verdict}`;
  const out = join(work, 'one-run');
  // One run, which both tests read (they run in any order).
  let run: SpawnSyncReturns<string>;
  beforeAll(() => {
    run = spawnSync(NODE, [join(ROOT, 'scripts', 'cli.ts'), 'matrix', '--config', writeMatrix('small.json', clients), '--scenario', scenario, '--out', out], { cwd: ROOT, encoding: 'utf8', timeout: 60_000, env: { ...process.env, [MATRIX_ENV.progress]: '0' } });
  }, 70_000);
  const oneRun = (): MatrixResults => parseResults(readFileSync(join(out, 'results.json'), 'utf8'));

  test('`matrix` writes results, Markdown, JUnit and HTML, with a verdict for every client × case', () => {
    expect(run.status, run.stderr + run.stdout).toBe(0);
    for (const file of ['results.json', 'summary.md', 'junit.xml', 'report.html']) expect(existsSync(join(out, file)), file).toBe(true);
    const results = oneRun();
    expect(results.clients.map((client) => client.name)).toEqual(clients.map((client) => client.name));
    expect(results.clients[2]!.loadError).toMatch(/no-such-adapter.ts not found/);
    expect(results.clients[3]!.loadError).toMatch(/no-such-package is not installed/);
    const of = (client: string) => results.cells.filter((cell) => cell.client === client);
    expect(of('reference').length).toBeGreaterThan(10);
    expect(of('reference').every((cell) => cell.verdict === 'pass' || cell.verdict === 'n/a')).toBe(true);
    // Ending the session with DELETE is a SHOULD: a warning, with the wire evidence that shows it.
    const undeleted = of('never-deletes').find((cell) => cell.scenario === 'disposal/delete-issued-session');
    expect(undeleted?.verdict).toBe('warn');
    expect(undeleted?.evidence).toMatch(/wire record/);
    for (const client of ['missing-module', 'not-installed']) expect(of(client).every((cell) => cell.verdict === 'error'), client).toBe(true);
    expect(run.stdout).toMatch(/matrix: 4 clients/);
  });

  test('two vitest shards with blob reports, merged, give the same cells as one run', () => {
    const blobs = join(work, 'blobs');
    const out = join(work, 'merged');
    const env = { ...process.env, [MATRIX_ENV.file]: join(work, 'small.json'), [MATRIX_ENV.scenario]: scenario, [MATRIX_ENV.out]: out, [MATRIX_ENV.progress]: '0' };
    const vitest = (args: string[]) => spawnSync(NODE, [join(ROOT, 'node_modules', 'vitest', 'vitest.mjs'), ...args, '--config', 'vitest.matrix.config.ts'], { cwd: ROOT, encoding: 'utf8', timeout: 60_000, env });
    for (const shard of [1, 2]) {
      const run = vitest(['run', `--shard=${shard}/2`, '--reporter=blob', `--outputFile=${join(blobs, `blob-${shard}.json`)}`]);
      expect(run.status, run.stderr + run.stdout).toBe(0);
    }
    const merge = vitest([`--merge-reports=${blobs}`]);
    expect(merge.status, merge.stderr + merge.stdout).toBe(0);
    const merged = parseResults(readFileSync(join(out, 'results.json'), 'utf8'));
    expect(merged.cells.map(cellKey).sort()).toEqual(oneRun().cells.map(cellKey).sort());
  });
});
