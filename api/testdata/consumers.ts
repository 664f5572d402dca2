// The clients and baselines the consumer test files (consumer.vitest.ts, consumer.node-test.ts) run the helpers on: one
// case of negotiation/handshake-order each, at 2025-06-18 (plus 2025-03-26, not applicable to the narrow client).
import type { Baseline, ClientAdapter } from '../index.ts';
import { referenceClient } from '../../clients/reference/index.ts';

const HANDSHAKE = { scenarios: ['negotiation/handshake-order'], revisions: ['2025-06-18'] } as const;

/** Each helper call of a consumer file: its title and options. */
export const CONSUMERS = {
  // A broken variant against an empty baseline: a regression, which fails with the explanation.
  regression: { ...HANDSHAKE, adapter: 'broken-skips-initialized', baseline: { adapter: 'broken-skips-initialized', format: 2, known: [] } satisfies Baseline },
  // A client whose process "died" before the case: inconclusive, skipped with the reason.
  inconclusive: { ...HANDSHAKE, adapter: { ...referenceClient, name: 'dead-client', interrupted: () => 'the client process exited with code 1 before this case' } satisfies ClientAdapter },
  // A client that speaks 2025-06-18 only, run at 2025-03-26 too: that case is not applicable, skipped.
  narrow: { ...HANDSHAKE, revisions: ['2025-03-26', '2025-06-18'], adapter: { ...referenceClient, name: 'narrow-client', revisions: ['2025-06-18'] } satisfies ClientAdapter },
  // The reference client with a baseline that says it fails (stale: it passes) and names a scenario that does not exist.
  stale: {
    ...HANDSHAKE,
    adapter: 'reference',
    baseline: {
      adapter: 'reference',
      format: 2,
      known: [
        { scenario: 'negotiation/handshake-order', checks: ['initialized-sent'], revisions: 'all', verdict: 'fail', reason: 'said to fail', spec: 'https://modelcontextprotocol.io/specification/2025-06-18/basic/lifecycle' },
        { scenario: 'negotiation/no-such-scenario', checks: ['anything'], revisions: 'all', verdict: 'fail', reason: 'gone', spec: 'https://modelcontextprotocol.io/specification/2025-06-18/basic/lifecycle' },
      ],
    } satisfies Baseline,
  },
} as const;
