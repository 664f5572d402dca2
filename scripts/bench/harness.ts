// Section `harness`: one scenario through the official conformance harness in client mode versus its in-process
// equivalent here, on the same machine in the same run.
//
// The harness (`conformance client --command <c> --scenario <s> --spec-version 2025-11-25 -o <dir>`) starts its own
// server for the scenario, runs the command through `sh` with the server's URL appended as the last argument (the
// scenario in MCP_CONFORMANCE_SCENARIO), waits for it to exit, then judges what its server saw. The command is the
// minimal SDK v1 client in harness-client.ts, prefixed with `exec` (sh would otherwise outlive a killed client).
// Ours: suites/runner.ts runScenario at the same revision with the sdk-v1 adapter (the same SDK client, in process)
// and with the reference client.
//
// Where the harness's time goes, per run, from epoch times on one clock: when each line of the harness's output
// arrived ("Starting scenario", "Executing client", "Checks:") and the times the client program prints (its process
// start, its modules loaded, done), which the harness keeps in stdout.txt:
//   harness start     spawn → "Starting scenario": node, its bundle and dependencies, argument parsing
//   its server        → "Executing client": the scenario's server listening
//   client spawn      → the client process's start: sh, then exec of node
//   client start      → the client's modules loaded: node boot, SDK import
//   client protocol   → the client done: connect, tools/list (tools/call), close
//   exit and checks   → "Checks:": the client's exit, the harness's checks, its server stopped
//   report and exit   → the harness's end
// Alongside, each round: bare node start (`node -e 0`) and the client program alone against our reference server.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ClientAdapter } from '../../clients/adapter.ts';
import { referenceClient } from '../../clients/reference/index.ts';
import { sdkV1StreamableHttp } from '../../clients/sdk-v1.ts';
import type { Revision } from '../../protocol/revisions.ts';
import { startReferenceServer } from '../../servers/server.ts';
import { basePolicy } from '../../config/settings.ts';
import { SCENARIOS } from '../../suites/index.ts';
import { CLEANUP_CHECKS, runScenario } from '../../suites/runner.ts';
import { childEnv, type Finished, now, ROOT, runTimed, tail } from './child.ts';
import { median, ms, summarize } from './stats.ts';

const PACKAGE_DIR = join(ROOT, 'node_modules', '@modelcontextprotocol', 'conformance');
const HARNESS = join(PACKAGE_DIR, 'dist', 'index.js');
const CLIENT_PROGRAM = join(import.meta.dirname, 'harness-client.ts');
/** Both scenarios' default spec version in the harness (each was introduced before 2026-07-28); passed explicitly. */
const REVISION: Revision = '2025-11-25';
const RUN_TIMEOUT_MS = 60_000;
/** The ratio harness/ours per scenario this suite aims at. */
const RATIO_GOAL = 100;

/** Each harness client scenario and the scenario here that does the same on the wire. */
export const EQUIVALENTS = [
  // The harness: initialize (its server answers it and tools/list), checks protocolVersion and clientInfo.
  // Ours: connect, tools/list, tools/call echo, close; checks the handshake order (initialize first, initialized
  // after its result and before any other request) and every message against the schemas.
  { harness: 'initialize', ours: 'negotiation/handshake-order' },
  // The harness: checks that add_numbers was called with two numbers, and the wire schema.
  // Ours: connect, info, tools/list, tools/call echo, close; checks the negotiated version and MCP-Protocol-Version
  // on every request after initialize (the tools/call among them), and the schemas.
  { harness: 'tools_call', ours: 'negotiation/version-per-revision' },
] as const;

const OUR_ADAPTERS: readonly ClientAdapter[] = [sdkV1StreamableHttp, referenceClient];

/** The phases of one harness run, in order; see the top of this file. */
const PHASES = ['harnessStart', 'serverStart', 'clientSpawn', 'clientStart', 'clientProtocol', 'exitAndChecks', 'reportAndExit'] as const;
type Phase = (typeof PHASES)[number];
const PHASE_LABELS: Record<Phase, string> = {
  harnessStart: 'harness start (node, its bundle)',
  serverStart: 'its server',
  clientSpawn: 'client spawn (sh, exec node)',
  clientStart: 'client start (node, SDK import)',
  clientProtocol: 'client protocol',
  exitAndChecks: 'client exit, checks, server stop',
  reportAndExit: 'report and exit',
};

export interface HarnessOptions {
  /** Timed harness runs per scenario (and of each measurement alongside). */
  runs: number;
  /** Timed in-process runs per scenario and adapter. */
  ourRuns: number;
  /** Untimed rounds first (file cache, JIT). */
  warmup?: number;
  /** Untimed in-process runs per scenario and adapter after the first (default OUR_WARMUP). */
  ourWarmup?: number;
}

/** In-process runs before the timed ones: a suite's cases run in a warm process (the SDK v1 client's case settles after about 150 runs). */
const OUR_WARMUP = 100;

/** The epoch times harness-client.ts prints. */
interface ClientTimes {
  startedAt: number;
  readyAt: number;
  doneAt: number;
}

