// Cases the suite once called inconclusive though it could judge them (issue 28, two real clients through the line
// protocol): lateness no load can explain, a client that kept itself from the behaviour, and a client whose own shape
// or declaration puts the rule out of reach. Each is judged on a real run's record, doctored where a real client's wire
// (a Python SDK's) differs from the reference's.
import { describe, expect, test } from 'vitest';
import type { ClientAdapter } from '../clients/adapter.ts';
import { referenceClient } from '../clients/reference/index.ts';
import { shapedReference } from '../clients/reference/shapes.ts';
import { provisionally, timePolicy } from '../config/time.ts';
import { lateResponseIgnored } from './cancellation/late-response-ignored.ts';
import { latenessLoadExplains, promptAtFirstBound } from './deadlines.ts';
import { closeWithHungDelete, bounds as hungDeleteBounds } from './disposal/close-with-hung-delete.ts';
import { explain } from './evidence.ts';
import { SCENARIOS } from './index.ts';
import { judgeCase, recordOf } from './judge.ts';
import { runScenario } from './runner.ts';
import type { Check, Evidence } from './scenario.ts';
import { elicitationUrlUndeclared } from './server-requests/elicitation-mode.ts';
import { carrying, sessionKey, toolCallExchanges } from './wire.ts';

const scenario = (id: string) => SCENARIOS.find((s) => s.id === id)!;

describe('lateness no load can explain is judged on a busy machine', () => {
  const spec = { url: 'u', section: 's', level: 'SHOULD' as const };
  const at = (outcome: Check['outcome'], lateByMs?: number): Check => ({ name: 'prompt', spec, outcome, detail: 'settled late', exchanges: [3], ...(lateByMs !== undefined ? { lateByMs } : {}) });

  test('late by more than the load explains: the first bound’s fail stands, and says why; within it: inconclusive', () => {
    const [firm] = promptAtFirstBound([at('pass')], [at('fail', 566)], false, 'busy', 500, 118);
    expect(firm).toMatchObject({ outcome: 'fail', detail: expect.stringContaining('late by 566 ms, more than the 118 ms the machine') });
    const [unsure] = promptAtFirstBound([at('pass')], [at('fail', 100)], false, 'busy', 500, 118);
    expect(unsure).toMatchObject({ outcome: 'inconclusive', lasting: true });
    // A check that does not say how late it was is left to the machine's reading.
    expect(promptAtFirstBound([at('pass')], [at('fail')], false, 'busy', 500, 118)[0]!.outcome).toBe('inconclusive');
  });

  test('what a load explains grows with the longest hold-up this process saw', () => {
    const time = timePolicy();
    expect(latenessLoadExplains({ idleShare: 0, stalledMs: 0 }, time)).toBeLessThan(time.ms.react);
    expect(latenessLoadExplains({ idleShare: 0, stalledMs: 200 }, time)).toBeGreaterThan(latenessLoadExplains({ idleShare: 0, stalledMs: 20 }, time));
  });

  test('disposal/close-with-hung-delete: a close with a fixed bound of its own past the first run’s (fastmcp’s 5 s), on a machine that held this process up 17 ms: judged, not “the machine was busy”', async () => {
    const result = await runScenario(closeWithHungDelete, referenceClient, '2025-11-25');
    expect(result.verdict, explain(result)).toBe('pass');
    const record = result.record!;
    // Judged as the last of the reruns (firm, bounds twice the first run's), its first run's react bound a quarter of that.
    const rerun = provisionally({ ...record.evidence.time, ms: { ...record.evidence.time.ms, react: 4 * record.evidence.time.ms.react } }, false);
    const firstReactMs = record.evidence.time.ms.react;
    const busy = { idleShare: 0, stalledMs: 17 };
    const lateByMs = latenessLoadExplains(busy, { ...rerun, ms: { ...rerun.ms, react: firstReactMs } }) + firstReactMs;
    const closeAfter = (late: number) => hungDeleteBounds(rerun).clientTimeoutMs + firstReactMs + late;
    const judged = (late: number, load = busy) => {
      const close = { state: 'resolved', afterMs: closeAfter(late) };
      const evidence: Evidence = { ...record.evidence, time: rerun, machine: load, observed: { ...record.evidence.observed, close } };
      return judgeCase(closeWithHungDelete, { ...record, evidence, firstReactMs }).checks.find((c) => c.name === 'close-settled')!;
    };
    // Within the rerun's bound, past the first's by more than the load explains: the client's own lateness (SHOULD).
    expect(closeAfter(lateByMs)).toBeLessThanOrEqual(hungDeleteBounds(rerun).settleMs);
    expect(judged(lateByMs)).toMatchObject({ outcome: 'fail', detail: expect.stringContaining('more than the') });
    // A machine that held this process up long enough to explain it: still the machine's reading.
    expect(judged(lateByMs, { idleShare: 0, stalledMs: lateByMs })).toMatchObject({ outcome: 'inconclusive', detail: expect.stringContaining('the machine was busy') });
  });
});

