#!/usr/bin/env node
// The official MCP conformance harness (@modelcontextprotocol/conformance, pinned exactly in package.json) run
// against our own reference servers, as CI runs it: `npm run harness` (`-- --verbose` prints every harness log).
//
// The harness's *server* scenarios judge a server, so this checks our reference servers, not a client:
//   server --requirements 2025-11-25   against the 2025-11-25 server
//   server --requirements 2026-07-28   against the 2026-07-28 server
//   the lifecycle scenarios (server-initialize, server-session-lifecycle, ping, tools-list,
//   dns-rebinding-protection) at 2025-03-26 and 2025-06-18 against those servers, one invocation each, with
//   `--force` where the harness dates a scenario later than the revision (each checks something that revision
//   already has: initialize, ping, tools/list, sessions, and the Origin validation its transport page requires).
//
// Why 0.2.0-alpha.12: the stable line (latest 0.1.16) has no `--requirements` and no 2026-07-28 scenarios, so it
// cannot run what is asked here; `--requirements` first ships in 0.2.0-alpha.11, and alpha.12 (the newest
// published, with the same frozen requirement sets) passes every scored scenario against these servers.
//
// Every invocation runs on this Node (the pinned one under npm), on loopback, bounded in time: on timeout its
// whole process group is killed. Each is parsed from the per-scenario `checks.json` the harness writes (-o),
// cross-checked against the totals it prints. Exit code 1 when a run fails: a scored scenario with a failed
// check, a harness exit code that is not 0, a timeout, or output that does not parse. Scenarios the requirement
// sets mark "not scored" (extensions, pending) are run and reported but, as in the harness, do not fail the run.
// A run whose era has no reference server yet is reported PENDING.
//
// `npm run harness -- --client` runs the harness's *client* scenarios instead, against the reference client
// (clients/reference/, through scripts/official-client/reference.ts: the harness starts its own MCP server and
// authorization server per scenario and runs that program with the server's URL). Every client scenario the harness
// lists, once per revision it lists it for (an extension once, at the harness's default), one invocation each. A
// scenario the requirement set of that revision names is scored; the rest (extensions, revisions outside the sets) are
// run and reported. `--scenario <prefix>` (repeatable) runs only the scenarios whose name starts with it (`auth/`);
// `--json <file>` writes every check of every run; each official check id that suites/authorization/official-checks.json
// (or `--mapping <file>`) maps to a check of this suite is printed with the official verdicts beside that check's
// verdicts here, on the same reference client (this suite's scenario run strictly at each of its revisions).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { basePolicy } from '../config/settings.ts';
import type { Era } from '../servers/era.ts';
import type { ReferenceServer } from '../servers/reference-server.ts';
import { startReferenceServer } from '../servers/server.ts';