function harnessVersion(): string {
  return (JSON.parse(readFileSync(join(PACKAGE_DIR, 'package.json'), 'utf8')) as { version: string }).version;
}

/** The client command as the harness takes it: split on spaces, so no path may contain one. */
function clientCommand(): string {
  if (`${process.execPath}${CLIENT_PROGRAM}`.includes(' ')) throw new Error(`the harness splits --command on spaces; ${process.execPath} or ${CLIENT_PROGRAM} contains one`);
  return `exec ${process.execPath} ${CLIENT_PROGRAM}`;
}

async function node(args: string[], env?: NodeJS.ProcessEnv): Promise<Finished> {
  const run = await runTimed(process.execPath, args, { timeoutMs: RUN_TIMEOUT_MS, ...(env ? { env } : {}) });
  if (run.code !== 0) throw new Error(`node ${args.join(' ')}: exit code ${run.code}\n${tail(run.output)}`);
  return run;
}

function clientTimes(stdout: string): ClientTimes {
  const line = stdout.split('\n').find((l) => l.startsWith('{"startedAt"'));
  if (!line) throw new Error(`the client printed no times:\n${stdout}`);
  return JSON.parse(line) as ClientTimes;
}

/** A real harness run, which must pass (so the time is that of a scenario run to its end): its time, checks and phases. */
async function harnessRun(scenario: string, command: string) {
  const outputDir = mkdtempSync(join(tmpdir(), 'mcp-bench-harness-'));
  try {
    const run = await node([HARNESS, 'client', '--command', command, '--scenario', scenario, '--spec-version', REVISION, '-o', outputDir]);
    const passed = /^Passed: (\d+\/\d+), 0 failed, 0 warnings$/m.exec(run.output);
    if (!passed) throw new Error(`the harness did not pass ${scenario}:\n${tail(run.output)}`);
    const printed = (text: string) => {
      const chunk = run.chunks.find((c) => c.text.includes(text));
      if (!chunk) throw new Error(`the harness never printed "${text}":\n${tail(run.output)}`);
      return chunk.at;
    };
    const [resultDir] = readdirSync(outputDir);
    const client = clientTimes(readFileSync(join(outputDir, resultDir!, 'stdout.txt'), 'utf8'));
    const marks = [run.startedAt, printed('Starting scenario'), printed('Executing client'), client.startedAt, client.readyAt, client.doneAt, printed('Checks:'), run.startedAt + run.ms];
    const phases = Object.fromEntries(PHASES.map((phase, i) => [phase, marks[i + 1]! - marks[i]!])) as Record<Phase, number>;
    return { ms: run.ms, checks: passed[1]!, phases };
  } finally {
    rmSync(outputDir, { recursive: true, force: true });
  }
}

/** The client program alone against our reference server (as the initialize scenario: connect, tools/list, close). */
async function clientAlone() {
  const server = await startReferenceServer({ era: REVISION, recording: false });
  try {
    const run = await node([CLIENT_PROGRAM, server.url], childEnv({ MCP_CONFORMANCE_SCENARIO: 'initialize' }));
    const client = clientTimes(run.output);
    return { wallMs: run.ms, startMs: client.readyAt - client.startedAt, protocolMs: client.doneAt - client.readyAt };
  } finally {
    await server.close();
  }
}

/**
 * In-process runs of one scenario on one adapter: the first (cold) run apart, then `warmup` untimed (the JIT and the
 * heap warm, as in any run of the suite past its first hundred cases: a case costs a third more before), then `runs` timed.
 */
async function ours(scenarioId: string, adapter: ClientAdapter, runs: number, warmup: number) {
  const scenario = SCENARIOS.find((s) => s.id === scenarioId);
  if (!scenario) throw new Error(`no scenario ${scenarioId}`);
  const times: number[] = [];
  const verdicts: Record<string, number> = {};
  /** Why each run that did not pass came out as it did. */
  const notPassed: string[] = [];
  // The runner's own findings after the script: a client that leaves connections open costs the runner its drain
  // wait (the time policy's drain) in every run, which shows in the times.
  const cleanupFindings: Record<string, number> = {};
  const cleanupNames: readonly string[] = Object.values(CLEANUP_CHECKS);
  let firstRunMs = 0;
  for (let i = 0; i <= warmup + runs; i++) {
    const started = performance.now();
    const result = await runScenario(scenario, adapter, REVISION);
    const elapsed = performance.now() - started;
    if (i > 0 && i <= warmup) continue;
    if (result.verdict === 'n/a') throw new Error(`${scenarioId} is not applicable to ${adapter.name} at ${REVISION}: ${result.reason}`);
    verdicts[result.verdict] = (verdicts[result.verdict] ?? 0) + 1;
    if (result.verdict !== 'pass') notPassed.push(`${result.verdict}${result.reason ? ` (${result.reason})` : ''}`);
    for (const check of result.checks) if (check.outcome === 'fail' && cleanupNames.includes(check.name)) cleanupFindings[check.name] = (cleanupFindings[check.name] ?? 0) + 1;
    if (i === 0) firstRunMs = elapsed;
    else times.push(elapsed);
  }
  return { adapter: adapter.name, ...summarize(times), firstRunMs, verdicts, notPassed, cleanupFindings };
}