describe('a client that kept itself from the behaviour: its failures stand', () => {
  /** The reference pinned to 2026-07-28 whatever it is told: its probe waits for an answer as long as the connect lasts. */
  const probeOutlastsConnect: ClientAdapter = {
    ...referenceClient,
    name: 'reference-probe-outlasts-connect',
    start: async (caseId, time) => {
      const inner = await referenceClient.start(caseId, time);
      return { connect: (target, options) => inner.connect(target, { ...options, negotiation: { pin: '2026-07-28' } }), dispose: () => inner.dispose() };
    },
  };

  test('stdio/never-initialize: a probe that waits longer than the connect, so initialize is never sent, is the client’s doing (read from the wire)', async () => {
    // Twice the bounds: the probe goes out within the connect's first half even when the server is slow to launch.
    const result = await runScenario(scenario('stdio/never-initialize'), probeOutlastsConnect, '2025-11-25', { time: timePolicy({ scale: 2 }) });
    const held = result.checks.find((c) => c.name === 'initialize-held')!;
    expect(held, explain(result)).toMatchObject({ outcome: 'inconclusive', unmetBy: 'client', lasting: true });
    expect(held.detail).toMatch(/probed with .*server\/discover.* without ever sending initialize/);
  });

  test('a connect that gave up before its timeout, or never probed, is not read so', async () => {
    const result = await runScenario(scenario('stdio/never-initialize'), referenceClient, '2025-11-25');
    expect(result.verdict, explain(result)).toBe('pass');
    const evidence = result.evidence!;
    // No initialize and no probe: the suite's reading, as before.
    const bare: Evidence = { ...evidence, exchanges: evidence.exchanges.filter((x) => carrying([x], 'initialize').length === 0) };
    expect(scenario('stdio/never-initialize').judge(bare).find((c) => c.name === 'initialize-held')).not.toHaveProperty('unmetBy');
  });
});

describe('a rule the client’s own shape or declaration puts out of reach: n/a', () => {
  test('elicitation-url-undeclared: a client that declares URL mode with its form handler (the Python SDK does) is n/a, read from its initialize', async () => {
    for (const id of ['server-requests/elicitation-url-undeclared', 'stdio/elicitation-url-undeclared']) {
      const result = await runScenario(scenario(id), referenceClient, '2025-11-25');
      expect(result.verdict, explain(result)).toBe('pass');
      const evidence = result.evidence!;
      const declaring: Evidence = {
        ...evidence,
        exchanges: evidence.exchanges.map((x) => ({
          ...x,
          requestMessages: x.requestMessages.map((m) => (m.method === 'initialize' ? { ...m, params: { ...m.params, capabilities: { elicitation: { form: {}, url: {} } } } } : m)),
        })),
      };
      const judged = judgeCase(scenario(id), { ...result.record!, evidence: declaring });
      expect(judged.checks.find((c) => c.name === 'url-mode-undeclared'), id).toMatchObject({ unmetBy: 'shape' });
      expect(judged.verdict, id).toBe('n/a');
    }
    expect(elicitationUrlUndeclared.id).toBe('server-requests/elicitation-url-undeclared');
  });

  test('cancellation/late-response-ignored over HTTP: a client per operation that DELETEs the call’s session right after the abort leaves no late answer to race: n/a', async () => {
    const result = await runScenario(lateResponseIgnored, shapedReference('per-operation'), '2025-11-25');
    expect(result.verdict, explain(result)).toBe('pass');
    const evidence = result.evidence!;
    const slow = toolCallExchanges(evidence.exchanges, 'slow')[0]!;
    const session = sessionKey(evidence.exchanges, slow);
    // As mcp 1.30 under langchain does: no cancellation, the call's session DELETEd a moment after the abort, which
    // aborts the handler before it answers; the next call on a session of its own.
    const exchanges = evidence.exchanges
      .filter((x) => !x.requestMessages.some((m) => m.method === 'notifications/cancelled'))
      .map((x) =>
        x.method === 'DELETE' && sessionKey(evidence.exchanges, x) === session
          ? { ...x, startedAt: slow.startedAt + 3 }
          : x === slow
            ? { ...x, responseMessages: x.responseMessages.filter(({ message }) => message.method !== undefined) }
            : x,
      );
    const toolRuns = evidence.toolRuns.map((run) => (run.tool === 'slow' ? { ...run, abortedAt: run.finishedAt } : run));
    const judged = judgeCase(lateResponseIgnored, recordOf({ ...evidence, exchanges, toolRuns }));
    expect(judged.checks.find((c) => c.name === 'completed-after-abort')).toMatchObject({ unmetBy: 'shape', detail: expect.stringContaining('before its handler could answer') });
    expect(judged.verdict).toBe('n/a');
  });
});
