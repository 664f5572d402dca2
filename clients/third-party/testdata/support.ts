// What every third-party adapter's test proves on a few cases: the scenario produced a verdict, and the client's
// opening request (initialize, or server/discover when it probes) reached the reference server. Over stdio: the client
// launched the suite's stdio server with the target's environment, passed the handshake, and left no process running.
import { expect, test } from 'vitest';
import type { Revision } from '../../../protocol/revisions.ts';
import { explain } from '../../../suites/evidence.ts';
import { CLEANUP_CHECKS, runCase } from '../../../suites/runner.ts';
import type { Scenario } from '../../../suites/scenario.ts';
import { stdioHandshake } from '../../../suites/stdio/handshake.ts';
import type { ClientAdapter } from '../../adapter.ts';

export interface SmokeCase {
  adapter: ClientAdapter;
  scenario: Scenario;
  revision: Revision;
  /** The method the client opens with (default: initialize). */
  opening?: string;
}

export function smokeCases(cases: readonly SmokeCase[]): void {
  test.for(cases.map((c) => ({ ...c, title: `${c.adapter.name}: ${c.scenario.id} @ ${c.revision}` })))('$title', async ({ adapter, scenario, revision, opening = 'initialize' }) => {
    // As the suites run it: bounds sized from the client's measured start-up, run again if time ran out.
    const result = await runCase(scenario, adapter, revision);
    expect(['pass', 'warn', 'fail'], `a verdict\n${explain(result)}`).toContain(result.verdict);
    const reached = result.evidence?.exchanges.some((exchange) => exchange.requestMessages.some((message) => message.method === opening));
    expect(reached, `the client's ${opening} reached the server\n${explain(result)}`).toBe(true);
  });
}

/**
 * stdio/handshake-order (negotiation/handshake-order over stdio) on the adapter, as the suites run it: it passes, the
 * initialize came in on the stdin of a server the client launched (which reported on its side channel, so the target's
 * env reached it), and every process launched from the target had ended after dispose, none left for the runner to kill.
 */
export async function expectStdioHandshake(adapter: ClientAdapter, revision: Revision = '2025-11-25'): Promise<void> {
  const result = await runCase(stdioHandshake, adapter, revision);
  expect(result.verdict, explain(result)).toBe('pass');
  const evidence = result.evidence!;
  const lines = evidence.exchanges.filter((exchange) => exchange.method === 'STDIN');
  expect(lines.some((line) => line.requestMessages.some((message) => message.method === 'initialize')), explain(result)).toBe(true);
  const servers = evidence.stdio!.processes.filter((launched) => launched.role === 'server');
  expect(servers.length, explain(result)).toBeGreaterThan(0);
  // Ended by the time the client was disposed (a close() may return as it signals, before the process is gone): the
  // runner found none to kill.
  expect(result.checks.map((check) => check.name), explain(result)).not.toContain(CLEANUP_CHECKS.processes);
}
