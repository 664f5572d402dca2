// A client slow to start (a process, a JVM, a proxy that launches its own process per connection) is judged on its
// behaviour, not on its start-up: calibration measures it once and the connect-bound scenarios size their bounds from
// it. The slow client here is the reference client whose connect spends 1.5 s before its first request, out of the
// connect's own timeout, as a client launching a process would.
import { describe, expect, test } from 'vitest';
import type { ClientAdapter } from '../clients/adapter.ts';
import { referenceClient } from '../clients/reference/index.ts';
import { basePolicy } from '../config/settings.ts';
import type { Revision } from '../protocol/revisions.ts';
import { calibrate } from './calibration.ts';
import { explain } from './evidence.ts';
import { SCENARIOS } from './index.ts';
import { failOnLeakedHandles } from './leaks.ts';
import { calibratedPolicy, runCase, runScenario } from './runner.ts';

const START_MS = 1_500;

function slowToStart(inner: ClientAdapter): ClientAdapter {
  return {
    ...inner,
    name: `${inner.name}-slow-to-start`,
    async start(caseId) {
      const client = await inner.start(caseId);
      return {
        async connect(url, options) {
          // Its start-up counts against its own connect timeout, as a real client's would: when the timeout ends
          // first, it gives up without having sent anything.
          const left = options.timeoutMs - START_MS;
          await new Promise((resolve) => setTimeout(resolve, Math.min(START_MS, options.timeoutMs)));
          if (left <= 0) throw new Error(`connect timed out after ${options.timeoutMs} ms while starting`);
          return client.connect(url, { ...options, timeoutMs: left });
        },
        dispose: () => client.dispose(),
      };
    },
  };
}

/** The scenarios whose bounds a connect must fit in, at one revision each. */
const CONNECT_BOUND: { id: string; revision: Revision }[] = [
  { id: 'disposal/close-during-connect', revision: '2025-11-25' },
  { id: 'cancellation/never-initialize', revision: '2025-11-25' },
  { id: 'stdio/never-initialize', revision: '2025-11-25' },
  { id: 'negotiation/unsupported-answer', revision: '2025-11-25' },
  { id: 'negotiation/error-form', revision: '2025-11-25' },
];

failOnLeakedHandles();

describe('calibration', () => {
  const slow = slowToStart(referenceClient);

  test('measures the start-up and raises the start-up bound to fit it', async () => {
    const measured = await calibrate(slow, basePolicy());
    expect(measured).toBeGreaterThanOrEqual(START_MS);
    const policy = await calibratedPolicy(slow);
    expect(policy.calibratedStartupMs).toBe(measured);
    expect(policy.ms.startup).toBeGreaterThan(measured!);
    expect(policy.ms.operation).toBeGreaterThan(policy.ms.startup);
  });

  test('is measured per transport: over stdio the connect launches the server, and stdio cases are sized by that', async () => {
    const [http, stdio] = await Promise.all([calibrate(slow, basePolicy()), calibrate(slow, basePolicy(), undefined, 'stdio')]);
    expect(stdio).toBeGreaterThanOrEqual(START_MS);
    // Memoized per transport: asked again, the same measurement.
    expect(await calibrate(slow, basePolicy(), undefined, 'stdio')).toBe(stdio);
    expect(await calibrate(slow, basePolicy())).toBe(http);
    expect((await calibratedPolicy(slow, 'stdio')).calibratedStartupMs).toBe(stdio);
  });

  describe.concurrent.each(CONNECT_BOUND)('$id @ $revision', ({ id, revision }) => {
    const scenario = SCENARIOS.find((s) => s.id === id)!;

    test('a correct client slow to start passes once calibrated', async () => {
      const result = await runCase(scenario, slow, revision, { strict: true });
      expect(result.verdict, explain(result)).toBe('pass');
    });

    test('uncalibrated, it is never blamed for its start-up: a pass or inconclusive, never a fail or warn', async () => {
      const result = await runScenario(scenario, slow, revision, { strict: true, time: basePolicy() });
      expect(['pass', 'inconclusive'], explain(result)).toContain(result.verdict);
    });
  });
});
