// A program that exits or is killed is never judged for it: the case in flight is inconclusive with the reason, the
// next case runs on the program started again, and one that keeps dying (or cannot be started again) leaves later
// cases "not running since" the case it died in, at once. Verdicts through the runner (suites/runner.ts), with real
// programs: the Node driver (a real client) behind testdata/mortal.ts, and the canned test programs.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, test } from 'vitest';
import { basePolicy } from '../../config/settings.ts';
import type { TimePolicy } from '../../config/time.ts';
import { plannedCases } from '../../suites/plan.ts';
import { CLIENT_RUNNING, runCase, runScenario } from '../../suites/runner.ts';
import type { ScenarioResult } from '../../suites/scenario.ts';
import { MAX_RESTARTS, processAdapter, type ProcessAdapter, type ProcessAdapterConfig } from './adapter.ts';
import { BASIC_SCENARIOS, eventually, MISBEHAVING, MORTAL, NODE, NODE_DRIVER, runningMembers } from './testdata/support.ts';

const time = basePolicy();
const started: ProcessAdapter[] = [];
async function start(config: ProcessAdapterConfig): Promise<ProcessAdapter> {
  const adapter = await processAdapter(config);
  started.push(adapter);
  return adapter;
}
afterEach(async () => {
  await Promise.all(
    started.splice(0).map(async (adapter) => {
      await adapter.shutdown();
      expect(runningMembers(adapter.pid), `process group ${adapter.pid}`).toEqual([]);
    }),
  );
});

const stateDir = mkdtempSync(join(tmpdir(), 'mortal-'));
afterAll(() => rmSync(stateDir, { recursive: true, force: true }));
let states = 0;
/** A fresh file for mortal.ts to count its starts in. */
const stateFile = () => join(stateDir, `starts-${++states}`);

/** The settings' policy with a runner's bound on each operation of `operationMs`: a start that restarts the program fits its hello bound. */
const withOperation = (operationMs: number): TimePolicy => ({ ...time, ms: { ...time.ms, operation: operationMs } });

/**
 * Every basic case the adapter speaks, one after another, as the suites run them: runCase (with `time` given, so no
 * calibration), whose bound on start fits a restart (the program's hello bound) as well as an operation.
 */
async function runAll(adapter: ProcessAdapter): Promise<(ScenarioResult & { caseId: string })[]> {
  const results = [];
  for (const { scenario, revision } of plannedCases(BASIC_SCENARIOS).filter((c) => adapter.revisions.includes(c.revision))) {
    results.push({ ...(await runCase(scenario, adapter, revision, { time: withOperation(time.ms.hello + time.ms.operation) })), caseId: `${scenario.id}@${revision}` });
  }
  return results;
}

/**
 * A case as the runner judged it: its verdict, and for an inconclusive one the runner's client-running precondition
 * (what the adapter said; a scenario's own unmet preconditions, which follow it in the reason, are the judge's).
 */
const summary = (r: ScenarioResult) => {
  const running = r.checks.find((c) => c.name === CLIENT_RUNNING);
  const why = running !== undefined ? `${CLIENT_RUNNING}: ${running.detail}` : r.reason;
  return `${r.scenarioId}@${r.revision}: ${r.verdict}${why !== undefined ? ` (${why})` : ''}`;
};

describe('a real client killed during a case', () => {
  test.each([
    {
      how: 'exits with code 3 (on its first connect)',
      args: () => [MORTAL, '--exit-on', 'connect', '--deaths', '1', '--state', stateFile(), '--', NODE, NODE_DRIVER],
      killOnFirstConnect: false,
      reason: 'the client process exited with code 3 during this case; last stderr lines: mortal: dying on connect in start 1',
    },
    {
      how: 'is killed by SIGKILL from outside (during its first connect)',
      args: () => [NODE_DRIVER],
      killOnFirstConnect: true,
      reason: 'the client process was killed by SIGKILL during this case',
    },
  ])('$how: that case is inconclusive and not run again, the next ones run on the program started again and pass', async ({ args, killOnFirstConnect, reason }) => {
    let adapter: ProcessAdapter | undefined;
    let killed = false;
    // The group is killed as the harness sends the first connect: the program never answers it.
    const trace = (direction: 'out' | 'in', line: string) => {
      if (killed || direction !== 'out' || JSON.parse(line).op !== 'connect') return;
      killed = true;
      process.kill(-adapter!.pid, 'SIGKILL');
    };
    adapter = await start({ command: NODE, args: args(), ...(killOnFirstConnect ? { trace } : {}) });
    const firstPid = adapter.pid;
    const [interrupted, ...after] = await runAll(adapter);
    expect(summary(interrupted!)).toBe(`${interrupted!.caseId}: inconclusive (${CLIENT_RUNNING}: ${reason})`);
    expect(interrupted!.attempts, 'an interrupted case is not run again').toBeUndefined();
    expect(after.length).toBeGreaterThanOrEqual(BASIC_SCENARIOS.length);
    expect(after.map(summary)).toEqual(after.map((r) => `${r.caseId}: pass`));
    expect(adapter.restarts).toBe(1);
    expect(adapter.pid).not.toBe(firstPid);
    // Nothing of the first program runs on. Not kill(-pgid, 0): a grandchild killed after its parent exited stays a
    // zombie here (PID 1 does not reap), which a loaded run makes likely.
    await eventually(() => runningMembers(firstPid).length === 0, 'the first program’s process group to end');
  });
});