const { values: options } = parseArgs({
  options: {
    verbose: { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
    client: { type: 'boolean', default: false },
    scenario: { type: 'string', multiple: true },
    json: { type: 'string' },
    mapping: { type: 'string' },
  },
});

const PACKAGE_DIR = fileURLToPath(new URL('../node_modules/@modelcontextprotocol/conformance/', import.meta.url));
const HARNESS = join(PACKAGE_DIR, 'dist/index.js');
const LIFECYCLE_SCENARIOS = ['server-initialize', 'server-session-lifecycle', 'ping', 'tools-list', 'dns-rebinding-protection'];
const LIFECYCLE_REVISIONS = ['2025-03-26', '2025-06-18'] as const;
// Safety nets on each harness run, scaled like every bound (MCP_CONFORMANCE_TIME_SCALE).
const REQUIREMENTS_TIMEOUT_MS = 5 * 60_000 * basePolicy().scale;
const SCENARIO_TIMEOUT_MS = 60_000 * basePolicy().scale;
const KILL_GRACE_MS = 2_000;
/** The harness's own bound on the client process (its --timeout), and ours on the whole invocation around it. */
const CLIENT_TIMEOUT_MS = 30_000 * basePolicy().scale;
const CLIENT_SCENARIO_TIMEOUT_MS = CLIENT_TIMEOUT_MS + SCENARIO_TIMEOUT_MS;
/** The client command: the reference client in the harness's client contract. `exec`, so the harness's kill reaches it. */
const CLIENT_COMMAND = `exec ${process.execPath} ${fileURLToPath(new URL('./official-client/reference.ts', import.meta.url))}`;
/** The revisions with a frozen requirement set: a client scenario is scored when the set of its revision names it. */
const REQUIREMENT_REVISIONS = ['2025-11-25', '2026-07-28'] as const;
const MAPPING = options.mapping ?? fileURLToPath(new URL('../suites/authorization/official-checks.json', import.meta.url));

type Status = 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
interface Check {
  id: string;
  status: Status;
  errorMessage?: string;
}
interface ScenarioResult {
  scenario: string;
  passed: number;
  failed: number;
  warnings: number;
  scored: boolean;
  failures: string[];
  /** Every check the scenario recorded (id, status), in order. */
  checks: Check[];
}
interface Run {
  name: string;
  /** A server run: the era of the reference server the harness judges. A client run has none (the harness serves). */
  era?: Era;
  /** A client run: the scenario, its revision (undefined: the harness's default) and whether its requirement set scores it. */
  client?: { scenario: string; revision: string | undefined; scored: boolean };
  args: string[];
  timeoutMs: number;
  /** A single-scenario run outside the harness's applicability window for that revision. */
  forced: boolean;
}
interface Outcome {
  run: Run;
  /** `FAIL (not scored)`: a client scenario outside its revision's requirement set (or an extension) with a failed check. */
  verdict: 'PASS' | 'FAIL' | 'FAIL (not scored)' | 'TIMEOUT' | 'ERROR' | 'PENDING';
  scenarios: ScenarioResult[];
  /** Why the verdict is not PASS. */
  reasons: string[];
  exitCode: number | null;
  ms: number;
  output: string;
}

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  output: string;
  ms: number;
}

let running: { kill(): void } | undefined;
let interrupted = false;

/** Runs the harness in its own process group; on timeout the whole group is killed (TERM, then KILL). */
function harness(args: string[], timeoutMs: number): Promise<Exit> {
  const started = performance.now();
  const child = spawn(process.execPath, [HARNESS, ...args], { detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const collect = (chunk: Buffer) => {
    output += chunk.toString('utf8');
    if (options.verbose) process.stdout.write(chunk);
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const killGroup = (signal: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, signal);
    } catch {
      // already gone
    }
  };
  let timedOut = false;
  let escalation: NodeJS.Timeout | undefined;
  const kill = () => {
    killGroup('SIGTERM');
    escalation = setTimeout(() => killGroup('SIGKILL'), KILL_GRACE_MS);
  };
  const timer = setTimeout(() => {
    timedOut = true;
    kill();
  }, timeoutMs);
  running = { kill };
  return new Promise((resolve, reject) => {
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      clearTimeout(escalation);
      running = undefined;
      resolve({ code, signal, timedOut, output, ms: performance.now() - started });
    });
  });
}

/** `conformance list --<role>`: every scenario with the revisions the harness applies it at (`['extension']` for one off the spec's timeline). */
async function listedScenarios(role: 'server' | 'client'): Promise<Map<string, string[]>> {
  const listed = await harness(['list', `--${role}`], SCENARIO_TIMEOUT_MS);
  if (listed.code !== 0) throw new Error(`conformance list failed (exit ${listed.code}):\n${listed.output}`);
  const scenarios = new Map<string, string[]>();
  for (const [, name, revisions] of listed.output.matchAll(/^\s+- (\S+) \[([^\]]*)\]$/gm)) scenarios.set(name!, revisions!.split(','));
  if (scenarios.size === 0) throw new Error(`conformance list printed no ${role} scenario:\n${listed.output}`);
  return scenarios;
}

/** The client scenarios a revision's frozen requirement set scores (`list --requirements <revision>`). */
async function requiredClientScenarios(revision: string): Promise<Set<string>> {
  const listed = await harness(['list', '--requirements', revision], SCENARIO_TIMEOUT_MS);
  if (listed.code !== 0) throw new Error(`conformance list --requirements ${revision} failed (exit ${listed.code}):\n${listed.output}`);
  const section = /^Client scenarios.*\n((?:\s+- \S+\n)+)/m.exec(listed.output)?.[1];
  if (section === undefined) throw new Error(`conformance list --requirements ${revision} printed no client scenario:\n${listed.output}`);
  return new Set([...section.matchAll(/- (\S+)/g)].map((match) => match[1]!));
}

