// The matrix reports (Markdown, JUnit XML), the results schema and the comparison of two runs, on results from a
// real small matrix run (testdata/fixture.ts): the reference client, broken variants, a client that declares less,
// one whose process crashed, one whose process is dead (inconclusive), one judged on a rerun and one that could not
// be loaded; and the same run as an interrupted one leaves it (incomplete).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { failOnLeakedHandles } from '../../suites/leaks.ts';
import { compare, comparisonExitCode, renderComparisonMarkdown, renderComparisonText, runCompare, VERDICT_RANK, type CellChange } from './compare.ts';
import { renderJunit } from '../../results/junit.ts';
import { renderHtml } from '../../results/html.ts';
import { MARKDOWN_MAX_BYTES, markdownText, packageLabel, printable, renderMarkdown } from '../../results/markdown.ts';
import { sharedVerdicts } from '../../results/shared.ts';
import { attemptsNote, cellKey, decidingChecks, evidenceText, RESULTS_FORMAT_VERSION, verdictCounts, VERDICTS, type Cell, type MatrixResults } from '../../results/results.ts';
import { asClient, buildFixture, DEAD_REASON, fullSizeResults, HOSTILE_TEXT, incomplete, RERUN_REASON, runOf } from './testdata/fixture.ts';

failOnLeakedHandles();