describe('a program that keeps dying', () => {
  test(`is started again ${MAX_RESTARTS} times; every later case is inconclusive, "not running since" the case it last died in, and refused at once`, async () => {
    const adapter = await start({ command: NODE, args: [MISBEHAVING, '--crash', 'connect'] });
    const results = await runAll(adapter);
    const dying = results.slice(0, MAX_RESTARTS + 1);
    const later = results.slice(MAX_RESTARTS + 1);
    expect(later.length).toBeGreaterThan(0);
    const died = `${CLIENT_RUNNING}: the client process exited with code 3 during this case; last stderr lines: misbehaving: crashing on connect`;
    expect(dying.map(summary)).toEqual(dying.map((r) => `${r.caseId}: inconclusive (${died})`));
    const since = `${CLIENT_RUNNING}: the client process is not running since ${dying.at(-1)!.caseId}: it exited with code 3 (after ${MAX_RESTARTS} restarts)`;
    expect(later.map(summary)).toEqual(later.map((r) => `${r.caseId}: inconclusive (${since})`));
    // Never a MUST failure blamed on the client, and never a case run again for more time.
    expect(results.every((r) => r.attempts === undefined)).toBe(true);
    expect(adapter.restarts).toBe(MAX_RESTARTS);
    // Refused at once: the start settles before a timer of 0 ms fires (no spawn, no wait for a bound).
    const refused = await Promise.race([
      adapter.start('late').then(
        () => 'started',
        (error: Error) => error.message,
      ),
      new Promise((resolve) => setTimeout(() => resolve('it waited'), 0)),
    ]);
    expect(refused).toBe(`client misbehaving is not running since ${dying.at(-1)!.caseId}: it exited with code 3 (after ${MAX_RESTARTS} restarts)`);
    expect(adapter.interrupted('late')).toBe(since.slice(`${CLIENT_RUNNING}: `.length));
    // Each later case waited for no bound: less than the program's own deadline on one operation.
    for (const result of later) expect(result.durationMs).toBeLessThan(time.ms.operation);
  });
});

describe('a program that never starts', () => {
  test('again (no hello after a death): the case that asked is inconclusive naming the hello bound, later ones not running', async () => {
    // The hello bound, relative to this program's start-up measured now (spawn to hello), so the first start fits it.
    const begun = performance.now();
    const probe = await processAdapter({ command: NODE, args: [MORTAL] });
    const startupMs = performance.now() - begun;
    await probe.shutdown();
    const helloTimeoutMs = Math.round(Math.max(2 * time.ms.react, 4 * startupMs));
    const command = [NODE, MORTAL, '--exit-on', 'connect', '--hellos', '1', '--state', stateFile()];
    const adapter = await start({ command: command[0]!, args: command.slice(1), helloTimeoutMs });
    // The runner's bound on start must not fire first: the adapter's hello bound is what is tested.
    const patient = withOperation(helloTimeoutMs + time.ms.operation);
    const cases = plannedCases(BASIC_SCENARIOS).filter((c) => adapter.revisions.includes(c.revision));
    expect(cases.length).toBeGreaterThanOrEqual(3);
    const results: ScenarioResult[] = [];
    for (const { scenario, revision } of cases) results.push(await runScenario(scenario, adapter, revision, { time: patient }));
    const [died, neverStarted, ...later] = results;
    const id = (r: ScenarioResult) => `${r.scenarioId}@${r.revision}`;
    expect(summary(died!)).toBe(`${id(died!)}: inconclusive (${CLIENT_RUNNING}: the client process exited with code 3 during this case; last stderr lines: mortal: dying on connect in start 1)`);
    const noHello = `client ${JSON.stringify(command.join(' '))} printed no hello within ${helloTimeoutMs} ms (does it flush stdout after each line?)`;
    expect(summary(neverStarted!)).toBe(`${id(neverStarted!)}: inconclusive (${CLIENT_RUNNING}: the client process could not be started again after it exited with code 3 during ${id(died!)}: ${noHello})`);
    expect(neverStarted!.evidence?.clientError).toBe(`ClientProcessError: ${noHello}`);
    expect(neverStarted!.durationMs).toBeGreaterThanOrEqual(helloTimeoutMs);
    for (const result of later) {
      expect(summary(result)).toBe(`${id(result)}: inconclusive (${CLIENT_RUNNING}: the client process is not running since ${id(neverStarted!)}: it could not be started again: ${noHello})`);
      // It waited for no hello: shorter than the case that did, by about the hello bound.
      expect(result.durationMs).toBeLessThan(neverStarted!.durationMs);
    }
    expect(adapter.restarts).toBe(1);
  });
});

