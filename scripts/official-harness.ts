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
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { basePolicy } from '../config/settings.ts';
import type { Era } from '../servers/era.ts';
import type { ReferenceServer } from '../servers/reference-server.ts';
import { startReferenceServer } from '../servers/server.ts';

const { values: options } = parseArgs({ options: { verbose: { type: 'boolean', default: false }, keep: { type: 'boolean', default: false } } });

const PACKAGE_DIR = fileURLToPath(new URL('../node_modules/@modelcontextprotocol/conformance/', import.meta.url));
const HARNESS = join(PACKAGE_DIR, 'dist/index.js');
const LIFECYCLE_SCENARIOS = ['server-initialize', 'server-session-lifecycle', 'ping', 'tools-list', 'dns-rebinding-protection'];
const LIFECYCLE_REVISIONS = ['2025-03-26', '2025-06-18'] as const;
// Safety nets on each harness run, scaled like every bound (MCP_CONFORMANCE_TIME_SCALE).
const REQUIREMENTS_TIMEOUT_MS = 5 * 60_000 * basePolicy().scale;
const SCENARIO_TIMEOUT_MS = 60_000 * basePolicy().scale;
const KILL_GRACE_MS = 2_000;

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
}
interface Run {
  name: string;
  era: Era;
  args: string[];
  timeoutMs: number;
  /** A single-scenario run outside the harness's applicability window for that revision. */
  forced: boolean;
}
interface Outcome {
  run: Run;
  verdict: 'PASS' | 'FAIL' | 'TIMEOUT' | 'ERROR' | 'PENDING';
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

/** `conformance list`: every server scenario with the revisions the harness applies it at. */
async function serverScenarios(): Promise<Map<string, string[]>> {
  const listed = await harness(['list', '--server'], SCENARIO_TIMEOUT_MS);
  if (listed.code !== 0) throw new Error(`conformance list failed (exit ${listed.code}):\n${listed.output}`);
  const scenarios = new Map<string, string[]>();
  for (const [, name, revisions] of listed.output.matchAll(/^\s+- (\S+) \[([^\]]*)\]$/gm)) scenarios.set(name!, revisions!.split(','));
  if (scenarios.size === 0) throw new Error(`conformance list printed no server scenario:\n${listed.output}`);
  return scenarios;
}

/** Scenario results from the `checks.json` files the harness writes under `-o`. */
function readResults(outputDir: string, notScored: Set<string>): ScenarioResult[] {
  const results: ScenarioResult[] = [];
  for (const entry of readdirSync(outputDir).sort()) {
    const match = /^server-(.+)-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$/.exec(entry);
    if (!match) throw new Error(`unexpected entry in the harness output directory: ${entry}`);
    const checks = JSON.parse(readFileSync(join(outputDir, entry, 'checks.json'), 'utf8')) as Check[];
    const count = (status: Status) => checks.filter((check) => check.status === status).length;
    results.push({
      scenario: match[1]!,
      passed: count('SUCCESS'),
      failed: count('FAILURE'),
      warnings: count('WARNING'),
      scored: !notScored.has(match[1]!),
      failures: checks.filter((check) => check.status === 'FAILURE').map((check) => `${check.id}: ${check.errorMessage ?? 'failed'}`),
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

async function execute(run: Run): Promise<Outcome> {
  const outcome: Outcome = { run, verdict: 'PASS', scenarios: [], reasons: [], exitCode: null, ms: 0, output: '' };
  let server: ReferenceServer;
  try {
    server = await startReferenceServer({ era: run.era });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (!message.includes('no reference server')) throw error;
    return { ...outcome, verdict: 'PENDING', reasons: [message] };
  }
  const outputDir = mkdtempSync(join(tmpdir(), 'mcp-harness-'));
  try {
    const exit = await harness([...run.args, '--url', server.url, '-o', outputDir], run.timeoutMs);
    Object.assign(outcome, { exitCode: exit.code, ms: exit.ms, output: exit.output });
    if (exit.timedOut) return { ...outcome, verdict: 'TIMEOUT', reasons: [`killed after ${run.timeoutMs} ms`] };
    outcome.scenarios = readResults(outputDir, notScoredIn(exit.output));
    const totals = printedTotals(exit.output);
    const passed = outcome.scenarios.reduce((sum, s) => sum + s.passed, 0);
    const failed = outcome.scenarios.reduce((sum, s) => sum + s.failed, 0);
    if (outcome.scenarios.length === 0) outcome.reasons.push('the harness wrote no result');
    if (!totals) outcome.reasons.push('the harness printed no totals');
    else if (totals.passed !== passed || totals.failed !== failed) {
      outcome.reasons.push(`printed totals (${totals.passed} passed, ${totals.failed} failed) differ from checks.json (${passed}, ${failed})`);
    }
    if (outcome.reasons.length > 0) return { ...outcome, verdict: 'ERROR' };
    for (const scenario of outcome.scenarios.filter((s) => s.scored && s.failed > 0)) {
      outcome.reasons.push(`${scenario.scenario}: ${scenario.failures.join('; ')}`);
    }
    if (exit.code !== 0) outcome.reasons.push(`harness exit code ${exit.code}${exit.signal ? ` (${exit.signal})` : ''}`);
    return { ...outcome, verdict: outcome.reasons.length > 0 ? 'FAIL' : 'PASS' };
  } finally {
    await server.close();
    if (options.keep) console.log(`kept ${outputDir}`);
    else rmSync(outputDir, { recursive: true, force: true });
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

async function main(): Promise<number> {
  const major = Number(process.versions.node.split('.')[0]);
  if (major < 22) throw new Error(`the harness needs Node 22 or later (it imports fs.globSync); this is ${process.version}: run it with npm run harness`);
  const version = (JSON.parse(readFileSync(join(PACKAGE_DIR, 'package.json'), 'utf8')) as { version: string }).version;
  const applicable = await serverScenarios();

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

  const outcomes: Outcome[] = [];
  for (const run of runs) {
    if (interrupted) break;
    if (!options.verbose) process.stdout.write(`${run.name} … `);
    const outcome = await execute(run);
    outcomes.push(outcome);
    if (!options.verbose) console.log(outcome.verdict);
  }
  report(outcomes, version);
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
