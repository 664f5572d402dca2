// The process adapter: real scenarios through the Node and Python drivers, and every way a program can misbehave.
// Each misbehaviour must end in an error that names it, at its deadline, with the whole process group gone. (A program
// started again after it died, and the cases a death interrupts: restart.test.ts.)
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, test } from 'vitest';
import { basePolicy } from '../../config/settings.ts';
import { ATTEMPT_GROWTH, closeBoundMs, scaledBy, timePolicy } from '../../config/time.ts';
import { plannedCases } from '../../suites/plan.ts';
import { CLIENT_RUNNING, runScenario } from '../../suites/runner.ts';
import { defineScenario, type ScenarioResult } from '../../suites/scenario.ts';
import { clientCompleted } from '../../suites/checks.ts';
import { MAX_RESTARTS, processAdapter, programOperationMs, programTimeouts, type ProcessAdapter, type ProcessAdapterConfig } from './adapter.ts';
import { BASIC_SCENARIOS, eventually, groupExists, MISBEHAVING, NO_PYTHON, NODE, NODE_DRIVER, PYTHON_DRIVER, runningMembers } from './testdata/support.ts';

const started: ProcessAdapter[] = [];

/** A scenario that connects, calls once and closes, judging nothing but that the script ran to its end. */
const callOnce = defineScenario({
  id: 'test/call-once',
  title: 'connects, calls once, closes',
  revisions: ['2025-06-18'],
  requires: [],
  source: { spec: { url: 'u', section: 'the client runs the script', level: 'MUST' } },
  async run({ connect, bounded }) {
    const connection = await connect();
    await bounded(connection.callTool('echo', {}), 'tools/call');
    await bounded(connection.close(), 'close');
  },
  judge: (evidence) => [clientCompleted(evidence, { url: 'u', section: 'the client runs the script', level: 'MUST' })],
});

/** A program with the deadlines of the settings' time policy unless the test gives its own. */
async function start(config: ProcessAdapterConfig): Promise<ProcessAdapter> {
  const adapter = await processAdapter(config);
  started.push(adapter);
  return adapter;
}

