// The package as a user gets it: packed with `npm pack` (its prepare script builds dist/), installed offline into a fresh
// project (scripts/testdata/consumer.ts), and used from there as that project would: the installed CLI against a
// module adapter of the project's own and against line-protocol programs, with its exit codes and its output files;
// the matrix, with and without vitest; the project's own test files through the ./vitest and ./node-test entries; the
// project's TypeScript against the package's declarations. And the checkout the package was packed from: the build
// left its bins executable, so `npx mcp-client-conformance` runs there as the README says.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { NO_PYTHON } from '../clients/process/testdata/support.ts';
import { LANGUAGES, programFiles } from '../clients/template/templates.ts';
import { basePolicy } from '../config/settings.ts';
import { SCENARIOS } from '../suites/index.ts';
import { binTargets, RUNTIME_ASSETS } from './build.ts';
import { parseResults } from '../results/results.ts';
import { childEnv, described, exec, installConsumer, npm, npmCrash, pack, type Output, type Tarball } from './testdata/consumer.ts';
import { heldRunEnv, interruptAndResume, type Starter } from './matrix/testdata/round-trip.ts';

const { operation } = basePolicy().ms;
const ROOT = join(import.meta.dirname, '..');
/** Packing compiles the whole package with tsc (unless dist/ is up to date), installing copies some 140 packages out of the cache: each has a few minutes of operation bounds. */
const INSTALL_BOUND = 48 * operation;
/** How much longer than the installed CLI's bare `--version` (measured after the install, in this run) loading the suite may take on a machine whose load changes. */
const LOAD_HEADROOM = 4;
/**
 * One CLI command: loading the suite, then a handful of cases, each within its own bounds; at least 12 operation
 * bounds, and more on a machine where the bare command was slow (set once measured, in beforeAll). Each command is
 * bounded by it, so the tests have no timeout of their own (0).
 */
let cliBound = 12 * operation;

