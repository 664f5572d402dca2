// The mcp-remote adapter, loaded as the matrix loads it, on a few scenarios against the real reference servers: each
// ends with a verdict and the server saw the host's initialize as the proxy forwards it. The declared cancellation is
// real (the host's notifications/cancelled crosses the proxy to the server), and so is the fallback to HTTP+SSE. No
// proxy process, handle or config dir outlives the runs, not even a proxy the host gave up on while it started.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Revision } from '../../protocol/revisions.ts';
import { startReferenceServer } from '../../servers/server.ts';
import { legacyNotification } from '../../suites/cancellation/legacy-notification.ts';
import { deleteIssuedSession } from '../../suites/disposal/delete-issued-session.ts';
import { explain } from '../../suites/evidence.ts';
import { failOnLeakedHandles } from '../../suites/leaks.ts';
import { handshakeOrder } from '../../suites/negotiation/handshake-order.ts';
import { runCase } from '../../suites/runner.ts';
import type { Scenario } from '../../suites/scenario.ts';
import type { ClientAdapter } from '../adapter.ts';
import { loadAdapter } from '../load.ts';
import { CONFIG_DIR_PREFIX } from './mcp-remote.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const HOME_STORE = join(homedir(), '.mcp-auth');

/** Live children of this process running the mcp-remote proxy, from /proc (zombies do not count: they are gone). */
function proxyChildren(): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // Fields after the command name: state, ppid, …
      const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(ppid) !== process.pid || state === 'Z') continue;
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes('mcp-remote')) children.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return children;
}

const configDirs = () => readdirSync(tmpdir()).filter((name) => name.startsWith(CONFIG_DIR_PREFIX));

failOnLeakedHandles();

let adapter: ClientAdapter;
const configDirsBefore = configDirs();
const homeStoreBefore = existsSync(HOME_STORE);
beforeAll(async () => {
  adapter = await loadAdapter('./clients/third-party/mcp-remote.ts', { cwd: ROOT, factoryOptions: { name: 'mcp-remote' } });
});
afterAll(async () => {
  await adapter?.shutdown?.();
  expect(configDirs(), 'the proxy’s temp config dir is removed at shutdown').toEqual(configDirsBefore);
  expect(existsSync(HOME_STORE), 'nothing is written to ~/.mcp-auth').toBe(homeStoreBefore);
});

test('names itself as the matrix asks, with the installed version', () => {
  expect(adapter.name).toBe('mcp-remote');
  expect(adapter.description).toMatch(/^mcp-remote 0\.15\.1 /);
  // Bundled at its build: the range its package.json names, not one installed version.
  expect(adapter.wraps).toEqual({ package: '@modelcontextprotocol/client', version: '^2.0.0' });
});

/**
 * Runs a scenario as the suites do (bounds sized from the proxy's measured start-up, run again if time ran out) and
 * checks what every run must show: a verdict, the host's initialize, no proxy left running.
 */
async function run(scenario: Scenario, revision: Revision) {
  const result = await runCase(scenario, adapter, revision);
  expect(['pass', 'warn', 'fail'], explain(result)).toContain(result.verdict);
  const initializes = result.evidence!.exchanges.flatMap((e) => e.requestMessages).filter((m) => m.method === 'initialize');
  const fromHost = initializes.find((m) => (m.params?.clientInfo as { name?: string } | undefined)?.name?.startsWith('mcp-client-conformance (via mcp-remote'));
  expect(fromHost, `the host's initialize, forwarded by the proxy\n${explain(result)}`).toBeDefined();
  expect(proxyChildren(), 'no proxy process is left once the scenario has run').toEqual([]);
  return result;
}

describe('scenarios', () => {
  test.for<{ scenario: Scenario; revision: Revision }>([
    { scenario: handshakeOrder, revision: '2025-11-25' },
    { scenario: deleteIssuedSession, revision: '2025-06-18' },
  ])('$scenario.id @ $revision ends with a verdict', async ({ scenario, revision }) => {
    await run(scenario, revision);
  });

  test('an aborted call reaches the server as notifications/cancelled for it, across the proxy', async () => {
    const result = await run(legacyNotification, '2025-11-25');
    expect(result.checks.find((c) => c.name === 'notification-sent')?.outcome, explain(result)).toBe('pass');
    expect(result.evidence!.toolRuns.find((r) => r.tool === 'slow')?.abortedAt, explain(result)).toBeDefined();
  });

  test('a 2024-11-05 server is reached by falling back from Streamable HTTP to HTTP+SSE', async () => {
    const result = await run(handshakeOrder, '2024-11-05');
    const { exchanges } = result.evidence!;
    const refused = exchanges.findIndex((e) => e.method === 'POST' && e.requestMessages.some((m) => m.method === 'initialize') && e.status === 404);
    const stream = exchanges.findIndex((e, index) => index > refused && e.method === 'GET' && e.sse);
    expect(refused, explain(result)).toBeGreaterThanOrEqual(0);
    expect(stream, explain(result)).toBeGreaterThan(refused);
    expect(result.verdict, explain(result)).toBe('pass');
  });
});

test('a connect the host gives up on rejects at its bound and leaves no proxy running', async () => {
  const server = await startReferenceServer({ era: '2025-11-25' });
  try {
    const client = await adapter.start('gives-up');
    // Far shorter than the proxy's start-up: the host gives up before initialize is out.
    const timeoutMs = 50;
    const started = performance.now();
    await expect(client.connect(server.url, { timeoutMs })).rejects.toThrow(`did not complete initialize within ${timeoutMs} ms`);
    // At its bound, not before (timers may fire a millisecond early against performance.now()), and not after the
    // proxy's start-up: no initialize had reached the server when it rejected.
    expect(performance.now() - started).toBeGreaterThanOrEqual(timeoutMs - 1);
    expect(server.record.requests('initialize'), 'initialize requests the server had seen when the connect rejected').toEqual([]);
    await client.dispose();
    expect(proxyChildren(), 'the proxy is ended once the client is disposed').toEqual([]);
  } finally {
    await server.close();
  }
});
