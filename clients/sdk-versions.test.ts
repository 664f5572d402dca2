// Every official-SDK entry of the compatibility matrix loads through its factory and drives the version it names:
// a few basic scenarios at revisions the entry speaks reach the reference server and come back with a verdict.
import { dirname } from 'node:path';
import { describe, expect, test } from 'vitest';
import { installedPackage, readMatrixFile } from '../scripts/matrix/matrix-file.ts';
import { LEGACY_REVISIONS, STREAMABLE_REVISIONS, type Revision } from '../protocol/revisions.ts';
import { idempotentClose } from '../suites/disposal/idempotent-close.ts';
import { deleteIssuedSession } from '../suites/disposal/delete-issued-session.ts';
import { sseStreamClosed } from '../suites/disposal/sse-stream-closed.ts';
import { explain } from '../suites/evidence.ts';
import { failOnLeakedHandles } from '../suites/leaks.ts';
import { handshakeOrder } from '../suites/negotiation/handshake-order.ts';
import { modernEnvelope } from '../suites/negotiation/modern-envelope.ts';
import { runScenario } from '../suites/runner.ts';
import type { Scenario } from '../suites/scenario.ts';
import type { ClientAdapter } from './adapter.ts';
import { loadAdapter } from './load.ts';

const MODERN: Revision = '2026-07-28';
const matrix = readMatrixFile();
const entries = matrix.clients.filter((entry) => entry.adapter === './clients/sdk-v1.ts' || entry.adapter === './clients/sdk-v2.ts');

/** A handshake and a disposal at the newest legacy revision the adapter speaks, and the modern envelope where it reaches 2026-07-28. */
function basicCases(adapter: ClientAdapter): { scenario: Scenario; revision: Revision }[] {
  const newest = (revisions: readonly Revision[]) => revisions.findLast((revision) => adapter.revisions.includes(revision));
  const legacy = newest(LEGACY_REVISIONS);
  const streamable = newest(STREAMABLE_REVISIONS);
  const modern = adapter.revisions.includes(MODERN);
  return [
    legacy && { scenario: handshakeOrder, revision: legacy },
    streamable ? { scenario: deleteIssuedSession, revision: streamable } : legacy && { scenario: sseStreamClosed, revision: legacy },
    modern && { scenario: modernEnvelope, revision: MODERN },
    modern && !legacy && { scenario: idempotentClose, revision: MODERN },
  ].filter((c) => typeof c === 'object');
}

const loaded = await Promise.all(
  entries.map(async (entry) => {
    const adapter = await loadAdapter(entry.adapter!, { cwd: dirname(matrix.path), factoryOptions: { name: entry.name, ...entry.options } });
    return { entry, adapter, installed: installedPackage(entry.package!, matrix.path) };
  }),
);

failOnLeakedHandles();

test('the matrix has SDK entries for every installed version', () => {
  expect(entries.length).toBeGreaterThanOrEqual(21);
});

describe.concurrent.each(loaded.map((client) => ({ ...client, name: client.entry.name })))('$name', ({ entry, adapter, installed }) => {
  test('loads under its entry name and names the installed version', () => {
    expect(adapter.name).toBe(entry.name);
    expect(installed, `${entry.package} is installed`).toBeDefined();
    expect(adapter.description).toContain(`${installed!.package} ${installed!.version}`);
    expect(adapter.revisions.length, 'speaks at least one revision').toBeGreaterThan(0);
  });

  test.for(basicCases(adapter).map((c) => ({ ...c, title: `${c.scenario.id} @ ${c.revision}` })))('$title', async ({ scenario, revision }) => {
    const result = await runScenario(scenario, adapter, revision);
    expect(['pass', 'warn', 'fail'], `a verdict, not ${result.verdict}: ${result.reason}`).toContain(result.verdict);
    const opening = revision === MODERN ? 'server/discover' : 'initialize';
    const reached = result.evidence?.exchanges.some((exchange) => exchange.requestMessages.some((message) => message.method === opening));
    expect(reached, `the client's ${opening} reached the server\n${explain(result)}`).toBe(true);
  });
});
