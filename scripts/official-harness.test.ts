// CI runs the official conformance harness against our reference servers as part of `npm test`.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { basePolicy } from '../config/settings.ts';

/**
 * A safety net, not a bound it measures: it takes about 1 min on a quiet 2-core machine, longer beside a CPU hog;
 * as long as the harness's own bound on one requirements run (scripts/official-harness.ts), scaled like it.
 */
const TIMEOUT_MS = 5 * 60_000 * basePolicy().scale;

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
  expect(output, `harness output:\n${output}`).toMatch(/server --requirements 2025-11-25 +PASS/);
  expect(output, `harness output:\n${output}`).toMatch(/server --requirements 2026-07-28 +PASS/);
});

/** Two scenario runs (one per revision), each a few seconds: a start of the harness, its servers, and the client process. */
const CLIENT_TIMEOUT_MS = 2 * 90_000 * basePolicy().scale;

test('the official harness client part: the reference client authorizes headlessly and passes an official auth scenario', { timeout: CLIENT_TIMEOUT_MS + 10_000 }, async () => {
  // auth/metadata-var2: PRM at the path-based URL, a server without a path (the resource is sent without a '/'), dynamic
  // registration, PKCE and `resource`, the authorization URL followed by scripts/official-client/reference.ts.
  const args = [join(import.meta.dirname, 'official-harness.ts'), '--client', '--scenario', 'auth/metadata-var2'];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), CLIENT_TIMEOUT_MS);
  const [code, signal] = (await once(child, 'exit')) as [number | null, string | null];
  clearTimeout(timer);
  expect({ code, signal }, `harness output:\n${output}`).toEqual({ code: 0, signal: null });
  expect(output, `harness output:\n${output}`).toMatch(/auth\/metadata-var2 @ 2025-11-25 +yes +PASS +18 ok, 0 failed/);
  expect(output, `harness output:\n${output}`).toMatch(/auth\/metadata-var2 @ 2026-07-28 +yes +PASS +18 ok, 0 failed/);
});
