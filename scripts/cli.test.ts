// The command line as a user runs it: a child process, its output and its exit code. No test bounds the CLI by the
// clock (every client operation in a run is bounded by the time policy); a child that ends early is a failure, said.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { Agent, request } from 'undici';
import { afterAll, afterEach, describe, expect, test } from 'vitest';
import { EXIT_CODES } from '../api/exit-codes.ts';
import { SETTINGS_ENV } from '../config/settings.ts';
import { TIME_BASES } from '../config/time.ts';
import { PROGRESS_LINE_EVERY_MS } from './commands/run.ts';

const CLI = join(import.meta.dirname, 'cli.ts');
const REFERENCE = pathToFileURL(join(import.meta.dirname, '..', 'clients', 'reference', 'index.ts')).href;
const children: ReturnType<typeof spawn>[] = [];
const work = mkdtempSync(join(tmpdir(), 'cli-test-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function start(args: string[], env: NodeJS.ProcessEnv = {}) {
  const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  children.push(child);
  return child;
}

/** Resolves with the child's exit code and output once it has exited. */
async function finished(child: ReturnType<typeof spawn>) {
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk) => (stdout += chunk));
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const [code] = (await once(child, 'close')) as [number];
  return { code, stdout, stderr };
}

/** An adapter module for `run --adapter <file>`: the reference client with `body` spread over it. */
function adapterModule(name: string, body: string): string {
  const path = join(work, `${name}.ts`);
  writeFileSync(path, `import { referenceClient } from ${JSON.stringify(REFERENCE)};\nimport { existsSync, writeFileSync } from 'node:fs';\nexport default { ...referenceClient, name: ${JSON.stringify(name)}, ${body} };\n`);
  return path;
}

const validResults = new Ajv2020({ allErrors: true, strict: true }).compile(JSON.parse(readFileSync(join(import.meta.dirname, '..', 'results', 'results.schema.json'), 'utf8')));

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

