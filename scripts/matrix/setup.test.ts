// Matrix rows that run in a client environment beyond npm (clients/drivers/environments.ts): without the set-up they
// are skipped, saying which environment and the command that makes it, and never become error cells that count.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { ENVIRONMENTS, isReady } from '../../clients/drivers/environments.ts';
import { loadClient } from './clients.ts';
import { DEFAULT_MATRIX_FILE, readMatrixFile } from './matrix-file.ts';
import { SUITE_NAMES } from './plan.ts';

// An empty environments folder for this file's tests (read when asked; the files of a worker share the process, so
// the environment variable is given back after them).
const empty = mkdtempSync(join(tmpdir(), 'mcp-clients-'));
const before = process.env.MCP_CONFORMANCE_CLIENTS_DIR;
process.env.MCP_CONFORMANCE_CLIENTS_DIR = empty;
afterAll(() => {
  if (before === undefined) delete process.env.MCP_CONFORMANCE_CLIENTS_DIR;
  else process.env.MCP_CONFORMANCE_CLIENTS_DIR = before;
  rmSync(empty, { recursive: true, force: true });
});

test('a row whose environment is not set up is skipped, naming the environment and the command that makes it', async () => {
  const matrix = readMatrixFile(DEFAULT_MATRIX_FILE);
  const rows = matrix.clients.filter((entry) => entry.setup !== undefined);
  expect(rows.length).toBeGreaterThan(0);
  expect(ENVIRONMENTS.filter(isReady)).toEqual([]);
  for (const entry of rows) {
    const { adapter, info } = await loadClient(entry, matrix);
    expect(adapter).toBeUndefined();
    expect(info.loadError).toBe(`skipped: ${entry.setup} is not set up (npm run clients:setup -- ${entry.setup})`);
  }
});

test('every environment a row names exists, and every row with one runs a program in it', () => {
  const matrix = readMatrixFile(DEFAULT_MATRIX_FILE);
  for (const entry of matrix.clients.filter((e) => e.setup !== undefined)) {
    expect(ENVIRONMENTS.map((e) => e.name)).toContain(entry.setup);
    expect(entry.command).toContain('{setup}');
  }
});

test('every suite has its matrix shard, so `matrix` runs it (a suite without one would run no cell, silently)', () => {
  const shards = readdirSync(join(import.meta.dirname, 'shards')).filter((file) => file.endsWith('.matrix.ts')).map((file) => file.replace('.matrix.ts', ''));
  expect(shards.toSorted()).toEqual([...SUITE_NAMES].toSorted());
});
