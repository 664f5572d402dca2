// The GitHub Action (action.yml): every input it documents reaches the CLI, every CLI option it passes exists in the
// real `run --help`, and its run step, executed here as the runner would (bash, the GITHUB_* files), runs a
// line-protocol program and a module adapter with a baseline, writes results.json and junit.xml, sets its outputs and
// the job summary, and ends with the CLI's exit code. What cannot run here: setup-node, upload-artifact and the
// install step's `npm ci` (the packed-install test covers installing the suite).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { parse } from 'yaml';
import { afterAll, describe, expect, test } from 'vitest';
import { SETTINGS_ENV } from '../config/settings.ts';
import { parseResults } from '../results/results.ts';

const ROOT = join(import.meta.dirname, '..');
const CLI = join(ROOT, 'scripts', 'cli.ts');

interface Step {
  name?: string;
  id?: string;
  if?: string;
  uses?: string;
  run?: string;
  shell?: string;
  'working-directory'?: string;
  env?: Record<string, string>;
  with?: Record<string, string>;
}
interface Action {
  name: string;
  description: string;
  inputs: Record<string, { description: string; required?: boolean; default?: string }>;
  outputs: Record<string, { description: string; value: string }>;
  runs: { using: string; steps: Step[] };
}

const action = parse(readFileSync(join(ROOT, 'action.yml'), 'utf8')) as Action;
const steps = action.runs.steps;
const runStep = steps.find((step) => step.id === 'run')!;
const verdictStep = steps.find((step) => step.name === 'verdict')!;

/** The inputs an expression text names (`${{ inputs.x }}`). */
const inputsIn = (text: string) => [...text.matchAll(/\binputs\.([a-z][a-z0-9-]*)/g)].map((match) => match[1]!);

/** The run step's environment variables that carry an input, by input name. */
const inputVariables = new Map(Object.entries(runStep.env ?? {}).flatMap(([variable, value]) => inputsIn(value).map((input) => [input, variable] as const)));

/** The options the run step's script passes to the CLI (`args+=(--option ...)`). */
const optionsPassed = new Set([...runStep.run!.matchAll(/args\+=\(([^)]*)\)/g)].flatMap((match) => [...match[1]!.matchAll(/(?<![\w$])--[a-z][a-z-]*/g)].map((option) => option[0])));

describe('action.yml', () => {
  test('is a composite action whose inputs are all documented and all used, and whose outputs come from the run step', () => {
    expect(action.runs.using).toBe('composite');
    expect(action.name.length).toBeGreaterThan(0);
    const used = new Set(steps.flatMap((step) => inputsIn(JSON.stringify(step))));
    for (const [name, input] of Object.entries(action.inputs)) {
      expect(input.description.length, name).toBeGreaterThan(10);
      expect(used.has(name), `input ${name} is used by a step`).toBe(true);
    }
    expect([...used].filter((name) => !(name in action.inputs))).toEqual([]);
    for (const [name, output] of Object.entries(action.outputs)) expect(output.value, name).toBe(`\${{ steps.run.outputs.${name} }}`);
    for (const name of Object.keys(action.outputs)) expect(runStep.run, name).toContain(`echo "${name}=`);
  });

  test('every input reaches the CLI: as an option of `run`, as a setting it reads, or as the plumbing around it', () => {
    // Each input that says what to run is an option the script passes from the input's variable, or a setting.
    const byOption: Record<string, string> = { adapter: '--adapter', 'adapter-command': '--adapter-command', baseline: '--baseline', scenario: '--scenario', revision: '--revision', strict: '--strict', verbose: '--verbose' };
    const bySetting: Record<string, string> = { 'time-scale': SETTINGS_ENV.timeScale };
    const plumbing = ['node-version', 'working-directory', 'results-dir', 'artifact-name'];
    expect(Object.keys(action.inputs).sort()).toEqual([...Object.keys(byOption), ...Object.keys(bySetting), ...plumbing].sort());
    const script = runStep.run!;
    for (const [input, option] of Object.entries(byOption)) {
      const variable = inputVariables.get(input);
      expect(variable, `input ${input} reaches the run step`).toBeDefined();
      expect(script.split('\n').some((line) => new RegExp(`\\$\\{?${variable}\\b`).test(line) && line.includes(`args+=(${option}`)), `${input} → ${option}`).toBe(true);
    }
    for (const [input, setting] of Object.entries(bySetting)) expect(script).toContain(`export ${setting}="$${inputVariables.get(input)}"`);
    expect(steps.find((step) => step.uses?.startsWith('actions/setup-node@'))?.with?.['node-version']).toBe('${{ inputs.node-version }}');
    expect(runStep['working-directory']).toBe('${{ inputs.working-directory }}');
    expect(script).toMatch(/results="\$PWD\/\$RESULTS_DIR\/results\.json"/);
    expect(inputVariables.get('results-dir')).toBe('RESULTS_DIR');
    expect(steps.find((step) => step.uses?.startsWith('actions/upload-artifact@'))?.with).toMatchObject({ name: '${{ inputs.artifact-name }}', path: '${{ inputs.working-directory }}/${{ inputs.results-dir }}' });
  });

  test('every option it passes is an option of the real `run --help`', () => {
    const help = spawnSync(process.execPath, [CLI, 'run', '--help'], { encoding: 'utf8' });
    expect(help.status, help.stderr).toBe(0);
    const documented = new Set(help.stdout.match(/(?<![\w-])--[a-z][a-z-]*/g));
    expect(optionsPassed.size).toBeGreaterThan(5);
    expect([...optionsPassed].filter((option) => !documented.has(option))).toEqual([]);
  });
});

