// suites/authorization/official-checks.json held to the installed official suite: every client authorization check id
// @modelcontextprotocol/conformance can record is mapped, the file maps no id the package lacks, and every counterpart
// it names is a scenario of this suite with a check its judge gives.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { officialPackage } from '../official-package.ts';
import { checkNames } from '../judged.ts';
import { AUTHORIZATION } from './index.ts';

interface Counterpart {
  family: string;
  scenario: string;
  check: string;
  note?: string;
}
interface NoCounterpart {
  family: string;
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
 * The package ships one bundle and no list of check ids, so its list is read from the bundle: a check result is an
 * object literal `{id:`…`,name:` (DPoP's are a catalog keyed by id, `"…":{name:`). The client authorization scenarios
 * sit between their spec-reference table (whose first key is RFC_PRM_DISCOVERY) and the first authorization-server
 * scenario; a rebuilt package that moves either anchor fails here, and the list must be read again.
 */
function officialClientAuthorizationChecks(): Set<string> {
  const { bundle } = installed;
  const start = bundle.indexOf('={RFC_PRM_DISCOVERY:');
  const end = bundle.indexOf('this.name=`authorization-server-metadata-endpoint`');
  if (start === -1 || end === -1 || end < start) throw new Error(`${mapping.package} ${installed.version}: the client authorization scenarios were not found where the bundle kept them`);
  const region = bundle.slice(start, end);
  const ids = [...region.matchAll(/id:`([a-z0-9][a-z0-9-]*)`,name:/g), ...region.matchAll(/"([a-z0-9-]+)":\{name:/g)].map((m) => m[1]!);
  return new Set(ids);
}

const NONE_KINDS = ['not built yet: ', 'does not apply: '];

describe('suites/authorization/official-checks.json', () => {
  const official = officialClientAuthorizationChecks();
  const mapped = Object.keys(mapping.checks);

  test('is the mapping of the installed version', () => {
    expect(mapping.version).toBe(installed.version);
  });

  test('maps every client authorization check id the package records, and no other', () => {
    expect(official.size).toBeGreaterThan(50);
    expect([...official].filter((id) => !(id in mapping.checks)).sort(), 'official ids with no entry').toEqual([]);
    expect(mapped.filter((id) => !official.has(id)).sort(), 'entries the package does not record').toEqual([]);
  });

  test('names only counterparts this suite has', () => {
    const names = new Map(AUTHORIZATION.map((scenario) => [scenario.id, checkNames(scenario)]));
    const wrong = Object.entries(mapping.checks).flatMap(([id, entry]) => {
      if ('none' in entry) return NONE_KINDS.some((kind) => entry.none.startsWith(kind) && entry.none.length > kind.length + 10) ? [] : [`${id}: a reason must say "not built yet: …" or "does not apply: …"`];
      const checks = names.get(entry.scenario);
      if (checks === undefined) return [`${id}: no scenario ${entry.scenario} in suites/authorization/`];
      return checks.has(entry.check) ? [] : [`${id}: ${entry.scenario} gives no check ${entry.check}`];
    });
    expect(wrong).toEqual([]);
  });
});
