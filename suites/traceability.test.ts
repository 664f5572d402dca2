// The traceability file held to the code: every check docs/traceability.md names is one a scenario's judge gives, a
// rule it calls tested or partial names at least one, an untested one names none, and its counts (and the README's)
// are the table's.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { SCENARIOS } from './index.ts';
import { checkNames } from './judged.ts';

const FILE = join(import.meta.dirname, '..', 'docs', 'traceability.md');
const STATUSES = ['T', 'P', 'U', 'N', 'C'] as const;
type Status = (typeof STATUSES)[number];

interface Rule {
  id: string;
  theme: string;
  status: string;
  /** `scenario: check` pairs of its "tested by" cell (parenthesised remarks left out). */
  named: { scenario: string; check: string }[];
}

/** A cell without its parenthesised remarks (innermost first, so nested ones go too). */
function withoutRemarks(cell: string): string {
  let text = cell;
  for (let before = ''; before !== text; ) [before, text] = [text, text.replace(/\([^()]*\)/g, '')];
  return text;
}

/** The `scenario: …` parts of a cell, separated by semicolons; a part that names no scenario is a remark. */
const parts = (cell: string) =>
  cell.split(';').flatMap((part) => {
    const m = /^\s*([*a-z0-9][a-z0-9/-]*):\s*(.*)$/s.exec(part);
    return m ? [{ scenario: m[1]!, list: m[2]! }] : [];
  });

/** The check names a part lists, comma-separated: the list ends at the first name followed by words of a remark. */
function checksOf(list: string): string[] {
  const names: string[] = [];
  for (const piece of list.split(',')) {
    const m = /^\s*([a-z0-9][a-z0-9-]*)(.*)$/s.exec(piece);
    if (!m) break;
    names.push(m[1]!);
    if (m[2]!.trim() !== '') break;
  }
  return names;
}

/** The rules of every table: `| id | rev | source § | level | client rule | tested by | status |`. */
function rules(text: string): Rule[] {
  const found: Rule[] = [];
  let theme = '';
  for (const line of text.split('\n')) {
    const heading = /^### ([A-Z])\. /.exec(line);
    if (heading) theme = heading[1]!;
    const cells = line.split('|').slice(1, -1).map((cell) => cell.trim());
    if (cells.length !== 7 || !/^[A-Z]\d+$/.test(cells[0]!)) continue;
    const named = parts(withoutRemarks(cells[5]!)).flatMap(({ scenario, list }) => checksOf(list).map((check) => ({ scenario, check })));
    found.push({ id: cells[0]!, theme, status: cells[6]!, named });
  }
  return found;
}

const text = readFileSync(FILE, 'utf8');
const table = rules(text);
const byId = new Map(SCENARIOS.map((scenario) => [scenario.id, scenario]));
/** `*: check`: a check every scenario gives (the runner's schema check, client-completed). */
const EVERY_SCENARIO = new Set([...checkNames(SCENARIOS[0]!)].filter((name) => SCENARIOS.every((scenario) => checkNames(scenario).has(name))));
const namesOf = new Map<string, Set<string>>();
const known = (scenario: string): Set<string> | undefined => {
  if (scenario === '*') return EVERY_SCENARIO;
  const found = byId.get(scenario);
  if (found === undefined) return undefined;
  if (!namesOf.has(scenario)) namesOf.set(scenario, checkNames(found));
  return namesOf.get(scenario);
};

describe('docs/traceability.md', () => {
  test('holds rules, each once, with a known status', () => {
    expect(table.length).toBeGreaterThan(100);
    const ids = table.map((rule) => rule.id);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i), 'rule ids given twice').toEqual([]);
    expect(table.filter((rule) => !STATUSES.includes(rule.status as Status)).map((rule) => `${rule.id}: ${rule.status}`)).toEqual([]);
  });

  test('every check it names is one a scenario gives', () => {
    const missing = table.flatMap((rule) =>
      rule.named.flatMap(({ scenario, check }) => {
        const names = known(scenario);
        if (names === undefined) return [`${rule.id}: no scenario ${scenario}`];
        return names.has(check) ? [] : [`${rule.id}: ${scenario} gives no check ${check} (it gives ${[...names].join(', ')})`];
      }),
    );
    expect(missing).toEqual([]);
  });

  test('a tested or partial rule names its checks; an untested one names none', () => {
    const wrong = table.filter((rule) => (rule.status === 'T' || rule.status === 'P' ? rule.named.length === 0 : rule.status === 'U' && rule.named.length > 0));
    expect(wrong.map((rule) => `${rule.id} (${rule.status}): ${rule.named.length} checks named`)).toEqual([]);
  });

  test('its counts are the table’s', () => {
    const count = (status: Status, theme?: string) => table.filter((rule) => rule.status === status && (theme === undefined || rule.theme === theme)).length;
    const line = `Counts: ${table.length} rules — ${STATUSES.map((status) => `${count(status)} ${status}`).join(', ')}.`;
    expect(text, 'the counts line, as the table gives it').toContain(line);
    const readme = readFileSync(join(import.meta.dirname, '..', 'README.md'), 'utf8').replace(/\s+/g, ' ');
    expect(readme, 'the README’s summary of it').toContain(`${table.length} rules: ${count('T')} tested, ${count('P')} partly, ${count('U')} not yet, ${count('N')} not observable on the wire, ${count('C')} tested conventions`);
    const themes = [...new Set(table.map((rule) => rule.theme))];
    for (const theme of themes) {
      const row = `| ${theme} | ${table.filter((rule) => rule.theme === theme).length} | ${STATUSES.map((status) => count(status, theme)).join(' | ')} |`;
      expect(text, `the counts of theme ${theme}`).toContain(row);
    }
  });
});