describe('its run step, executed as the runner would', () => {
  const work = mkdtempSync(join(tmpdir(), 'action-test-'));
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  /** The run step's script in a fresh "repository" folder, with the inputs given (the others at their defaults). */
  function runAction(name: string, inputs: Record<string, string>, files: Record<string, string> = {}) {
    const repo = join(work, name);
    const temp = join(repo, '.runner-temp');
    mkdirSync(temp, { recursive: true });
    for (const [file, text] of Object.entries(files)) writeFileSync(join(repo, file), text);
    const values = Object.fromEntries(Object.entries(action.inputs).map(([input, spec]) => [input, inputs[input] ?? spec.default ?? '']));
    const env: Record<string, string> = {
      ...(process.env as Record<string, string>),
      // The Node that runs this test (the pinned one) first on PATH: the action set it up.
      PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH}`,
      GITHUB_OUTPUT: join(temp, 'output'),
      GITHUB_STEP_SUMMARY: join(temp, 'summary'),
      RUNNER_TEMP: temp,
      MCP_CONFORMANCE_STRICT: '',
      MCP_CONFORMANCE_TIME_SCALE: '',
    };
    for (const [variable, value] of Object.entries(runStep.env!)) {
      env[variable] = value.replaceAll('${{ github.action_path }}', ROOT).replace(/\$\{\{ inputs\.([a-z-]+) \}\}/g, (_, input: string) => values[input]!);
    }
    const run = spawnSync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', runStep.run!], { cwd: repo, env, encoding: 'utf8' });
    const outputs = existsSync(env.GITHUB_OUTPUT!) ? Object.fromEntries(readFileSync(env.GITHUB_OUTPUT!, 'utf8').trim().split('\n').map((line) => line.split(/=(.*)/s).slice(0, 2))) : {};
    const summary = existsSync(env.GITHUB_STEP_SUMMARY!) ? readFileSync(env.GITHUB_STEP_SUMMARY!, 'utf8') : '';
    return { run, outputs, summary, repo };
  }

  test('a line-protocol program with scenario, revision, strict, verbose and time-scale: results.json, junit.xml, outputs, summary, exit 0', () => {
    const { run, outputs, summary, repo } = runAction('process', {
      'adapter-command': `node ${join(ROOT, 'clients', 'drivers', 'node', 'driver.ts')} --adapter reference --name my-client`,
      scenario: 'negotiation/handshake-order,\nnegotiation/version-per-revision',
      revision: '2025-06-18 2025-11-25',
      strict: 'true',
      verbose: 'true',
      'time-scale': '1',
      'results-dir': 'out/conformance',
    });
    expect(run.status, run.stderr).toBe(0);
    expect(outputs).toEqual({ results: join(repo, 'out', 'conformance', 'results.json'), junit: join(repo, 'out', 'conformance', 'junit.xml'), 'exit-code': '0' });
    const results = parseResults(readFileSync(outputs.results, 'utf8'));
    expect(results.clients.map((client) => client.name)).toEqual(['my-client']);
    expect(results.run.strict).toBe(true);
    expect(new Set(results.cells.map((cell) => `${cell.scenario} @ ${cell.revision}`))).toEqual(
      new Set(['negotiation/handshake-order', 'negotiation/version-per-revision'].flatMap((scenario) => ['2025-06-18', '2025-11-25'].map((revision) => `${scenario} @ ${revision}`))),
    );
    expect(results.cells.every((cell) => cell.verdict === 'pass')).toBe(true);
    expect(readFileSync(outputs.junit, 'utf8')).toMatch(/^<\?xml[\s\S]*<testsuite /);
    expect(summary).toMatch(/^### MCP client conformance: exit code 0\n```\nno problems: 4 cases passed\n[\s\S]*negotiation\/handshake-order +2025-11-25 +pass[\s\S]*\n```\n$/);
  });

  test('a module adapter with a baseline that has a stale entry: the run ends 1, said in the outputs', () => {
    const baseline = { adapter: 'reference', format: 2, known: [{ scenario: 'negotiation/handshake-order', checks: ['initialized-sent'], revisions: ['2025-11-25'], verdict: 'fail', reason: 'A stale entry: the client sends it.', spec: 'https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#initialization' }] };
    const { run, outputs } = runAction(
      'module',
      { adapter: './adapter.ts', baseline: 'baseline.json', scenario: 'negotiation/handshake-order', revision: '2025-11-25' },
      { 'adapter.ts': `export { referenceClient as default } from ${JSON.stringify(join(ROOT, 'clients', 'reference', 'index.ts'))};\n`, 'baseline.json': JSON.stringify(baseline) },
    );
    expect(run.status, run.stderr).toBe(0);
    expect(outputs['exit-code'], run.stdout + run.stderr).toBe('1');
    expect(run.stdout + run.stderr).toMatch(/stale/);
    expect(existsSync(outputs.results!)).toBe(true);
  });

  test('a bad input reaches the CLI and is its exit 2', () => {
    const { run, outputs } = runAction('bad-scale', { adapter: 'reference', scenario: 'negotiation/handshake-order', 'time-scale': 'fast' });
    expect(outputs['exit-code']).toBe('2');
    expect(run.stderr).toContain(`${SETTINGS_ENV.timeScale} must be a positive number, not "fast"`);
  });

  test('a program killed in every case (it answers with unsolicited lines): nothing judged, the run ends 4, said in one line', () => {
    const program = [
      "const send = (message) => process.stdout.write(JSON.stringify(message) + '\\n');",
      "send({ protocol: 1, name: 'chatty', description: 'answers with unsolicited lines', revisions: ['2025-06-18'], features: ['mode-legacy'] });",
      "require('node:readline').createInterface({ input: process.stdin }).on('line', (line) => { const { id, op } = JSON.parse(line); send({ id: id + 1000, result: {} }); if (op === 'shutdown') process.exit(0); });",
    ].join('\n');
    const { run, outputs, summary } = runAction('unjudged', { 'adapter-command': 'node chatty.cjs', scenario: 'negotiation/handshake-order' }, { 'chatty.cjs': program });
    expect(run.status, run.stderr).toBe(0);
    expect(outputs['exit-code'], run.stdout + run.stderr).toBe('4');
    expect(run.stderr).toMatch(/^mcp-client-conformance: nothing was judged: the one case that applied to chatty got no verdict, the suite could not judge it \(client-running: .*\) \(exit 4\)$/m);
    expect(summary).toMatch(/^### MCP client conformance: exit code 4\n/);
    expect(existsSync(outputs.results!)).toBe(true);
  });

  test('a results-dir that cannot be written is the CLI’s exit 2 before the run, one line naming it', () => {
    const { run, outputs, repo } = runAction('unwritable', { adapter: 'reference', scenario: 'negotiation/handshake-order', 'results-dir': 'taken/conformance' }, { taken: 'a file where the folder should be' });
    expect(outputs['exit-code']).toBe('2');
    expect(run.stderr.trim()).toBe(`mcp-client-conformance: --json ${join(repo, 'taken', 'conformance', 'results.json')} cannot be written: ${join(repo, 'taken')} is a file, not a folder`);
  });

  test('the verdict step ends with the CLI’s exit code, says what it means, and fails when the run did not start', () => {
    const verdict = (code: string) => spawnSync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', verdictStep.run!], { env: { ...process.env, CODE: code }, encoding: 'utf8' });
    expect(verdictStep.if).toBe('always()');
    expect(verdictStep.env).toEqual({ CODE: '${{ steps.run.outputs.exit-code }}' });
    expect(['0', '1', '2', '3', '4', '5', '130', ''].map((code) => verdict(code).status)).toEqual([0, 1, 2, 3, 4, 5, 130, 2]);
    expect(verdict('4').stdout).toContain('nothing was judged (exit 4)');
    expect(verdict('5').stdout).toContain('results.json or junit.xml could not be written (exit 5)');
  });
});
