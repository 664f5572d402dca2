// A client that connects lazily (connect() sends nothing, its first operation does the handshake) is a correct client:
// the scenarios whose rules are about connecting judge it at that first operation, and those that need its session up
// drive one. Each case here was a false verdict on such a client (a warn or an inconclusive), and must pass strictly.
import { describe, expect, test } from 'vitest';
import { shapedReference } from '../clients/reference/shapes.ts';
import type { Revision } from '../protocol/revisions.ts';
import { explain } from './evidence.ts';
import { SCENARIOS } from './index.ts';
import { failOnLeakedHandles } from './leaks.ts';
import { runCase } from './runner.ts';

const lazy = shapedReference('lazy');

/** Each false-verdict class once, at a revision it ran at. */
const CASES: readonly { scenario: string; revision: Revision; was: string }[] = [
  { scenario: 'negotiation/unsupported-answer', revision: '2025-11-25', was: 'connect-fails warned: the connect resolved, the first operation refused' },
  { scenario: 'negotiation/no-fallback-on-failure', revision: '2026-07-28', was: 'failure-surfaced warned: the failure surfaced at the first operation' },
  { scenario: 'disposal/close-during-connect', revision: '2025-11-25', was: 'inconclusive: no initialize reached the server before the connect timeout' },
  { scenario: 'disposal/close-during-connect', revision: '2026-07-28', was: 'inconclusive: no server/discover reached the server before the connect timeout' },
  { scenario: 'cancellation/never-initialize', revision: '2025-11-25', was: 'inconclusive: no initialize reached the server before the connect timeout' },
  { scenario: 'stdio/never-initialize', revision: '2025-11-25', was: 'inconclusive: no server launched, no initialize' },
  { scenario: 'server-requests/get-stream-requests', revision: '2025-11-25', was: 'inconclusive: the GET stream came after the script stopped waiting for it' },
  { scenario: 'stdio/merged-writes', revision: '2025-11-25', was: 'inconclusive: the log message was sent before the server was launched' },
  { scenario: 'stdio/probe-fallback-silence', revision: '2025-11-25', was: "falls-back-in-time warned: the connect's time counted from a connect that sent nothing" },
  { scenario: 'stdio/probe-no-mutual-version', revision: '2026-07-28', was: 'error-surfaced warned: the error surfaced at the first operation' },
];

failOnLeakedHandles();

describe.concurrent('a lazy client is judged truly', () => {
  test.for(CASES)('$scenario @ $revision', async ({ scenario: id, revision, was }) => {
    const scenario = SCENARIOS.find((s) => s.id === id);
    expect(scenario, `no scenario ${id}`).toBeDefined();
    const result = await runCase(scenario!, lazy, revision, { strict: true });
    expect(result.verdict, `${was}\n${explain(result)}`).toBe('pass');
  });
});
