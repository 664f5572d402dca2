// CI runs the official conformance harness against our reference servers as part of `npm test`.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { expect, test } from 'vitest';

const TIMEOUT_MS = 180_000;

test('the official conformance harness passes against every reference server it can judge', { timeout: TIMEOUT_MS + 10_000 }, async () => {
  // Its own process group, so a timeout can end the harness and every server scenario it started.
  const child = spawn(process.execPath, [join(import.meta.dirname, 'official-harness.ts')], { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), TIMEOUT_MS);
  const [code, signal] = (await once(child, 'exit')) as [number | null, string | null];
  clearTimeout(timer);
  expect({ code, signal }, `harness output:\n${output}`).toEqual({ code: 0, signal: null });
  expect(output).toMatch(/server --requirements 2025-11-25 +PASS/);
  expect(output).toMatch(/server --requirements 2026-07-28 +PASS/);
});
