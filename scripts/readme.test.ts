// The README says what the code does: every era, personality, scenario and built-in adapter is in it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { BROKEN_ADAPTERS, BUILT_IN_ADAPTERS } from '../clients/index.ts';
import { ERAS } from '../servers/era.ts';
import { PERSONALITIES } from '../servers/personalities/index.ts';
import { SCENARIOS } from '../suites/index.ts';

const readme = readFileSync(join(import.meta.dirname, '..', 'README.md'), 'utf8');

test.each([
  ['era', ERAS],
  ['personality', Object.keys(PERSONALITIES)],
  ['scenario', SCENARIOS.map((s) => s.id)],
  ['adapter', [...BUILT_IN_ADAPTERS, ...BROKEN_ADAPTERS].map((a) => a.name)],
])('the README names every %s', (_kind, names) => {
  expect(names.filter((name) => !readme.includes(`\`${name}\``))).toEqual([]);
});
