// A session a call in flight holds past close() (reference-counted, as pydantic-ai's MCPToolset; a session per call and
// no close, as langchain-mcp-adapters) closes nothing under the call: the scenarios that close with a call in flight
// say n/a by shape for it, read from the wire. The same client leaving the session open for good once the call has
// settled is still judged: connections-closed fails.
import { beforeAll, describe, expect, test } from 'vitest';
import { shapedReference } from '../../clients/reference/shapes.ts';
import { explain } from '../evidence.ts';
import { runCase } from '../runner.ts';
import type { Evidence } from '../scenario.ts';
import { SCENARIOS } from '../index.ts';
import { inFlightSettled } from './in-flight-settled.ts';
import { quietAfterClose } from './quiet-after-close.ts';
import { closeUnderCall } from './support.ts';

const REVISION = '2025-11-25';
const refCounted = shapedReference('ref-counted');
const checkOf = (evidence: Evidence, name: string) => quietAfterClose.judge(evidence).find((check) => check.name === name);

describe.concurrent('a session kept for the call in flight (shape ref-counted)', () => {
  test('in-flight-settled is n/a by shape, from the wire', async () => {
    const result = await runCase(inFlightSettled, refCounted, REVISION, { strict: true });
    expect(result.verdict, explain(result)).toBe('n/a');
    expect(result.reason).toMatch(/close\(\) ended nothing of the call’s session .* the client ended the session once the call was answered/);
  });

  test('stdio/quiet-after-close is n/a by shape: stdin closed once the call was answered', async () => {
    const result = await runCase(SCENARIOS.find((s) => s.id === 'stdio/quiet-after-close')!, refCounted, REVISION, { strict: true });
    expect(result.verdict, explain(result)).toBe('n/a');
    expect(result.reason).toMatch(/\(process \d+\)/);
  });

  describe('quiet-after-close', () => {
    let evidence: Evidence;
    beforeAll(async () => {
      const result = await runCase(quietAfterClose, refCounted, REVISION, { strict: true });
      expect(result.verdict, explain(result)).toBe('n/a');
      evidence = result.evidence!;
    });

    test('the session ended (its DELETE) only after the call was answered', () => {
      const kept = closeUnderCall(evidence, REVISION, 'slow', evidence.observed.closeCalledAt as number);
      expect(kept.closedUnder).toBeUndefined();
      expect(kept.keptForTheCall).toBe(true);
      expect(kept.endedAt).toBeGreaterThanOrEqual(kept.answeredAt!);
    });

    test('the same client never ending the session once the call settled leaks it: connections-closed fails', () => {
      const leaked = { ...evidence, exchanges: evidence.exchanges.filter((x) => x.method !== 'DELETE') };
      expect(checkOf(leaked, 'close-reached')?.outcome).toBe('pass');
      const closed = checkOf(leaked, 'connections-closed')!;
      expect(closed.outcome).toBe('fail');
      expect(closed.detail).toMatch(/was never ended/);
    });
  });
});
