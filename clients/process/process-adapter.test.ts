// The process adapter: real scenarios through the Node and Python drivers, and every way a program can misbehave.
// Each misbehaviour must end in an error that names it, within its deadline, with the whole process group gone.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, test } from 'vitest';
import { plannedCases } from '../../suites/plan.ts';
import { runScenario } from '../../suites/runner.ts';
import { processAdapter, type ProcessAdapter, type ProcessAdapterConfig } from './adapter.ts';
import { BASIC_SCENARIOS, eventually, groupExists, MISBEHAVING, NO_PYTHON, NODE, NODE_DRIVER, PYTHON_DRIVER, runningMembers } from './test-support.ts';

const started: ProcessAdapter[] = [];

async function start(config: Omit<ProcessAdapterConfig, 'operationTimeoutMs'> & { operationTimeoutMs?: number }): Promise<ProcessAdapter> {
  const adapter = await processAdapter({ operationTimeoutMs: 4_000, ...config });
  started.push(adapter);
  return adapter;
}

/** The misbehaving program with a 500 ms operation deadline (hang tests), or a long one where a deadline must not be what fires. */
const misbehaving = (...flags: string[]) => start({ command: NODE, args: [MISBEHAVING, ...flags], operationTimeoutMs: 500 });
const misbehavingPatiently = (...flags: string[]) => start({ command: NODE, args: [MISBEHAVING, ...flags], operationTimeoutMs: 10_000 });
/** Margins for timing bounds: wide enough for a loaded two-core CI machine, narrow enough to tell a deadline apart. */
const MARGIN_MS = 500;
const AT_ONCE_MS = 200;
const commandOf = (...flags: string[]) => `client "${[NODE, MISBEHAVING, ...flags].join(' ')}"`;

/** Milliseconds `work` took to settle, and how (its value or its error). */
async function timed<T>(work: Promise<T>): Promise<{ ms: number; error?: Error; value?: T }> {
  const begun = performance.now();
  try {
    const value = await work;
    return { ms: performance.now() - begun, value };
  } catch (error) {
    return { ms: performance.now() - begun, error: error as Error };
  }
}

afterEach(async () => {
  await Promise.all(started.splice(0).map((adapter) => adapter.shutdown()));
});

describe.each([
  { driver: 'node', command: NODE, args: [NODE_DRIVER], name: 'sdk-v2-legacy-process', skip: false },
  { driver: 'python', command: 'python3', args: [PYTHON_DRIVER], name: 'python-stdlib', skip: NO_PYTHON },
])('the $driver driver', ({ command, args, name, skip }) => {
  test.skipIf(skip)('passes every scenario at every suite revision, from one process', async () => {
    const adapter = await start({ command, args });
    expect(adapter.name).toBe(name);
    expect(adapter.features).toContain('mode-legacy');
    const results = [];
    for (const { scenario, revision } of plannedCases(BASIC_SCENARIOS)) results.push(await runScenario(scenario, adapter, revision, { strict: true }));
    expect(results.map((r) => `${r.scenarioId}@${r.revision}: ${r.verdict}${r.reason ? ` (${r.reason})` : ''}`)).toEqual(
      plannedCases(BASIC_SCENARIOS).map(
        ({ scenario, revision }) => `${scenario.id}@${revision}: ${adapter.revisions.includes(revision) ? 'pass' : `n/a (${name} does not speak ${revision})`}`,
      ),
    );
    expect(results.filter((r) => r.verdict === 'pass').length).toBeGreaterThanOrEqual(9);
    expect(adapter.failure).toBeUndefined();
    expect(groupExists(adapter.pid)).toBe(true);
    await adapter.shutdown();
    expect(groupExists(adapter.pid)).toBe(false);
    expect(adapter.failure).toBe('the adapter was shut down');
  });
});

test('a case started again while it is live gets a distinct instance name', async () => {
  const lines: string[] = [];
  const adapter = await start({ command: NODE, args: [MISBEHAVING], trace: (direction, line) => direction === 'out' && lines.push(line) });
  const first = await adapter.start('scenario@2025-06-18');
  const second = await adapter.start('scenario@2025-06-18');
  await Promise.all([first.dispose(), second.dispose()]);
  await adapter.start('scenario@2025-06-18');
  expect(lines.map((line) => JSON.parse(line)).map(({ op, case: name }) => `${op} ${name}`)).toEqual([
    'start scenario@2025-06-18',
    'start scenario@2025-06-18#2',
    'dispose scenario@2025-06-18',
    'dispose scenario@2025-06-18#2',
    'start scenario@2025-06-18',
  ]);
});