/** The `checks.json` files the harness wrote under `-o`, with the entry each is in (`server-<scenario>-<time>`, or a client scenario's `<scenario>-<time>`, auth/ ones a folder deeper). */
function checkFiles(outputDir: string): { entry: string; file: string }[] {
  return readdirSync(outputDir, { recursive: true, encoding: 'utf8' })
    .filter((path) => path.endsWith('checks.json'))
    .sort()
    .map((path) => ({ entry: path.replace(/[\\/]checks\.json$/, ''), file: join(outputDir, path) }));
}

/** Scenario results from the `checks.json` files the harness writes under `-o`. */
function readResults(outputDir: string, notScored: Set<string>, role: 'server' | 'client'): ScenarioResult[] {
  const results: ScenarioResult[] = [];
  for (const { entry, file } of checkFiles(outputDir)) {
    const pattern = role === 'server' ? /^server-(.+)-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$/ : /^(.+)-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$/;
    const match = pattern.exec(entry.replaceAll('\\', '/'));
    if (!match) throw new Error(`unexpected entry in the harness output directory: ${entry}`);
    const checks = (JSON.parse(readFileSync(file, 'utf8')) as Check[]).map(({ id, status, errorMessage }) => ({ id, status, ...(errorMessage !== undefined ? { errorMessage } : {}) }));
    const count = (status: Status) => checks.filter((check) => check.status === status).length;
    results.push({
      scenario: match[1]!,
      passed: count('SUCCESS'),
      failed: count('FAILURE'),
      warnings: count('WARNING'),
      scored: !notScored.has(match[1]!),
      failures: checks.filter((check) => check.status === 'FAILURE').map((check) => `${check.id}: ${check.errorMessage ?? 'failed'}`),
      checks,
    });
  }
  return results;
}

/** The totals the harness printed: `Total: P passed, F failed` (suites) or `Passed: P/D, F failed, W warnings` (one scenario). */
function printedTotals(output: string): { passed: number; failed: number } | undefined {
  const total = /^Total: (\d+) passed, (\d+) failed$/m.exec(output) ?? /^Passed: (\d+)\/\d+, (\d+) failed, \d+ warnings$/m.exec(output);
  return total ? { passed: Number(total[1]), failed: Number(total[2]) } : undefined;
}

