// The verdicts a client shares with the SDK it wraps (results/shared.ts), on a small synthetic run: a framework on
// an SDK whose row is in the matrix at its version, one on an SDK whose rows are at other versions, one declaring a
// range, and the cells that are not compared (passes, an SDK cell that is n/a, a framework wrapping nothing).
import { describe, expect, test } from 'vitest';
import { attributionText, nearestVersion, sharedVerdicts } from './shared.ts';
import { cellKey, RESULTS_FORMAT, RESULTS_FORMAT_VERSION, type Cell, type CellVerdict, type ClientInfo, type MatrixResults } from './results.ts';
import type { Revision } from '../protocol/revisions.ts';

const REVISION: Revision = '2025-11-25';

function client(name: string, extra: Partial<ClientInfo> = {}): ClientInfo {
  return { name, description: name, kind: 'module', revisions: [REVISION], features: [], ...extra };
}

/** A cell whose failed checks are `failed` (every check MUST, so a fail; `warn` cells fail a SHOULD). */
function cell(clientName: string, scenario: string, verdict: CellVerdict, failed: string[] = [], revision: Revision = REVISION): Cell {
  const level = verdict === 'warn' ? ('SHOULD' as const) : ('MUST' as const);
  const checks = [...failed.map((name) => ({ name, outcome: 'fail' as const })), { name: 'always-fine', outcome: 'pass' as const }].map((check) => ({ ...check, level, section: 's', url: 'u', detail: 'd', exchanges: [] }));
  return { client: clientName, scenario, revision, verdict, durationMs: 1, checks: verdict === 'n/a' || verdict === 'error' ? [] : checks };
}

function run(clients: ClientInfo[], cells: Cell[]): MatrixResults {
  return {
    format: RESULTS_FORMAT,
    formatVersion: RESULTS_FORMAT_VERSION,
    generatedAt: '2026-01-01T00:00:00.000Z',
    run: { suiteVersion: '0', node: 'v24', platform: 'linux', cpus: 2, durationMs: 1, strict: false, matrixFile: 'matrix.json', complete: true, plannedCells: cells.length, missingCells: 0, selection: { suites: [] } },
    scenarios: [],
    clients,
    cells,
  };
}

const SDK = '@modelcontextprotocol/sdk';

describe('a client wrapping an SDK whose row is in the matrix at that version', () => {
  const results = run(
    [
      client('sdk-v1@1.24', { package: SDK, version: '1.24.3' }),
      client('sdk-v1-sse@1.24', { package: SDK, version: '1.24.3' }),
      client('sdk-v1@latest', { package: SDK, version: '1.32.2' }),
      client('framework', { package: '@example/framework', version: '0.1.0', wraps: { package: SDK, version: '1.24.3' } }),
      client('own-implementation', { package: '@example/own', version: '1.0.0' }),
    ],
    [
      // The SDK at 1.24 fails a and warns b; the framework does the same, and more.
      cell('sdk-v1@1.24', 'a', 'fail', ['x']),
      cell('sdk-v1-sse@1.24', 'a', 'pass'),
      cell('framework', 'a', 'fail', ['x']),
      cell('sdk-v1@1.24', 'b', 'warn', ['y']),
      cell('framework', 'b', 'warn', ['y']),
      // The same verdict for another check is not shared.
      cell('sdk-v1@1.24', 'c', 'fail', ['x']),
      cell('framework', 'c', 'fail', ['x', 'z']),
      // The SDK passes: the framework's own.
      cell('sdk-v1@1.24', 'd', 'pass'),
      cell('sdk-v1@latest', 'd', 'fail', ['x']),
      cell('framework', 'd', 'fail', ['x']),
      // The SDK could not be judged, or has no cell: nothing to say.
      cell('sdk-v1@1.24', 'e', 'n/a'),
      cell('framework', 'e', 'fail', ['x']),
      cell('framework', 'f', 'fail', ['x']),
      // Another revision is another case.
      cell('sdk-v1@1.24', 'g', 'fail', ['x'], '2025-06-18'),
      cell('framework', 'g', 'fail', ['x']),
      cell('sdk-v1@1.24', 'g', 'pass'),
      // A pass is never marked; a client wrapping nothing neither.
      cell('framework', 'h', 'pass'),
      cell('sdk-v1@1.24', 'h', 'pass'),
      cell('own-implementation', 'a', 'fail', ['x']),
    ],
  );
  const shared = sharedVerdicts(results);
  const of = (scenario: string, clientName = 'framework') => shared.get(cellKey({ client: clientName, scenario, revision: REVISION }));

  test('a fail or warn with the same failed checks at the same case is shared with the rows of that exact version', () => {
    expect(of('a')).toEqual({ shared: true, rows: ['sdk-v1@1.24'], sdk: { package: SDK, version: '1.24.3' } });
    expect(of('b')).toEqual({ shared: true, rows: ['sdk-v1@1.24'], sdk: { package: SDK, version: '1.24.3' } });
    expect(attributionText(of('a')!)).toBe("shared with sdk-v1@1.24: the SDK's verdict");
  });

  test('other failed checks, or a pass of the SDK at that case, make it the client’s own; another version’s row is not compared', () => {
    expect(of('c')).toEqual({ shared: false, rows: ['sdk-v1@1.24'], sdk: { package: SDK, version: '1.24.3' } });
    expect(of('d')).toEqual({ shared: false, rows: ['sdk-v1@1.24'], sdk: { package: SDK, version: '1.24.3' } });
    expect(of('g')?.shared).toBe(false);
    expect(attributionText(of('d')!)).toBe("not shared: sdk-v1@1.24 judges it otherwise, the client's own");
  });

  test('no judged SDK cell at the case, a pass of the client, or a client wrapping nothing: no attribution', () => {
    expect([of('e'), of('f'), of('h'), of('a', 'own-implementation'), of('a', 'sdk-v1@1.24')]).toEqual([undefined, undefined, undefined, undefined, undefined]);
    expect(shared.size).toBe(5);
  });
});