const MANIFEST = JSON.parse(readFileSync(join(import.meta.dirname, '..', 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  exports: Record<string, { types: string; default: string }>;
  bin: Record<string, string>;
  engines: { node: string };
};
const SCENARIO = 'negotiation/handshake-order';
const revisionsOf = (id: string) => SCENARIOS.find((scenario) => scenario.id === id)!.revisions;

let tmp: string;
let tarball: Tarball;
let project: string;
let installed: Output;
let packageDir: string;
let packageFiles: string[];

const files = (dir: string): string[] => readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort();
const cli = (args: readonly string[]) => exec(join(project, 'node_modules', '.bin', MANIFEST.name), args, { cwd: project, timeoutMs: cliBound });

// The project's own files. A module adapter wrapping the package's reference client through its public API, under its
// own name, as a client author's adapter wraps their client:
const WRAPPED_REFERENCE = `
import { loadAdapter } from '${MANIFEST.name}';

const reference = await loadAdapter('reference');

export default {
  ...reference,
  name: 'consumer-reference',
  description: 'the reference client, wrapped by a module of the consumer project',
  start: (caseId) => reference.start(caseId),
};
`;

// A client in another process, through the ./adapter entry: the Node driver the package ships, speaking the line protocol.
const PROGRAM = `
import { fileURLToPath } from 'node:url';
import { processAdapter } from '${MANIFEST.name}/adapter';

const driver = fileURLToPath(new URL('../node_modules/${MANIFEST.name}/dist/clients/drivers/node/driver.js', import.meta.url));

export default () => processAdapter({ command: process.execPath, args: [driver, '--adapter', 'reference', '--name', 'consumer-program'] });
`;

// The project's vitest file: a client that passes, and one that breaks a rule the helper must fail it on.
const VITEST_FILE = `
import { conformanceTests } from '${MANIFEST.name}/vitest';

conformanceTests({ name: 'wrapped', adapter: './adapters/wrapped-reference.mjs', scenarios: ['${SCENARIO}'] });
conformanceTests({ name: 'broken', adapter: 'broken-skips-initialized', scenarios: ['${SCENARIO}'] });
`;

// The project's node:test file, with the program.
const NODE_TEST_FILE = `
import { conformanceTests } from '${MANIFEST.name}/node-test';

conformanceTests({ name: 'program', adapter: './adapters/program.mjs', scenarios: ['${SCENARIO}'] });
`;

// The project's TypeScript: the entries' declarations resolve, and they are the contract's real types.
const TYPED_FILE = `
import { listScenarios, runConformance, type ClientAdapter as MainAdapter } from '${MANIFEST.name}';
import { processAdapter, stateless, type ClientAdapter } from '${MANIFEST.name}/adapter';
import { conformanceTests } from '${MANIFEST.name}/node-test';

const adapter: ClientAdapter = { name: 'typed', description: 'typed', revisions: ['2025-11-25'], features: [], start: stateless(async () => { throw new Error('not run'); }) };
const same: MainAdapter = adapter;
// @ts-expect-error: a revision the contract does not know
const wrong: ClientAdapter = { ...adapter, revisions: ['1999-01-01'] };
export const used = [same, wrong, processAdapter, conformanceTests, listScenarios().length, runConformance];
`;

const TSCONFIG = { compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, skipLibCheck: true, types: ['node'] }, files: ['typed.ts'] };

/** Each of the checkout's bins that exists, with its name. */
const checkoutBins = () => Object.entries(MANIFEST.bin).map(([name, target]) => ({ name, path: join(ROOT, target) })).filter((bin) => existsSync(bin.path));

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'mcp-client-conformance-package-'));
  // The checkout as a user leaves it before a rebuild: each bin run once through `npx` (which links the checkout into
  // npx's cache, and sets the bit then), then written afresh without the exec bit, as tsc writes every file. The pack's
  // build, whether it compiles again or finds dist/ up to date, must leave the bins executable for `npx` to run them.
  for (const bin of checkoutBins()) {
    await exec('npx', ['--no-install', bin.name, '--version'], { cwd: ROOT, timeoutMs: INSTALL_BOUND });
    chmodSync(bin.path, 0o644);
  }
  const packing = performance.now();
  tarball = await pack(tmp, INSTALL_BOUND);
  const packedMs = performance.now() - packing;
  project = join(tmp, 'consumer');
  mkdirSync(project);
  installed = await installConsumer(project, tarball, ['vitest', '@types/node'], INSTALL_BOUND);
  const bare = performance.now();
  await exec(join(project, 'node_modules', '.bin', MANIFEST.name), ['--version'], { cwd: project, timeoutMs: INSTALL_BOUND });
  cliBound = Math.max(cliBound, Math.round(LOAD_HEADROOM * (performance.now() - bare)) + 6 * operation);
  packageDir = join(project, 'node_modules', MANIFEST.name);
  packageFiles = files(packageDir);
  const own = { 'adapters/wrapped-reference.mjs': WRAPPED_REFERENCE, 'adapters/program.mjs': PROGRAM, 'test/conformance.test.mjs': VITEST_FILE, 'test/conformance.node-test.mjs': NODE_TEST_FILE, 'typed.ts': TYPED_FILE, 'tsconfig.json': JSON.stringify(TSCONFIG, null, 2) };
  for (const [path, text] of Object.entries(own)) {
    mkdirSync(join(project, path, '..'), { recursive: true });
    writeFileSync(join(project, path), text);
  }
  const kB = (bytes: number) => `${Math.round(bytes / 1000)} kB`;
  console.log(`package: ${tarball.filename} ${kB(tarball.size)} (${kB(tarball.unpackedSize)} unpacked, ${tarball.files.length} files), packed in ${Math.round(packedMs)} ms, installed offline with vitest in ${Math.round(installed.ms)} ms`);
}, 2 * INSTALL_BOUND + operation);

afterAll(() => {
  if (tmp !== undefined) rmSync(tmp, { recursive: true, force: true });
});

describe('the checkout it was packed from', () => {
  test("every bin of package.json is executable after the build, and `npx` runs it there (the README's command line)", async () => {
    for (const name of Object.keys(MANIFEST.bin)) {
      const version = await exec('npx', ['--no-install', name, '--version'], { cwd: ROOT, timeoutMs: cliBound });
      expect.soft(version.code, described(`npx --no-install ${name} --version in the checkout`, version)).toBe(0);
      expect.soft(version.stdout.trim()).toBe(MANIFEST.version);
    }
    const bins = binTargets().map((target) => join(ROOT, target));
    expect(bins.filter((path) => (statSync(path).mode & 0o111) !== 0o111)).toEqual([]);
  }, 0);
});