const time = basePolicy();
/** A short deadline, for the tests of a hang: one reaction time. */
const HANG_MS = time.ms.react;
/** The misbehaving program with the short deadline (hang tests), or the policy's where a deadline must not be what fires. */
const misbehaving = (...flags: string[]) => start({ command: NODE, args: [MISBEHAVING, ...flags], operationTimeoutMs: HANG_MS });
const misbehavingPatiently = (...flags: string[]) => start({ command: NODE, args: [MISBEHAVING, ...flags] });
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
    expect(adapter.restarts).toBe(0);
    expect(plannedCases(BASIC_SCENARIOS).map(({ scenario, revision }) => adapter.interrupted(`${scenario.id}@${revision}`)).filter(Boolean)).toEqual([]);
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
  test('fails the operation at its deadline and kills the group; that instance fails at once; the case is judged, and the next one starts it again', async () => {
    const adapter = await misbehaving('--hang', 'callTool');
    const client = await adapter.start('hang');
    const connection = await client.connect('http://127.0.0.1:9/mcp', { timeoutMs: 50 });
    const hungPid = adapter.pid;
    const call = await timed(connection.callTool('echo', { text: 'x' }));
    expect(call.error?.message).toBe(`client misbehaving did not answer callTool within ${HANG_MS} ms`);
    expect(call.ms).toBeGreaterThanOrEqual(HANG_MS);
    expect(groupExists(hungPid)).toBe(false);
    expect(adapter.failure).toBe(`it was killed because it did not answer callTool within ${HANG_MS} ms`);
    const later = await timed(connection.info());
    expect(later.error?.message).toBe(`client misbehaving is not running: it was killed because it did not answer callTool within ${HANG_MS} ms`);
    // At once: it waited for no deadline.
    expect(later.ms).toBeLessThan(HANG_MS);
    await expect(client.dispose()).rejects.toThrow('client misbehaving is not running');
    // The hang was this case's own doing: judged on it, not reported as interrupted.
    expect(adapter.interrupted('hang')).toBeUndefined();
    await (await adapter.start('next')).dispose();
    expect(adapter.pid).not.toBe(hungPid);
    expect(adapter.restarts).toBe(1);
  });

  test(`a run goes on: each case is judged on its hang, on the program started again, until ${MAX_RESTARTS} restarts are used; later cases are not running`, async () => {
    const adapter = await misbehaving('--hang', 'listTools');
    const results: ScenarioResult[] = [];
    for (const { scenario, revision } of plannedCases(BASIC_SCENARIOS)) {
      const result = await runScenario(scenario, adapter, revision);
      if (result.verdict !== 'n/a') results.push(result);
    }
    const hung = results.slice(0, MAX_RESTARTS + 1);
    const later = results.slice(MAX_RESTARTS + 1);
    expect(later.length).toBeGreaterThan(0);
    const id = (r: ScenarioResult) => `${r.scenarioId}@${r.revision}`;
    const hang = `ClientProcessError: client misbehaving did not answer listTools within ${HANG_MS} ms`;
    // Judged on the hang (the scenario's judge says how): never reported as a client that was not running.
    const running = (r: ScenarioResult) => r.checks.find((c) => c.name === CLIENT_RUNNING)?.detail;
    expect(hung.map((r) => `${id(r)}: ${r.evidence?.clientError}, ${running(r)}`)).toEqual(hung.map((r) => `${id(r)}: ${hang}, undefined`));
    expect(hung.every((r) => r.verdict !== 'pass')).toBe(true);
    const since = `the client process is not running since ${id(hung.at(-1)!)}: it was killed because it did not answer listTools within ${HANG_MS} ms (after ${MAX_RESTARTS} restarts)`;
    expect(later.map((r) => `${id(r)}: ${r.verdict} (${running(r)})`)).toEqual(later.map((r) => `${id(r)}: inconclusive (${since})`));
    expect(groupExists(adapter.pid)).toBe(false);
  });

  test('one that says its client hung (1.4 "hung") leaves that operation unsettled, as an in-process hang, and stays running for the rest', async () => {
    const adapter = await misbehaving('--says-hung', 'callTool');
    const client = await adapter.start('hung');
    const connection = await client.connect('http://127.0.0.1:9/mcp', { timeoutMs: 50 });
    const call = connection.callTool('echo', { text: 'x' });
    // Settled or not once the next answer (info) is in: the program answered the call before the info.
    const first = await Promise.race([call.then(() => 'settled', () => 'settled'), connection.info().then(() => 'info answered')]);
    expect(first).toBe('info answered');
    expect(adapter.failure).toBeUndefined();
    expect(groupExists(adapter.pid)).toBe(true);
    await client.dispose();
    expect(adapter.restarts).toBe(0);
  });

  test('the whole process group is killed, grandchildren included', async () => {
    const adapter = await misbehaving('--grandchild', '--hang', 'start');
    await eventually(() => runningMembers(adapter.pid).length === 2, 'the program and its grandchild');
    await expect(adapter.start('hang')).rejects.toThrow(`client misbehaving did not answer start within ${HANG_MS} ms`);
    await eventually(() => runningMembers(adapter.pid).length === 0, 'no member of the group left running');
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
    expect(groupExists(adapter.pid)).toBe(false);
    await expect(connection.close()).rejects.toThrow(
      'client misbehaving is not running: it was killed because it printed a line that is not line-protocol JSON: "this is not JSON"',
    );
    // The program broke the line protocol, not its client the MCP rules: an adapter error, which names the line.
    expect(adapter.interrupted('garbage')).toBe(
      'adapter error (the line protocol, not the client): the client process was killed because it printed a line that is not line-protocol JSON: "this is not JSON" during this case; last stderr lines: misbehaving: about to print garbage',
    );
  });

  test('a crash is reported with its exit code, the operation it interrupted and its stderr; the case is interrupted, not judged', async () => {
    const adapter = await misbehavingPatiently('--crash', 'connect');
    const client = await adapter.start('crash');
    const connect = await timed(client.connect('http://127.0.0.1:9/mcp', { timeoutMs: 50 }));
    expect(connect.error?.message).toBe('client misbehaving exited with code 3 before it answered connect; last stderr lines: misbehaving: crashing on connect');
    expect(groupExists(adapter.pid)).toBe(false);
    await expect(client.dispose()).rejects.toThrow('client misbehaving is not running: it exited with code 3; last stderr lines: misbehaving: crashing on connect');
    expect(adapter.interrupted('crash')).toBe('the client process exited with code 3 during this case; last stderr lines: misbehaving: crashing on connect');
  });

  test('an answer to an id that is not in flight is reported as such', async () => {
    const adapter = await misbehavingPatiently('--unknown-id', 'info');
    const client = await adapter.start('unknown-id');
    const connection = await client.connect('http://127.0.0.1:9/mcp', { timeoutMs: 50 });
    await expect(connection.info()).rejects.toThrow(/^client misbehaving answered request 9999, which is not in flight: "\{\\"id\\":9999,\\"result\\":\{\}\}"$/);
    expect(groupExists(adapter.pid)).toBe(false);
    expect(adapter.interrupted('unknown-id')).toMatch(/^adapter error \(the line protocol, not the client\): the client process was killed because it answered request 9999/);
  });

  test('a case whose program printed garbage is inconclusive with an adapter error naming the line, never a client failure', async () => {
    const adapter = await misbehavingPatiently('--garbage', 'callTool');
    const result = await runScenario(callOnce, adapter, '2025-06-18');
    expect(result.verdict, result.reason).toBe('inconclusive');
    expect(result.reason).toMatch(/^client-running: adapter error \(the line protocol, not the client\): the client process was killed because it printed a line that is not line-protocol JSON: "this is not JSON"/);
  });

  test('an answer with the line protocol’s own error code is an adapter error, not the client’s', async () => {
    const adapter = await misbehavingPatiently('--unknown-op', 'callTool');
    const result = await runScenario(callOnce, adapter, '2025-06-18');
    expect(result.verdict, result.reason).toBe('inconclusive');
    expect(result.reason).toMatch(/^client-running: adapter error \(the line protocol, not the client\): this program does not know callTool/);
  });
});

