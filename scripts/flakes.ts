// `npm run flakes -- [--runs 20] [--hog 0] [--out reports/flakes.json] [-- <vitest filters>]`: runs the test suite
// again and again, each time in a different shuffled order (vitest --sequence.shuffle with its own seed), and reports
// every test whose outcome was not the same in all runs. A flaky verdict is a bug in the suite, to fix, never to retry.
// `--hog N`: the last N runs beside a CPU hog of twice the cores (scripts/ci/with-cpu-hog.sh, Debian's stress-ng), so
// `--runs 10 --hog 5` is ten runs, five of them on a machine as busy as a loaded CI runner.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const ROOT = resolve(import.meta.dirname, '..');

interface JsonReport {
  testResults: { name: string; assertionResults: { fullName: string; status: string; failureMessages: string[] }[] }[];
}

const { values, positionals } = parseArgs({
  options: {
    runs: { type: 'string', default: '20' },
    hog: { type: 'string', default: '0' },
    out: { type: 'string', default: join(ROOT, 'reports', 'flakes.json') },
    'first-seed': { type: 'string', default: '1' },
  },
  allowPositionals: true,
});
const runs = Number(values.runs);
const hogRuns = Number(values.hog);
if (!Number.isInteger(hogRuns) || hogRuns < 0 || hogRuns > runs) throw new Error(`--hog must be a whole number from 0 to --runs (${runs}), not ${values.hog}`);
const firstSeed = Number(values['first-seed']);
const WITH_CPU_HOG = join(ROOT, 'scripts', 'ci', 'with-cpu-hog.sh');
const work = mkdtempSync(join(tmpdir(), 'flakes-'));

function vitestRun(seed: number, output: string, hog: boolean): Promise<{ code: number | null; ms: number }> {
  const started = performance.now();
  const vitest = [process.execPath, join(ROOT, 'node_modules', 'vitest', 'vitest.mjs'), 'run', '--sequence.shuffle', `--sequence.seed=${seed}`, '--reporter=json', `--outputFile=${output}`, ...positionals];
  const [command, ...args] = hog ? ['bash', WITH_CPU_HOG, ...vitest] : vitest;
  return new Promise((done) => {
    const child = spawn(command!, args, { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
    child.on('close', (code) => done({ code, ms: performance.now() - started }));
  });
}

/** Every test's outcome in one run, by file and full name. */
function outcomes(report: JsonReport): Map<string, { status: string; message?: string }> {
  const map = new Map<string, { status: string; message?: string }>();
  for (const file of report.testResults) {
    for (const test of file.assertionResults) {
      const message = test.failureMessages[0]?.split('\n')[0];
      // Tests may share a full name (one per era, say): the second is `… #2`, in the order the file declares them.
      const name = `${file.name.replace(`${ROOT}/`, '')} › ${test.fullName}`;
      let key = name;
      for (let n = 2; map.has(key); n++) key = `${name} #${n}`;
      map.set(key, { status: test.status, ...(message ? { message } : {}) });
    }
  }
  return map;
}

const perRun: { seed: number; hog: boolean; ms: number; exitCode: number | null; passed: number; failed: number; skipped: number; load: number }[] = [];
const byTest = new Map<string, { status: string; message?: string; seed: number }[]>();
for (let index = 0; index < runs; index++) {
  const seed = firstSeed + index;
  const output = join(work, `run-${seed}.json`);
  const load = loadavg()[0]!;
  const hog = index >= runs - hogRuns;
  const { code, ms } = await vitestRun(seed, output, hog);
  let report: JsonReport;
  try {
    report = JSON.parse(readFileSync(output, 'utf8')) as JsonReport;
  } catch {
    console.error(`flakes: run ${index + 1} (seed ${seed}) wrote no report (exit ${code})`);
    continue;
  }
  const seen = outcomes(report);
  const count = (status: string) => [...seen.values()].filter((o) => o.status === status).length;
  perRun.push({ seed, hog, ms: Math.round(ms), exitCode: code, passed: count('passed'), failed: count('failed'), skipped: count('skipped') + count('pending'), load });
  for (const [name, outcome] of seen) {
    const list = byTest.get(name) ?? [];
    list.push({ ...outcome, seed });
    byTest.set(name, list);
  }
  const last = perRun.at(-1)!;
  console.log(`flakes: run ${index + 1}/${runs} seed ${seed}${hog ? ' beside the CPU hog' : ''}: ${last.passed} passed, ${last.failed} failed, ${last.skipped} skipped in ${(ms / 1000).toFixed(1)} s (load ${load.toFixed(1)} at its start)`);
}
rmSync(work, { recursive: true, force: true });

// A test is flaky when its status differs between runs (or it is missing from some).
const flaky = [...byTest.entries()]
  .filter(([, list]) => list.length !== perRun.length || new Set(list.map((o) => o.status)).size > 1)
  .map(([name, list]) => ({ name, outcomes: list.filter((o) => o.status !== 'passed') , runs: list.length }));
const alwaysFailing = [...byTest.entries()].filter(([, list]) => list.length === perRun.length && list.every((o) => o.status === 'failed')).map(([name]) => name);
const summary = { runs: perRun.length, tests: byTest.size, flaky: flaky.length, alwaysFailing: alwaysFailing.length, perRun, flakyTests: flaky, alwaysFailingTests: alwaysFailing, filters: positionals };
mkdirSync(dirname(values.out), { recursive: true });
writeFileSync(values.out, `${JSON.stringify(summary, null, 2)}\n`);
console.log(`\nflakes: ${perRun.length} shuffled runs of ${byTest.size} tests: ${flaky.length} flaky, ${alwaysFailing.length} always failing (${values.out})`);
for (const test of flaky) console.log(`  flaky: ${test.name}\n    ${test.outcomes.map((o) => `seed ${o.seed}: ${o.status}${o.message ? ` — ${o.message.slice(0, 160)}` : ''}`).join('\n    ')}`);
process.exitCode = flaky.length > 0 || alwaysFailing.length > 0 ? 1 : 0;
