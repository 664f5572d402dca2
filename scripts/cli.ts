#!/usr/bin/env node
// mcp-client-conformance: list the scenarios, or run them against an adapter and print a verdict table.
import { parseArgs } from 'node:util';
import { BROKEN_ADAPTERS, BUILT_IN_ADAPTERS, findAdapter } from '../clients/index.ts';
import { explain } from '../suites/evidence.ts';
import { SCENARIOS } from '../suites/index.ts';
import { plannedCases } from '../suites/plan.ts';
import { runScenario } from '../suites/runner.ts';
import type { ScenarioResult } from '../suites/scenario.ts';

const USAGE = `usage: mcp-client-conformance <command> [options]

commands:
  list                       print every scenario with its revisions, features and spec reference
  run --adapter <name>       run the scenarios against a built-in adapter and print a verdict table
      [--scenario <text>]    only scenarios whose id contains <text> (repeatable)
      [--strict]             SHOULD violations fail instead of warning
      [--verbose]            print the evidence of every result that is not a pass
  adapters                   print the built-in adapters

exit code: 0 when nothing failed, 1 when a scenario failed, 2 on bad usage`;

function fail(message: string): never {
  console.error(`mcp-client-conformance: ${message}`);
  process.exit(2);
}

function list(): void {
  for (const scenario of SCENARIOS) {
    const { spec, seed } = scenario.source;
    console.log(`${scenario.id}\n  ${scenario.title}`);
    console.log(`  revisions: ${scenario.revisions.join(', ')}`);
    console.log(`  requires:  ${scenario.requires.length > 0 ? scenario.requires.join(', ') : '-'}`);
    console.log(`  spec:      ${spec.level} ${spec.section} <${spec.url}>${seed ? `\n  seed:      ${seed}` : ''}`);
  }
}

function table(results: readonly ScenarioResult[]): string {
  const rows = results.map((r) => [r.scenarioId, r.revision, r.verdict, `${r.durationMs.toFixed(0)} ms`, r.reason ?? '']);
  const header = ['scenario', 'revision', 'verdict', 'time', 'reason'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => (i === 4 ? 0 : row[i]!.length))));
  const line = (cells: string[]) => cells.map((cell, i) => (i === 4 ? cell : cell.padEnd(widths[i]!))).join('  ');
  const counts = ['pass', 'fail', 'warn', 'n/a'].map((v) => `${results.filter((r) => r.verdict === v).length} ${v}`).join(', ');
  return [line(header), ...rows.map(line), '', counts].join('\n');
}

async function run(values: { adapter?: string; scenario?: string[]; strict?: boolean; verbose?: boolean }): Promise<void> {
  if (!values.adapter) fail('run needs --adapter <name>; see `mcp-client-conformance adapters`');
  const adapter = findAdapter(values.adapter);
  if (!adapter) fail(`no built-in adapter named "${values.adapter}"; see \`mcp-client-conformance adapters\``);
  const filters = values.scenario ?? [];
  const scenarios = SCENARIOS.filter((s) => filters.length === 0 || filters.some((f) => s.id.includes(f)));
  if (scenarios.length === 0) fail(`no scenario matches ${filters.map((f) => `"${f}"`).join(', ')}`);
  const results: ScenarioResult[] = [];
  for (const { scenario, revision } of plannedCases(scenarios)) {
    const result = await runScenario(scenario, adapter, revision, { strict: values.strict ?? false });
    results.push(result);
    if (values.verbose && result.verdict !== 'pass') console.log(`${explain(result)}\n`);
  }
  console.log(table(results));
  process.exitCode = results.some((r) => r.verdict === 'fail') ? 1 : 0;
}

const [command, ...rest] = process.argv.slice(2);
const { values } = (() => {
  try {
    return parseArgs({
      args: rest,
      options: {
        adapter: { type: 'string' },
        scenario: { type: 'string', multiple: true },
        strict: { type: 'boolean' },
        verbose: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    fail((error as Error).message);
  }
})();

if (values.help || command === undefined || command === 'help' || command === '--help' || command === '-h') {
  console.log(USAGE);
} else if (command === 'list') {
  list();
} else if (command === 'adapters') {
  for (const adapter of [...BUILT_IN_ADAPTERS, ...BROKEN_ADAPTERS]) console.log(`${adapter.name.padEnd(30)} ${adapter.description}`);
} else if (command === 'run') {
  await run(values);
} else {
  fail(`unknown command "${command}"\n${USAGE}`);
}