/** The median of each field. */
const medianOf = <K extends string>(rows: readonly Record<K, number>[], keys: readonly K[]) => Object.fromEntries(keys.map((key) => [key, median(rows.map((row) => row[key]))])) as Record<K, number>;

export async function harnessComparison(options: HarnessOptions) {
  const warmup = options.warmup ?? 1;
  const command = clientCommand();
  const runs: Record<string, Awaited<ReturnType<typeof harnessRun>>[]> = {};
  const alongside = { nodeStart: [] as number[], clientAlone: [] as Awaited<ReturnType<typeof clientAlone>>[] };
  const started = now();
  // Rounds interleave every measurement, so a burst of load on the shared machine hits them alike.
  for (let round = 0; round < warmup + options.runs; round++) {
    const keep = round >= warmup;
    for (const { harness } of EQUIVALENTS) {
      const run = await harnessRun(harness, command);
      if (keep) (runs[harness] ??= []).push(run);
    }
    const nodeStart = (await node(['-e', '0'])).ms;
    const alone = await clientAlone();
    if (keep) {
      alongside.nodeStart.push(nodeStart);
      alongside.clientAlone.push(alone);
    }
  }
  const harnessMs = now() - started;
  const reference = {
    nodeStartMs: median(alongside.nodeStart),
    clientAlone: { ...medianOf(alongside.clientAlone, ['wallMs', 'startMs', 'protocolMs'] as const), against: `our ${REVISION} reference server` },
    runs: options.runs,
  };

  const scenarios = [];
  for (const { harness, ours: ourScenario } of EQUIVALENTS) {
    const ourRows = [];
    for (const adapter of OUR_ADAPTERS) ourRows.push(await ours(ourScenario, adapter, options.ourRuns, options.ourWarmup ?? OUR_WARMUP));
    const harnessRuns = runs[harness]!;
    const harnessTimes = summarize(harnessRuns.map((run) => run.ms));
    const ratios = Object.fromEntries(ourRows.map((row) => [row.adapter, harnessTimes.medianMs / row.medianMs]));
    scenarios.push({
      harnessScenario: harness,
      ourScenario,
      revision: REVISION,
      harness: { ...harnessTimes, checksPassed: harnessRuns[0]!.checks, phasesMs: medianOf(harnessRuns.map((run) => run.phases), PHASES) },
      ours: ourRows,
      ratios,
      ratioGoal: RATIO_GOAL,
      goalMet: Object.values(ratios).every((ratio) => ratio >= RATIO_GOAL),
    });
  }

  const version = harnessVersion();
  console.log(`@modelcontextprotocol/conformance ${version} client mode vs runScenario, ${REVISION}, node ${process.version}; medians of ${options.runs} harness runs, ${options.ourRuns} in-process runs after ${options.ourWarmup ?? OUR_WARMUP} untimed`);
  for (const row of scenarios) {
    const ourText = row.ours.map((o) => `${o.adapter} ${ms(o.medianMs).trim()} (${row.ratios[o.adapter]!.toFixed(0)}×; first run ${o.firstRunMs.toFixed(0)} ms)`).join(', ');
    console.log(`${row.harnessScenario.padEnd(11)} harness ${ms(row.harness.medianMs)} (${row.harness.checksPassed} checks) | ${row.ourScenario}: ${ourText} | goal ≥ ${RATIO_GOAL}×: ${row.goalMet ? 'met' : 'NOT met'}`);
    console.log(`  harness phases (medians): ${PHASES.map((phase) => `${PHASE_LABELS[phase]} ${row.harness.phasesMs[phase].toFixed(0)}`).join(', ')} ms`);
    for (const our of row.ours.filter((o) => (o.cleanupFindings[CLEANUP_CHECKS.connections] ?? 0) > 0)) {
      console.log(`  ${our.adapter}: ${our.cleanupFindings[CLEANUP_CHECKS.connections]} of ${options.ourRuns + 1} runs left connections open after dispose, and the runner waited up to ${basePolicy().ms.drain} ms for them in each`);
    }
  }
  const alone = reference.clientAlone;
  console.log(
    `  alongside: bare node start ${reference.nodeStartMs.toFixed(0)} ms; the client program alone against ${alone.against}: ${alone.wallMs.toFixed(0)} ms (start ${alone.startMs.toFixed(0)}, protocol ${alone.protocolMs.toFixed(0)})`,
  );
  return {
    package: '@modelcontextprotocol/conformance',
    version,
    node: process.version,
    revision: REVISION,
    commands: {
      harness: `node node_modules/@modelcontextprotocol/conformance/dist/index.js client --command "exec <node> scripts/bench/harness-client.ts" --scenario <scenario> --spec-version ${REVISION} -o <tmp>`,
      nodeStart: 'node -e 0',
      clientAlone: `MCP_CONFORMANCE_SCENARIO=initialize node scripts/bench/harness-client.ts <our ${REVISION} server URL>`,
    },
    harnessRoundsMs: harnessMs,
    alongside: reference,
    scenarios,
  };
}
