// The command line as a user runs it: a child process, its output and its exit code.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Agent, request } from 'undici';
import { afterEach, describe, expect, test } from 'vitest';

const CLI = join(import.meta.dirname, 'cli.ts');
const children: ReturnType<typeof spawn>[] = [];

function start(args: string[]) {
  const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  return child;
}

/** Resolves with the child's exit code and output, or rejects after `timeoutMs`. */
async function finished(child: ReturnType<typeof spawn>, timeoutMs = 10_000) {
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk) => (stdout += chunk));
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const [code] = (await Promise.race([
    once(child, 'close'),
    new Promise((_, reject) => setTimeout(() => reject(new Error(`cli did not exit within ${timeoutMs} ms`)), timeoutMs).unref()),
  ])) as [number];
  return { code, stdout, stderr };
}

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

describe('serve', () => {
  test('prints one JSON line with the URL, serves on it, and stops cleanly on SIGINT', async () => {
    const child = start(['serve', '--era', '2025-06-18', '--personality', 'delete-405', '--json']);
    const lines = createInterface({ input: child.stdout! });
    const [first] = (await Promise.race([
      once(lines, 'line'),
      new Promise((_, reject) => setTimeout(() => reject(new Error('serve printed no line within 10 s')), 10_000).unref()),
    ])) as [string];
    const info = JSON.parse(first);
    expect(info).toMatchObject({ era: '2025-06-18', personalities: ['delete-405'] });
    expect(info.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const agent = new Agent();
    try {
      const answer = await request(info.url, { method: 'DELETE', dispatcher: agent });
      await answer.body.text();
      expect(answer.statusCode).toBe(405);
    } finally {
      await agent.close();
    }
    lines.close();
    const exit = finished(child);
    child.kill('SIGINT');
    expect((await exit).code).toBe(0);
  });

  test('--help lists every era and personality with one line each', async () => {
    const { code, stdout } = await finished(start(['serve', '--help']));
    expect(code).toBe(0);
    for (const name of ['2024-11-05', '2025-11-25', '2026-07-28', 'dual', 'stateless', 'delete-405']) expect(stdout).toMatch(new RegExp(`^  ${name} +\\S`, 'm'));
  });

  test('an unknown era or personality is a one-line error with exit code 2', async () => {
    const era = await finished(start(['serve', '--era', '1999-01-01']));
    expect(era.code).toBe(2);
    expect(era.stderr).toMatch(/^mcp-client-conformance: unknown era "1999-01-01"; eras: 2024-11-05, /);
    const personality = await finished(start(['serve', '--era', '2025-06-18', '--personality', 'grumpy']));
    expect(personality.code).toBe(2);
    expect(personality.stderr).toMatch(/^mcp-client-conformance: unknown personality "grumpy"/);
  });
});

describe('run and list', () => {
  test('list names every scenario; run prints a verdict table and exits 1 on a failure', async () => {
    const list = await finished(start(['list']));
    expect(list.stdout).toMatch(/^negotiation\/handshake-order$/m);
    const failing = await finished(start(['run', '--adapter', 'broken-skips-initialized', '--scenario', 'handshake']));
    expect(failing.code).toBe(1);
    expect(failing.stdout).toMatch(/^negotiation\/handshake-order\s+2025-06-18\s+fail\s/m);
    const missing = await finished(start(['run', '--adapter', 'nope']));
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/no built-in adapter named "nope"/);
  });
});