describe('which cases a death interrupts', () => {
  test('every case in flight on the program when it is killed from outside; none that had ended; the next start starts it again', async () => {
    const adapter = await start({ command: NODE, args: [MISBEHAVING] });
    const done = await adapter.start('done');
    await done.dispose();
    const [first, second] = await Promise.all([adapter.start('first'), adapter.start('second')]);
    const connection = await first.connect('http://127.0.0.1:9/mcp', { timeoutMs: time.ms.react });
    const killedPid = adapter.pid;
    process.kill(-killedPid, 'SIGKILL');
    await eventually(() => adapter.failure !== undefined, 'the adapter to see the program gone');
    await expect(connection.listTools()).rejects.toThrow('client misbehaving is not running: it was killed by SIGKILL');
    await expect(second.dispose()).rejects.toThrow('client misbehaving is not running: it was killed by SIGKILL');
    expect(adapter.interrupted('first')).toBe('the client process was killed by SIGKILL during this case');
    expect(adapter.interrupted('second')).toBe('the client process was killed by SIGKILL during this case');
    expect(adapter.interrupted('done')).toBeUndefined();
    const next = await adapter.start('next');
    expect(adapter.pid).not.toBe(killedPid);
    await next.dispose();
    expect(adapter.interrupted('next')).toBeUndefined();
    // A case id run again once its instance is disposed (as the runner does) is a new case: what the earlier one met is forgotten.
    await expect(first.dispose()).rejects.toThrow('is not running');
    await (await adapter.start('first')).dispose();
    expect(adapter.interrupted('first')).toBeUndefined();
  });

  test('a hang killed by the harness: the case that hung is judged on it, the other case in flight is interrupted', async () => {
    const deadline = time.ms.react;
    const adapter = await start({ command: NODE, args: [MISBEHAVING, '--hang', 'callTool'], operationTimeoutMs: deadline });
    const [hung, bystander] = await Promise.all([adapter.start('hung'), adapter.start('bystander')]);
    const connection = await hung.connect('http://127.0.0.1:9/mcp', { timeoutMs: deadline });
    await expect(connection.callTool('echo', { text: 'x' })).rejects.toThrow(`client misbehaving did not answer callTool within ${deadline} ms`);
    await expect(bystander.dispose()).rejects.toThrow('is not running');
    expect(adapter.interrupted('hung')).toBeUndefined();
    expect(adapter.interrupted('bystander')).toBe(`the client process was killed because it did not answer callTool within ${deadline} ms during this case`);
  });

  test('a death between cases interrupts none; the next case starts the program again', async () => {
    const adapter = await start({ command: NODE, args: [MISBEHAVING] });
    await (await adapter.start('before')).dispose();
    const pid = adapter.pid;
    process.kill(-pid, 'SIGKILL');
    await eventually(() => adapter.failure !== undefined, 'the adapter to see the program gone');
    expect(adapter.failure).toBe('it was killed by SIGKILL');
    await (await adapter.start('after')).dispose();
    expect([adapter.interrupted('before'), adapter.interrupted('after')]).toEqual([undefined, undefined]);
    expect(adapter.restarts).toBe(1);
    expect(adapter.failure).toBeUndefined();
  });

  test('shutdown ends the program for good: a later start is refused, and nothing is started again', async () => {
    const adapter = await start({ command: NODE, args: [MISBEHAVING] });
    await adapter.shutdown();
    await expect(adapter.start('after')).rejects.toThrow('client misbehaving is not running: the adapter was shut down');
    expect(adapter.interrupted('after')).toBe('the client process is not running: the adapter was shut down');
    expect(adapter.restarts).toBe(0);
  });
});
