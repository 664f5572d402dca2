// suites/official-checks.json held to the installed official suite: every client check id outside authorization that
// @modelcontextprotocol/conformance can record is mapped, the file maps no id the package lacks, and every counterpart
// it names is a scenario of this suite with a check its judge gives. The README's parity count is the file's.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { officialPackage } from './official-package.ts';
import { SCENARIOS } from './index.ts';
import { checkNames } from './judged.ts';

interface Counterpart {
  official: string;
  scenario: string;
  check: string;
  note?: string;
}
interface NoCounterpart {
  official: string;
  none: string;
}
interface Mapping {
  package: string;
  version: string;
  checks: Record<string, Counterpart | NoCounterpart>;
}

const mapping = JSON.parse(readFileSync(join(import.meta.dirname, 'official-checks.json'), 'utf8')) as Mapping;
const installed = officialPackage(mapping.package);

/**
 * The package ships one bundle and no list of check ids, so its list is read from the bundle. Its client scenarios
 * outside authorization sit in three stretches: before the `initialize` scenario's class; from the JSON-RPC error class
 * to the first server scenario (skills, tools_call, elicitation defaults, sse-retry, request-metadata, request state);
 * and after the last authorization-server scenario up to the runner (headers, JSON Schema). In them a check id is a
 * check result's literal id (`id:`…`,name:`), or a literal the scenario keeps its ids in: a `sep-NNNN-…` or
 * `json-schema-2020-12-client-…` string, or a skills mode's `checkId:`. Scenario names (`this.name=`, a skills mode's
 * `scenario:`) are not ids. The schema checks every scenario records (`wire-schema-…`) are added. A rebuilt package
 * that moves an anchor fails here, and the list must be read again.
 */
function officialClientChecks(): Set<string> {
  const { bundle } = installed;
  const at = (anchor: string, from = bundle.indexOf(anchor)) => {
    if (from === -1) throw new Error(`${mapping.package} ${installed.version}: ${anchor} is not in the bundle: read the list of client check ids again`);
    return from;
  };
  const stretches = [
    [0, at('this.name=`initialize`')],
    [at('this.name=`JsonRpcError`'), at('this.name=`server-initialize`')],
    [at('`authorization-code-grant`', bundle.lastIndexOf('`authorization-code-grant`')), at('`scenario-timeout`')],
  ] as const;
  const scenarioNames = new Set([...bundle.matchAll(/(?:this\.name=|scenario:)`([^`]+)`/g)].map((m) => m[1]!));
  const ids = new Set<string>();
  for (const [start, end] of stretches) {
    const stretch = bundle.slice(start, end);
    for (const m of stretch.matchAll(/id:`([a-z][a-zA-Z0-9$-]*)`,name:/g)) ids.add(m[1]!);
    for (const m of stretch.matchAll(/`(sep-\d+-[a-zA-Z0-9$-]+|json-schema-2020-12-client-[a-zA-Z0-9$-]+)`/g)) if (!scenarioNames.has(m[1]!)) ids.add(m[1]!);
  }
  for (const m of bundle.matchAll(/id:`(wire-schema-[a-z-]+)`/g)) ids.add(m[1]!);
  return ids;
}

const NONE_KINDS = ['not built yet: ', 'does not apply: '];
/** Ids the official suite records on every scenario, not one scenario's judgement. */
const EVERY_SCENARIO = ['wire-schema-valid', 'wire-schema-harness-error'];
const isInfoOrExtension = (entry: Counterpart | NoCounterpart) => 'none' in entry && /^does not apply: (an INFO record|the io\.modelcontextprotocol\/skills extension)/.test(entry.none);

/** The judged client check ids of the official scenarios outside authorization and extensions, and those with a counterpart here. */
function parity(): { judged: string[]; counterparts: string[] } {
  const judged = Object.entries(mapping.checks).filter(([id, entry]) => !EVERY_SCENARIO.includes(id) && !isInfoOrExtension(entry)).map(([id]) => id);
  return { judged, counterparts: judged.filter((id) => !('none' in mapping.checks[id]!)) };
}

describe('suites/official-checks.json', () => {
  const official = officialClientChecks();

  test('is the mapping of the installed version', () => {
    expect(mapping.version).toBe(installed.version);
  });

  test('maps every client check id outside authorization the package records, and no other', () => {
    expect(official.size).toBeGreaterThan(40);
    expect([...official].filter((id) => !(id in mapping.checks)).sort(), 'official ids with no entry').toEqual([]);
    expect(Object.keys(mapping.checks).filter((id) => !official.has(id)).sort(), 'entries the package does not record').toEqual([]);
  });

  test('names only counterparts this suite has, and says why where there is none', () => {
    const names = new Map(SCENARIOS.map((scenario) => [scenario.id, checkNames(scenario)]));
    const wrong = Object.entries(mapping.checks).flatMap(([id, entry]) => {
      if ('none' in entry) return NONE_KINDS.some((kind) => entry.none.startsWith(kind) && entry.none.length > kind.length + 10) ? [] : [`${id}: a reason must say "not built yet: …" or "does not apply: …"`];
      const checks = names.get(entry.scenario);
      if (checks === undefined) return [`${id}: no scenario ${entry.scenario}`];
      return checks.has(entry.check) ? [] : [`${id}: ${entry.scenario} gives no check ${entry.check}`];
    });
    expect(wrong).toEqual([]);
  });

  test("the README's parity count is the file's", () => {
    const { judged, counterparts } = parity();
    const readme = readFileSync(join(import.meta.dirname, '..', 'README.md'), 'utf8');
    expect(readme).toContain(`${counterparts.length} of the official suite's ${judged.length} client check ids outside authorization`);
  });
});