/** Scenarios listed under "Not scored for <revision>:" (`  ✓ name (reason)`). */
function notScoredIn(output: string): Set<string> {
  const section = output.split(/^Not scored for .*$/m)[1] ?? '';
  return new Set([...section.matchAll(/^\s+[✓✗] (\S+) \(/gm)].map((match) => match[1]!));
}

/** Runs the harness once into a fresh output directory and judges what it wrote (server runs: `--url` is added by the caller). */
async function judgeInvocation(run: Run, args: string[], role: 'server' | 'client', outcome: Outcome): Promise<Outcome> {
  const outputDir = mkdtempSync(join(tmpdir(), 'mcp-harness-'));
  try {
    const exit = await harness([...args, '-o', outputDir], run.timeoutMs);
    Object.assign(outcome, { exitCode: exit.code, ms: exit.ms, output: exit.output });
    if (exit.timedOut) return { ...outcome, verdict: 'TIMEOUT', reasons: [`killed after ${run.timeoutMs} ms`] };
    outcome.scenarios = readResults(outputDir, notScoredIn(exit.output), role);
    // A client scenario is scored by its revision's requirement set, which a single-scenario invocation does not print.
    if (run.client) for (const scenario of outcome.scenarios) scenario.scored = run.client.scored;
    const totals = printedTotals(exit.output);
    const passed = outcome.scenarios.reduce((sum, s) => sum + s.passed, 0);
    const failed = outcome.scenarios.reduce((sum, s) => sum + s.failed, 0);
    // A client it timed out on: the scenario may record a last failed check after checks.json is written.
    const clientTimedOut = role === 'client' && /Client timed out after/.test(exit.output);
    if (outcome.scenarios.length === 0) outcome.reasons.push('the harness wrote no result');
    if (!totals) outcome.reasons.push('the harness printed no totals');
    else if (!clientTimedOut && (totals.passed !== passed || totals.failed !== failed)) {
      outcome.reasons.push(`printed totals (${totals.passed} passed, ${totals.failed} failed) differ from checks.json (${passed}, ${failed})`);
    }
    if (outcome.reasons.length > 0) return { ...outcome, verdict: 'ERROR' };
    for (const scenario of outcome.scenarios.filter((s) => s.scored && s.failed > 0)) {
      outcome.reasons.push(`${scenario.scenario}: ${scenario.failures.join('; ')}`);
    }
    // A client run's exit code is 1 whenever a check failed (scored or not): the checks above decide it.
    if (exit.code !== 0 && role === 'server') outcome.reasons.push(`harness exit code ${exit.code}${exit.signal ? ` (${exit.signal})` : ''}`);
    if (clientTimedOut) outcome.reasons.push(`the client did not end within the harness's ${CLIENT_TIMEOUT_MS} ms`);
    if (role === 'client' && !run.client!.scored) return { ...outcome, verdict: outcome.scenarios.some((s) => s.failed > 0) ? 'FAIL (not scored)' : 'PASS', reasons: outcome.scenarios.flatMap((s) => s.failures) };
    return { ...outcome, verdict: outcome.reasons.length > 0 ? 'FAIL' : 'PASS' };
  } finally {
    if (options.keep) console.log(`kept ${outputDir}`);
    else rmSync(outputDir, { recursive: true, force: true });
  }
}

async function execute(run: Run): Promise<Outcome> {
  const outcome: Outcome = { run, verdict: 'PASS', scenarios: [], reasons: [], exitCode: null, ms: 0, output: '' };
  if (run.client) return judgeInvocation(run, run.args, 'client', outcome);
  let server: ReferenceServer;
  try {
    server = await startReferenceServer({ era: run.era! });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (!message.includes('no reference server')) throw error;
    return { ...outcome, verdict: 'PENDING', reasons: [message] };
  }
  try {
    return await judgeInvocation(run, [...run.args, '--url', server.url], 'server', outcome);
  } finally {
    await server.close();
  }
}

function report(outcomes: Outcome[], version: string): void {
  const rows = outcomes.map(({ run, verdict, scenarios, ms }) => {
    const scored = scenarios.filter((s) => s.scored);
    const unscored = scenarios.filter((s) => !s.scored);
    const sum = (key: 'passed' | 'failed' | 'warnings') => scored.reduce((total, s) => total + s[key], 0);
    return [
      `${run.name}${run.forced ? ' (--force)' : ''}`,
      verdict,
      verdict === 'PENDING' ? '' : `${scored.filter((s) => s.failed === 0).length}/${scored.length}`,
      verdict === 'PENDING' ? '' : `${sum('passed')} ok, ${sum('failed')} failed, ${sum('warnings')} warn`,
      unscored.length === 0 ? '' : `${unscored.length} (${unscored.filter((s) => s.failed > 0).length} failing)`,
      verdict === 'PENDING' ? '' : `${(ms / 1000).toFixed(1)} s`,
    ];
  });
  const header = ['run', 'verdict', 'scenarios', 'checks (scored)', 'not scored', 'time'];
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const line = (cells: string[]) => cells.map((cell, column) => cell.padEnd(widths[column]!)).join('  ').trimEnd();
  console.log(`\nofficial conformance harness @modelcontextprotocol/conformance ${version}, node ${process.version}\n`);
  console.log(line(header));
  console.log(line(widths.map((width) => '-'.repeat(width))));
  for (const row of rows) console.log(line(row));
  for (const outcome of outcomes.filter((o) => o.verdict !== 'PASS')) {
    console.log(`\n${outcome.verdict}: ${outcome.run.name}`);
    for (const reason of outcome.reasons) console.log(`  ${reason}`);
    if ((outcome.verdict === 'ERROR' || outcome.verdict === 'TIMEOUT') && !options.verbose) {
      console.log(`  last harness output:\n${outcome.output.split('\n').slice(-40).join('\n')}`);
    }
  }
  const warned = outcomes.flatMap((o) => o.scenarios.filter((s) => s.warnings > 0).map((s) => `${o.run.name} › ${s.scenario} (${s.warnings})`));
  if (warned.length > 0) console.log(`\nwarnings (SHOULD-level, not failures): ${warned.join(', ')}`);
  const unscoredFailing = outcomes.flatMap((o) => o.scenarios.filter((s) => !s.scored && s.failed > 0).map((s) => `${o.run.name} › ${s.scenario}`));
  if (unscoredFailing.length > 0) console.log(`\nnot scored and failing (extensions or pending in the harness itself): ${unscoredFailing.join(', ')}`);
}

/** The server part: the requirement sets against the servers of their eras, and the lifecycle scenarios at the earlier revisions. */
async function serverRuns(): Promise<Run[]> {
  const applicable = await listedScenarios('server');
  const runs: Run[] = [
    { name: 'server --requirements 2025-11-25', era: '2025-11-25', args: ['server', '--requirements', '2025-11-25'], timeoutMs: REQUIREMENTS_TIMEOUT_MS, forced: false },
    { name: 'server --requirements 2026-07-28', era: '2026-07-28', args: ['server', '--requirements', '2026-07-28'], timeoutMs: REQUIREMENTS_TIMEOUT_MS, forced: false },
  ];
  for (const revision of LIFECYCLE_REVISIONS) {
    for (const scenario of LIFECYCLE_SCENARIOS) {
      const revisions = applicable.get(scenario);
      if (!revisions) throw new Error(`the harness has no server scenario named ${scenario}`);
      const forced = !revisions.includes(revision);
      const args = ['server', '--scenario', scenario, '--spec-version', revision, ...(forced ? ['--force'] : [])];
      runs.push({ name: `${scenario} @ ${revision}`, era: revision, args, timeoutMs: SCENARIO_TIMEOUT_MS, forced });
    }
  }

  return runs;
}

/**
 * The client part: every client scenario the harness lists (narrowed by --scenario), once per revision it lists, against
 * the reference client. An extension runs once, at the harness's default revision.
 */
async function clientRuns(): Promise<Run[]> {
  const listed = await listedScenarios('client');
  const required = new Map<string, Set<string>>();
  for (const revision of REQUIREMENT_REVISIONS) required.set(revision, await requiredClientScenarios(revision));
  const wanted = (scenario: string) => options.scenario === undefined || options.scenario.some((prefix) => scenario.startsWith(prefix));
  const runs: Run[] = [];
  for (const [scenario, revisions] of listed) {
    if (!wanted(scenario)) continue;
    for (const revision of revisions.includes('extension') ? [undefined] : revisions) {
      const scored = revision !== undefined && (required.get(revision)?.has(scenario) ?? false);
      const args = ['client', '--command', CLIENT_COMMAND, '--scenario', scenario, '--timeout', String(CLIENT_TIMEOUT_MS), ...(revision !== undefined ? ['--spec-version', revision] : [])];
      runs.push({ name: `${scenario} @ ${revision ?? 'extension'}`, args, timeoutMs: CLIENT_SCENARIO_TIMEOUT_MS, forced: false, client: { scenario, revision, scored } });
    }
  }
  if (runs.length === 0) throw new Error(`no client scenario of the harness starts with ${options.scenario?.join(' or ')}`);
  return runs;
}

function reportClient(outcomes: Outcome[], version: string): void {
  console.log(`\nofficial conformance harness @modelcontextprotocol/conformance ${version}, client scenarios against the reference client, node ${process.version}\n`);
  const rows = outcomes.map(({ run, verdict, scenarios, ms }) => {
    const checks = scenarios.flatMap((s) => s.checks).filter((check) => check.status !== 'INFO');
    const count = (status: Status) => checks.filter((check) => check.status === status).length;
    return [run.name, run.client!.scored ? 'yes' : 'no', verdict, `${count('SUCCESS')} ok, ${count('FAILURE')} failed, ${count('WARNING')} warn`, `${(ms / 1000).toFixed(1)} s`];
  });
  const header = ['scenario @ revision', 'scored', 'verdict', 'checks', 'time'];
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const line = (cells: string[]) => cells.map((cell, column) => cell.padEnd(widths[column]!)).join('  ').trimEnd();
  console.log(line(header));
  console.log(line(widths.map((width) => '-'.repeat(width))));
  for (const row of rows) console.log(line(row));
  for (const outcome of outcomes.filter((o) => o.verdict !== 'PASS')) {
    console.log(`\n${outcome.verdict}: ${outcome.run.name}`);
    for (const reason of outcome.reasons) console.log(`  ${reason}`);
    for (const check of outcome.scenarios.flatMap((s) => s.checks).filter((check) => check.status === 'WARNING')) console.log(`  warning ${check.id}: ${check.errorMessage ?? ''}`);
    if ((outcome.verdict === 'ERROR' || outcome.verdict === 'TIMEOUT') && !options.verbose) {
      console.log(`  last harness output:\n${outcome.output.split('\n').slice(-40).join('\n')}`);
    }
  }
}

/** An official check id's counterpart here (suites/authorization/official-checks.json), or why there is none. */
type Counterpart = { scenario: string; check: string } | { none: string };

/**
 * Each official check id the mapping gives a counterpart here: its verdicts on the reference client in the runs above,
 * beside that counterpart's verdict on the reference client (this suite's scenario run strictly at each of its revisions).
 */
async function reportAgreement(outcomes: Outcome[]): Promise<void> {
  if (!existsSync(MAPPING)) {
    console.log(`\nno ${MAPPING}: the official check ids are not mapped to this suite's checks yet`);
    return;
  }
  const mapping = (JSON.parse(readFileSync(MAPPING, 'utf8')) as { checks: Record<string, Counterpart> }).checks;
  const { SCENARIOS } = await import('../suites/index.ts');
  const { runCase } = await import('../suites/runner.ts');
  const { referenceClient } = await import('../clients/reference/index.ts');
  console.log('\nshared checks (official check id → this suite\'s check; both on the reference client)');
  for (const [id, counterpart] of Object.entries(mapping)) {
    if ('none' in counterpart) continue;
    const official = outcomes.flatMap((o) => o.scenarios.flatMap((s) => s.checks.filter((check) => check.id === id).map((check) => ({ run: o.run.name, status: check.status }))));
    const scenario = SCENARIOS.find((s) => s.id === counterpart.scenario);
    if (scenario === undefined) throw new Error(`${MAPPING}: ${id} maps to ${counterpart.scenario}, which this suite does not have`);
    const ours: { revision: string; outcome: string; verdict: string }[] = [];
    for (const revision of scenario.revisions) {
      const result = await runCase(scenario, referenceClient, revision, { strict: true });
      ours.push({ revision, outcome: result.checks.find((check) => check.name === counterpart.check)?.outcome ?? 'absent', verdict: result.verdict });
    }
    const officialPassed = official.every((entry) => entry.status === 'SUCCESS');
    const oursPassed = ours.every((entry) => entry.outcome === 'pass');
    const agreement = official.length === 0 ? 'not recorded by the official runs' : officialPassed === oursPassed ? 'agree' : 'DISAGREE';
    console.log(`  ${id} → ${counterpart.scenario} › ${counterpart.check}: ${agreement}`);
    console.log(`    official: ${official.map((entry) => `${entry.run}: ${entry.status}`).join(', ')}`);
    console.log(`    here:     ${ours.map((entry) => `${entry.revision}: ${entry.outcome} (case ${entry.verdict})`).join(', ')}`);
  }
}

async function main(): Promise<number> {
  const major = Number(process.versions.node.split('.')[0]);
  if (major < 22) throw new Error(`the harness needs Node 22 or later (it imports fs.globSync); this is ${process.version}: run it with npm run harness`);
  const version = (JSON.parse(readFileSync(join(PACKAGE_DIR, 'package.json'), 'utf8')) as { version: string }).version;
  const runs = options.client ? await clientRuns() : await serverRuns();

  const outcomes: Outcome[] = [];
  for (const run of runs) {
    if (interrupted) break;
    if (!options.verbose) process.stdout.write(`${run.name} … `);
    const outcome = await execute(run);
    outcomes.push(outcome);
    if (!options.verbose) console.log(outcome.verdict);
  }
  if (options.client) {
    reportClient(outcomes, version);
    if (!interrupted) await reportAgreement(outcomes);
  } else report(outcomes, version);
  if (options.json !== undefined) {
    const runsJson = outcomes.map(({ run, verdict, scenarios, ms }) => ({ name: run.name, ...(run.client ?? { era: run.era }), verdict, ms: Math.round(ms), checks: scenarios.flatMap((s) => s.checks) }));
    writeFileSync(options.json, `${JSON.stringify({ package: '@modelcontextprotocol/conformance', version, runs: runsJson }, null, 2)}\n`);
  }
  if (interrupted) return 130;
  return outcomes.some((o) => o.verdict === 'FAIL' || o.verdict === 'TIMEOUT' || o.verdict === 'ERROR') ? 1 : 0;
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    interrupted = true;
    running?.kill();
  });
}

try {
  process.exitCode = await main();
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
}