describe('a program that hangs', () => {
  test('fails the operation within its deadline, kills the group, and fails later operations at once', async () => {
    const adapter = await misbehaving('--hang', 'callTool');
    const client = await adapter.start('hang');
    const connection = await client.connect('http://127.0.0.1:9/mcp', { timeoutMs: 50 });
    const call = await timed(connection.callTool('echo', { text: 'x' }));
    expect(call.error?.message).toBe('client misbehaving did not answer callTool within 500 ms');
    expect(call.ms).toBeGreaterThanOrEqual(500);
    expect(call.ms).toBeLessThan(500 + MARGIN_MS);
    expect(groupExists(adapter.pid)).toBe(false);
    expect(adapter.failure).toBe('it was killed because it did not answer callTool within 500 ms');
    const later = await timed(connection.info());
    expect(later.error?.message).toBe('client misbehaving is not running: it was killed because it did not answer callTool within 500 ms');
    expect(later.ms).toBeLessThan(AT_ONCE_MS);
    await expect(adapter.start('next')).rejects.toThrow('client misbehaving is not running');
  });

  test('a run goes on: the first case reports the hang, every later case a client error at once', async () => {
    const adapter = await start({ command: NODE, args: [MISBEHAVING, '--hang', 'listTools'], operationTimeoutMs: 1_500 });
    const results = [];
    for (const { scenario, revision } of plannedCases(BASIC_SCENARIOS)) {
      const result = await runScenario(scenario, adapter, revision);
      if (result.verdict !== 'n/a') results.push(result);
    }
    expect(results.map((r) => r.verdict)).toEqual(results.map(() => 'fail'));
    expect(results.length).toBeGreaterThanOrEqual(9);
    expect(results[0]!.evidence?.clientError).toBe('ClientProcessError: client misbehaving did not answer listTools within 1500 ms');
    for (const later of results.slice(1)) {
      expect(later.evidence?.clientError).toBe('ClientProcessError: client misbehaving is not running: it was killed because it did not answer listTools within 1500 ms');
      // A fresh server, the failed start and the judge, but no deadline waited for.
      expect(later.durationMs).toBeLessThan(1_000);
    }
    expect(groupExists(adapter.pid)).toBe(false);
  });

  test('the whole process group is killed, grandchildren included', async () => {
    const adapter = await misbehaving('--grandchild', '--hang', 'start');
    await eventually(() => runningMembers(adapter.pid).length === 2, 'the program and its grandchild');
    await expect(adapter.start('hang')).rejects.toThrow('client misbehaving did not answer start within 500 ms');
    await eventually(() => runningMembers(adapter.pid).length === 0, 'no member of the group left running', 500);
  });
});

describe('a program that misbehaves on stdout or exits', () => {
  test('garbage on stdout is reported as such, with the last stderr lines, and the group is killed', async () => {
    const adapter = await misbehavingPatiently('--garbage', 'listTools', '--stderr', 'misbehaving: about to print garbage');
    const client = await adapter.start('garbage');
    const connection = await client.connect('http://127.0.0.1:9/mcp', { timeoutMs: 50 });
    const list = await timed(connection.listTools());
    expect(list.error?.message).toBe(
      'client misbehaving printed a line that is not line-protocol JSON: "this is not JSON"; last stderr lines: misbehaving: about to print garbage',
    );
    expect(list.ms).toBeLessThan(2_000);
    expect(groupExists(adapter.pid)).toBe(false);
    await expect(connection.close()).rejects.toThrow(
      'client misbehaving is not running: it was killed because it printed a line that is not line-protocol JSON: "this is not JSON"',
    );
  });

  test('a crash is reported with its exit code, the operation it interrupted and its stderr', async () => {
    const adapter = await misbehavingPatiently('--crash', 'connect');
    const client = await adapter.start('crash');
    const connect = await timed(client.connect('http://127.0.0.1:9/mcp', { timeoutMs: 50 }));
    expect(connect.error?.message).toBe('client misbehaving exited with code 3 before it answered connect; last stderr lines: misbehaving: crashing on connect');
    expect(connect.ms).toBeLessThan(2_000);
    expect(groupExists(adapter.pid)).toBe(false);
    await expect(client.dispose()).rejects.toThrow('client misbehaving is not running: it exited with code 3; last stderr lines: misbehaving: crashing on connect');
  });

  test('an answer to an id that is not in flight is reported as such', async () => {
    const adapter = await misbehavingPatiently('--unknown-id', 'info');
    const client = await adapter.start('unknown-id');
    const connection = await client.connect('http://127.0.0.1:9/mcp', { timeoutMs: 50 });
    await expect(connection.info()).rejects.toThrow(/^client misbehaving answered request 9999, which is not in flight$/);
    expect(groupExists(adapter.pid)).toBe(false);
  });
});