let results: MatrixResults;
const work = mkdtempSync(join(tmpdir(), 'matrix-reports-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

// Every scenario run in it is bounded by the time policy; the fixture as a whole is not bounded by the clock.
beforeAll(async () => {
  results = await buildFixture();
}, 0);

const cellsOf = (client: string) => results.cells.filter((cell) => cell.client === client);
const verdictsOf = (client: string, scenario: string) => Object.fromEntries(cellsOf(client).filter((cell) => cell.scenario === scenario).map((cell) => [cell.revision, cell.verdict]));

describe('the fixture', () => {
  test('is a real run with every verdict where the variants say', () => {
    expect(verdictCounts(results.cells)).toEqual({ pass: 103, fail: 10, warn: 10, inconclusive: 4, 'n/a': 18, error: 25 });
    // broken-omits-version-header's DELETE without the header is a MUST broken inside a SHOULD scenario (delete-issued-session): it warns there, at the scenario's level; version-per-revision fails it.
    expect(verdictCounts(cellsOf('reference'))).toEqual({ pass: 17, fail: 0, warn: 0, inconclusive: 0, 'n/a': 0, error: 0 });
    expect(verdictsOf('broken-skips-initialized', 'negotiation/handshake-order')).toEqual({ '2024-11-05': 'fail', '2025-03-26': 'fail', '2025-06-18': 'fail', '2025-11-25': 'fail' });
    expect(verdictsOf('broken-omits-version-header', 'negotiation/version-per-revision')).toEqual({ '2024-11-05': 'pass', '2025-03-26': 'pass', '2025-06-18': 'fail', '2025-11-25': 'fail' });
    expect(verdictsOf('broken-never-deletes', 'disposal/delete-issued-session')).toEqual({ '2025-03-26': 'warn', '2025-06-18': 'warn', '2025-11-25': 'warn' });
    expect(verdictCounts(cellsOf('reference-streamable-only'))['n/a']).toBe(5);
    expect(cellsOf('unloadable-client').every((cell) => cell.verdict === 'error')).toBe(true);
    // A dead client process is never judged: every case it could take part in is inconclusive on an unmet precondition.
    const dead = cellsOf('dead-client').filter((cell) => cell.verdict !== 'n/a');
    expect(dead.map((cell) => cell.verdict)).toEqual(['inconclusive', 'inconclusive', 'inconclusive', 'inconclusive']);
    for (const cell of dead) expect(decidingChecks(cell)).toEqual([expect.objectContaining({ name: 'client-running', outcome: 'inconclusive', precondition: true, detail: DEAD_REASON })]);
    expect(cellsOf('slow-starting-client').filter((cell) => cell.attempts !== undefined)).toHaveLength(8);
  });
});

describe('../../results/results.schema.json', () => {
  const schema = JSON.parse(readFileSync(join(import.meta.dirname, '../../results/results.schema.json'), 'utf8'));
  const validate = new Ajv2020({ allErrors: true, strict: true }).compile(schema);
  const errors = () => JSON.stringify(validate.errors, null, 1);

  test('accepts the fixture, the same run incomplete, and a full-size matrix, as written to disk', () => {
    expect(validate(JSON.parse(JSON.stringify(results))), errors()).toBe(true);
    expect(validate(JSON.parse(JSON.stringify(incomplete(results)))), errors()).toBe(true);
    expect(validate(JSON.parse(JSON.stringify(fullSizeResults(results)))), errors()).toBe(true);
  });

  test('refuses what the format does not allow', () => {
    const broken = (edit: (copy: MatrixResults & Record<string, unknown>) => void) => {
      const copy = structuredClone(results) as MatrixResults & Record<string, unknown>;
      edit(copy);
      return validate(copy);
    };
    expect(broken((r) => (r.cells[0]!.verdict = 'skipped' as never))).toBe(false);
    expect(broken((r) => ((r as { formatVersion: number }).formatVersion = 1))).toBe(false);
    expect(broken((r) => ((r.run as { complete: boolean }).complete = 'yes' as never))).toBe(false);
    expect(broken((r) => (r.run.missingCells = 1))).toBe(false);
    expect(broken((r) => delete (r.run as Partial<MatrixResults['run']>).selection)).toBe(false);
    expect(broken((r) => (r.extra = 1))).toBe(false);
    const naCell = (r: MatrixResults) => r.cells.find((cell) => cell.verdict === 'n/a')!;
    expect(broken((r) => delete naCell(r).reason)).toBe(false);
    expect(broken((r) => (naCell(r).evidence = 'x'))).toBe(false);
    const failCell = (r: MatrixResults) => r.cells.find((cell) => cell.verdict === 'fail')!;
    expect(broken((r) => failCell(r).checks.forEach((check) => (check.outcome = 'pass')))).toBe(false);
    expect(broken((r) => (failCell(r).checks[0]!.outcome = 'ok' as never))).toBe(false);
    expect(broken((r) => (failCell(r).checks[0]!.url = 'javascript:alert(1)'))).toBe(false);
    // An inconclusive cell says why and names the check the suite could not judge.
    const inconclusiveCell = (r: MatrixResults) => r.cells.find((cell) => cell.verdict === 'inconclusive')!;
    expect(broken((r) => delete inconclusiveCell(r).reason)).toBe(false);
    expect(broken((r) => inconclusiveCell(r).checks.forEach((check) => (check.outcome = 'pass')))).toBe(false);
    expect(broken((r) => (inconclusiveCell(r).checks[0]!.precondition = false as never))).toBe(false);
    // A time scale belongs to a case that was run again.
    expect(broken((r) => (r.cells.find((cell) => cell.attempts === undefined)!.timeScale = 2))).toBe(false);
    expect(broken((r) => (r.cells.find((cell) => cell.attempts !== undefined)!.attempts = []))).toBe(false);
  });
});

describe('renderMarkdown', () => {
  let markdown: string;
  beforeAll(() => {
    markdown = renderMarkdown(results);
  });

  test('opens with the run: date, suite version and commit, Node, duration, matrix file', () => {
    const [title, , runLine, , totals] = markdown.split('\n');
    expect(title).toBe('# MCP client conformance matrix');
    expect(runLine).toContain(results.generatedAt.slice(0, 10));
    expect(runLine).toContain('suite 0.1.0 (4ed33d3a1b2c)');
    expect(runLine).toContain(`Node ${process.version}`);
    expect(runLine).toMatch(/ · \d+\.\d s · matrix file matrix\.json · SHOULD violations warn/);
    expect(totals).toBe('10 clients × 17 scenario cases = 170 cells: ✅ 103 pass · ❌ 10 fail · ⚠️ 10 warn · ❔ 4 inconclusive · ➖ 18 n/a · 💥 25 error');
  });

  test('has a row per client with package@version and its counts', () => {
    const rows = markdown.split('\n').filter((line) => line.startsWith('| **'));
    expect(rows).toHaveLength(results.clients.length);
    for (const [index, client] of results.clients.entries()) {
      const cells = rows[index]!.split(' | ');
      expect(cells[0]).toContain(`**${client.name}**`);
      const label = packageLabel(client);
      expect(cells[1]).toBe(label ? `\`${label}\`` : '—');
      const counts = verdictCounts(cellsOf(client.name));
      expect(cells.slice(2).map((n) => n.replace(' |', '').trim())).toEqual(VERDICTS.map((v) => (counts[v] > 0 ? String(counts[v]) : '·')));
    }
  });

  test('lists each deciding check of every fail, warn, inconclusive and error cell under its client and scenario, with level and spec link', () => {
    const sections = markdown.split('<details>').slice(1);
    const problemClients = results.clients.filter((client) => client.loadError === undefined && cellsOf(client.name).some((cell) => cell.verdict !== 'pass' && cell.verdict !== 'n/a'));
    expect(sections.map((section) => /<summary><b>(.+?)<\/b>/.exec(section)?.[1])).toEqual(problemClients.map((client) => client.name));
    for (const [index, client] of problemClients.entries()) {
      const section = sections[index]!;
      for (const cell of cellsOf(client.name)) {
        if (cell.verdict === 'pass' || cell.verdict === 'n/a') continue;
        expect(section).toContain(`**${cell.scenario}**`);
        for (const check of decidingChecks(cell)) expect(section).toMatch(new RegExp(`\\| \`${check.name}\`(?: \\(precondition\\))? \\| ${check.level} \\| \\[[^\\]]+\\]\\(${check.url.replace(/[.?]/g, '\\$&')}\\)`));
      }
    }
    // A warn names the SHOULD it breaks; an inconclusive case, the precondition the suite could not meet.
    expect(markdown).toMatch(/\| 2025-03-26 \| ⚠️ warn \| `delete-sent` \| SHOULD \| \[Transports › Session Management/);
    expect(markdown).toContain(`| 2025-11-25 | ❔ inconclusive | \`client-running\` (precondition) | MUST | `);
    expect(markdown).toContain(markdownText(DEAD_REASON));
  });

  test('lists the passes judged only on a rerun, with what the first run ran into', () => {
    const section = markdown.slice(markdown.indexOf('## Judged on a rerun'));
    expect(section).not.toBe('');
    const rerun = results.cells.filter((cell) => cell.attempts !== undefined);
    expect(section.split('\n').filter((line) => line.startsWith('- '))).toHaveLength(rerun.length);
    expect(section).toContain(`- **slow-starting-client** \`negotiation/handshake-order @ 2024-11-05\`: ✅ pass — judged at time scale 2 after 1 inconclusive run: ${markdownText(RERUN_REASON)}`);
  });

  test('an incomplete run says so under the run line, with how many cells are missing and how to resume', () => {
    expect(markdown).not.toContain('incomplete');
    const lines = renderMarkdown(incomplete(results)).split('\n');
    expect(lines[4]).toBe('**incomplete run: 5 of 170 planned cells have no result (interrupted by SIGINT)**: `mcp-client-conformance matrix --resume <reports folder>` runs only those.');
  });

  test('stays under a size limit, leaving out whole client sections and saying so', () => {
    const full = renderMarkdown(fullSizeResults(results));
    expect(Buffer.byteLength(full)).toBeLessThan(MARKDOWN_MAX_BYTES);
    const cut = renderMarkdown(results, 9_000);
    expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(9_000);
    expect(cut).toMatch(/\nThe details of \d more clients are left out to keep this summary under 9 kB; report\.html and junit\.xml have them all\.\n\n## Judged on a rerun\n/);
    expect(cut.split('<details>').length).toBeGreaterThan(1);
    expect(cut.split('<details>').length).toBe(cut.split('</details>').length);
  });

  test('reports the load error once, and escapes what clients printed', () => {
    expect(markdown).toContain('## Clients not loaded');
    expect(markdown).toContain("Cannot find module './clients/third-party/missing.ts' imported from matrix.json\n    at moduleResolve");
    expect(markdown).not.toContain('<b>unloadable-client</b>');
    expect(markdown).not.toContain('<script>');
    expect(markdown).toContain('&lt;script&gt;alert("x")&lt;/script&gt;');
    expect(markdown).toContain('\\\\u001B\\[31mTypeError');
    expect(markdown).not.toMatch(/[\u0000-\u0008\u000B\u000C\u000E-\u001F]/);
    // `@modelcontextprotocol/...` in a pull-request comment must not notify a team: packages are code, free text has no bare @.
    expect(markdown.replace(/`[^`\n]*`/g, '')).not.toMatch(/(^|[^\w`])@\w/m);
  });
});

// — JUnit: a small strict XML 1.0 reader (no XML parser is installed; the browser test also uses Chromium's) —

interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  children: XmlElement[];
  text: string;
}

const XML_FORBIDDEN = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Parses the XML the JUnit renderer writes, throwing on anything not well-formed. */
function parseXml(xml: string): XmlElement {
  if (XML_FORBIDDEN.test(xml)) throw new Error(`a character XML 1.0 forbids at ${xml.search(XML_FORBIDDEN)}`);
  const decode = (text: string, where: number) =>
    text.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-z]+);|&/g, (whole, reference: string | undefined) => {
      if (reference === undefined) throw new Error(`a bare & at ${where}`);
      const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
      if (reference.startsWith('#')) return String.fromCodePoint(reference[1] === 'x' ? parseInt(reference.slice(2), 16) : Number(reference.slice(1)));
      if (!(reference in named)) throw new Error(`unknown entity ${whole} at ${where}`);
      return named[reference]!;
    });
  let at = 0;
  const prolog = /^<\?xml version="1\.0" encoding="UTF-8"\?>\n/.exec(xml);
  if (!prolog) throw new Error('no XML declaration');
  at = prolog[0].length;
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;
  while (at < xml.length) {
    const open = xml.indexOf('<', at);
    const text = xml.slice(at, open === -1 ? xml.length : open);
    if (text.includes(']]>')) throw new Error(`]]> in text at ${at}`);
    if (stack.length > 0) stack.at(-1)!.text += decode(text, at);
    else if (text.trim() !== '') throw new Error(`text outside the root at ${at}`);
    if (open === -1) break;
    const tag = /^<(\/?)([A-Za-z_][\w.-]*)((?:\s+[A-Za-z_][\w.-]*="[^"<]*")*)\s*(\/?)>/.exec(xml.slice(open));
    if (!tag) throw new Error(`malformed tag at ${open}: ${xml.slice(open, open + 40)}`);
    const [whole, closing, name, attributeText, selfClosing] = tag;
    at = open + whole.length;
    if (closing) {
      const element = stack.pop();
      if (element?.name !== name || attributeText || selfClosing) throw new Error(`</${name}> does not close <${element?.name}> at ${open}`);
      continue;
    }
    const attributes: Record<string, string> = {};
    for (const [, key, value] of attributeText!.matchAll(/([A-Za-z_][\w.-]*)="([^"]*)"/g)) {
      if (key! in attributes) throw new Error(`attribute ${key} twice at ${open}`);
      attributes[key!] = decode(value!, open);
    }
    const element: XmlElement = { name: name!, attributes, children: [], text: '' };
    if (stack.length > 0) stack.at(-1)!.children.push(element);
    else if (root) throw new Error('a second root element');
    else root = element;
    if (!selfClosing) stack.push(element);
  }
  if (stack.length > 0 || !root) throw new Error(`unclosed <${stack.at(-1)?.name}>`);
  return root;
}

