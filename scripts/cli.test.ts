// The command line as a user runs it: a child process, its output and its exit code. No test bounds the CLI by the
// clock (every client operation in a run is bounded by the time policy); a child that ends early is a failure, said.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { Agent, request } from 'undici';
import { afterAll, afterEach, describe, expect, test } from 'vitest';
import { SETTINGS_ENV } from '../config/settings.ts';

const CLI = join(import.meta.dirname, 'cli.ts');
const REFERENCE = pathToFileURL(join(import.meta.dirname, '..', 'clients', 'reference', 'index.ts')).href;
const children: ReturnType<typeof spawn>[] = [];
const work = mkdtempSync(join(tmpdir(), 'cli-test-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function start(args: string[], env: NodeJS.ProcessEnv = {}) {
  const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  children.push(child);
  return child;
}

/** Resolves with the child's exit code and output once it has exited. */
async function finished(child: ReturnType<typeof spawn>) {
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk) => (stdout += chunk));
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const [code] = (await once(child, 'close')) as [number];
  return { code, stdout, stderr };
}

/** An adapter module for `run --adapter <file>`: the reference client with `body` spread over it. */
function adapterModule(name: string, body: string): string {
  const path = join(work, `${name}.ts`);
  writeFileSync(path, `import { referenceClient } from ${JSON.stringify(REFERENCE)};\nimport { existsSync, writeFileSync } from 'node:fs';\nexport default { ...referenceClient, name: ${JSON.stringify(name)}, ${body} };\n`);
  return path;
}

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

describe('serve', { timeout: 0 }, () => {
  test('prints one JSON line with the URL, serves on it, and stops cleanly on SIGINT', async () => {
    const child = start(['serve', '--era', '2025-06-18', '--personality', 'delete-405', '--json']);
    const lines = createInterface({ input: child.stdout! });
    const [first] = (await Promise.race([
      once(lines, 'line'),
      once(child, 'exit').then(([code]) => Promise.reject(new Error(`serve exited (${code}) before printing a line`))),
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

describe('run and list', { timeout: 0 }, () => {
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

  test('an inconclusive case is marked "? inconclusive" with its reason, counted, said, and does not fail the run', async () => {
    const dead = adapterModule('dead-client', `interrupted: () => 'the client process exited with code 1 before this case'`);
    const run = await finished(start(['run', '--adapter', dead, '--scenario', 'handshake-order']));
    expect(run.code, run.stderr).toBe(0);
    const rows = run.stdout.split('\n').filter((line) => line.startsWith('negotiation/handshake-order'));
    expect(rows).toHaveLength(4);
    for (const row of rows) expect(row).toMatch(/^negotiation\/handshake-order\s+\S+\s+\? inconclusive\s+\d+ ms\s+client-running: the client process exited with code 1 before this case$/);
    expect(run.stdout).toMatch(/\n0 pass, 0 fail, 0 warn, 4 inconclusive, 0 n\/a\n/);
    expect(run.stderr).toContain('4 cases were inconclusive: the suite could not judge them');
  });

  test('SIGINT prints the table of the cases that finished, says the run was interrupted, and exits 130', async () => {
    // The case at 2025-06-18 never starts (its operation bound is an hour): two cases finish before it, two are left.
    const signal = join(work, 'held');
    const held = adapterModule('held-client', `async start(caseId) { if (caseId.includes('@2025-06-18')) { writeFileSync(${JSON.stringify(signal)}, ''); await new Promise(() => {}); } return referenceClient.start(caseId); }`);
    const child = start(['run', '--adapter', held, '--scenario', 'handshake-order'], { [SETTINGS_ENV.operationTimeout]: String(3_600_000) });
    const exit = finished(child);
    let ended = false;
    void exit.then(() => (ended = true));
    while (!existsSync(signal)) {
      if (ended) throw new Error(`run ended before its held case: ${JSON.stringify(await exit)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    child.kill('SIGINT');
    const { code, stdout, stderr } = await exit;
    expect(code, stderr).toBe(130);
    expect(stdout.split('\n').filter((line) => line.startsWith('negotiation/handshake-order')).map((line) => line.split(/\s+/).slice(1, 3).join(' '))).toEqual(['2024-11-05 pass', '2025-03-26 pass']);
    expect(stdout).toMatch(/\n2 pass, 0 fail, 0 warn, 0 inconclusive, 0 n\/a\n/);
    expect(stderr).toContain('interrupted by SIGINT after 2 of 4 cases; the table above has the ones that finished');
  });
});