describe('a client wrapping a version no row has', () => {
  const clients = [
    client('python-mcp@1', { package: 'mcp', version: '1.30.0' }),
    client('python-mcp@2', { package: 'mcp', version: '2.3.0' }),
    client('python-mcp@broken', { package: 'mcp', version: '1.26.0', loadError: 'not set up' }),
    client('uipath', { wraps: { package: 'mcp', version: '1.26.0' } }),
    client('bundler', { wraps: { package: 'mcp', version: '^1.0.0' } }),
    client('stranger', { wraps: { package: 'another-sdk', version: '1.0.0' } }),
  ];
  const cells = ['python-mcp@1', 'python-mcp@2', 'uipath', 'bundler', 'stranger'].map((name) => cell(name, 'a', 'fail', ['x']));
  const shared = sharedVerdicts(run(clients, cells));

  test('is matched with the nearest loaded row of its package, and says which version it took', () => {
    const uipath = shared.get(cellKey({ client: 'uipath', scenario: 'a', revision: REVISION }))!;
    expect(uipath).toEqual({ shared: true, rows: ['python-mcp@1'], sdk: { package: 'mcp', version: '1.30.0' }, declared: '1.26.0' });
    expect(attributionText(uipath)).toBe("shared with python-mcp@1 (nearest: mcp 1.30.0; it wraps 1.26.0): the SDK's verdict");
    expect(shared.get(cellKey({ client: 'bundler', scenario: 'a', revision: REVISION }))?.rows).toEqual(['python-mcp@1']);
  });

  test('a package with no row at all is matched with nothing', () => {
    expect(shared.has(cellKey({ client: 'stranger', scenario: 'a', revision: REVISION }))).toBe(false);
  });
});

test('the nearest version: the highest a range admits, else the closest by major, minor, patch', () => {
  const versions = ['1.12.3', '1.24.3', '1.32.2', '2.0.0', '2.4.0'];
  expect(nearestVersion(versions, '1.30.0')).toBe('1.32.2');
  expect(nearestVersion(versions, '1.26.0')).toBe('1.24.3');
  expect(nearestVersion(versions, '^1.20.0')).toBe('1.32.2');
  expect(nearestVersion(versions, '~1.24.0')).toBe('1.24.3');
  expect(nearestVersion(versions, '^2.0.0')).toBe('2.4.0');
  expect(nearestVersion(versions, '>=1.13.0')).toBe('2.4.0');
  expect(nearestVersion(['0.3.0', '0.4.1'], '^0.4.0')).toBe('0.4.1');
  expect(nearestVersion(versions, '^3.0.0')).toBe('2.4.0');
  expect(nearestVersion(versions, '1.0.0')).toBe('1.12.3');
  expect(nearestVersion(['1.20.9', '1.28.0'], '1.24.0')).toBe('1.20.9');
  expect(nearestVersion(['1.20.0', '1.28.0'], '1.24.0')).toBe('1.28.0');
  expect(nearestVersion(versions, 'latest')).toBeUndefined();
  expect(nearestVersion([], '1.0.0')).toBeUndefined();
});
