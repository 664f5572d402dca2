// `serve-stdio` (scripts/commands/serve-stdio.ts), run as a user runs it: the command line it prints launches a server
// that reports back to it, the record is printed as it arrives, and Ctrl-C leaves nothing behind.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { STDIO_CHANNEL_ENV, type StdioTarget } from './protocol.ts';
import { RawStdioClient, WAIT_MS } from './test-client.ts';

const CLI = join(import.meta.dirname, '../../scripts/cli.ts');

function cli(args: string[]) {
  const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  const until = (what: string, predicate: () => boolean) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}; stdout: ${stdout}; stderr: ${stderr}`)), WAIT_MS);
      const check = () => {
        if (!predicate()) return;
        clearTimeout(timer);
        child.stdout.off('data', check).off('end', check);
        child.stderr.off('data', check);
        resolve();
      };
      child.stdout.on('data', check).on('end', check);
      child.stderr.on('data', check);
      check();
    });
  return { child, exited, until, out: () => stdout, err: () => stderr };
}

test('serve-stdio --json: the target it prints launches a server that reports to it; Ctrl-C removes the channel', async () => {
  const serve = cli(['serve-stdio', '--era', '2025-11-25', '--personality', 'stderr-chatter', '--json']);
  try {
    await serve.until('the target', () => serve.out().includes('\n'));
    const printed = JSON.parse(serve.out().split('\n')[0]!) as Omit<StdioTarget, 'transport'> & { era: string; personalities: unknown[] };
    expect(printed).toMatchObject({ command: process.execPath, era: '2025-11-25', personalities: [{ name: 'stderr-chatter' }] });
    const channel = printed.env![STDIO_CHANNEL_ENV]!;
    expect(existsSync(channel)).toBe(true);
    const client = new RawStdioClient({ transport: 'stdio', ...printed });
    expect((await client.initialize('2025-11-25')).result?.['protocolVersion']).toBe('2025-11-25');
    client.closeStdin();
    expect(await client.exited).toEqual({ code: 0, signal: null });
    await serve.until('the record', () => /exiting: code 0 \(stdin EOF\)/.test(serve.err()));
    expect(serve.err()).toMatch(/\[1 pid \d+\] server started \(launch 1\), era 2025-11-25/);
    expect(serve.err()).toMatch(/line 1: \{"jsonrpc":"2.0","id":1,"method":"initialize"/);
    expect(serve.err()).toMatch(/sent \(line 1\): \{"result":\{"protocolVersion":"2025-11-25"/);
    expect(serve.err()).toMatch(/stderr: \d+ bytes: Warning:/);
    serve.child.kill('SIGINT');
    expect(await serve.exited).toBe(0);
    expect(existsSync(channel)).toBe(false);
  } finally {
    serve.child.kill('SIGKILL');
  }
});

test('serve-stdio: the text form shows the command with its environment; --help lists every era and personality; bad usage is exit 2', async () => {
  const serve = cli(['serve-stdio', '--era', 'dual', '--personality', 'probe-slow-start:{"ms":10}']);
  try {
    await serve.until('the command', () => serve.out().includes('Ctrl-C to stop.'));
    expect(serve.out()).toContain(`${STDIO_CHANNEL_ENV}=`);
    expect(serve.out()).toContain(`--era dual --personality 'probe-slow-start:{"ms":10}'`);
    serve.child.kill('SIGINT');
    expect(await serve.exited).toBe(0);
  } finally {
    serve.child.kill('SIGKILL');
  }
  const help = cli(['serve-stdio', '--help']);
  expect(await help.exited).toBe(0);
  for (const word of ['2024-11-05', 'dual', 'wrapper', 'ignores-sigterm', 'probe-corrective-version', 'utf8-split']) expect(help.out()).toContain(word);
  for (const args of [['serve-stdio'], ['serve-stdio', '--era', 'stateless'], ['serve-stdio', '--era', '2025-06-18', '--personality', 'nope'], ['serve-stdio', '--era', '2025-06-18', '--personality', 'batch-answers']]) {
    const bad = cli(args);
    expect(await bad.exited).toBe(2);
  }
});