describe('serve', { timeout: 0 }, () => {
  test('prints one JSON line with the URL, serves on it, and stops cleanly on SIGINT', async () => {
    const child = start(['serve', '--era', '2025-06-18', '--personality', 'delete-405', '--json']);
    const lines = createInterface({ input: child.stdout! });
    const [first] = (await Promise.race([
      once(lines, 'line'),
      once(child, 'exit').then(([code]) => Promise.reject(new Error(`serve exited (${code}) before printing a line`))),
    ])) as [string];
    const info = JSON.parse(first);
    expect(info).toMatchObject({ era: '2025-06-18', personalities: ['delete-405'] });
    expect(info.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const agent = new Agent();
    try {
      const answer = await request(info.url, { method: 'DELETE', dispatcher: agent });
      await answer.body.text();
      expect(answer.statusCode).toBe(405);
    } finally {
      await agent.close();
    }
    lines.close();
    const exit = finished(child);
    child.kill('SIGINT');
    expect((await exit).code).toBe(0);
  });

  test('--help lists every era and personality with one line each', async () => {
    const { code, stdout } = await finished(start(['serve', '--help']));
    expect(code).toBe(0);
    for (const name of ['2024-11-05', '2025-11-25', '2026-07-28', 'dual', 'stateless', 'delete-405']) expect(stdout).toMatch(new RegExp(`^  ${name} +\\S`, 'm'));
  });

  test('an unknown era or personality is a one-line error with exit code 2', async () => {
    const era = await finished(start(['serve', '--era', '1999-01-01']));
    expect(era.code).toBe(2);
    expect(era.stderr).toMatch(/^mcp-client-conformance: unknown era "1999-01-01"; eras: 2024-11-05, /);
    const personality = await finished(start(['serve', '--era', '2025-06-18', '--personality', 'grumpy']));
    expect(personality.code).toBe(2);
    expect(personality.stderr).toMatch(/^mcp-client-conformance: unknown personality "grumpy"/);
  });
});

describe('run and list', { timeout: 0 }, () => {
  test('list names every scenario; run prints a verdict table and exits 1 on a failure', async () => {
    const list = await finished(start(['list']));
    expect(list.stdout).toMatch(/^negotiation\/handshake-order$/m);
    const failing = await finished(start(['run', '--adapter', 'broken-skips-initialized', '--scenario', 'handshake']));
    expect(failing.code).toBe(1);
    // Problems first: the failing cases of a scenario on one line, the checks they broke below it.
    expect(failing.stdout).toMatch(/^FAIL \(\d+\): .*\n  ✗ negotiation\/handshake-order @ [-\d, ]*2025-06-18.*\n      broke initialized-sent/m);
    // Each scenario's transport; --transport narrows list and run to one.
    expect(list.stdout).toMatch(/^negotiation\/handshake-order\n.*\n  transport: http$/m);
    expect(list.stdout).toMatch(/^stdio\/handshake-order\n.*\n  transport: stdio \(negotiation\/handshake-order run over stdio\)$/m);
    const [overStdio, stdioRun, badTransport] = await Promise.all([
      finished(start(['list', '--transport', 'stdio'])),
      finished(start(['run', '--adapter', 'reference', '--transport', 'stdio', '--scenario', 'handshake-order', '--revision', '2025-11-25', '--verbose'])),
      finished(start(['run', '--adapter', 'reference', '--transport', 'pigeon'])),
    ]);
    const listed = [...overStdio.stdout.matchAll(/^(\S+)$/gm)].map((m) => m[1]!);
    expect(listed.length).toBeGreaterThan(0);
    expect(listed.every((id) => id.startsWith('stdio/'))).toBe(true);
    expect(stdioRun.code, stdioRun.stderr).toBe(0);
    expect(stdioRun.stdout).toMatch(/^stdio\/handshake-order\s+2025-11-25\s+pass\s/m);
    expect(stdioRun.stdout).not.toMatch(/^negotiation\/handshake-order/m);
    expect(badTransport).toMatchObject({ code: 2 });
    expect(badTransport.stderr).toMatch(/unknown transport "pigeon"; transports: http, stdio/);
    const missing = await finished(start(['run', '--adapter', 'nope']));
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/no built-in adapter named "nope"/);
  });

  test('an inconclusive case is marked "? inconclusive" with its reason, counted, said, and does not fail the run', async () => {
    const dead = adapterModule('half-dead-client', `interrupted: (caseId) => (caseId.includes('@2025-06-18') || caseId.includes('@2025-11-25') ? 'the client process exited with code 1 before this case' : undefined)`);
    const run = await finished(start(['run', '--adapter', dead, '--scenario', 'negotiation/handshake-order', '--verbose']));
    expect(run.code, run.stderr).toBe(0);
    // --verbose: the table lists every case (its evidence, printed as each case ends, starts "<scenario> @ <revision>").
    const rows = run.stdout.split('\n').filter((line) => /^negotiation\/handshake-order\s+\d/.test(line));
    expect(rows).toHaveLength(4);
    for (const row of rows.slice(2)) expect(row).toMatch(/^negotiation\/handshake-order\s+\S+\s+\? inconclusive\s+\d+ ms\s+client-running: the client process exited with code 1 before this case$/);
    // The problems first say why once, for both revisions.
    expect(run.stdout).toContain('  ? negotiation/handshake-order @ 2025-06-18, 2025-11-25\n      why: client-running: the client process exited with code 1 before this case\n');
    expect(run.stdout).toMatch(/\n2 pass, 0 fail, 0 warn, 2 inconclusive, 0 n\/a\n/);
    expect(run.stderr).toContain('2 cases were inconclusive: the suite could not judge them');
  });

  test('SIGINT prints the table of the cases that finished, says the run was interrupted, and exits 130', async () => {
    // The case at 2025-06-18 never starts (its operation bound is an hour): two cases finish before it, two are left.
    const signal = join(work, 'held');
    const held = adapterModule('held-client', `async start(caseId) { if (caseId.includes('@2025-06-18')) { writeFileSync(${JSON.stringify(signal)}, ''); await new Promise(() => {}); } return referenceClient.start(caseId); }`);
    const [json, junit] = [join(work, 'interrupted.json'), join(work, 'interrupted.xml')];
    const child = start(['run', '--adapter', held, '--scenario', 'negotiation/handshake-order', '--concurrency', '1', '--json', json, '--junit', junit, '--verbose'], { [SETTINGS_ENV.operationTimeout]: String(3_600_000) });
    const exit = finished(child);
    let ended = false;
    void exit.then(() => (ended = true));
    while (!existsSync(signal)) {
      if (ended) throw new Error(`run ended before its held case: ${JSON.stringify(await exit)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    child.kill('SIGINT');
    const { code, stdout, stderr } = await exit;
    expect(code, stderr).toBe(130);
    expect(stdout.split('\n').filter((line) => line.startsWith('negotiation/handshake-order')).map((line) => line.split(/\s+/).slice(1, 3).join(' '))).toEqual(['2024-11-05 pass', '2025-03-26 pass']);
    expect(stdout).toMatch(/\n2 pass, 0 fail, 0 warn, 0 inconclusive, 0 n\/a\n/);
    expect(stderr).toContain(`interrupted by SIGINT after 2 of 4 cases; the table above has the ones that finished (and ${json}, ${junit}, marked incomplete)`);
    // The files hold what finished, marked incomplete.
    const results = JSON.parse(readFileSync(json, 'utf8'));
    expect(validResults(results), JSON.stringify(validResults.errors)).toBe(true);
    expect(results.run).toMatchObject({ complete: false, plannedCells: 4, missingCells: 2, interruption: 'interrupted by SIGINT' });
    expect(results.cells.map((cell: { revision: string; verdict: string }) => `${cell.revision} ${cell.verdict}`)).toEqual(['2024-11-05 pass', '2025-03-26 pass']);
    const xml = readFileSync(junit, 'utf8');
    expect(xml.match(/<testcase /g)).toHaveLength(2);
    expect(xml).toContain('<property name="run.incomplete" value="incomplete run: 2 of 4 planned cells have no result (interrupted by SIGINT)"/>');
  });
});

describe('run for CI', { timeout: 0 }, () => {
  // One case of a client that fails it: broken-skips-initialized never sends notifications/initialized.
  const ONE_CASE = ['--scenario', 'negotiation/handshake-order', '--revision', '2025-06-18'];
  const BROKEN = ['run', '--adapter', 'broken-skips-initialized', ...ONE_CASE];

  test('--write-baseline writes a baseline from the run (exit 0: it holds the run), --json and --junit the results; then --baseline gates on it: 0 when it matches', async () => {
    const [baseline, json, junit] = [join(work, 'written', 'baseline.json'), join(work, 'results.json'), join(work, 'junit.xml')];
    const write = await finished(start([...BROKEN, '--write-baseline', baseline, '--json', json, '--junit', junit]));
    expect(write.code, write.stderr).toBe(0);
    expect(write.stdout).toContain(`baseline written to ${baseline}: 1 entry`);
    const written = JSON.parse(readFileSync(baseline, 'utf8'));
    expect(written).toMatchObject({ adapter: 'broken-skips-initialized', format: 2, known: [{ scenario: 'negotiation/handshake-order', checks: ['initialized-sent', 'initialized-before-requests'], revisions: ['2025-06-18'], verdict: 'fail' }] });
    // The results file is the matrix's format (the schema accepts it, compare reads it); JUnit has the failure.
    const results = JSON.parse(readFileSync(json, 'utf8'));
    expect(validResults(results), JSON.stringify(validResults.errors)).toBe(true);
    expect(results.run).toMatchObject({ complete: true, plannedCells: 1, missingCells: 0 });
    expect(results.cells).toEqual([expect.objectContaining({ client: 'broken-skips-initialized', scenario: 'negotiation/handshake-order', revision: '2025-06-18', verdict: 'fail' })]);
    expect(readFileSync(junit, 'utf8')).toMatch(/<testcase classname="broken-skips-initialized" name="negotiation\/handshake-order @ 2025-06-18" time="[\d.]+">\n\s+<failure /);
    const compared = await finished(start(['compare', json, json]));
    expect(compared.code, compared.stderr).toBe(0);
    expect(compared.stdout).toContain('no regressions');
    // A progress line on stderr, even in a log (not a terminal): at the start and at the end.
    expect(write.stderr).toMatch(/^run: 0\/1 cases · pass 0 · fail 0 · warn 0 · inconclusive 0 · n\/a 0 · \d+ s$/m);
    expect(write.stderr).toMatch(/^run: 1\/1 cases · pass 0 · fail 1 · warn 0 · inconclusive 0 · n\/a 0 · \d+ s$/m);

    const gated = await finished(start([...BROKEN, '--baseline', baseline]));
    expect(gated.code, gated.stdout).toBe(0);
    expect(gated.stdout).toContain(`baseline ${baseline}: 1 match, 0 regressions, 0 stale, 0 could not be judged, 0 n/a`);

    // The saved run judged again, no client run: the same cell, the same gate, the same files.
    const again = join(work, 'rejudged.json');
    const rejudged = await finished(start(['run', '--rejudge', json, '--baseline', baseline, '--json', again]));
    expect(rejudged.code, rejudged.stderr).toBe(0);
    expect(rejudged.stdout).toContain(`baseline ${baseline}: 1 match, 0 regressions, 0 stale, 0 could not be judged, 0 n/a`);
    const judgement = (cell: { verdict: string; reason?: string; checks: unknown[] }) => ({ verdict: cell.verdict, reason: cell.reason, checks: cell.checks });
    expect(JSON.parse(readFileSync(again, 'utf8')).cells.map(judgement)).toEqual(results.cells.map(judgement));
    const misplaced = await finished(start(['run', '--rejudge', json, '--scenario', 'x']));
    expect(misplaced.code).toBe(2);
    expect(misplaced.stderr).toContain("--rejudge judges the saved run's cells as they are: drop --scenario");
  });

  test('--baseline: exit 1 on a regression (with the explanation) and on a stale entry', async () => {
    const empty = join(work, 'empty-baseline.json');
    writeFileSync(empty, JSON.stringify({ adapter: 'broken-skips-initialized', format: 2, known: [] }));
    const stale = join(work, 'stale-baseline.json');
    const entry = { scenario: 'negotiation/handshake-order', checks: ['initialized-sent'], revisions: 'all', verdict: 'fail', reason: 'said to fail', spec: 'https://modelcontextprotocol.io/specification/2025-06-18/basic/lifecycle' };
    writeFileSync(stale, JSON.stringify({ adapter: 'reference', format: 2, known: [entry] }));
    const [regression, staled] = await Promise.all([finished(start([...BROKEN, '--baseline', empty, '--quiet'])), finished(start(['run', '--adapter', 'reference', ...ONE_CASE, '--baseline', stale, '--quiet']))]);
    expect(regression.code, regression.stderr).toBe(1);
    expect(regression.stdout).toContain('does not match the baseline (regression):\n  regression: expected pass, got fail\n  regression: new failing check initialized-sent [MUST]');
    expect(regression.stdout).toContain('wire record:');
    expect(regression.stdout).toContain(`baseline ${empty}: 0 match, 1 regression, 0 stale, 0 could not be judged, 0 n/a\n  regression: negotiation/handshake-order @ 2025-06-18`);
    expect(regression.stderr).toBe('');
    expect(staled.code, staled.stderr).toBe(1);
    expect(staled.stdout).toMatch(/\n {2}stale entry: negotiation\/handshake-order @ 2025-06-18\n {4}expected fail \(baselined: said to fail\), got pass\n {4}check initialized-sent of entry negotiation\/handshake-order \[initialized-sent\] now passes at 2025-06-18/);
  });

  test('--baseline: exit 2, with one line saying why, for a missing file, one that is not JSON, not a baseline, or another adapter\'s', async () => {
    const notJson = join(work, 'not-json.json');
    writeFileSync(notJson, '{ "adapter": ');
    const notBaseline = join(work, 'not-baseline.json');
    writeFileSync(notBaseline, JSON.stringify({ adapter: 'reference', format: 2, known: [{ scenario: 'x' }] }));
    const other = join(work, 'other-baseline.json');
    writeFileSync(other, JSON.stringify({ adapter: 'sdk-v1', format: 2, known: [] }));
    const runs = await Promise.all([join(work, 'absent.json'), notJson, notBaseline, other].map((file) => finished(start(['run', '--adapter', 'reference', ...ONE_CASE, '--baseline', file]))));
    for (const { code, stdout } of runs) {
      expect(code).toBe(2);
      expect(stdout).toBe('');
    }
    expect(runs.map(({ stderr }) => stderr.trim())).toEqual([
      `mcp-client-conformance: ${join(work, 'absent.json')}: no such file`,
      expect.stringMatching(/^mcp-client-conformance: .*not-json\.json: not JSON \(/),
      expect.stringMatching(/^mcp-client-conformance: .*not-baseline\.json: known\[0\] has unknown field|^mcp-client-conformance: .*not-baseline\.json: known\[0\]\./),
      expect.stringMatching(/^mcp-client-conformance: .*other-baseline\.json: a baseline for "sdk-v1", not for "reference"$/),
    ]);
  });

  test('--requirements takes a revision with a frozen set and no narrower selection: else exit 2 saying so', async () => {
    const [unknown, narrowed] = await Promise.all([
      finished(start(['run', '--adapter', 'reference', '--requirements', '2025-03-26'])),
      finished(start(['run', '--adapter', 'reference', '--requirements', '2026-07-28', '--scenario', 'negotiation', '--transport', 'stdio'])),
    ]);
    expect(unknown).toMatchObject({ code: 2, stdout: '' });
    expect(unknown.stderr.trim()).toBe('mcp-client-conformance: no requirement set for 2025-03-26; sets: 2025-11-25, 2026-07-28');
    expect(narrowed).toMatchObject({ code: 2, stdout: '' });
    expect(narrowed.stderr.trim()).toBe("mcp-client-conformance: --requirements runs every scenario of the revision's set: drop --scenario, --transport");
  });

  test('each command takes only its own options: an unknown or misplaced one is exit 2 saying so', async () => {
    const [mixed, unknown, missing, extra] = await Promise.all([
      finished(start(['run', '--json', '--out', 'x', '--era', '2025-11-25', '--port', '9'])),
      finished(start(['run', '--adapter', 'reference', '--frobnicate'])),
      finished(start(['run', '--adapter', 'reference', '--baseline'])),
      finished(start(['list', 'everything'])),
    ]);
    expect(mixed).toMatchObject({ code: 2, stdout: '' });
    expect(mixed.stderr.trim()).toBe('mcp-client-conformance: run: --json needs a value; see `mcp-client-conformance run --help`');
    expect(unknown.stderr.trim()).toBe('mcp-client-conformance: run: unknown option --frobnicate; see `mcp-client-conformance run --help`');
    expect(missing.stderr.trim()).toBe('mcp-client-conformance: run: --baseline needs a value; see `mcp-client-conformance run --help`');
    expect(extra.stderr.trim()).toBe('mcp-client-conformance: list takes no arguments (got "everything"); see `mcp-client-conformance list --help`');
    for (const { code } of [unknown, missing, extra]) expect(code).toBe(2);
    const misplaced = await finished(start(['run', '--json', 'out.json', '--out', 'x', '--era', '2025-11-25']));
    expect(misplaced).toMatchObject({ code: 2, stdout: '' });
    expect(misplaced.stderr.trim()).toBe('mcp-client-conformance: run: unknown option --out (it is an option of matrix); see `mcp-client-conformance run --help`');
    expect(existsSync(join(process.cwd(), 'out.json'))).toBe(false);
  });

  test('<command> --help prints that command\'s usage and options; --version the package version', async () => {
    const expected = { list: ['--transport'], adapters: [], run: ['--adapter', '--baseline', '--write-baseline', '--json', '--junit', '--scenario', '--revision', '--transport', '--requirements'], matrix: ['--config', '--clients', '--resume'], compare: ['--markdown'], serve: ['--era', '--personality', '--port'] };
    const helps = await Promise.all(Object.keys(expected).map((name) => finished(start([name, '--help']))));
    Object.keys(expected).forEach((name, index) => {
      const { code, stdout } = helps[index]!;
      expect(code).toBe(0);
      expect(stdout).toMatch(new RegExp(`^usage: mcp-client-conformance ${name}`));
      for (const option of expected[name as keyof typeof expected]) expect(stdout, `${name} --help`).toMatch(new RegExp(`^  ${option} `, 'm'));
    });
    expect(helps[2]!.stdout).not.toContain('--era');
    const [version, help] = await Promise.all([finished(start(['--version'])), finished(start(['help', 'run']))]);
    expect(version).toMatchObject({ code: 0, stdout: `${JSON.parse(readFileSync(join(import.meta.dirname, '..', 'package.json'), 'utf8')).version}\n` });
    expect(help.stdout).toBe(helps[2]!.stdout);
  });
});

describe('a gate that cannot be fooled and loses nothing', { timeout: 0 }, () => {
  const ONE_CASE = ['--scenario', 'negotiation/handshake-order', '--revision', '2025-06-18'];
  /** The lines of stderr that are not the progress line. */
  const said = (stderr: string) => stderr.split('\n').filter((line) => line !== '' && !line.startsWith('run: '));

  test('a line-protocol program killed in every case (it answers with unsolicited lines): nothing judged, exit 4 with one line saying why', async () => {
    const program = join(work, 'unsolicited.ts');
    writeFileSync(
      program,
      [
        "import { createInterface } from 'node:readline';",
        "const send = (message: unknown) => process.stdout.write(`${JSON.stringify(message)}\\n`);",
        "send({ protocol: 1, name: 'chatty', description: 'answers every request with an unsolicited line first', revisions: ['2025-06-18', '2025-11-25'], features: ['mode-legacy'] });",
        'createInterface({ input: process.stdin }).on(\'line\', (line) => {',
        '  const { id, op } = JSON.parse(line);',
        '  send({ id: id + 1000, result: {} });',
        "  if (op === 'shutdown') process.exit(0);",
        '});',
      ].join('\n'),
    );
    const run = await finished(start(['run', '--adapter-command', `${JSON.stringify(process.execPath)} ${JSON.stringify(program)}`, '--scenario', 'negotiation/handshake-order', '--quiet']));
    expect(run.code, run.stderr).toBe(4);
    expect(run.stdout).toMatch(/\n0 pass, 0 fail, 0 warn, 2 inconclusive, 2 n\/a\n/);
    expect(said(run.stderr)).toEqual([expect.stringMatching(/^mcp-client-conformance: nothing was judged: none of the 2 cases that applied to chatty got a verdict, the suite could not judge them \(each: client-running: .*answered request 100\d, which is not in flight.*\) \(exit 4\)$/)]);
  });

  test('a client that declares nothing the selection needs: every case n/a, nothing judged, exit 4', async () => {
    const narrow = adapterModule('declares-nothing', `revisions: [], features: []`);
    const run = await finished(start(['run', '--adapter', narrow, '--scenario', 'negotiation/handshake-order', '--quiet']));
    expect(run.code, run.stderr).toBe(4);
    expect(run.stdout).toMatch(/\n0 pass, 0 fail, 0 warn, 0 inconclusive, 4 n\/a\n/);
    expect(said(run.stderr)).toEqual(['mcp-client-conformance: nothing was judged: no scenario applies to declares-nothing (4 cases n/a): check the revisions, features and transports it declares (exit 4)']);
  });

  test('an output path that cannot be written is exit 2 before the run, one line naming it and why', async () => {
    const file = join(work, 'a-file');
    writeFileSync(file, '');
    const cases = [
      ['--json', join(file, 'results.json'), `${file} is a file, not a folder`],
      ['--junit', work, 'it is a folder; give the file to write'],
      ['--write-baseline', join(file, 'deeper', 'baseline.json'), `${file} is a file, not a folder`],
    ] as const;
    const runs = await Promise.all(cases.map(([option, path]) => finished(start(['run', '--adapter', 'reference', ...ONE_CASE, option, path]))));
    runs.forEach(({ code, stdout, stderr }, index) => {
      const [option, path, why] = cases[index]!;
      expect(code, stderr).toBe(2);
      // Nothing ran: no table, no progress line.
      expect(stdout).toBe('');
      expect(stderr).toBe(`mcp-client-conformance: ${option} ${path} cannot be written: ${why}\n`);
    });
  });

  test('a folder gone during the run: the table is printed, the other file written, one line per file lost, exit 5', async () => {
    const folder = join(work, 'vanishing');
    mkdirSync(folder, { recursive: true });
    // The client replaces the output folder by a file when it starts: after the paths were checked, before the writes.
    const saboteur = join(work, 'saboteur.ts');
    writeFileSync(
      saboteur,
      [
        `import { referenceClient } from ${JSON.stringify(REFERENCE)};`,
        "import { rmSync, statSync, writeFileSync } from 'node:fs';",
        `const folder = ${JSON.stringify(folder)};`,
        'export default { ...referenceClient, name: "saboteur", start(caseId: string) { if (statSync(folder).isDirectory()) { rmSync(folder, { recursive: true }); writeFileSync(folder, ""); } return referenceClient.start(caseId); } };',
      ].join('\n'),
    );
    const [json, baseline, junit] = [join(folder, 'results.json'), join(folder, 'baseline.json'), join(work, 'kept', 'junit.xml')];
    const run = await finished(start(['run', '--adapter', saboteur, ...ONE_CASE, '--json', json, '--write-baseline', baseline, '--junit', junit, '--quiet']));
    expect(run.code, run.stderr).toBe(5);
    expect(run.stdout).toContain('no problems: 1 case passed');
    expect(run.stdout).toMatch(/\n1 pass, 0 fail, 0 warn, 0 inconclusive, 0 n\/a\n/);
    expect(readFileSync(junit, 'utf8')).toContain('<testcase classname="saboteur" name="negotiation/handshake-order @ 2025-06-18"');
    expect(said(run.stderr)).toEqual([
      expect.stringMatching(new RegExp(`^mcp-client-conformance: --json ${escape(json)} could not be written: E[A-Z]+: [^,]+, \\S+ '${escape(folder)}[^']*'$`)),
      expect.stringMatching(new RegExp(`^mcp-client-conformance: --write-baseline ${escape(baseline)} could not be written: E[A-Z]+: [^,]+, \\S+ '${escape(folder)}[^']*'$`)),
    ]);
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('the docs say what the code does', () => {
  const ROOT = join(import.meta.dirname, '..');
  const read = (file: string) => readFileSync(join(ROOT, file), 'utf8').replace(/\s+/g, ' ');

  test('the progress interval in a log and the hello bound, from the constants that set them', () => {
    expect(read('README.md')).toContain(`a plain line every ${PROGRESS_LINE_EVERY_MS / 1000} s in a CI log`);
    expect(read('README.md')).toContain(`\`hello\` ${TIME_BASES.hello / 1000} s`);
    const protocol = read('docs/line-protocol.md');
    expect(protocol).toContain(`the time policy's hello bound: ${TIME_BASES.hello / 1000} s at scale 1`);
    expect(protocol).toContain(`printed no hello within ${TIME_BASES.hello} ms\` at scale 1`);
  });

  test("every exit code of run is in the README's table and in run --help, with what it means", async () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const help = (await finished(start(['run', '--help']))).stdout;
    const runCodes = [EXIT_CODES.ok, EXIT_CODES.failed, EXIT_CODES.usage, EXIT_CODES.notJudged, EXIT_CODES.notWritten];
    for (const code of runCodes) {
      expect(readme, `exit ${code}`).toMatch(new RegExp(`^\\| \\*\\*${code}\\*\\* \\| `, 'm'));
      expect(help, `exit ${code}`).toMatch(new RegExp(`^  ${code} +\\S`, 'm'));
    }
    expect(readme).toContain(`| **${EXIT_CODES.sigint}/${EXIT_CODES.sigterm}** |`);
    expect(help).toMatch(new RegExp(`^  ${EXIT_CODES.sigint}, ${EXIT_CODES.sigterm} +interrupted`, 'm'));
  });
});

/** A text as a regular expression that matches it. */
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
