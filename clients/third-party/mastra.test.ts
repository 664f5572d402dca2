// The @mastra/mcp adapter, loaded as the matrix loads it, on a few scenarios against the real reference servers: each
// ends with a verdict and the server saw Mastra's initialize (or, pinned to 2026-07-28, its probe). The declared
// cancellation is real: the abort reaches the server. Over stdio (a server with a `command`) the handshake passes and
// no process is left. Nothing outlives the runs.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Revision } from '../../protocol/revisions.ts';
import { legacyNotification } from '../../suites/cancellation/legacy-notification.ts';
import { deleteIssuedSession } from '../../suites/disposal/delete-issued-session.ts';
import { explain } from '../../suites/evidence.ts';
import { failOnLeakedHandles } from '../../suites/leaks.ts';
import { handshakeOrder } from '../../suites/negotiation/handshake-order.ts';
import { modernEnvelope } from '../../suites/negotiation/modern-envelope.ts';
import { runCase } from '../../suites/runner.ts';
import type { Scenario } from '../../suites/scenario.ts';
import type { ClientAdapter } from '../adapter.ts';
import { loadAdapter } from '../load.ts';
import { expectStdioHandshake } from './testdata/support.ts';

const ROOT = join(import.meta.dirname, '..', '..');

failOnLeakedHandles();

let adapter: ClientAdapter;
beforeAll(async () => {
  adapter = await loadAdapter('./clients/third-party/mastra.ts', { cwd: ROOT, factoryOptions: { name: 'mastra' } });
});
afterAll(async () => {
  await adapter?.shutdown?.();
});

test('names itself as the matrix asks and turns off @mastra/core telemetry', () => {
  expect(adapter.name).toBe('mastra');
  expect(adapter.description).toMatch(/^@mastra\/mcp 2\.0\.0 /);
  expect(process.env.MASTRA_TELEMETRY_DISABLED).toBe('true');
  expect(adapter.transports).toEqual(['http', 'stdio']);
  // The SDK v2 client its package.json pins.
  expect(adapter.wraps).toEqual({ package: '@modelcontextprotocol/client', version: '2.0.0' });
});

describe('scenarios', () => {
  test.for<{ scenario: Scenario; revision: Revision; verdict: string }>([
    { scenario: handshakeOrder, revision: '2025-11-25', verdict: 'pass' },
    // Mastra's disconnect closes the transport without DELETE: a SHOULD, so a warning.
    { scenario: deleteIssuedSession, revision: '2025-06-18', verdict: 'warn' },
    { scenario: legacyNotification, revision: '2025-11-25', verdict: 'pass' },
  ])('$scenario.id @ $revision ends $verdict, after the server saw Mastra’s initialize', async ({ scenario, revision, verdict }) => {
    const result = await runCase(scenario, adapter, revision);
    expect(result.verdict, explain(result)).toBe(verdict);
    const initialize = result.evidence!.exchanges.flatMap((e) => e.requestMessages).find((m) => m.method === 'initialize');
    expect(initialize?.params?.clientInfo, explain(result)).toMatchObject({ name: 'conformance' });
  });

  test('pinned to 2026-07-28 it speaks the modern envelope: a probe, no initialize', async () => {
    const result = await runCase(modernEnvelope, adapter, '2026-07-28');
    expect(result.verdict, explain(result)).toBe('pass');
    const methods = result.evidence!.exchanges.flatMap((e) => e.requestMessages).map((m) => m.method);
    expect(methods, explain(result)).toContain('server/discover');
    expect(methods, explain(result)).not.toContain('initialize');
  });
});

test('over stdio it launches the suite’s server, passes the handshake and leaves no process', () => expectStdioHandshake(adapter));
