// The command line with adapters from elsewhere, as a user runs it: `run --adapter-command "<program>"` and
// `run --adapter ./module.ts` end to end, one exact line and exit code 2 for each bad input, and no program left
// behind when the command line is interrupted.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { SCENARIOS } from '../../suites/index.ts';
import { plannedCases } from '../../suites/plan.ts';
import { BASIC_SCENARIO_IDS, CLI, eventually, MISBEHAVING, NO_PYTHON, NODE, NODE_DRIVER, PYTHON_DRIVER, ROOT } from './test-support.ts';

// Tests here run concurrently: a leftover child is killed after them all, not after each.
const children: ReturnType<typeof spawn>[] = [];
afterAll(() => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

const rel = (path: string) => relative(ROOT, path);

function cli(args: string[], env: Record<string, string> = {}) {
  const child = spawn(NODE, [CLI, ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk) => (stdout += chunk));
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const finished = (async () => {
    const [code, signal] = (await Promise.race([
      // 'close', not 'exit': the last output may arrive after the exit.
      once(child, 'close'),
      new Promise((_, reject) => setTimeout(() => reject(new Error(`cli ${args.join(' ')} did not exit within 20 s`)), 20_000).unref()),
    ])) as [number | null, string | null];
    return { code, signal, stdout, stderr };
  })();
  return { child, finished };
}

const only = (ids: string[]) => ids.flatMap((id) => ['--scenario', id]);

/** The table a passing run prints for these scenarios: each row a pass (or n/a at a revision the client lacks), and the count line. */
function expectPassingTable(stdout: string, ids: string[]): void {
  const cases = plannedCases(SCENARIOS.filter((s) => ids.includes(s.id)));
  expect(cases.length).toBeGreaterThan(0);
  for (const { scenario, revision } of cases) expect(stdout).toMatch(new RegExp(`^${scenario.id}\\s+${revision}\\s+(pass|n/a)\\s`, 'm'));
  const [, passed, notApplicable] = stdout.match(/^(\d+) pass, 0 fail, 0 warn, (\d+) n\/a$/m) ?? [];
  expect(Number(passed) + Number(notApplicable)).toBe(cases.length);
  expect(Number(passed)).toBeGreaterThan(0);
}

describe('run against an adapter from elsewhere', () => {
  test.skipIf(NO_PYTHON).concurrent('--adapter-command with the Python driver prints the verdict table and exits 0', async () => {
    const { code, stdout, stderr } = await cli(['run', '--adapter-command', `python3 ${rel(PYTHON_DRIVER)}`, ...only(BASIC_SCENARIO_IDS)]).finished;
    expect(stderr).toBe('');
    expectPassingTable(stdout, BASIC_SCENARIO_IDS);
    expect(code).toBe(0);
  });

  test.concurrent.each([
    ['--adapter-command with the Node driver', ['--adapter-command', `${NODE} ${rel(NODE_DRIVER)} --adapter sdk-v1`], ['negotiation/version-per-revision']],
    ['--adapter with a module exporting a ClientAdapter', ['--adapter', './clients/process/testdata/modules/reference-copy.ts'], ['negotiation/handshake-order']],
    ['--adapter with a module exporting a processAdapter config', ['--adapter', './clients/process/testdata/modules/driver-config.ts'], ['disposal/delete-issued-session']],
  ])('%s prints the verdict table and exits 0', async (_what, args, ids) => {
    const { code, stdout, stderr } = await cli(['run', ...args, ...only(ids)]).finished;
    expect(stderr).toBe('');
    expectPassingTable(stdout, ids);
    expect(code).toBe(0);
  });
});

describe('each bad input is one line on stderr and exit code 2', () => {
  const modules = './clients/process/testdata/modules';
  test.concurrent.each([
    ['a missing file', ['--adapter', './no/such-adapter.ts'], {}, `adapter module ./no/such-adapter.ts not found (looked for ${ROOT}/no/such-adapter.ts)`],
    ['a module that does not parse', ['--adapter', `${modules}/broken-syntax.mjs`], {}, `adapter module ${modules}/broken-syntax.mjs failed to load: SyntaxError: Unexpected token '{'`],
    [
      'a module without the export',
      ['--adapter', `${modules}/no-export.ts`],
      {},
      `adapter module ${modules}/no-export.ts exports no adapter: expected a default export or an export named "adapter" (a ClientAdapter, or a function returning one), or an export named "processAdapter" (a process adapter config)`,
    ],
    [
      'an export of the wrong shape',
      ['--adapter', `${modules}/wrong-shape.ts`],
      {},
      `adapter module ${modules}/wrong-shape.ts: export "default" is not a ClientAdapter: name is not a non-empty string; description is missing; revisions[1] ("2099-01-01") is not a known revision; features[0] ("teleport") is not a known feature; start is not a function; shutdown is not a function`,
    ],
    [
      'a program that prints no hello within the timeout',
      ['--adapter-command', `${NODE} ${rel(MISBEHAVING)} --no-hello`],
      { MCP_CONFORMANCE_HELLO_TIMEOUT_MS: '300' },
      `client "${NODE} ${rel(MISBEHAVING)} --no-hello" printed no hello within 300 ms (does it flush stdout after each line?)`,
    ],
    ['a program that does not exist', ['--adapter-command', 'no-such-program-anywhere'], {}, 'cannot start client "no-such-program-anywhere": spawn no-such-program-anywhere ENOENT'],
    ['both --adapter and --adapter-command', ['--adapter', 'reference', '--adapter-command', 'python3 x.py'], {}, 'give --adapter or --adapter-command, not both'],
    ['neither', [], {}, 'run needs --adapter <name or module> or --adapter-command "<program>"; see `mcp-client-conformance adapters`'],
  ] as const)('%s', async (_what, args, env, message) => {
    const { code, stdout, stderr } = await cli(['run', ...args], env).finished;
    expect(stderr).toBe(`mcp-client-conformance: ${message}\n`);
    expect(stdout).toBe('');
    expect(code).toBe(2);
  });
});

/** Running processes (not zombies) whose command line contains `marker`. */
function runningWith(marker: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) continue;
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(marker)) found.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

test('Ctrl-C during a run leaves no client program behind', async () => {
  const marker = `cli-interrupt-${process.pid}-${Date.now()}`;
  const { child, finished } = cli(['run', '--adapter-command', `${NODE} ${rel(MISBEHAVING)} --stubborn --hang listTools --tag ${marker}`], { MCP_CONFORMANCE_OPERATION_TIMEOUT_MS: '20000' });
  // The command line itself carries the marker too (in its --adapter-command); the program is the other one.
  const program = () => runningWith(marker).filter((pid) => pid !== child.pid);
  await eventually(() => program().length === 1, 'the client program to start', 10_000);
  child.kill('SIGINT');
  const { signal } = await finished;
  expect(signal).toBe('SIGINT');
  await eventually(() => program().length === 0, 'the client program to be gone', 1_000);
});
