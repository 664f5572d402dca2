// The HTML report in a real browser (Debian's Chromium through playwright-core): it makes no request, logs no error,
// draws one cell per result in its verdict's colour (inconclusive its own), filters, opens a cell's details with its
// rule, reason, checks (preconditions marked), reruns and evidence, says when the run is incomplete, stays quick at full size, and its screenshot shows the verdict colours. Also checks with Chromium's XML
// parser that junit.xml is well-formed.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { inflateSync } from 'node:zlib';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { failOnLeakedHandles } from '../../suites/leaks.ts';
import { renderHtml, VERDICT_COLOURS } from '../../results/html.ts';
import { renderJunit } from '../../results/junit.ts';
import { heatMap } from '../../results/pictures.ts';
import { decodeRecord, evidenceText, type CellVerdict, type MatrixResults } from '../../results/results.ts';
import { sequenceOf } from '../../results/sequence.ts';
import { buildFixture, DEAD_REASON, fullSizeResults, HOSTILE_TEXT, incomplete, RERUN_REASON } from './testdata/fixture.ts';

// Page functions run in Chromium; this project's TypeScript lib has no DOM, so what they touch is declared here.
type Dom = any;
declare const document: Dom;
declare const DOMParser: Dom;
declare function getComputedStyle(element: Dom): { visibility: string; backgroundColor: string };
declare function requestAnimationFrame(callback: () => void): number;

/** Debian's Chromium; elsewhere, point CHROMIUM_PATH at a Chromium or Chrome binary. */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const VIEWPORT = { width: 1440, height: 1000 };
/** Screenshots to look at after a run (reports/ is not committed). */
const SHOTS = resolve(import.meta.dirname, '..', '..', 'reports', 'html-report-test');

/** Hex colour → the `rgb(r, g, b)` getComputedStyle returns, and its channels. */
const channels = (hex: string) => [1, 3, 5].map((at) => parseInt(hex.slice(at, at + 2), 16)) as [number, number, number];
const rgb = (hex: string) => `rgb(${channels(hex).join(', ')})`;

/** Decodes an 8-bit, non-interlaced RGB or RGBA PNG (what Chromium writes) into its pixels. */
function decodePng(png: Buffer): { width: number; height: number; pixel(x: number, y: number): [number, number, number] } {
  expect(png.subarray(0, 8).toString('hex'), 'PNG signature').toBe('89504e470d0a1a0a');
  let at = 8;
  let width = 0;
  let height = 0;
  let bytesPerPixel = 0;
  const data: Buffer[] = [];
  while (at < png.length) {
    const length = png.readUInt32BE(at);
    const type = png.toString('latin1', at + 4, at + 8);
    const body = png.subarray(at + 8, at + 8 + length);
    if (type === 'IHDR') {
      width = body.readUInt32BE(0);
      height = body.readUInt32BE(4);
      const [depth, colourType, , , interlace] = [body[8], body[9], body[10], body[11], body[12]];
      expect({ depth, colourType: colourType === 2 || colourType === 6, interlace }).toEqual({ depth: 8, colourType: true, interlace: 0 });
      bytesPerPixel = colourType === 6 ? 4 : 3;
    } else if (type === 'IDAT') data.push(body);
    else if (type === 'IEND') break;
    at += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(data));
  const stride = width * bytesPerPixel;
  const pixels = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]!;
    if (filter > 4) throw new Error(`PNG filter ${filter}`);
    const line = y * (stride + 1) + 1;
    for (let x = 0; x < stride; x++) {
      const left = x >= bytesPerPixel ? pixels[y * stride + x - bytesPerPixel]! : 0;
      const up = y > 0 ? pixels[(y - 1) * stride + x]! : 0;
      let predictor = 0;
      if (filter === 1) predictor = left;
      else if (filter === 2) predictor = up;
      else if (filter === 3) predictor = (left + up) >> 1;
      else if (filter === 4) {
        const upLeft = y > 0 && x >= bytesPerPixel ? pixels[(y - 1) * stride + x - bytesPerPixel]! : 0;
        const p = left + up - upLeft;
        const [a, b, c] = [Math.abs(p - left), Math.abs(p - up), Math.abs(p - upLeft)];
        predictor = a <= b && a <= c ? left : b <= c ? up : upLeft;
      }
      pixels[y * stride + x] = (raw[line + x]! + predictor) & 0xff;
    }
  }
  return { width, height, pixel: (x, y) => [pixels[y * stride + x * bytesPerPixel]!, pixels[y * stride + x * bytesPerPixel + 1]!, pixels[y * stride + x * bytesPerPixel + 2]!] };
}