describe('a client that wraps an SDK with a row of its own', () => {
  // The SDK's row is the skips-initialized variant; the framework on it has its cells, except at delete-issued-session,
  // where it warns as never-deletes does and the SDK passes: that warn is the framework's own.
  let wrapped: MatrixResults;
  const OWN = 'disposal/delete-issued-session';
  beforeAll(() => {
    const sdk = asClient(results, 'broken-skips-initialized', 'example-sdk@1.0', { package: '@example/sdk', version: '1.0.0' });
    const framework = asClient(results, 'broken-skips-initialized', 'framework-on-sdk', { package: '@example/framework', version: '0.1.0', wraps: { package: '@example/sdk', version: '1.0.0' } });
    const own = asClient(results, 'broken-never-deletes', 'framework-on-sdk').cells.filter((cell) => cell.scenario === OWN);
    framework.cells = [...framework.cells.filter((cell) => cell.scenario !== OWN), ...own];
    wrapped = runOf(results, [asClient(results, 'reference', 'reference'), sdk, framework]);
  });
  const frameworkCells = () => wrapped.cells.filter((cell) => cell.client === 'framework-on-sdk');

  test('every fail and warn it shares with the SDK’s row is marked shared, its own warns not', () => {
    const shared = sharedVerdicts(wrapped);
    const sharedCells = frameworkCells().filter((cell) => shared.get(cellKey(cell))?.shared === true);
    expect(sharedCells.length).toBeGreaterThan(0);
    expect(sharedCells.every((cell) => cell.scenario !== OWN && (cell.verdict === 'fail' || cell.verdict === 'warn'))).toBe(true);
    const own = frameworkCells().filter((cell) => cell.scenario === OWN && cell.verdict === 'warn');
    expect(own.length).toBe(3);
    for (const cell of own) expect(shared.get(cellKey(cell))).toEqual({ shared: false, rows: ['example-sdk@1.0'], sdk: { package: '@example/sdk', version: '1.0.0' } });
    // Nothing of the SDK's own row, or of a client wrapping nothing, is attributed.
    expect([...shared.keys()].every((key) => key.startsWith('framework-on-sdk\u0000'))).toBe(true);
  });

  test('summary.md says which SDK it is on, and marks each of its fail and warn cells shared or its own', () => {
    const markdown = renderMarkdown(wrapped);
    expect(markdown).toContain('| **framework-on-sdk** | `@example/framework@0.1.0` on `@example/sdk@1.0.0` |');
    expect(markdown).toMatch(/\| 2025-11-25 \| ❌ fail \(shared with example-sdk&#64;1\.0: the SDK's verdict\) \| `initialized-sent`/);
    expect(markdown).toContain("| 2025-03-26 | ⚠️ warn (not shared: example-sdk&#64;1.0 judges it otherwise, the client's own) | `delete-sent` |");
    const section = markdown.split('<details>').find((part) => part.includes('<summary><b>framework-on-sdk</b>'))!;
    const shared = [...sharedVerdicts(wrapped).values()];
    expect(section).toContain(`${shared.filter((a) => a.shared).length} of the ${shared.length} fail and warn cells its SDK's row judged are shared with it`);
    // The SDK's own section says nothing of the kind.
    expect(markdown.split('<details>').find((part) => part.includes('<summary><b>example-sdk&#64;1.0</b>'))).not.toMatch(/shared/);
  });

  test('report.html carries the same marks for its cells (the grid draws them; html-report.test.ts looks at the page)', () => {
    const html = renderHtml(wrapped);
    const sdkNotes = JSON.parse(/<script type="application\/json" id="matrix-sdk">(.*?)<\/script>/.exec(html)![1]!) as Record<string, { shared: boolean; text: string }>;
    const marked = Object.entries(sdkNotes).map(([index, note]) => ({ cell: wrapped.cells[Number(index)]!, note }));
    expect(marked.length).toBe(sharedVerdicts(wrapped).size);
    for (const { cell, note } of marked) {
      expect(cell.client).toBe('framework-on-sdk');
      expect(note.text).toMatch(cell.scenario === OWN ? /^not shared: example-sdk@1\.0 judges it otherwise/ : /^shared with example-sdk@1\.0/);
    }
  });

  test('the results schema accepts a client with wraps', () => {
    const schema = JSON.parse(readFileSync(join(import.meta.dirname, '../../results/results.schema.json'), 'utf8'));
    const validate = new Ajv2020({ allErrors: true, strict: true }).compile(schema);
    expect(validate(JSON.parse(JSON.stringify(wrapped))), JSON.stringify(validate.errors)).toBe(true);
    const malformed = structuredClone(wrapped);
    (malformed.clients[2]!.wraps as unknown) = { package: '@example/sdk' };
    expect(validate(malformed)).toBe(false);
  });
});

describe('renderJunit', () => {
  let root: XmlElement;
  beforeAll(() => {
    root = parseXml(renderJunit(results));
  });
  const child = (element: XmlElement, name: string) => element.children.find((c) => c.name === name);

  test('the strict reader refuses what is not well-formed', () => {
    expect(() => parseXml('<?xml version="1.0" encoding="UTF-8"?>\n<a><b></a>')).toThrow(/does not close/);
    expect(() => parseXml('<?xml version="1.0" encoding="UTF-8"?>\n<a x="1 & 2"/>')).toThrow(/bare &/);
    expect(() => parseXml('<?xml version="1.0" encoding="UTF-8"?>\n<a>\u0001</a>')).toThrow(/forbids/);
    expect(() => parseXml('<?xml version="1.0" encoding="UTF-8"?>\n<a>]]></a>')).toThrow(/]]>/);
  });

  test('one testsuite per client with its counts, one testcase per cell', () => {
    expect(root.name).toBe('testsuites');
    // Skipped: the n/a cells and the ones the suite could not judge (never failures).
    expect(root.attributes).toMatchObject({ tests: '170', failures: '10', errors: '25', skipped: '22' });
    expect(root.children.map((suite) => suite.attributes.name!.split(' (')[0])).toEqual(results.clients.map((client) => client.name));
    for (const suite of root.children) {
      const name = suite.attributes.name!.split(' (')[0]!;
      const counts = verdictCounts(cellsOf(name));
      expect(suite.attributes).toMatchObject({ tests: String(cellsOf(name).length), failures: String(counts.fail), errors: String(counts.error), skipped: String(counts['n/a'] + counts.inconclusive) });
      expect(Number(suite.attributes.time)).toBeGreaterThanOrEqual(0);
      const cases = suite.children.filter((c) => c.name === 'testcase');
      expect(cases.map((c) => `${c.attributes.classname} ${c.attributes.name}`)).toEqual(cellsOf(name).map((cell) => `${cell.client} ${cell.scenario} @ ${cell.revision}`));
    }
  });

  test('fail → <failure> (reason, evidence), error → <error>, warn → <system-out>, n/a and inconclusive → <skipped>, reruns in <system-out>; hostile text survives escaped', () => {
    const testcases = root.children.flatMap((suite) => suite.children.filter((c) => c.name === 'testcase'));
    for (const [index, cell] of results.cells.entries()) {
      const testcase = testcases[index]!;
      const outcome = testcase.children[0];
      switch (cell.verdict) {
        case 'pass':
          // A pass judged on a rerun says so; any other pass is an empty test case.
          expect(testcase.children).toEqual(cell.attempts ? [expect.objectContaining({ name: 'system-out', text: attemptsNote(cell) })] : []);
          break;
        case 'inconclusive':
          expect(outcome).toMatchObject({ name: 'skipped', attributes: { message: `inconclusive: ${printable(cell.reason!)}` } });
          expect(testcase.children[1]).toMatchObject({ name: 'system-out', text: printable(evidenceText(cell)!) });
          break;
        case 'fail':
          expect(outcome).toMatchObject({ name: 'failure', attributes: { message: printable(cell.reason!), type: expect.stringContaining('MUST') } });
          expect(outcome!.text).toBe(printable(evidenceText(cell)!));
          break;
        case 'error':
          expect(outcome).toMatchObject({ name: 'error', attributes: { message: printable(cell.reason!) } });
          break;
        case 'warn':
          expect(outcome!.name).toBe('system-out');
          expect(outcome!.text).toBe(printable(`warning (SHOULD): ${cell.reason}\n\n${evidenceText(cell)}`));
          break;
        case 'n/a':
          expect(outcome).toMatchObject({ name: 'skipped', attributes: { message: `not applicable: ${cell.reason}` } });
          break;
      }
    }
    const crashed = results.cells.find((cell) => cell.client === 'crashing-client' && cell.verdict === 'error')!;
    expect(crashed.reason).toContain(HOSTILE_TEXT);
    const crashedCase = testcases[results.cells.indexOf(crashed)]!;
    expect(crashedCase.children[0]!.attributes.message).toContain('stderr: \\u001B[31mTypeError\\u001B[0m: bad \\u0000byte\\u0007 \\uD800 <script>alert("x")</script> ]]> & </pre> \\uFFFF end');
    // The failing cell whose evidence carries the same bytes (the client echoed them in its error).
    const echoed = results.cells.find((cell) => evidenceText(cell)?.includes(HOSTILE_TEXT))!;
    expect(testcases[results.cells.indexOf(echoed)]!.children[0]!.text).toContain('client error: Error: stderr: \\u001B[31mTypeError');
    // Multi-line messages keep their lines.
    const unloadable = root.children.find((suite) => suite.attributes.name!.startsWith('unloadable-client'))!;
    expect(child(unloadable, 'system-err')!.text).toBe(`the client could not be loaded:\n${results.clients.at(-1)!.loadError}`);
    expect(child(child(unloadable, 'properties')!, 'property')).toMatchObject({ attributes: { name: 'package', value: '@example/missing-client' } });
  });

  test('every testsuite says whether the run is complete, and what an incomplete one lacks', () => {
    const property = (suite: XmlElement, name: string) => child(suite, 'properties')!.children.find((p) => p.attributes.name === name)?.attributes.value;
    for (const suite of root.children) {
      expect(property(suite, 'run.complete')).toBe('true');
      expect(property(suite, 'run.incomplete')).toBeUndefined();
    }
    const cut = parseXml(renderJunit(incomplete(results)));
    expect(cut.attributes.tests).toBe('165');
    for (const suite of cut.children) {
      expect(property(suite, 'run.complete')).toBe('false');
      expect(property(suite, 'run.incomplete')).toBe('incomplete run: 5 of 170 planned cells have no result (interrupted by SIGINT)');
    }
  });
});

