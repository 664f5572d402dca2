// The citation book held to the spec: every section a scenario or a check cites names a page of its revision's spec
// text (../shared/spec/<revision>/<page>.mdx) and a heading on that page. Without the spec text beside the checkout
// the test says it is skipped, and why.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { REVISIONS } from '../protocol/revisions.ts';
import { SCENARIOS } from './index.ts';
import { plannedCases } from './plan.ts';
import { checksOnNothing } from './judged.ts';
import type { SpecRef } from './scenario.ts';

const SPEC_DIR = join(import.meta.dirname, '..', '..', 'shared', 'spec');
const PREFIX = 'https://modelcontextprotocol.io/specification/';

function cited(): { where: string; spec: SpecRef }[] {
  const refs: { where: string; spec: SpecRef }[] = [];
  for (const { scenario, revision } of plannedCases(SCENARIOS)) {
    refs.push({ where: `${scenario.id} (source)`, spec: scenario.source.spec });
    for (const check of checksOnNothing(scenario, revision)) refs.push({ where: `${scenario.id} @ ${revision} › ${check.name}`, spec: check.spec });
  }
  return refs;
}

/** GitHub-style heading anchors of an .mdx page: lower case, punctuation dropped, spaces to hyphens. */
function anchorsOf(text: string): Set<string> {
  const headings = [...text.matchAll(/^#{1,6}\s+(.+)$/gm)].map((m) => m[1]!.replace(/`/g, '').trim());
  return new Set(headings.map((h) => h.toLowerCase().replace(/[^\p{L}\p{N}\s-]/gu, '').replace(/\s/g, '-')));
}

function pageFile(revision: string, page: string): string | undefined {
  const candidates = [join(SPEC_DIR, revision, `${page}.mdx`), join(SPEC_DIR, revision, page, 'index.mdx')];
  return candidates.find((file) => existsSync(file));
}

/** What is wrong with each citation, one line each; empty when every one names a page and a heading. */
function problemsOf(refs: readonly { where: string; spec: SpecRef }[]): string[] {
  const broken = new Set<string>();
  for (const { where, spec } of refs) {
    if (!spec.url.startsWith(PREFIX)) {
      broken.add(`${where}: ${spec.url} is not a spec URL`);
      continue;
    }
    const [path, anchor] = spec.url.slice(PREFIX.length).split('#');
    const [revision, ...page] = path!.split('/');
    if (!(REVISIONS as readonly string[]).includes(revision!)) {
      broken.add(`${where}: ${spec.url} names no revision`);
      continue;
    }
    const file = pageFile(revision!, page.join('/'));
    if (!file) broken.add(`${spec.url}: no page ${page.join('/')} in the ${revision} spec (${where})`);
    else if (anchor && !anchorsOf(readFileSync(file, 'utf8')).has(anchor)) broken.add(`${spec.url}: no heading #${anchor} on that page (${where})`);
  }
  return [...broken].sort();
}

describe.skipIf(!existsSync(SPEC_DIR))('every citation names a page and a heading of its revision', () => {
  test('pages and anchors exist', () => {
    expect(problemsOf(cited())).toEqual([]);
  });

  test('a citation of a page or heading that is not there is caught', () => {
    const made = (url: string) => ({ where: 'made up', spec: { url, section: 's', level: 'MUST' as const } });
    expect(problemsOf([made(`${PREFIX}2025-06-18/basic/lifecycle#no-such-heading`), made(`${PREFIX}2025-06-18/basic/nowhere`), made(`${PREFIX}1999-01-01/basic`)])).toHaveLength(3);
    expect(problemsOf([made(`${PREFIX}2025-06-18/basic/lifecycle#initialization`), made(`${PREFIX}2026-07-28/basic#meta`)])).toEqual([]);
  });
});

if (!existsSync(SPEC_DIR)) console.warn(`citation test skipped: the spec text is not at ${SPEC_DIR} (a checkout beside shared/ has it)`);
