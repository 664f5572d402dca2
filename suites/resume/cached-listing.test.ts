// A client that caches its tool list (pydantic-ai's MCPToolset, cache_tools=True) sends no listing after its first: the
// scenarios reach the wire with tool calls, and the DELETE that ends a session is never taken for a request that met its
// loss. Before this, such a client was failed for "no initialize after the 404" to its own close's DELETE, told that
// "the tools/list that met the 404 resolved (a result)", and left inconclusive wherever a listing was to reach the wire.
import { beforeAll, describe, expect, test } from 'vitest';
import { referenceClient } from '../../clients/reference/index.ts';
import { shapedReference } from '../../clients/reference/shapes.ts';
import { HEADERS } from '../../protocol/http.ts';
import type { Revision } from '../../protocol/revisions.ts';
import type { WireExchange } from '../../servers/wire-record.ts';
import { explain } from '../evidence.ts';
import { runCase } from '../runner.ts';
import { verdictOf, type Evidence, type Scenario } from '../scenario.ts';
import { boundedOn5xx } from '../retry/bounded-on-5xx.ts';
import { connectionDropKeepsSession } from '../retry/connection-drop-keeps-session.ts';
import { modernOnlyTransportErrors } from '../retry/modern-only-transport-errors.ts';
import { noRetryOnAuth } from '../retry/no-retry-on-auth.ts';
import { replacementSessionLost } from '../retry/replacement-session-lost.ts';
import { sessionReestablished } from '../retry/session-reestablished.ts';
import { stale404AfterReplacement } from '../retry/stale-404-after-replacement.ts';
import { operatingSession } from '../wire.ts';
import { echoedSessionHeader } from './echoed-session-header.ts';
import { expired400SessionMessage } from './expired-400-session-message.ts';
import { expired404 } from './expired-404.ts';
import { negotiatedVersionAfterExpiry } from './negotiated-version-after-expiry.ts';
import { SESSIONS_ENDED_AT } from './support.ts';

const REVISION = '2025-11-25';
const cached = shapedReference('cached-listing');

/**
 * What a caching client's record looked like under the old scripts: the session works, the server ends it, the listing
 * after it is answered from the cache (nothing on the wire), and close's DELETE meets the server's answer for a lost
 * session. Built from the reference's record: everything up to the moment the sessions ended, then that DELETE.
 */
function endedByCloseOnly(evidence: Evidence, answer: Pick<WireExchange, 'status' | 'notes' | 'responseMessages'>): Evidence {
  const mark = evidence.observed[SESSIONS_ENDED_AT] as number;
  const dead = operatingSession(evidence)!;
  const before = evidence.exchanges.filter((x) => x.seq <= mark);
  const last = before.at(-1)!;
  const deleting: WireExchange = {
    ...structuredClone(last),
    seq: mark + 1,
    startedAt: last.startedAt + 5,
    headersAt: last.startedAt + 6,
    endedAt: last.startedAt + 6,
    method: 'DELETE',
    requestHeaders: { [HEADERS.session]: dead },
    requestBody: '',
    requestMessages: [],
    responseHeaders: { 'content-type': 'application/json' },
    ...answer,
  };
  return { ...evidence, exchanges: [...before, deleting], observed: { ...evidence.observed, afterExpiry: { state: 'resolved', afterMs: 0 } } };
}

const NOT_FOUND = { status: 404, notes: [], responseMessages: [] } satisfies Pick<WireExchange, 'status' | 'notes' | 'responseMessages'>;
const SDK_400 = {
  status: 400,
  notes: ['unknown-session-400'],
  responseMessages: [{ message: { jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Bad Request: No valid session ID provided' } } }],
} as unknown as Pick<WireExchange, 'status' | 'notes' | 'responseMessages'>;

describe("a 404 or 400 to close's DELETE is not the session's loss (F2)", () => {
  const cases: [string, Scenario, Pick<WireExchange, 'status' | 'notes' | 'responseMessages'>, string][] = [
    ['resume/expired-404', expired404, NOT_FOUND, 'new-initialize'],
    ['resume/expired-400-session-message', expired400SessionMessage, SDK_400, 'new-initialize'],
    ['retry/session-reestablished', sessionReestablished, NOT_FOUND, 'new-session-after-404'],
  ];
  const records = new Map<string, Evidence>();
  beforeAll(async () => {
    for (const [id, scenario] of cases) {
      const result = await runCase(scenario, referenceClient, REVISION, { strict: true });
      expect(result.verdict, explain(result)).toBe('pass');
      records.set(id, result.evidence!);
    }
  });

  test.each(cases)('%s: no new session is asked for after the DELETE that ends one', (id, scenario, answer, recover) => {
    const checks = scenario.judge(endedByCloseOnly(records.get(id)!, answer));
    expect(checks.find((c) => c.name === recover)?.outcome).not.toBe('fail');
    // Nothing met the loss: the suite did not drive the client there (the scripts now call a tool, which does).
    expect(verdictOf(checks, true)).toBe('inconclusive');
  });

  test('retry/session-reestablished says no request met the 404, not that a listing met it and resolved', () => {
    const checks = sessionReestablished.judge(endedByCloseOnly(records.get('retry/session-reestablished')!, NOT_FOUND));
    const detail = checks.find((c) => c.name === 'idempotent-retried-once')?.detail ?? '';
    expect(detail).toMatch(/never met its 404/);
    expect(detail).not.toMatch(/tools\/list that met the 404/);
  });
});

describe('a client that caches its tool list is judged by tool calls', () => {
  const scenarios: [Scenario, Revision][] = [
    [expired404, REVISION],
    [expired400SessionMessage, REVISION],
    [negotiatedVersionAfterExpiry, REVISION],
    [echoedSessionHeader, REVISION],
    [sessionReestablished, REVISION],
    [connectionDropKeepsSession, REVISION],
    [modernOnlyTransportErrors, '2026-07-28'],
    [boundedOn5xx, REVISION],
    [noRetryOnAuth, REVISION],
    [replacementSessionLost, REVISION],
    [stale404AfterReplacement, REVISION],
  ];

  test.each(scenarios.map(([scenario, revision]) => [scenario.id, scenario, revision] as const))('%s passes strictly', async (_id, scenario, revision) => {
    const result = await runCase(scenario, cached, revision, { strict: true });
    expect(result.verdict, explain(result)).toBe('pass');
  });

  test('retry/session-reestablished: the idempotent call that met the 404 is retried on the new session, and the detail says so', async () => {
    const result = await runCase(sessionReestablished, cached, REVISION, { strict: true });
    expect(result.checks.find((c) => c.name === 'idempotent-retried-once')?.detail).toMatch(/^idempotent_count was sent again once on the new session/);
    // The listing after the first never reached the wire: the only tools/list is the first.
    const lists = result.evidence!.exchanges.filter((x) => x.requestMessages.some((m) => m.method === 'tools/list'));
    expect(lists).toHaveLength(1);
  });
});