// — comparing runs —

/**
 * Two runs assembled from the fixture's clients. `acme` was the reference client and is now the one that skips
 * notifications/initialized (a version bump that regresses); `beta` was never-deletes and is now the reference (it
 * improves); `gamma` declared less and now declares everything (n/a → verdicts); `delta` loaded and now does not
 * (everything → error); `crashy` was the crashed client and now runs (error → verdicts); `old` is removed, `new` added.
 * The current run also has a scenario the previous one lacked.
 */
function twoRuns(): { previous: MatrixResults; current: MatrixResults } {
  const previous = runOf(results, [
    asClient(results, 'reference', 'acme', { package: 'acme-mcp', version: '1.0.0' }),
    asClient(results, 'broken-never-deletes', 'beta'),
    asClient(results, 'reference-streamable-only', 'gamma'),
    asClient(results, 'broken-omits-version-header', 'delta'),
    asClient(results, 'crashing-client', 'crashy'),
    asClient(results, 'broken-retries-http-errors', 'old'),
  ]);
  previous.cells = previous.cells.filter((cell) => cell.scenario !== 'retry/bounded-on-5xx' || cell.client === 'old');
  const delta = asClient(results, 'unloadable-client', 'delta', { package: undefined });
  const current = runOf(
    results,
    [
      asClient(results, 'broken-skips-initialized', 'acme', { package: 'acme-mcp', version: '1.1.0' }),
      asClient(results, 'reference', 'beta'),
      asClient(results, 'reference', 'gamma', { package: '@example/streamable-client', version: '3.2.1' }),
      delta,
      asClient(results, 'broken-skips-initialized', 'crashy', { package: 'crashy-mcp', version: '0.3.1' }),
      asClient(results, 'reference', 'new'),
    ],
    { strict: true, commit: 'ffff00001111' },
  );
  return { previous, current };
}