const haveChromium = existsSync(CHROMIUM);
if (!haveChromium) console.warn(`html-report.test.ts: ${CHROMIUM} not found; the browser tests are SKIPPED (install chromium, or set CHROMIUM_PATH)`);

failOnLeakedHandles();

describe.skipIf(!haveChromium)(`report.html in Chromium (${haveChromium ? CHROMIUM : `skipped: no ${CHROMIUM}`})`, { timeout: 0 }, () => {
  let results: MatrixResults;
  let server: Server;
  let base: string;
  let browser: Browser;
  let page: Page;
  const pages: Record<string, string> = {};
  /** What the server was asked for, and what the page tried to load, logged or threw. */
  const served: string[] = [];
  const problems: string[] = [];

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    // The browser starts while the fixture's scenarios run.
    const launching = chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true, timeout: 0 });
    results = await buildFixture().catch(async (error: unknown) => {
      await (await launching).close();
      throw error;
    });
    browser = await launching;
    pages['/'] = renderHtml(results);
    pages['/full'] = renderHtml(fullSizeResults(results));
    pages['/incomplete'] = renderHtml(incomplete(results));
    server = createServer((request, response) => {
      served.push(request.url ?? '');
      const body = pages[request.url ?? ''];
      response.writeHead(body === undefined ? 404 : 200, { 'content-type': 'text/html; charset=utf-8' }).end(body ?? 'not found');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    // The small report's tests share one page (beforeEach puts it back as loaded); the full-size test opens its own.
    await open('/');
  }, 0);

  afterAll(async () => {
    await page?.close();
    await browser?.close();
    await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  });

  /** Opens `path` in the page: every request but the page itself is refused and recorded, and so is every error. */
  async function open(path: string): Promise<{ loadMs: number }> {
    await page?.close();
    page = await browser.newPage({ viewport: VIEWPORT });
    // No clock bounds (a loaded machine is slow, not broken): a page that never gets ready fails on its problems instead.
    page.setDefaultTimeout(0);
    const url = `${base}${path}`;
    await page.route('**/*', (route) => {
      if (route.request().url() === url) return route.continue();
      problems.push(`request: ${route.request().url()}`);
      return route.abort();
    });
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') problems.push(`console ${message.type()}: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('dialog', (dialog) => {
      problems.push(`dialog: ${dialog.message()}`);
      void dialog.dismiss();
    });
    const started = performance.now();
    await page.goto(url);
    await page.waitForSelector('html[data-ready="true"]');
    return { loadMs: performance.now() - started };
  }

  // Each test starts from the report as loaded: every filter on, no details open.
  beforeEach(async () => {
    // After the full-size or the incomplete run's test (tests run in any order), the small report is opened again.
    // The report opens at the problems only (when there are any): "Show all" for every cell.
    if (!page.url().endsWith('/')) await open('/');
    else await page.keyboard.press('Escape');
    await page.click('button:has-text("Show all")');
  });

  afterEach(() => {
    expect(problems, 'requests, console errors, page errors or dialogs').toEqual([]);
    expect(served.filter((path) => !(path in pages)), 'requests the server saw besides the pages').toEqual([]);
  });

  const shownCells = () => page.$$eval('td.c[data-i]', (tds) => tds.filter((td) => (td as Dom).offsetParent !== null && getComputedStyle(td).visibility !== 'hidden').length);
  const shownRows = () => page.$$eval('tr.case', (rows) => rows.filter((row) => !(row as Dom).hidden).map((row) => `${(row as Dom).dataset.scenario}@${(row as Dom).dataset.revision}`));
  const cases = () => [...new Set(results.cells.map((cell) => `${cell.scenario}@${cell.revision}`))];

  test('one cell per result, in its verdict colour, with package@version and counts per client', async () => {
    const drawn = await page.$$eval('td.c', (tds) =>
      tds.map((td) => {
        const row = td.parentElement as Dom;
        return { i: Number((td as Dom).dataset.i), scenario: row.dataset.scenario, revision: row.dataset.revision, column: (td as Dom).cellIndex - 2, colour: getComputedStyle(td).backgroundColor, title: (td as Dom).title };
      }),
    );
    expect(drawn).toHaveLength(results.cells.length);
    const columns = results.clients.map((client) => client.name);
    for (const cell of drawn) {
      const result = results.cells[cell.i]!;
      expect({ scenario: cell.scenario, revision: cell.revision, client: columns[cell.column] }).toEqual({ scenario: result.scenario, revision: result.revision, client: result.client });
      expect(cell.colour, `${result.client} ${result.scenario}@${result.revision} ${result.verdict}`).toBe(rgb(VERDICT_COLOURS[result.verdict]));
      expect(cell.title).toContain(`${result.client} · ${result.scenario} @ ${result.revision}: ${result.verdict}`);
    }
    expect(await page.$$eval('th.ch', (ths) => ths.map((th) => (th as Dom).innerText.replace(/\s+/g, ' ').trim()))).toEqual(results.clients.map((client) => [client.name, client.package && `${client.package}${client.version ? `@${client.version}` : ''}`].filter(Boolean).join(' ')));
    const summary = await page.$$eval('#clients tbody tr', (rows) => rows.map((row) => Array.from((row as Dom).cells as Dom[]).slice(4).map((td) => td.textContent)));
    expect(summary[6]).toEqual(['5', '4', '0', '0', '0', '8']);
    // Keyboard: one tab stop for the grid, on the first cell.
    expect(await page.$$eval('td.c[tabindex="0"]', (tds) => tds.length)).toBe(1);
  });

  test('filters by suite, era and revision, and verdict hide and show rows and cells', async () => {
    const all = cases();
    expect(await shownRows()).toEqual(all);
    expect(await shownCells()).toBe(results.cells.length);

    await page.click('label[data-suite="negotiation"]');
    expect(await shownRows()).toEqual(all.filter((c) => !c.startsWith('negotiation/')));
    expect(await page.isHidden('tr.suite:has-text("negotiation")')).toBe(true);
    await page.click('label[data-suite="negotiation"]');

    await page.click('label[data-era="Streamable HTTP"]');
    expect(await shownRows()).toEqual(all.filter((c) => c.endsWith('@2024-11-05') || c.endsWith('@2026-07-28')));
    await page.click('label[data-revision="2025-06-18"]');
    expect(await shownRows()).toEqual(all.filter((c) => !c.endsWith('@2025-03-26') && !c.endsWith('@2025-11-25')));
    expect(await page.isChecked('label[data-era="Streamable HTTP"] input')).toBe(true);
    await page.click('button:has-text("Show all")');

    await page.click('label[data-verdict="pass"]');
    expect(await shownCells()).toBe(results.cells.filter((cell) => cell.verdict !== 'pass').length);
    const withProblems = all.filter((c) => results.cells.some((cell) => `${cell.scenario}@${cell.revision}` === c && cell.verdict !== 'pass'));
    expect(await shownRows()).toEqual(withProblems);
    await page.click('button:has-text("Problems only")');
    expect(await shownCells()).toBe(results.cells.filter((cell) => ['fail', 'warn', 'inconclusive', 'error'].includes(cell.verdict)).length);
    expect(await page.textContent('#status')).toBe(`showing ${withProblems.length} of ${all.length} cases, ${await shownCells()} of ${results.cells.length} cells`);
    await page.click('button:has-text("Show all")');
    expect(await shownCells()).toBe(results.cells.length);
  });

  test('a failing cell opens its details: rule, reason, checks and evidence; Enter and arrows work from the keyboard', async () => {
    const index = results.cells.findIndex((cell) => cell.client === 'broken-omits-version-header' && cell.verdict === 'fail');
    const cell = results.cells[index]!;
    const scenario = results.scenarios.find((s) => s.id === cell.scenario)!;
    await page.click(`td[data-i="${index}"]`);
    const panel = page.locator('#detail');
    await panel.waitFor({ state: 'visible' });
    expect(await panel.locator('h2').textContent()).toBe(`${cell.scenario} @ ${cell.revision}`);
    expect(await panel.locator('.badge').textContent()).toBe('fail');
    expect(await panel.locator('.spec a').getAttribute('href')).toBe(scenario.spec.url);
    expect(await panel.locator('.spec a').textContent()).toBe(scenario.spec.section);
    expect(await panel.locator('.spec .level').textContent()).toBe(scenario.spec.level);
    expect(await panel.locator('.reason').textContent()).toBe(cell.reason);
    expect(await panel.locator('pre.evidence').textContent()).toBe(evidenceText(cell));
    const checks = await panel.locator('ul.checks li').evaluateAll((items) => items.map((li) => ({ mark: li.querySelector('.mark')!.textContent, name: li.querySelector('code')!.textContent, href: li.querySelector('a')!.getAttribute('href') })));
    // Failed checks first (a MAY finding after the rules), then the undecided, then the passes.
    const order = { fail: 0, inconclusive: 1, pass: 2 };
    const sorted = [...cell.checks].sort((a, b) => order[a.outcome] - order[b.outcome] || Number(a.level === 'MAY') - Number(b.level === 'MAY'));
    expect(checks).toEqual(sorted.map((check) => ({ mark: { pass: '✓', fail: '✗', inconclusive: '?' }[check.outcome], name: check.name, href: check.url })));
    expect(await page.locator(`td[data-i="${index}"]`).evaluate((td) => td === document.activeElement)).toBe(true);
    await page.screenshot({ path: join(SHOTS, 'details.png') });

    // Escape closes; then from the keyboard: the cell to the right, Enter.
    await page.keyboard.press('Escape');
    await panel.waitFor({ state: 'hidden' });
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('Enter');
    await panel.waitFor({ state: 'visible' });
    const next = results.cells.find((c) => c.client === results.clients[results.clients.findIndex((client) => client.name === cell.client) + 1]!.name && c.scenario === cell.scenario && c.revision === cell.revision)!;
    expect(await panel.locator('h2').textContent()).toBe(`${next.scenario} @ ${next.revision}`);
    expect(await panel.locator('.badge').textContent()).toBe(next.verdict);
    await page.keyboard.press('Escape');
  });

  test('an inconclusive cell says why the suite could not judge it, its precondition marked; a rerun cell lists its runs', async () => {
    const index = results.cells.findIndex((cell) => cell.client === 'dead-client' && cell.verdict === 'inconclusive');
    const cell = results.cells[index]!;
    expect(await page.locator(`td[data-i="${index}"]`).textContent()).toBe('?');
    await page.click(`td[data-i="${index}"]`);
    const panel = page.locator('#detail');
    await panel.waitFor({ state: 'visible' });
    expect(await panel.locator('.badge').textContent()).toBe('inconclusive');
    expect(await panel.locator('h3').first().textContent()).toBe('Could not judge because');
    expect(await panel.locator('.reason').textContent()).toBe(cell.reason);
    expect(cell.reason).toContain(DEAD_REASON);
    const running = panel.locator('ul.checks li', { hasText: 'client-running' });
    expect(await running.getAttribute('data-outcome')).toBe('inconclusive');
    expect(await running.locator('.mark').textContent()).toBe('?');
    expect(await running.locator('.tag').textContent()).toBe('precondition');
    expect(await panel.locator('pre.evidence').textContent()).toBe(evidenceText(cell));
    await page.screenshot({ path: join(SHOTS, 'inconclusive.png') });

    // The fixture's own rerun cell: a real case may have been run again too, on a loaded machine, with runs of its own.
    // (The panel, wide enough for an exchange's diagram, covers much of the grid: closed first.)
    const rerun = results.cells.findIndex((c) => c.attempts?.length === 1 && c.attempts[0]!.reason === RERUN_REASON);
    await page.keyboard.press('Escape');
    await page.click(`td[data-i="${rerun}"]`);
    expect(await panel.locator('ol.attempts li').allTextContents()).toEqual([`inconclusive at time scale 1: ${RERUN_REASON}`, 'pass at time scale 2 (this verdict)']);
    expect(await panel.locator('dd', { hasText: 'judged at time scale 2' }).textContent()).toMatch(/^pass in [\d.]+ ms, judged at time scale 2 after 1 inconclusive run: /);
    await page.keyboard.press('Escape');
  });

  test('an incomplete run says so above the grid, with how many cells are missing and how to resume', async () => {
    expect(await page.locator('#incomplete').count()).toBe(0);
    await open('/incomplete');
    expect(await page.locator('#incomplete').textContent()).toBe('incomplete run: 5 of 170 planned cells have no result (interrupted by SIGINT): mcp-client-conformance matrix --resume <reports folder> runs only those.');
    expect(await page.locator('td.c[data-i]').count()).toBe(165);
  });

  test('text a crashing client printed is shown as text, never run as markup', async () => {
    const index = results.cells.findIndex((cell) => cell.client === 'crashing-client' && cell.verdict === 'error');
    await page.click(`td[data-i="${index}"]`);
    expect(await page.locator('#detail .reason').textContent()).toBe(results.cells[index]!.reason);
    expect(results.cells[index]!.reason).toContain(HOSTILE_TEXT.slice(0, 20));
    expect(await page.locator('#detail script, #detail pre pre').count()).toBe(0);
    const unloadable = results.cells.findIndex((cell) => cell.client === 'unloadable-client');
    await page.keyboard.press('Escape');
    await page.click(`td[data-i="${unloadable}"]`);
    expect(await page.locator('#detail pre.evidence').textContent()).toBe(results.clients.at(-1)!.loadError);
    await page.click('#detail .close');
    await page.locator('#detail').waitFor({ state: 'hidden' });
  });

  test('junit.xml is well-formed for Chromium’s XML parser, hostile text included', async () => {
    const parsed = await page.evaluate((xml) => {
      const document = new DOMParser().parseFromString(xml, 'application/xml');
      const error = document.querySelector('parsererror');
      return { error: error?.textContent ?? null, suites: document.querySelectorAll('testsuite').length, cases: document.querySelectorAll('testcase').length, failures: document.querySelectorAll('failure').length, errors: document.querySelectorAll('error').length, skipped: document.querySelectorAll('skipped').length, warned: document.querySelectorAll('system-out').length };
    }, renderJunit(results));
    const count = (verdict: CellVerdict) => results.cells.filter((cell) => cell.verdict === verdict).length;
    // <system-out>: a warning, why a case could not be judged, or what a rerun said.
    const withOutput = results.cells.filter((cell) => cell.verdict === 'warn' || cell.verdict === 'inconclusive' || cell.attempts !== undefined).length;
    expect(parsed).toEqual({ error: null, suites: results.clients.length, cases: results.cells.length, failures: count('fail'), errors: count('error'), skipped: count('n/a') + count('inconclusive'), warned: withOutput });
  });

  test('at full size (30 clients × 148 cases) it loads, filters and opens a cell, and the screenshot shows the verdict colours', async () => {
    const full = fullSizeResults(results);
    const { loadMs } = await open('/full');
    const renderMs = Number(await page.getAttribute('html', 'data-render-ms'));
    expect(await page.locator('td.c[data-i]').count()).toBe(full.cells.length);
    // It opens at the problems only; the filter is timed from every cell shown.
    await page.click('button:has-text("Show all")');
    // Times are reported, never asserted (npm run bench measures; typical: render 50–150 ms, load 0.5–1 s for 8 MB).
    expect(renderMs, 'the page reports how long building the grid took').toBeGreaterThan(0);
    const filterMs = await page.evaluate(async () => {
      const started = performance.now();
      (document.querySelector('label[data-verdict="pass"] input') as Dom).click();
      await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve)));
      return performance.now() - started;
    });
    expect(await page.locator('td.c.v-pass').first().isVisible(), 'hiding every pass').toBe(false);
    await page.click('button:has-text("Show all")');
    const openMs = await page.evaluate(async () => {
      const started = performance.now();
      document.querySelector('td.c.v-fail').click();
      await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve)));
      return document.querySelector('#detail pre.evidence') ? performance.now() - started : Infinity;
    });
    expect(openMs, 'opening a failing cell shows its evidence').not.toBe(Infinity);
    console.log(`report.html at full size: load ${loadMs.toFixed(0)} ms, grid ${renderMs} ms, hide passes ${filterMs.toFixed(0)} ms, open a cell ${openMs.toFixed(0)} ms`);
    await page.keyboard.press('Escape');

    // The grid, below the problems and the heat map.
    await page.evaluate(() => document.querySelector('.grid-wrap').scrollIntoView());
    const png = await page.screenshot();
    writeFileSync(join(SHOTS, 'full-size.png'), png);
    expect(png.length).toBeGreaterThan(20_000);
    const image = decodePng(png);
    expect({ width: image.width, height: image.height }).toEqual(VIEWPORT);
    const seen = new Map<string, number>();
    const distinct = new Set<string>();
    for (let y = 0; y < image.height; y += 2) {
      for (let x = 0; x < image.width; x += 2) {
        const [r, g, b] = image.pixel(x, y);
        distinct.add(`${r >> 4},${g >> 4},${b >> 4}`);
        for (const [verdict, hex] of Object.entries(VERDICT_COLOURS)) {
          const [vr, vg, vb] = channels(hex);
          if (Math.abs(r - vr) + Math.abs(g - vg) + Math.abs(b - vb) <= 6) seen.set(verdict, (seen.get(verdict) ?? 0) + 1);
        }
      }
    }
    // Every verdict colour covers a real area of the first screen (thousands of sampled pixels for the common ones).
    for (const verdict of Object.keys(VERDICT_COLOURS)) expect(seen.get(verdict) ?? 0, `${verdict} pixels`).toBeGreaterThan(200);
    expect(distinct.size, 'not blank').toBeGreaterThan(50);
  });

  test('the first screen shows the problems: by rule, the grid at problems only, the heat map beside; the page uses its full width', async () => {
    await open('/');
    const problemCells = results.cells.filter((cell) => ['fail', 'warn', 'inconclusive', 'error'].includes(cell.verdict));
    // As loaded (no "Show all"): the grid shows the problems only, pass and n/a unticked.
    expect(await page.isChecked('label[data-verdict="pass"] input')).toBe(false);
    expect(await page.isChecked('label[data-verdict="n/a"] input')).toBe(false);
    expect(await shownCells()).toBe(problemCells.length);
    // The problems list is on the first screen, its first rule a failed one, every problem cell one click away.
    const list = page.locator('#problems-list');
    const box = (await list.boundingBox())!;
    expect(box.y).toBeLessThan(VIEWPORT.height / 2);
    expect(await list.locator('.rule-problem').first().getAttribute('class')).toContain('fail');
    const linked = await list.locator('button.case-link').evaluateAll((buttons) => buttons.map((b) => Number((b as Dom).dataset.i)));
    expect(linked.length).toBeGreaterThan(0);
    for (const index of linked) expect(['fail', 'warn', 'inconclusive', 'error']).toContain(results.cells[index]!.verdict);
    // Each rule lists its cases (up to 24, the grid has the rest), and every client that failed has its cases there.
    for (const client of new Set(results.cells.filter((cell) => cell.verdict === 'fail').map((cell) => cell.client))) expect(linked.some((index) => results.cells[index]!.client === client), client).toBe(true);
    // The full width: the grid and the overview span the page (less its margins), not a column of it.
    const width = await page.evaluate(() => ({ grid: document.querySelector('.grid-wrap').getBoundingClientRect().width, overview: document.querySelector('.overview').getBoundingClientRect().width, page: document.documentElement.clientWidth }));
    expect(width.grid).toBeGreaterThan(width.page - 60);
    expect(width.overview).toBeGreaterThan(width.page - 60);
    expect((await page.locator('#heatmap').boundingBox())!.y).toBeLessThan(VIEWPORT.height);
    await page.screenshot({ path: join(SHOTS, 'first-screen.png') });
    console.log(`screenshots: ${SHOTS}`);
  });

  test('the heat map has a cell per client × rule some client breaks, coloured by what the client did there', async () => {
    const map = heatMap(results);
    expect(map.rules.length).toBeGreaterThan(0);
    const drawn = await page.locator('#heatmap g.hm-cell').evaluateAll((cells) => cells.map((g) => ({ client: (g as Dom).dataset.client, rule: (g as Dom).dataset.rule, kind: (g as Dom).getAttribute('class').split(' ')[1] })));
    expect(drawn).toHaveLength(results.clients.length * map.rules.length);
    const expected = map.cells.map((cell) => ({ client: cell.client, rule: cell.rule, kind: cell.broken > 0 ? (cell.failed > 0 ? 'fail' : 'warn') : cell.judged > 0 ? 'kept' : 'unjudged' }));
    expect(drawn).toEqual(expect.arrayContaining(expected));
    // The variants break what they declare: initialized-sent's rule is a red cell of broken-skips-initialized.
    const skips = drawn.filter((cell) => cell.client === 'broken-skips-initialized' && cell.kind === 'fail');
    expect(skips.length).toBeGreaterThan(0);
    expect(drawn.filter((cell) => cell.client === 'reference').every((cell) => cell.kind === 'kept' || cell.kind === 'unjudged')).toBe(true);
    await page.locator('#heatmap').screenshot({ path: join(SHOTS, 'heat-map.png') });
  });

  test('a failing cell draws its exchange as a sequence diagram, the exchange that decided it marked', async () => {
    const index = results.cells.findIndex((cell) => cell.client === 'broken-skips-initialized' && cell.verdict === 'fail' && cell.scenario === 'negotiation/handshake-order' && cell.revision === '2025-06-18');
    const cell = results.cells[index]!;
    const model = sequenceOf(cell, decodeRecord(cell.record!))!;
    const marked = model.steps.filter((step) => step.decided.length > 0).map((step) => String(step.seq));
    expect(marked.length).toBeGreaterThan(0);
    // From the problems list: the case's button opens its panel.
    await page.click(`button.case-link[data-i="${index}"]`);
    const panel = page.locator('#detail');
    await panel.waitFor({ state: 'visible' });
    expect(await panel.locator('h2').textContent()).toBe(`${cell.scenario} @ ${cell.revision}`);
    expect(await panel.locator('ul.checks li').first().getAttribute('data-outcome')).toBe('fail');
    const diagram = panel.locator('svg.seq');
    expect(await diagram.locator('text.lane-head').allTextContents()).toEqual(['client', 'server']);
    expect(await diagram.locator('g.step').count()).toBe(model.steps.length);
    expect(await diagram.locator('g.step.decided').evaluateAll((steps) => steps.map((g) => (g as Dom).dataset.seq))).toEqual(marked);
    expect(await diagram.locator('g.step.decided text.why').first().textContent()).toContain('decided');
    // The diagram comes before the checks, on the panel's first screen.
    expect((await diagram.boundingBox())!.y).toBeLessThan(VIEWPORT.height);
    await page.screenshot({ path: join(SHOTS, 'failing-cell.png') });
    await panel.screenshot({ path: join(SHOTS, 'failing-cell-panel.png') });
    await page.keyboard.press('Escape');
  });

  test('given earlier runs, the report draws the trend across nights', async () => {
    const earlier = structuredClone(results);
    earlier.generatedAt = '2026-11-30T02:00:00.000Z';
    // A night before, the variant that skips initialized still passed everything.
    for (const cell of earlier.cells) if (cell.client === 'broken-skips-initialized' && cell.verdict === 'fail') cell.verdict = 'pass';
    pages['/trend'] = renderHtml(results, { history: [earlier] });
    await open('/trend');
    expect(await page.locator('#trend rect.trend-bar').count()).toBeGreaterThan(2);
    const row = await page.locator('#trend-table tr', { hasText: 'broken-skips-initialized' }).locator('td').allTextContents();
    const failing = results.cells.filter((cell) => cell.client === 'broken-skips-initialized' && (cell.verdict === 'fail' || cell.verdict === 'warn')).length;
    const before = earlier.cells.filter((cell) => cell.client === 'broken-skips-initialized' && (cell.verdict === 'fail' || cell.verdict === 'warn')).length;
    expect(row).toEqual(['broken-skips-initialized', String(before), String(failing)]);
    await page.locator('#trend-section').screenshot({ path: join(SHOTS, 'trend.png') });
  });
});
