// The command line with adapters from elsewhere, as a user runs it: `run --adapter-command "<program>"` and
// `run --adapter ./module.ts` end to end, one exact line and exit code 2 for each bad input, and no program left
// behind when the command line is interrupted.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { basePolicy, readSettings } from '../../config/settings.ts';
import { SCENARIOS } from '../../suites/index.ts';
import { plannedCases } from '../../suites/plan.ts';
import { BASIC_SCENARIO_IDS, CLI, eventually, MISBEHAVING, NO_PYTHON, NODE, NODE_DRIVER, PYTHON_DRIVER, ROOT } from './testdata/support.ts';

/** At most `size` jobs at once, the rest in order. */
class Semaphore {
  private free: number;
  private readonly waiting: (() => void)[] = [];
  constructor(size: number) {
    this.free = size;
  }
  async run<T>(job: () => Promise<T>): Promise<T> {
    if (this.free > 0) this.free--;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await job();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.free++;
    }
  }
}

// Tests here run concurrently: a leftover child is killed after them all, not after each.
const children: ReturnType<typeof spawn>[] = [];
afterAll(() => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

const rel = (path: string) => relative(ROOT, path);
const time = basePolicy();

// Each command line loads the whole suite before it does anything: more of them at once than there are cores only
// share the cores, and each then takes several times longer (8 at once on two busy cores outran a 30 s bound).
const slots = new Semaphore(availableParallelism());

/** How much longer than a bare `run` (measured first, in this run) a command line may take to load, on a machine whose load changes. */
const LOAD_HEADROOM = 4;
/** What a bare `run` (no adapter: it loads, prints one line, exits 2) took, measured before the tests. */
let loadMs = 0;
beforeAll(async () => {
  const begun = performance.now();
  const { code } = await cli(['run'], { boundMs: Number.POSITIVE_INFINITY }).finished;
  loadMs = performance.now() - begun;
  expect(code).toBe(2);
}, 0);

/** The bound on a run of these scenarios beyond loading: the program's hello, then each planned case's operations (time policy). */
const casesBound = (ids: readonly string[]) => time.ms.hello + plannedCases(SCENARIOS.filter((s) => ids.includes(s.id))).length * 2 * time.ms.operation;

/**
 * Runs the command line to its exit, one per core at a time, bounded by LOAD_HEADROOM times the bare run measured
 * above plus `boundMs` (what the run does beyond loading; default: nothing but a one-line answer). The tests that
 * call it have no timeout of their own (0): this bound, relative to this machine's speed now, is theirs.
 */
function cli(args: string[], { env = {}, boundMs = 0 }: { env?: Record<string, string>; boundMs?: number } = {}) {
  let stdout = '';
  let stderr = '';
  let started: (child: ChildProcess) => void;
  const child = new Promise<ChildProcess>((resolve) => (started = resolve));
  const finished = slots.run(async () => {
    const spawned = spawn(NODE, [CLI, ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(spawned);
    started(spawned);
    spawned.stdout!.on('data', (chunk) => (stdout += chunk));
    spawned.stderr!.on('data', (chunk) => (stderr += chunk));
    const limit = LOAD_HEADROOM * loadMs + boundMs;
    let timer: NodeJS.Timeout | undefined;
    try {
      const [code, signal] = (await Promise.race([
        // 'close', not 'exit': the last output may arrive after the exit.
        once(spawned, 'close'),
        new Promise((_, reject) => {
          if (!Number.isFinite(limit)) return;
          timer = setTimeout(() => {
            spawned.kill('SIGKILL');
            reject(new Error(`cli ${args.join(' ')} did not exit within ${Math.round(limit)} ms (${LOAD_HEADROOM} × the ${Math.round(loadMs)} ms a bare run took, plus ${boundMs} ms for its cases)`));
          }, limit);
        }),
      ])) as [number | null, string | null];
      return { code, signal, stdout, stderr };
    } finally {
      clearTimeout(timer);
    }
  });
  return { child, finished };
}

const only = (ids: string[]) => ids.flatMap((id) => ['--scenario', id]);

/** The table a passing run prints for these scenarios: no problems (every case a pass, or n/a at a revision the client lacks), and the count line. */
function expectPassingTable(stdout: string, ids: string[]): void {
  const cases = plannedCases(SCENARIOS.filter((s) => ids.includes(s.id)));
  expect(cases.length).toBeGreaterThan(0);
  expect(stdout).toMatch(/^no problems: \d+ cases? passed/);
  // The summary line counts every verdict (inconclusive too, where the command line counts it): none but pass and n/a.
  const [, passed, notApplicable] = stdout.match(/^(\d+) pass, 0 fail, 0 warn, (?:0 inconclusive, )?(\d+) n\/a$/m) ?? [];
  expect(Number(passed) + Number(notApplicable)).toBe(cases.length);
  expect(Number(passed)).toBeGreaterThan(0);
}

describe('run against an adapter from elsewhere', () => {
  test.skipIf(NO_PYTHON).concurrent(
    '--adapter-command with the Python driver prints the verdict table and exits 0',
    async () => {
      const { code, stdout, stderr } = await cli(['run', '--quiet', '--adapter-command', `python3 ${rel(PYTHON_DRIVER)}`, ...only(BASIC_SCENARIO_IDS)], { boundMs: casesBound(BASIC_SCENARIO_IDS) }).finished;
      expect(stderr).toBe('');
      expectPassingTable(stdout, BASIC_SCENARIO_IDS);
      expect(code).toBe(0);
    },
    0,
  );

  test.concurrent.for([
    ['--adapter-command with the Node driver', ['--adapter-command', `${NODE} ${rel(NODE_DRIVER)} --adapter sdk-v1`], ['negotiation/version-per-revision']],
    ['--adapter with a module exporting a ClientAdapter', ['--adapter', './clients/process/testdata/modules/reference-copy.ts'], ['negotiation/handshake-order']],
    ['--adapter with a module exporting a processAdapter config', ['--adapter', './clients/process/testdata/modules/driver-config.ts'], ['disposal/delete-issued-session']],
  ] as [string, string[], string[]][])(
    '%s prints the verdict table and exits 0',
    { timeout: 0 },
    async ([, args, ids]) => {
      const { code, stdout, stderr } = await cli(['run', '--quiet', ...args, ...only(ids)], { boundMs: casesBound(ids) }).finished;
      expect(stderr).toBe('');
      expectPassingTable(stdout, ids);
      expect(code).toBe(0);
    },
  );
});

// A project of `npm init -y` (CommonJS: "type": "commonjs") with an adapter written with import and export in a .ts
// file: Node loads it as CommonJS. Made here, since the repository's type-check would take it for CommonJS too.
const commonjs = mkdtempSync(join(tmpdir(), 'mcp-commonjs-'));
writeFileSync(join(commonjs, 'package.json'), JSON.stringify({ name: 'a-commonjs-project', version: '1.0.0', type: 'commonjs' }));
writeFileSync(join(commonjs, 'adapter.ts'), "import { client } from 'my-client';\n\nexport default client;\n");
afterAll(() => rmSync(commonjs, { recursive: true, force: true }));

describe('each bad input is one line on stderr and exit code 2', () => {
  const modules = './clients/process/testdata/modules';
  test.concurrent.for([
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
      { MCP_CONFORMANCE_HELLO_TIMEOUT_MS: String(time.ms.react) },
      // An override is scaled like every base (MCP_CONFORMANCE_TIME_SCALE, if the tests run with one).
      `client "${NODE} ${rel(MISBEHAVING)} --no-hello" printed no hello within ${basePolicy(readSettings({ ...process.env, MCP_CONFORMANCE_HELLO_TIMEOUT_MS: String(time.ms.react) })).ms.hello} ms (does it flush stdout after each line?)`,
    ],
    [
      'a .ts module with import and export in a CommonJS project',
      ['--adapter', join(commonjs, 'adapter.ts')],
      {},
      `adapter module ${join(commonjs, 'adapter.ts')} failed to load: SyntaxError: Cannot use import statement outside a module (Node loads ${join(commonjs, 'adapter.ts')} as CommonJS: ${join(commonjs, 'package.json')} has "type": "commonjs"); rename it to adapter.mts, an ES module whatever the package.json says (\`mcp-client-conformance init\` writes my-adapter.mts), or set "type": "module" in ${join(commonjs, 'package.json')}`,
    ],
    ['a program that does not exist', ['--adapter-command', 'no-such-program-anywhere'], {}, 'cannot start client "no-such-program-anywhere": spawn no-such-program-anywhere ENOENT'],
    ['both --adapter and --adapter-command', ['--adapter', 'reference', '--adapter-command', 'python3 x.py'], {}, 'give --adapter or --adapter-command, not both'],
    ['neither', [], {}, 'run needs --adapter <name or module> or --adapter-command "<program>"; see `mcp-client-conformance adapters`'],
  ] as const)('%s', { timeout: 0 }, async ([, args, env, message]) => {
    // A program that says no hello is waited for up to its hello bound.
    const { code, stdout, stderr } = await cli(['run', ...args], { env, boundMs: time.ms.hello }).finished;
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

test('Ctrl-C during a run leaves no client program behind', { timeout: 0 }, async () => {
  const marker = `cli-interrupt-${process.pid}-${Date.now()}`;
  // A program that hangs for longer than the run may take: the interrupt, not a deadline, ends the run.
  const hangMs = 4 * time.ms.hello;
  const run = cli(['run', '--adapter-command', `${NODE} ${rel(MISBEHAVING)} --stubborn --hang listTools --tag ${marker}`], {
    env: { MCP_CONFORMANCE_OPERATION_TIMEOUT_MS: String(hangMs) },
    boundMs: hangMs,
  });
  const child = await run.child;
  // The command line itself carries the marker too (in its --adapter-command); the program is the other one.
  const program = () => runningWith(marker).filter((pid) => pid !== child.pid);
  // The command line loads the suite, then starts the program, which has its hello bound.
  await eventually(() => program().length === 1, 'the client program to start', LOAD_HEADROOM * loadMs + time.ms.hello);
  child.kill('SIGINT');
  const { code, signal } = await run.finished;
  // Either moment is Ctrl-C handled: while the client loads (its hello, before any case) the signal ends the process
  // as usual; once cases run, the command line prints what finished and exits 130. On a busy machine the program may be
  // seen only after the cases began (flakes run 8 beside the hog: exit 130).
  expect({ code, signal }).toSatisfy(({ code, signal }: { code: number | null; signal: NodeJS.Signals | null }) => signal === 'SIGINT' || (signal === null && code === 130));
  await eventually(() => program().length === 0, 'the client program to be gone');
});