const described = (changes: CellChange[]) => changes.map((c) => `${c.client} ${c.scenario}@${c.revision} ${c.from}→${c.to}`);

describe('compare', () => {
  test('orders verdicts pass < warn < fail < error, n/a and inconclusive outside', () => {
    expect(Object.entries(VERDICT_RANK).filter(([, rank]) => rank !== undefined).sort(([, a], [, b]) => a! - b!).map(([verdict]) => verdict)).toEqual(['pass', 'warn', 'fail', 'error']);
    expect(VERDICT_RANK['n/a']).toBeUndefined();
    expect(VERDICT_RANK.inconclusive).toBeUndefined();
  });

  test('finds regressions, improvements, applicability changes, clients and cells that came or went', () => {
    const { previous, current } = twoRuns();
    const comparison = compare(previous, current);
    const handshake = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'];
    // acme: pass → fail on handshake-order; delta: its 8 passes and 4 fails → error.
    expect(described(comparison.regressions).sort()).toEqual(
      [
        ...handshake.map((r) => `acme negotiation/handshake-order@${r} pass→fail`),
        ...cellsOf('broken-omits-version-header')
          .filter((cell) => cell.scenario !== 'retry/bounded-on-5xx')
          .map((cell) => `delta ${cell.scenario}@${cell.revision} ${cell.verdict}→error`),
      ].sort(),
    );
    expect(comparison.regressions.find((c) => c.client === 'acme')).toMatchObject({ newlyFailedChecks: ['initialized-sent', 'initialized-before-requests'], reason: expect.stringContaining('initialized-sent') });
    // beta: warn → pass; crashy: error → pass or fail (judged again); its handshake fails stay fails.
    expect(described(comparison.improvements).sort()).toEqual(
      [
        ...['2025-03-26', '2025-06-18', '2025-11-25'].map((r) => `beta disposal/delete-issued-session@${r} warn→pass`),
        ...['2025-03-26', '2025-06-18', '2025-11-25'].map((r) => `crashy disposal/delete-issued-session@${r} error→pass`),
      ].sort(),
    );
    expect(described(comparison.nowApplicable).sort()).toEqual(['gamma negotiation/handshake-order@2024-11-05 n/a→pass', 'gamma negotiation/modern-envelope@2026-07-28 n/a→pass', 'gamma negotiation/version-per-revision@2024-11-05 n/a→pass'].sort());
    expect(comparison.noLongerApplicable).toEqual([]);
    expect(comparison.newClients.map((c) => c.name)).toEqual(['new']);
    expect(comparison.removedClients.map((c) => c.name)).toEqual(['old']);
    expect(comparison.versionChanges).toEqual([{ client: 'acme', from: 'acme-mcp@1.0.0', to: 'acme-mcp@1.1.0' }]);
    expect(comparison.notLoaded).toEqual([{ client: 'delta', loadError: results.clients.at(-1)!.loadError }]);
    // retry/bounded-on-5xx is new for every client in both runs: 5 revisions × 5 clients.
    expect(comparison.newCells).toHaveLength(25);
    expect(new Set(comparison.newCells.map((cell) => cell.scenario))).toEqual(new Set(['retry/bounded-on-5xx']));
    // old's cells are lost: the client is gone from a run that selects every client.
    expect(comparison.lostCells).toHaveLength(cellsOf('broken-retries-http-errors').length);
    expect(new Set(comparison.lostCells.map((cell) => cell.client))).toEqual(new Set(['old']));
    expect(comparison.allowedLostCells).toEqual([]);
    expect(comparison.notes).toEqual([expect.stringContaining('the previous run was not strict and this one is strict'), expect.stringContaining('4ed33d3a1b2c → 0.1.0 ffff00001111')]);
  });

  test('a run compared with itself changes nothing; a fail → n/a is lost coverage, not an improvement', () => {
    const same = compare(results, structuredClone(results));
    for (const list of [same.regressions, same.improvements, same.nowApplicable, same.noLongerApplicable, same.couldNotJudge, same.newlyFailingChecks, same.newCells, same.lostCells, same.allowedLostCells, same.newClients, same.removedClients]) expect(list).toEqual([]);
    const hidden = structuredClone(results);
    for (const cell of hidden.cells) if (cell.client === 'broken-skips-initialized' && cell.verdict === 'fail') Object.assign(cell, { verdict: 'n/a', reason: 'does not declare mode-legacy', checks: [], evidence: undefined, record: undefined });
    const comparison = compare(results, hidden);
    expect(comparison.improvements).toEqual([]);
    expect(described(comparison.noLongerApplicable)).toHaveLength(4);
  });

  test('a cell the suite could not judge in one of the runs is listed as such, never as a regression or improvement, and never as no change', () => {
    // The dead client's four inconclusive cells stand in for the reference client's passes, then the reverse.
    const withDead = (from: MatrixResults) => {
      const copy = structuredClone(from);
      const dead = new Map(cellsOf('dead-client').filter((cell) => cell.verdict === 'inconclusive').map((cell) => [`${cell.scenario}@${cell.revision}`, cell]));
      copy.cells = copy.cells.map((cell) => (cell.client === 'reference' && dead.has(`${cell.scenario}@${cell.revision}`) ? { ...structuredClone(dead.get(`${cell.scenario}@${cell.revision}`)!), client: 'reference' } : cell));
      return copy;
    };
    const unjudged = withDead(results);
    for (const [previous, current, from, to] of [[results, unjudged, 'pass', 'inconclusive'], [unjudged, results, 'inconclusive', 'pass']] as const) {
      const comparison = compare(previous, current);
      expect(comparison.regressions).toEqual([]);
      expect(comparison.improvements).toEqual([]);
      expect(described(comparison.couldNotJudge)).toEqual(cellsOf('dead-client').filter((cell) => cell.verdict === 'inconclusive').map((cell) => `reference ${cell.scenario}@${cell.revision} ${from}→${to}`));
      const text = renderComparisonText(comparison, current);
      expect(text.split('\n')[0]).toBe('matrix comparison: no regressions, 4 cells could not be judged in one of the runs');
      expect(text).toContain('Could not judge (4): inconclusive in one of the runs, so neither a regression nor an improvement');
      if (to === 'inconclusive') expect(text).toContain(`    negotiation/handshake-order @ 2025-11-25: pass → inconclusive — client-running: ${DEAD_REASON}`);
    }
  });

  test('says when a run is incomplete: its missing cells are lost cells, not changes, and the comparison is not final', () => {
    const comparison = compare(results, incomplete(results));
    expect(comparison.lostCells).toHaveLength(5);
    expect(renderComparisonText(comparison, incomplete(results)).split('\n')[0]).toBe('matrix comparison: 5 lost cells, the current run is incomplete (5 cells missing)');
    expect(comparison.notes).toEqual([expect.stringContaining('the current run is an incomplete run: 5 of 170 planned cells have no result (interrupted by SIGINT): those cells are lost cells')]);
    expect(comparisonExitCode(comparison)).toBe(3);
  });

  test('a change that came with a rerun says so', () => {
    const before = structuredClone(results);
    const cell = before.cells.find((c) => c.client === 'slow-starting-client' && c.attempts !== undefined)!;
    Object.assign(cell, { verdict: 'fail', reason: 'x: y', checks: [{ ...cell.checks[0]!, outcome: 'fail' }] });
    const text = renderComparisonText(compare(before, results), results);
    expect(text).toContain(`fail → pass (judged at time scale 2 after 1 inconclusive run: ${RERUN_REASON})`);
  });

  test('a cell that keeps failing but fails one more check is listed, not counted as a regression', () => {
    const worse = structuredClone(results);
    const cell = worse.cells.find((c) => c.client === 'broken-omits-version-header' && c.verdict === 'fail')!;
    // A check judged firmly (a MUST or SHOULD, not a precondition) that passed: now it fails.
    const passing = cell.checks.find((check) => check.outcome === 'pass' && check.precondition !== true && check.level !== 'MAY')!;
    passing.outcome = 'fail';
    const comparison = compare(results, worse);
    expect(comparison.regressions).toEqual([]);
    expect(comparison.newlyFailingChecks).toEqual([expect.objectContaining({ client: cell.client, scenario: cell.scenario, revision: cell.revision, from: 'fail', to: 'fail', newlyFailedChecks: [passing.name] })]);
  });

  test('renders as text and as Markdown, regressions first, with the version change they came with', () => {
    const { previous, current } = twoRuns();
    const comparison = compare(previous, current);
    const text = renderComparisonText(comparison, current);
    expect(text.split('\n')[0]).toBe(`matrix comparison: ${comparison.regressions.length} regressions, ${comparison.lostCells.length} lost cells`);
    expect(text).toContain('acme (acme-mcp@1.0.0 → acme-mcp@1.1.0): 4 cells\n');
    // The revisions that moved alike share a line, with the reason seen at the first.
    expect(text).toMatch(/\n    negotiation\/handshake-order @ 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25: pass → fail \[newly failed: initialized-sent, initialized-before-requests\] — initialized-sent: no notifications\/initialized was sent;.* \(at 2024-11-05\)\n/);
    // A client that no longer loads says why once, not on each of its cells.
    expect(text).toContain("delta: 12 cells — not loaded: Cannot find module './clients/third-party/missing.ts' imported from matrix.json\n    negotiation/handshake-order @ 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25: pass → error\n    negotiation/version-per-revision @ 2024-11-05, 2025-03-26: pass → error\n    negotiation/version-per-revision @ 2025-06-18, 2025-11-25: fail → error\n");
    expect(text.indexOf('Regressions')).toBeLessThan(text.indexOf('Improvements'));
    expect(text).toContain('New cells (25)');
    expect(text).toContain('  retry/bounded-on-5xx @ 2024-11-05: pass 4, error 1 (delta error)');
    expect(text).toContain('New clients (1)');
    expect(text).toContain('Removed clients (1)');
    expect(text).toContain(`Lost cells (${comparison.lostCells.length}): in the previous run, no result in this one — counted as regressions`);
    expect(text).toContain(`  old: ${comparison.lostCells.length} cells (were pass 12, warn 5) — the client is not in the current run\n`);
    expect(text.indexOf('Lost cells')).toBeLessThan(text.indexOf('Improvements'));
    const markdown = renderComparisonMarkdown(comparison, current);
    expect(markdown.split('\n')[0]).toBe(`## Matrix comparison: ${comparison.regressions.length} regressions, ${comparison.lostCells.length} lost cells`);
    expect(markdown).toContain('### Regressions');
    expect(markdown).toContain('- `acme` (`acme-mcp@1.0.0` → `acme-mcp@1.1.0`): 4');
    expect(markdown).toContain('  - `negotiation/handshake-order @ 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25`: pass → fail');
    expect(renderComparisonText(compare(results, results)).split('\n')[0]).toBe('matrix comparison: no regressions');
  });
});