describe('the tarball', () => {
  test('holds the compiled package, its runtime files and its documents, and nothing of the repository besides', () => {
    const documents = ['LICENSE', 'README.md', 'package.json', 'action.yml', 'clients/WRITING-AN-ADAPTER.md'];
    expect(tarball.files.filter((path) => !path.startsWith('dist/') && !path.startsWith('docs/') && !documents.includes(path))).toEqual([]);
    expect(tarball.files.filter((path) => /\.test\.|(^|\/)testdata\/|^\.ci\/|^\.github\/|\.tsbuildinfo$/.test(path))).toEqual([]);
    const targets = [...Object.values(MANIFEST.exports).flatMap((target) => (typeof target === 'string' ? [target] : [target.types, target.default])), ...Object.values(MANIFEST.bin)];
    expect(targets.map((target) => target.replace(/^\.\//, '')).filter((target) => !tarball.files.includes(target))).toEqual([]);
    const assets = RUNTIME_ASSETS.map((asset) => `dist/${asset}`);
    expect(assets.filter((asset) => !tarball.files.some((path) => path === asset || path.startsWith(`${asset}/`)))).toEqual([]);
    expect(tarball.files).toContain('dist/matrix.json');
  });

  test("carries the repository's package.json without prepare (a build of sources it does not hold), and the templates init writes", () => {
    const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { scripts?: Record<string, string> };
    expect(manifest.scripts?.prepare).toBeUndefined();
    expect(readFileSync(join(ROOT, 'package.json'), 'utf8')).toContain('"prepare": ');
    expect(existsSync(join(ROOT, '.package.json.packing'))).toBe(false);
    for (const language of LANGUAGES) expect(programFiles(language).filter(({ from }) => !tarball.files.includes(`dist/${relative(ROOT, from)}`))).toEqual([]);
  });

  test('installs offline into a fresh project, with the bin linked and starting with its shebang', () => {
    expect(installed.code).toBe(0);
    const bin = join(project, 'node_modules', '.bin', MANIFEST.name);
    expect(readFileSync(bin, 'utf8').split('\n')[0]).toBe('#!/usr/bin/env node');
    // The matrix file's adapters are the compiled modules.
    const matrix = JSON.parse(readFileSync(join(packageDir, 'dist', 'matrix.json'), 'utf8')) as { clients: { adapter?: string }[] };
    const modules = matrix.clients.flatMap((entry) => (entry.adapter?.startsWith('./') ? [entry.adapter] : []));
    expect(modules.length).toBeGreaterThan(0);
    expect(modules.filter((module) => !existsSync(join(packageDir, 'dist', module)))).toEqual([]);
  });
});

describe.concurrent('the installed CLI', () => {
  test('--help, --version and list', async () => {
    const [help, version, list] = await Promise.all([cli(['--help']), cli(['--version']), cli(['list'])]);
    expect(help.code, described('--help', help)).toBe(0);
    expect(help.stdout).toMatch(/^usage: mcp-client-conformance /);
    expect(version.code, described('--version', version)).toBe(0);
    expect(version.stdout.trim()).toBe(MANIFEST.version);
    expect(list.code, described('list', list)).toBe(0);
    expect(SCENARIOS.filter((scenario) => !list.stdout.includes(`${scenario.id}\n`)).map((scenario) => scenario.id)).toEqual([]);
  }, 0);

  // The machine's own Node (Debian's) may be older than the package supports: the CLI says so in one line.
  const systemNode = '/usr/bin/node';
  const systemVersion = existsSync(systemNode) ? spawnSync(systemNode, ['--version'], { encoding: 'utf8' }).stdout.trim().replace(/^v/, '') : undefined;
  const minimum = MANIFEST.engines.node.replace('>=', '');
  const tooOld = systemVersion !== undefined && systemVersion.localeCompare(minimum, undefined, { numeric: true }) < 0;
  test.skipIf(!tooOld)(`on a Node older than ${minimum} (${systemNode}, ${systemVersion ?? 'absent'}), the CLI says which it needs and exits 2`, async () => {
    const old = await exec(systemNode, [join(project, 'node_modules', MANIFEST.name, MANIFEST.bin[MANIFEST.name]!), '--version'], { cwd: project, timeoutMs: cliBound });
    expect(old.code, described('--version on an old Node', old)).toBe(2);
    expect(old.stderr.trim()).toBe(
      `mcp-client-conformance: needs Node ${minimum} or later; this is Node ${systemVersion} (${systemNode}). ` +
        'Install Node 24 (https://nodejs.org, or: nvm install 24), or pin it in your project: npm install --save-dev node@24, then npx mcp-client-conformance runs on it',
    );
  }, 0);

  test('run against a module adapter of the project: the table, results.json and JUnit XML', async () => {
    const run = await cli(['run', '--adapter', './adapters/wrapped-reference.mjs', '--scenario', SCENARIO, '--json', 'out/module.json', '--junit', 'out/module.xml', '--quiet']);
    expect(run.code, described('run --adapter ./adapters/wrapped-reference.mjs', run)).toBe(0);
    expect(run.stdout).toMatch(/\d+ pass, 0 fail/);
    const results = parseResults(readFileSync(join(project, 'out', 'module.json'), 'utf8'));
    expect(results.run.complete).toBe(true);
    expect(results.clients.map((client) => [client.name, client.kind])).toEqual([['consumer-reference', 'module']]);
    expect(results.cells.map((cell) => [cell.revision, cell.verdict])).toEqual(revisionsOf(SCENARIO).map((revision) => [revision, 'pass']));
    const junit = readFileSync(join(project, 'out', 'module.xml'), 'utf8');
    expect(junit.match(/<testcase /g)?.length).toBe(results.cells.length);
  }, 0);

  test('run against a line-protocol program: the Node driver the package ships', async () => {
    const driver = `node node_modules/${MANIFEST.name}/dist/clients/drivers/node/driver.js --adapter reference`;
    const run = await cli(['run', '--adapter-command', driver, '--scenario', SCENARIO, '--json', 'out/node-driver.json', '--quiet']);
    expect(run.code, described(`run --adapter-command "${driver}"`, run)).toBe(0);
    const results = parseResults(readFileSync(join(project, 'out', 'node-driver.json'), 'utf8'));
    expect(results.clients[0]!.kind).toBe('process');
    expect(results.cells.map((cell) => cell.verdict)).toEqual(revisionsOf(SCENARIO).map(() => 'pass'));
  }, 0);

  test.skipIf(NO_PYTHON)('run against a line-protocol program: the Python driver the package ships (skipped without python3 >= 3.8)', async () => {
    const driver = `python3 node_modules/${MANIFEST.name}/dist/clients/drivers/python/driver.py`;
    const run = await cli(['run', '--adapter-command', driver, '--scenario', SCENARIO, '--json', 'out/python-driver.json', '--quiet']);
    expect(run.code, described(`run --adapter-command "${driver}"`, run)).toBe(0);
    const results = parseResults(readFileSync(join(project, 'out', 'python-driver.json'), 'utf8'));
    expect(results.cells.filter((cell) => cell.verdict !== 'n/a').map((cell) => cell.verdict)).toEqual(expect.arrayContaining(['pass']));
    expect(results.cells.filter((cell) => cell.verdict !== 'n/a' && cell.verdict !== 'pass')).toEqual([]);
  }, 0);

  test('run fails a client that breaks a rule (exit 1); with the baseline it writes of that run, it passes (exit 0)', async () => {
    const args = ['run', '--adapter', 'broken-skips-initialized', '--scenario', SCENARIO, '--quiet'];
    const [failing, writing] = await Promise.all([cli(args), cli([...args, '--write-baseline', 'baselines/broken.json'])]);
    expect(failing.code, described('run --adapter broken-skips-initialized', failing)).toBe(1);
    expect(failing.stdout).toMatch(/0 pass, [1-9]\d* fail/);
    expect(writing.code, described('run --write-baseline baselines/broken.json', writing)).toBe(0);
    const gated = await cli([...args, '--baseline', 'baselines/broken.json']);
    expect(gated.code, described('run --baseline baselines/broken.json', gated)).toBe(0);
    expect(gated.stdout).toMatch(/0 pass, [1-9]\d* fail/);
  }, 0);
});

// `init` in a fresh project of each kind (sharing the consumer project's installation): a CommonJS one as `npm init -y`
// makes it, and an ES module one. The adapter it writes is `.mts`, an ES module in both, and runs to a first verdict
// against the baseline it writes.
describe.concurrent('init in a fresh project', () => {
  const fresh = (name: string, manifest: object) => {
    const dir = join(tmp, name);
    mkdirSync(dir);
    writeFileSync(join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    symlinkSync(join(project, 'node_modules'), join(dir, 'node_modules'));
    return (args: readonly string[]) => exec(join(dir, 'node_modules', '.bin', MANIFEST.name), args, { cwd: dir, timeoutMs: cliBound });
  };
  const kinds = [
    ['CommonJS (npm init -y)', 'init-commonjs', { name: 'init-commonjs', version: '1.0.0', main: 'index.js', type: 'commonjs' }],
    ['ES module', 'init-esm', { name: 'init-esm', version: '1.0.0', type: 'module' }],
  ] as const;

  test.for(kinds)('%s: writes the adapter, a baseline and a workflow, and the adapter runs to a verdict', { timeout: 0 }, async ([, name, manifest]) => {
    const cliIn = fresh(name, manifest);
    const init = await cliIn(['init']);
    expect(init.code, described('init', init)).toBe(0);
    const dir = join(tmp, name);
    for (const path of ['conformance/my-adapter.mts', 'conformance/baseline.json', '.github/workflows/mcp-conformance.yml']) expect(existsSync(join(dir, path)), path).toBe(true);
    expect(readFileSync(join(dir, 'conformance', 'my-adapter.mts'), 'utf8')).toContain(`from '${MANIFEST.name}/adapter'`);
    expect(readFileSync(join(dir, '.github', 'workflows', 'mcp-conformance.yml'), 'utf8')).toContain('adapter: conformance/my-adapter.mts');
    // It type-checks against the package's declarations, as the project's own tsc would check it.
    const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
    const typed = await exec(process.execPath, [tsc, '--noEmit', '--strict', '--skipLibCheck', '--module', 'nodenext', 'conformance/my-adapter.mts'], { cwd: dir, timeoutMs: cliBound });
    expect(typed.code, described('tsc conformance/my-adapter.mts', typed)).toBe(0);
    const run = await cliIn(['run', '--adapter', 'conformance/my-adapter.mts', '--scenario', SCENARIO, '--baseline', 'conformance/baseline.json', '--quiet']);
    expect(run.code, described('run --adapter conformance/my-adapter.mts', run)).toBe(0);
    expect(run.stdout).toMatch(/[1-9]\d* pass, 0 fail, 0 warn, 0 inconclusive/);
    const again = await cliIn(['init']);
    expect(again.code, described('init again', again)).toBe(2);
    expect(again.stderr).toMatch(/^mcp-client-conformance: init: conformance\/my-adapter\.mts, conformance\/baseline\.json, \.github\/workflows\/mcp-conformance\.yml are there already; --force overwrites\n$/);
  });

  test('a Go repository gets the Go program, its line-protocol library beside it, and a workflow that builds it', { timeout: 0 }, async () => {
    const cliIn = fresh('init-go', { name: 'init-go', version: '1.0.0', type: 'commonjs' });
    writeFileSync(join(tmp, 'init-go', 'go.mod'), 'module example.com/client\n');
    const init = await cliIn(['init']);
    expect(init.code, described('init', init)).toBe(0);
    expect(init.stdout).toContain('init: go (go.mod is there)');
    for (const path of ['conformance/main.go', 'conformance/go.mod', 'conformance/lineproto/lineproto.go']) expect(existsSync(join(tmp, 'init-go', path)), path).toBe(true);
    expect(readFileSync(join(tmp, 'init-go', '.github', 'workflows', 'mcp-conformance.yml'), 'utf8')).toContain('adapter-command: conformance/my-client');
  });
});

describe('the installed matrix', () => {
  test('without vitest, says what to install (exit 2)', async () => {
    const vitest = join(project, 'node_modules', 'vitest');
    renameSync(vitest, `${vitest}.away`);
    try {
      const run = await cli(['matrix', '--clients', 'reference', '--scenario', SCENARIO]);
      expect(run.code, described('matrix without vitest', run)).toBe(2);
      expect(run.stderr).toContain('npm install --save-dev vitest');
    } finally {
      renameSync(`${vitest}.away`, vitest);
    }
  }, 0);

  test('runs from the package, writes its reports under the working directory, and reports a client whose package is missing as error cells', async () => {
    const run = await cli(['matrix', '--clients', 'reference,ai-sdk-mcp', '--scenario', SCENARIO]);
    expect(run.code, described('matrix', run)).toBe(0);
    const results = parseResults(readFileSync(join(project, 'reports', 'matrix', 'results.json'), 'utf8'));
    expect(results.run.complete).toBe(true);
    const verdicts = (client: string) => results.cells.filter((cell) => cell.client === client).map((cell) => cell.verdict);
    expect(verdicts('reference')).toEqual(revisionsOf(SCENARIO).map(() => 'pass'));
    expect(verdicts('ai-sdk-mcp')).toEqual(revisionsOf(SCENARIO).map(() => 'error'));
    expect(results.clients.find((client) => client.name === 'ai-sdk-mcp')!.loadError).toMatch(/@ai-sdk\/mcp is not installed/);
  }, 0);
});

// The matrix planned, journaled, marked incomplete and resumed the same way whichever way it is started, and nothing
// of a run left running once its command died (scripts/matrix/testdata/round-trip.ts): from the sources (`npm run
// matrix`), through the checkout's built bin (`npx mcp-client-conformance matrix` there, as the README shows it), and
// from the installed package. Each is SIGINTed, resumed and SIGKILLed, then resumed to the end.
describe('one matrix, wherever it is started', () => {
  const starters: Record<string, () => Starter> = {
    'the sources': () => ({ name: 'sources', command: process.execPath, args: [join(ROOT, 'scripts', 'cli.ts')], cwd: ROOT, env: heldRunEnv(childEnv()), api: pathToFileURL(join(ROOT, 'api', 'index.ts')).href, moduleDir: join(tmp, 'round-trips', 'sources') }),
    "the checkout's built bin": () => ({ name: 'checkout-bin', command: join(ROOT, MANIFEST.bin[MANIFEST.name]!), args: [], cwd: ROOT, env: heldRunEnv(childEnv()), api: pathToFileURL(join(ROOT, 'dist', 'api', 'index.js')).href, moduleDir: join(tmp, 'round-trips', 'checkout-bin') }),
    'the installed package': () => ({ name: 'installed', command: join(project, 'node_modules', '.bin', MANIFEST.name), args: [], cwd: project, env: heldRunEnv(childEnv()), api: MANIFEST.name, moduleDir: join(project, 'adapters') }),
  };
  for (const [from, starter] of Object.entries(starters)) {
    test(`from ${from}: SIGINT marks the run incomplete (exit 130, the --resume line), a killed --resume leaves no process, --resume completes it (exit 0)`, async () => {
      await interruptAndResume(starter(), join(tmp, 'round-trips'), cliBound);
    }, 0);
  }
});

describe.concurrent("the project's own tests and types", () => {
  test('a vitest file through ./vitest: one test per case, passed for a conforming client, failed with the broken rule for one that breaks it, and one that the client was judged', async () => {
    const vitest = join(project, 'node_modules', 'vitest', 'vitest.mjs');
    const run = await exec(process.execPath, [vitest, 'run', 'test/conformance.test.mjs', '--reporter=json', '--outputFile=out/vitest.json'], { cwd: project, timeoutMs: cliBound });
    expect(run.code, described('vitest run', run)).toBe(1);
    const report = JSON.parse(readFileSync(join(project, 'out', 'vitest.json'), 'utf8')) as { testResults: { assertionResults: { ancestorTitles: string[]; title: string; status: string; failureMessages: string[] }[] }[] };
    const tests = report.testResults.flatMap((file) => file.assertionResults);
    const of = (name: string) => tests.filter((t) => t.ancestorTitles.includes(`mcp-client-conformance: ${name}`));
    const cases = revisionsOf(SCENARIO).map((revision) => `${SCENARIO} @ ${revision}`);
    // And a last test each: the client was judged (a run that judged nothing fails it).
    const judged = ['the client was judged: some case got a verdict of pass, fail or warn', 'passed'];
    expect(of('wrapped').map((t) => [t.title, t.status])).toEqual([...cases.map((title) => [title, 'passed']), judged]);
    expect(of('broken').map((t) => [t.title, t.status])).toEqual([...cases.map((title) => [title, 'failed']), judged]);
    expect(of('broken').filter((t) => t.status === 'failed').every((t) => t.failureMessages.join('\n').includes('initialized-sent'))).toBe(true);
  }, 0);

  test('a node:test file through ./node-test, with a line-protocol program through ./adapter', async () => {
    const run = await exec(process.execPath, ['--test', '--test-reporter=tap', 'test/conformance.node-test.mjs'], { cwd: project, timeoutMs: cliBound });
    expect(run.code, described('node --test', run)).toBe(0);
    const count = (what: string) => Number(new RegExp(`^# ${what} (\\d+)$`, 'm').exec(run.stdout)?.[1]);
    expect([count('pass'), count('fail'), count('skipped')]).toEqual([revisionsOf(SCENARIO).length, 0, 0]);
  }, 0);

  test("the project's TypeScript type-checks against the entries' declarations", async () => {
    const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
    const check = await exec(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: project, timeoutMs: cliBound });
    expect(check.code, described('tsc -p tsconfig.json in the project', check)).toBe(0);
  }, 0);
});

// `npm pack` in a checkout where other npm commands ran before has crashed inside npm 11 ("Exit handler never called!"
// right after it rewrote node_modules/.package-lock.json): pack (scripts/testdata/consumer.ts) runs it once more
// rather than call the package broken. Real npm, packing a package of a few lines whose prepare script does each thing.
describe("npm pack's failures: npm's own told from the package's", () => {
  const packOf = async (name: string, prepare: string, env?: NodeJS.ProcessEnv) => {
    const dir = join(tmp, 'npm-failures', name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, version: '1.0.0', scripts: { prepare } }));
    return npm(['pack', '--json', '--pack-destination', dir], { cwd: dir, timeoutMs: INSTALL_BOUND, logsDir: join(dir, 'logs'), env });
  };

  test('a prepare script that fails is the package: not a crash', async () => {
    const failed = await packOf('failing-prepare', 'echo broken >&2; exit 1');
    expect(failed.code, described('npm pack', failed)).toBe(1);
    expect(npmCrash(failed)).toBeUndefined();
  }, 0);

  test('npm killed by a signal is npm', async () => {
    // The prepare script's shell is npm's child: it kills npm.
    const killed = await packOf('killed-npm', 'kill -9 $PPID');
    expect(killed.signal, described('npm pack', killed)).toBe('SIGKILL');
    expect(npmCrash(killed)).toBe('npm was killed by SIGKILL');
  }, 0);

  test("npm ending without its exit handler is npm, said in its log when not on stderr", async () => {
    // npm's process exits as it would start the prepare script, before npm could call its exit handler.
    const preload = join(tmp, 'npm-failures', 'exit-on-spawn.cjs');
    mkdirSync(join(preload, '..'), { recursive: true });
    writeFileSync(preload, "require('node:child_process').spawn = () => process.exit(0);\n");
    const crashed = await packOf('npm-exit-handler', 'echo never', childEnv({ NODE_OPTIONS: `--require ${preload}` }));
    expect(crashed.code, described('npm pack', crashed)).toBe(1);
    expect(crashed.logs.map((log) => log.text).join('')).toContain('Exit handler never called!');
    expect(npmCrash(crashed)).toBe('npm failed inside itself: Exit handler never called!');
  }, 0);
});

describe('the package folder', () => {
  test('is left as installed: nothing the CLI, the matrix or the tests ran wrote into it', () => {
    expect(files(packageDir)).toEqual(packageFiles);
  });
});