describe('the harness’s own timers', () => {
  test('a request still awaiting its answer at dispose leaves the adapter’s deadline timer running: the harness’s, never reported as the client’s', async () => {
    const adapter = await misbehavingPatiently('--hang', 'callTool');
    const givenUp = defineScenario({
      ...callOnce,
      id: 'test/call-given-up',
      async run({ connect, bounded }) {
        const connection = await connect();
        // The runner gives up on the call long before the program's deadline.
        await bounded(connection.callTool('echo', {}), 'tools/call', 100).catch(() => {});
      },
    });
    const result = await runScenario(givenUp, adapter, '2025-06-18');
    expect(result.checks.map((c) => c.name)).not.toContain('timers-released');
  });
});

describe('the hello', () => {
  test('a program that prints no hello is killed at the hello bound, which the error names', async () => {
    const helloTimeoutMs = time.ms.react;
    const attempt = await timed(processAdapter({ command: NODE, args: [MISBEHAVING, '--no-hello'], helloTimeoutMs }));
    expect(attempt.error?.message).toBe(`${commandOf('--no-hello')} printed no hello within ${helloTimeoutMs} ms (does it flush stdout after each line?)`);
    expect(attempt.ms).toBeGreaterThanOrEqual(helloTimeoutMs);
  });

  test('the hello bound and the operation deadline come from the time policy, the deadline below the runner’s bound on the same operation', async () => {
    const adapter = await start({ command: NODE, args: [MISBEHAVING, '--hang', 'info'] });
    expect(programOperationMs(time)).toBe(time.ms.operation - 2 * time.ms.react);
    expect(programOperationMs(time)).toBeLessThan(time.ms.operation);
    expect(programTimeouts(time)).toEqual({ operationTimeoutMs: programOperationMs(time), helloTimeoutMs: time.ms.hello });
    // A bound too short for two reactions below it keeps half of it.
    expect(programOperationMs({ ...time, ms: { ...time.ms, operation: time.ms.react } })).toBe(Math.round(time.ms.react / 2));
    const client = await adapter.start('deadline');
    const connection = await client.connect('http://127.0.0.1:9/mcp', { timeoutMs: 50 });
    await expect(connection.info()).rejects.toThrow(`client misbehaving did not answer info within ${programOperationMs(time)} ms`);
  });

  test('a case gets the deadline of its own time policy: one run again with larger bounds gives the program longer too', async () => {
    const adapter = await start({ command: NODE, args: [MISBEHAVING, '--hang', 'info'] });
    const small = timePolicy({ overrides: { operation: 400, react: 50 } });
    const again = scaledBy(small, ATTEMPT_GROWTH);
    expect(programOperationMs(again)).toBe(ATTEMPT_GROWTH * programOperationMs(small));
    const client = await adapter.start('deadline@again', again);
    const connection = await client.connect('http://127.0.0.1:9/mcp', { timeoutMs: 50 });
    await expect(connection.info()).rejects.toThrow(`client misbehaving did not answer info within ${programOperationMs(again)} ms`);
  });

  test('close over HTTP may wait on the session DELETE as long as the runner waits for a close: its deadline is closeBoundMs and a reaction time', async () => {
    const adapter = await start({ command: NODE, args: [MISBEHAVING, '--hang', 'close'] });
    const small = timePolicy({ overrides: { operation: 400, react: 50 } });
    const clientTimeoutMs = 600;
    // A client given a timeout past the operation bound: a server may hold its DELETE past it, and it may wait.
    expect(closeBoundMs(small, clientTimeoutMs)).toBeGreaterThan(programOperationMs(small));
    const client = await adapter.start('close-deadline', small);
    const connection = await client.connect('http://127.0.0.1:9/mcp', { timeoutMs: clientTimeoutMs });
    await expect(connection.close()).rejects.toThrow(`client misbehaving did not answer close within ${closeBoundMs(small, clientTimeoutMs) + small.ms.react} ms`);
  });

  test('an invalid hello names every wrong member', async () => {
    await expect(processAdapter({ command: NODE, args: [MISBEHAVING, '--bad-hello'] })).rejects.toThrow(
      `${commandOf('--bad-hello')} sent an invalid hello: protocol is 2, this harness speaks 1; name is not a non-empty string; description is missing; revisions[1] ("2099-01-01") is not a known revision; features is not an array`,
    );
  });

  test('a program that exits before its hello, and one that cannot be started (no such program, no such folder)', async () => {
    await expect(processAdapter({ command: NODE, args: [MISBEHAVING, '--exit-early'] })).rejects.toThrow(
      `${commandOf('--exit-early')} exited with code 1 before its hello; last stderr lines: misbehaving: giving up before the hello`,
    );
    await expect(processAdapter({ command: 'no-such-program-anywhere' })).rejects.toThrow(/^cannot start client "no-such-program-anywhere": spawn no-such-program-anywhere ENOENT$/);
    await expect(processAdapter({ command: 'python3', args: ['driver.py'], cwd: '/no/such/folder' })).rejects.toThrow(
      /^cannot start client "python3 driver.py": its working directory \/no\/such\/folder does not exist$/,
    );
  });
});

