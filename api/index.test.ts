// The programmatic API: a run with a baseline (match, regression, stale entry, the baseline's own problems), a
// baseline written from a run and then gated on, the results as a results.json the schema accepts and JUnit XML, an
// aborted run, and bad input refused before the client is loaded. Every run closes what it started.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, describe, expect, test } from 'vitest';
import { referenceClient } from '../clients/reference/index.ts';
import { failOnLeakedHandles } from '../suites/leaks.ts';
import { BaselineError, EXIT_CODES, exitCodeOf, junitReport, listScenarios, NEW_ENTRY_REASON, OutputPathError, planCases, resultsFile, runConformance, SelectionError, type Baseline, type ClientAdapter } from './index.ts';

failOnLeakedHandles();

const work = mkdtempSync(join(tmpdir(), 'api-test-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const REFERENCE = pathToFileURL(join(import.meta.dirname, '..', 'clients', 'reference', 'index.ts')).href;
const HANDSHAKE = { scenarios: ['negotiation/handshake-order'], revisions: ['2025-06-18', '2025-11-25'] } as const;
const SPEC = 'https://modelcontextprotocol.io/specification/2025-06-18/basic/lifecycle';

/** An adapter module (the reference client under `name`) that marks its loading and its shutdown with files. */
function adapterModule(name: string, body = ''): { path: string; loaded: string; shutDown: string } {
  const path = join(work, `${name}.ts`);
  const loaded = join(work, `${name}.loaded`);
  const shutDown = join(work, `${name}.shut-down`);
  writeFileSync(
    path,
    `import { writeFileSync } from 'node:fs';\nimport { referenceClient } from ${JSON.stringify(REFERENCE)};\n` +
      `export default () => { writeFileSync(${JSON.stringify(loaded)}, ''); return { ...referenceClient, name: ${JSON.stringify(name)}, async shutdown() { writeFileSync(${JSON.stringify(shutDown)}, ''); }, ${body} }; };\n`,
  );
  return { path, loaded, shutDown };
}

function baselineFile(name: string, baseline: Baseline): string {
  const path = join(work, `${name}.json`);
  writeFileSync(path, JSON.stringify(baseline));
  return path;
}

describe('runConformance', { timeout: 0 }, () => {
  test('compares each result with the baseline: match, stale entry, and the baseline\'s own problems; shuts down the client it loaded', async () => {
    const client = adapterModule('module-client');
    const baseline = baselineFile('stale', {
      adapter: 'module-client',
      format: 2,
      known: [
        { scenario: 'negotiation/handshake-order', checks: ['initialized-sent'], revisions: ['2025-11-25'], verdict: 'fail', reason: 'said to fail', spec: SPEC },
        { scenario: 'negotiation/no-such-scenario', checks: ['anything'], revisions: 'all', verdict: 'fail', reason: 'gone', spec: SPEC },
      ],
    });
    const seen: string[] = [];
    const run = await runConformance({ ...HANDSHAKE, adapter: client.path, baseline, onResult: ({ result, done, total }) => seen.push(`${done}/${total} ${result.revision}`) });
    expect(existsSync(client.shutDown)).toBe(true);
    expect(run.adapter).toMatchObject({ name: 'module-client', kind: 'module' });
    // Each case said as it finished, counted (in the order they finished: two run at once).
    expect(seen.map((line) => line.split(' ')[0])).toEqual(['1/2', '2/2']);
    expect(seen.map((line) => line.split(' ')[1]).sort()).toEqual(['2025-06-18', '2025-11-25']);
    expect(run.results.map(({ result, comparison }) => [result.revision, result.verdict, comparison?.status])).toEqual([
      ['2025-06-18', 'pass', 'match'],
      ['2025-11-25', 'pass', 'stale'],
    ]);
    expect(run.results[1]!.comparison!.differences.map((d) => d.kind)).toEqual(['stale', 'stale']);
    expect(run.baseline?.problems).toEqual(['entry negotiation/no-such-scenario [anything]: no scenario negotiation/no-such-scenario']);
    expect(run).toMatchObject({ complete: true, planned: 2, ok: false, counts: { pass: 2, fail: 0 } });
  });

  test('a failing client: a regression without an entry; a baseline written from the run (new entries under the placeholder reason) then matches it', async () => {
    const regressed = await runConformance({ ...HANDSHAKE, adapter: 'broken-skips-initialized', baseline: { adapter: 'broken-skips-initialized', format: 2, known: [] } });
    expect(regressed.results.map((o) => o.comparison?.status)).toEqual(['regression', 'regression']);
    expect(regressed.ok).toBe(false);

    const path = join(work, 'written.json');
    const written = await runConformance({ ...HANDSHAKE, adapter: 'broken-skips-initialized', writeBaseline: path });
    expect(written.written?.mismatches).toEqual([]);
    const file = JSON.parse(readFileSync(path, 'utf8')) as Baseline;
    expect(file.known).toEqual([
      { scenario: 'negotiation/handshake-order', checks: ['initialized-sent', 'initialized-before-requests'], revisions: ['2025-06-18', '2025-11-25'], verdict: 'fail', reason: NEW_ENTRY_REASON, spec: expect.anything() },
    ]);
    // The user says why; a rewrite keeps it.
    writeFileSync(path, readFileSync(path, 'utf8').replace(NEW_ENTRY_REASON, 'skips notifications/initialized'));
    const gated = await runConformance({ ...HANDSHAKE, adapter: 'broken-skips-initialized', baseline: path, writeBaseline: path });
    expect(gated.results.map((o) => o.comparison?.status)).toEqual(['match', 'match']);
    expect(gated.ok).toBe(true);
    // Failures the baseline expects are known failures in JUnit: a CI test view is red only when the gate is.
    const junit = junitReport(gated);
    expect(junit).not.toContain('<failure');
    expect(junit.match(/<skipped message="known failure, as the baseline expects: /g)).toHaveLength(2);
    expect(junit).toMatch(/<testsuites [^>]*failures="0" errors="0" skipped="2"/);
    expect(junitReport(regressed).match(/<failure /g)).toHaveLength(2);
    expect((JSON.parse(readFileSync(path, 'utf8')) as Baseline).known.map((entry) => entry.reason)).toEqual(['skips notifications/initialized']);
  });

  test('the results as a results.json the schema accepts and as JUnit XML; an adapter object given is not shut down', async () => {
    let shutdowns = 0;
    const adapter: ClientAdapter = { ...referenceClient, name: 'given-client', revisions: ['2025-06-18'], shutdown: async () => void shutdowns++ };
    const run = await runConformance({ ...HANDSHAKE, adapter });
    expect(shutdowns).toBe(0);
    expect(run.results.map((o) => o.result.verdict)).toEqual(['pass', 'n/a']);
    const results = resultsFile(run);
    const schema = JSON.parse(readFileSync(join(import.meta.dirname, '..', 'results', 'results.schema.json'), 'utf8'));
    const validate = new Ajv2020({ allErrors: true, strict: true }).compile(schema);
    expect(validate(results), JSON.stringify(validate.errors)).toBe(true);
    expect(results.run).toMatchObject({ complete: true, plannedCells: 2, missingCells: 0, matrixFile: '-', selection: { scenario: 'negotiation/handshake-order', suites: ['negotiation'] } });
    expect(results.clients).toEqual([{ name: 'given-client', description: referenceClient.description, kind: 'module', revisions: ['2025-06-18'], features: [...referenceClient.features] }]);
    const junit = junitReport(run);
    expect(junit.match(/<testcase /g)).toHaveLength(2);
    expect(junit).toContain('<skipped message="not applicable: given-client does not speak 2025-11-25"/>');
  });

  test('aborted, a run returns with the cases that finished, marked incomplete with the reason', async () => {
    const controller = new AbortController();
    const run = await runConformance({ ...HANDSHAKE, adapter: 'reference', concurrency: 1, signal: controller.signal, onResult: () => controller.abort('stopped by the test') });
    expect(run).toMatchObject({ complete: false, planned: 2, interruption: 'stopped by the test', gate: 'incomplete', ok: false });
    expect(exitCodeOf(run)).toBe(EXIT_CODES.incomplete);
    expect(run.results).toHaveLength(1);
    expect(resultsFile(run).run).toMatchObject({ complete: false, plannedCells: 2, missingCells: 1, interruption: 'stopped by the test' });
  });

  test('a run that judged nothing (every case n/a or inconclusive) is not a pass: gate not-judged, exit code 4', async () => {
    const dead: ClientAdapter = { ...referenceClient, name: 'dead-client', revisions: ['2025-06-18'], interrupted: () => 'the client process exited with code 1 before this case' };
    const unjudged = await runConformance({ ...HANDSHAKE, adapter: dead });
    expect(unjudged.results.map((o) => o.result.verdict)).toEqual(['inconclusive', 'n/a']);
    expect(unjudged).toMatchObject({ complete: true, gate: 'not-judged', ok: false });
    expect(exitCodeOf(unjudged)).toBe(EXIT_CODES.notJudged);
    // So with a baseline that expects nothing of it, and so when nothing applies at all.
    expect(exitCodeOf(await runConformance({ ...HANDSHAKE, adapter: dead, baseline: { adapter: 'dead-client', format: 2, known: [] } }))).toBe(EXIT_CODES.notJudged);
    const nothing = await runConformance({ ...HANDSHAKE, adapter: { ...referenceClient, name: 'speaks-nothing', revisions: [] } });
    expect(nothing).toMatchObject({ gate: 'not-judged', counts: { 'n/a': 2 } });
    const judged = await runConformance({ ...HANDSHAKE, adapter: { ...referenceClient, interrupted: (caseId) => (caseId.includes('2025-11-25') ? 'gone' : undefined) } });
    expect(judged).toMatchObject({ gate: 'passed', ok: true, counts: { pass: 1, inconclusive: 1 } });
    expect(exitCodeOf(judged)).toBe(EXIT_CODES.ok);
  });

  test('a baseline to write where no file can be: an OutputPathError before the run; a folder gone by the end: the run whole, notWritten says why', async () => {
    const file = join(work, 'a-file');
    writeFileSync(file, '');
    const client = adapterModule('never-run');
    await expect(runConformance({ ...HANDSHAKE, adapter: client.path, writeBaseline: join(file, 'baseline.json') })).rejects.toThrow(new OutputPathError(`writeBaseline ${join(file, 'baseline.json')} cannot be written: ${file} is a file, not a folder`));
    expect(existsSync(client.loaded)).toBe(false);
    const folder = join(work, 'going');
    const target = join(folder, 'baseline.json');
    const run = await runConformance({ ...HANDSHAKE, adapter: 'reference', writeBaseline: target, onStart: () => writeFileSync(folder, '') });
    expect(run).toMatchObject({ complete: true, gate: 'passed', notWritten: { path: target, reason: expect.stringMatching(/^E[A-Z]+: /) } });
    expect(run.written).toBeUndefined();
    expect(exitCodeOf(run)).toBe(EXIT_CODES.notWritten);
  });

  test('bad input is refused before the client is loaded: a missing or broken baseline, an unknown revision, a selection of nothing', async () => {
    const client = adapterModule('never-loaded');
    await expect(runConformance({ adapter: client.path, baseline: join(work, 'absent.json') })).rejects.toThrow(BaselineError);
    const broken = join(work, 'broken.json');
    writeFileSync(broken, '{ "adapter": ');
    await expect(runConformance({ adapter: client.path, baseline: broken })).rejects.toThrow(/broken\.json: not JSON/);
    await expect(runConformance({ adapter: client.path, writeBaseline: broken })).rejects.toThrow(/broken\.json: not JSON/);
    await expect(runConformance({ adapter: client.path, revisions: ['1999-01-01' as never] })).rejects.toThrow(SelectionError);
    await expect(runConformance({ adapter: client.path, scenarios: ['no-such-thing'] })).rejects.toThrow(/no scenario matches "no-such-thing"/);
    expect(existsSync(client.loaded)).toBe(false);
    // A baseline of another adapter is seen once the client is loaded; the client is shut down again.
    const other = baselineFile('other', { adapter: 'someone-else', format: 2, known: [] });
    await expect(runConformance({ adapter: client.path, baseline: other })).rejects.toThrow(/a baseline for "someone-else", not for "never-loaded"/);
    expect(existsSync(client.shutDown)).toBe(true);
  });
});

test('listScenarios and planCases: the catalogue and the cases a selection plans', () => {
  const scenarios = listScenarios();
  expect(scenarios.find((s) => s.id === 'negotiation/handshake-order')).toMatchObject({ suite: 'negotiation', requires: [], spec: { level: 'MUST' } });
  expect(planCases(HANDSHAKE)).toEqual([
    { scenario: 'negotiation/handshake-order', revision: '2025-06-18' },
    { scenario: 'negotiation/handshake-order', revision: '2025-11-25' },
  ]);
});

test('a selection by transport: the stdio scenarios (the twins of HTTP ones named stdio/<name>) or the HTTP ones; an unknown transport is refused', () => {
  expect(listScenarios().find((s) => s.id === 'stdio/handshake-order')).toMatchObject({ suite: 'stdio', transport: 'stdio', twinOf: 'negotiation/handshake-order' });
  expect(listScenarios().find((s) => s.id === 'negotiation/handshake-order')).toMatchObject({ transport: 'http' });
  const overStdio = planCases({ transports: ['stdio'] });
  expect(overStdio.length).toBeGreaterThan(0);
  expect(overStdio.every((c) => c.scenario.startsWith('stdio/'))).toBe(true);
  expect(planCases({ transports: ['http'] }).some((c) => c.scenario.startsWith('stdio/'))).toBe(false);
  // A filter naming the HTTP scenario selects only it; its name alone selects every twin (stdio, json-responses).
  expect(new Set(planCases({ scenarios: ['negotiation/handshake-order'] }).map((c) => c.scenario))).toEqual(new Set(['negotiation/handshake-order']));
  expect(new Set(planCases({ scenarios: ['handshake-order'] }).map((c) => c.scenario))).toEqual(new Set(['negotiation/handshake-order', 'stdio/handshake-order', 'json-responses/handshake-order']));
  expect(() => planCases({ transports: ['pigeon' as never] })).toThrow(/unknown transport "pigeon"/);
});