describe('runCompare', () => {
  const write = (name: string, content: string) => {
    const path = join(work, name);
    writeFileSync(path, content);
    return path;
  };
  const run = async (argv: string[]) => {
    let out = '';
    let err = '';
    const code = await runCompare(argv, { out: (text) => (out += text), err: (text) => (err += text) });
    return { code, out, err };
  };

  test('exit 0 without regressions, 1 with, and writes the Markdown', async () => {
    const { previous, current } = twoRuns();
    const previousPath = write('previous.json', JSON.stringify(previous));
    const currentPath = write('current.json', `${JSON.stringify(current, null, 1)}\n`);
    expect(await run([previousPath, previousPath])).toMatchObject({ code: 0, err: '', out: expect.stringMatching(/^matrix comparison: no regressions\n/) });
    const markdownPath = join(work, 'comparison.md');
    const regressed = await run([previousPath, currentPath, '--markdown', markdownPath]);
    expect(regressed).toMatchObject({ code: 1, err: '' });
    expect(regressed.out).toBe(renderComparisonText(compare(previous, current), current));
    expect(readFileSync(markdownPath, 'utf8')).toBe(renderComparisonMarkdown(compare(previous, current), current));
  });

  test('exit 2 on bad usage and bad input, saying what is wrong', async () => {
    const good = write('good.json', JSON.stringify(results));
    const cases: [string[], RegExp][] = [
      [[good], /expected two results files\nusage: mcp-client-conformance compare/],
      [[good, good, good], /expected two results files/],
      [[good, good, '--colour'], /Unknown option '--colour'/],
      [[good, join(work, 'missing.json')], /cannot read .*missing\.json: no such file/],
      [[good, write('text.json', 'not json')], /text\.json is not JSON/],
      [[good, write('other.json', JSON.stringify({ format: 'something-else', formatVersion: 1 }))], /other\.json is not a matrix results file/],
      [[write('future.json', JSON.stringify({ ...results, formatVersion: RESULTS_FORMAT_VERSION + 1 })), good], /future\.json has format version 4; this version reads 2 and 3/],
      [[good, write('twice.json', JSON.stringify({ ...results, cells: [...results.cells, results.cells[0]] }))], /twice\.json has two cells for reference: negotiation\/handshake-order @ 2024-11-05/],
      [[good, good, '--markdown', join(good, 'out.md')], /--markdown .*out\.md cannot be written: .*good\.json is a file, not a folder/],
    ];
    for (const [argv, message] of cases) {
      const result = await run(argv);
      expect(result.code, argv.join(' ')).toBe(2);
      expect(result.err).toMatch(message);
    }
  });
});