describe('the hello', () => {
  test('a program that prints no hello is killed after the hello timeout', async () => {
    const attempt = await timed(processAdapter({ command: NODE, args: [MISBEHAVING, '--no-hello'], operationTimeoutMs: 500, helloTimeoutMs: 300 }));
    expect(attempt.error?.message).toBe(`${commandOf('--no-hello')} printed no hello within 300 ms (does it flush stdout after each line?)`);
    expect(attempt.ms).toBeLessThan(300 + MARGIN_MS);
  });

  test('an invalid hello names every wrong member', async () => {
    await expect(processAdapter({ command: NODE, args: [MISBEHAVING, '--bad-hello'], operationTimeoutMs: 500 })).rejects.toThrow(
      `${commandOf('--bad-hello')} sent an invalid hello: protocol is 2, this harness speaks 1; name is not a non-empty string; description is missing; revisions[1] ("2099-01-01") is not a known revision; features is not an array`,
    );
  });

  test('a program that exits before its hello, and one that cannot be started (no such program, no such folder)', async () => {
    await expect(processAdapter({ command: NODE, args: [MISBEHAVING, '--exit-early'], operationTimeoutMs: 500 })).rejects.toThrow(
      `${commandOf('--exit-early')} exited with code 1 before its hello; last stderr lines: misbehaving: giving up before the hello`,
    );
    await expect(processAdapter({ command: 'no-such-program-anywhere', operationTimeoutMs: 500 })).rejects.toThrow(
      /^cannot start client "no-such-program-anywhere": spawn no-such-program-anywhere ENOENT$/,
    );
    await expect(processAdapter({ command: 'python3', args: ['driver.py'], cwd: '/no/such/folder', operationTimeoutMs: 500 })).rejects.toThrow(
      /^cannot start client "python3 driver.py": its working directory \/no\/such\/folder does not exist$/,
    );
  });
});

describe('shutdown', () => {
  test('a polite program exits on the shutdown request', async () => {
    const adapter = await misbehaving();
    const shutdown = await timed(adapter.shutdown());
    // Well inside the first step (2 s): it did not come to SIGTERM.
    expect(shutdown.ms).toBeLessThan(1_500);
    expect(groupExists(adapter.pid)).toBe(false);
    await expect(adapter.start('after')).rejects.toThrow('client misbehaving is not running: the adapter was shut down');
  });

  test('a program that ignores the request and SIGTERM is killed, within the bounded steps', async () => {
    const adapter = await start({ command: NODE, args: [MISBEHAVING, '--stubborn'], operationTimeoutMs: 500, shutdownStepMs: 200 });
    const shutdown = await timed(adapter.shutdown());
    expect(shutdown.ms).toBeGreaterThanOrEqual(400);
    expect(shutdown.ms).toBeLessThan(3 * 200 + MARGIN_MS);
    expect(groupExists(adapter.pid)).toBe(false);
  });

  for (const how of ['exits', 'is killed by SIGTERM'] as const) {
    test(`when the harness ${how} without shutting down, the program's group is killed on the way out`, async () => {
      const harness = spawn(NODE, [join(import.meta.dirname, 'testdata', 'abandon.ts'), how === 'exits' ? '--exit' : '--wait'], { stdio: ['ignore', 'pipe', 'inherit'] });
      try {
        const [line] = (await Promise.race([once(createInterface({ input: harness.stdout! }), 'line'), new Promise((_, reject) => setTimeout(() => reject(new Error('no pid within 5 s')), 5_000))])) as [string];
        const pid = Number(line);
        if (how === 'is killed by SIGTERM') {
          expect(runningMembers(pid)).toEqual([pid]);
          harness.kill('SIGTERM');
        }
        const [code, signal] = harness.exitCode !== null ? [harness.exitCode, null] : ((await once(harness, 'exit')) as [number | null, string | null]);
        expect(how === 'exits' ? code : signal).toBe(how === 'exits' ? 0 : 'SIGTERM');
        // Its parent is gone, so the killed program may linger as a zombie no one reaps: dead is what counts.
        await eventually(() => runningMembers(pid).length === 0, 'the abandoned program to be gone', 1_000);
      } finally {
        harness.kill('SIGKILL');
      }
    });
  }
});