describe('shutdown', () => {
  test('a polite program answers the shutdown request and exits within the first step', async () => {
    const lines: { direction: string; line: string }[] = [];
    const adapter = await start({ command: NODE, args: [MISBEHAVING], trace: (direction, line) => lines.push({ direction, line }) });
    const step = 4 * time.ms.react;
    const shutdown = await timed(adapter.shutdown());
    const request = lines.map(({ line }) => JSON.parse(line)).find((message) => message.op === 'shutdown');
    expect(lines.some(({ direction, line }) => direction === 'in' && JSON.parse(line).id === request.id)).toBe(true);
    // Before the second step (SIGTERM) would have begun.
    expect(shutdown.ms).toBeLessThan(step);
    expect(groupExists(adapter.pid)).toBe(false);
    await expect(adapter.start('after')).rejects.toThrow('client misbehaving is not running: the adapter was shut down');
  });

  test('a program that ignores the request and SIGTERM is killed after the bounded steps', async () => {
    const step = time.ms.react;
    const adapter = await start({ command: NODE, args: [MISBEHAVING, '--stubborn'], shutdownStepMs: step });
    const shutdown = await timed(adapter.shutdown());
    // The request and SIGTERM each waited for their step; SIGKILL ended it.
    expect(shutdown.ms).toBeGreaterThanOrEqual(2 * step);
    expect(groupExists(adapter.pid)).toBe(false);
  });

  for (const how of ['exits', 'is killed by SIGTERM'] as const) {
    test(`when the harness ${how} without shutting down, the program's group is killed on the way out`, async () => {
      const harness = spawn(NODE, [join(import.meta.dirname, 'testdata', 'abandon.ts'), how === 'exits' ? '--exit' : '--wait'], { stdio: ['ignore', 'pipe', 'inherit'] });
      try {
        // The harness starts, then the program, which has the hello bound to say hello.
        const bound = time.ms.operation + time.ms.hello;
        const [line] = (await Promise.race([
          once(createInterface({ input: harness.stdout! }), 'line'),
          new Promise((_, reject) => setTimeout(() => reject(new Error(`no pid within ${bound} ms`)), bound).unref()),
        ])) as [string];
        const pid = Number(line);
        if (how === 'is killed by SIGTERM') {
          expect(runningMembers(pid)).toEqual([pid]);
          harness.kill('SIGTERM');
        }
        const [code, signal] = harness.exitCode !== null ? [harness.exitCode, null] : ((await once(harness, 'exit')) as [number | null, string | null]);
        expect(how === 'exits' ? code : signal).toBe(how === 'exits' ? 0 : 'SIGTERM');
        // Its parent is gone, so the killed program may linger as a zombie no one reaps: dead is what counts.
        await eventually(() => runningMembers(pid).length === 0, 'the abandoned program to be gone');
      } finally {
        harness.kill('SIGKILL');
      }
    });
  }
});
