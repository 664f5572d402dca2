import { authErrors } from '../../servers/personalities/auth-errors.ts';
import { dropConnection } from '../../servers/personalities/drop-connection.ts';
import { ANSWERS, probeAnswers } from '../../servers/personalities/probe-answers.ts';
import { serverErrors } from '../../servers/personalities/server-errors.ts';
import { slowResponses } from '../../servers/personalities/slow-responses.ts';
import type { Personality } from '../../servers/personality.ts';
import { REVISIONS } from '../../protocol/revisions.ts';
import { check, clientCompleted } from '../checks.ts';
import { defineScenario, type Evidence, type SpecRef } from '../scenario.ts';
import { caseExchanges, carrying, describeOutcome, list, outcomeOf, runCase, serverName, versioning } from './support.ts';

const PROBE = 'server/discover';
/** The client's connect bound in the timeout case: far shorter than the probe's delay. */
const TIMEOUT_CONNECT_MS = 250;

type Kind = '5xx' | 'auth' | 'reset' | 'timeout';

// Failures of the probe that say nothing about the server's era, each on its own server of the revision under
// test (its era answers everything but the probe normally, so a client that falls back would get a session).
const CASES: readonly { name: string; kind: Kind; what: string; personality: () => Personality }[] = [
  { name: '503', kind: '5xx', what: '503 with Retry-After', personality: () => serverErrors({ status: 503, retryAfterSeconds: 1, method: PROBE }) },
  { name: '500-json', kind: '5xx', what: '500 with a JSON-RPC -32603 body', personality: () => probeAnswers(ANSWERS.serverError(500)) },
  { name: '401', kind: 'auth', what: '401 with a Bearer challenge', personality: () => authErrors({ status: 401, method: PROBE }) },
  { name: '403', kind: 'auth', what: '403 insufficient_scope', personality: () => authErrors({ status: 403, method: PROBE }) },
  { name: 'reset', kind: 'reset', what: 'a reset connection', personality: () => dropConnection({ method: PROBE, when: 'before' }) },
  { name: 'timeout', kind: 'timeout', what: `no answer within the client's ${TIMEOUT_CONNECT_MS} ms`, personality: () => slowResponses({ ms: 5_000, method: PROBE }) },
];

const exchangesOf = (evidence: Evidence, index: number) => caseExchanges(evidence, index - 1) ?? [];

const SEEDS: Record<Kind, string> = {
  '5xx': 'an outage is not a legacy answer (seed 002: a 5xx is thrown as is)',
  auth: 'an authorization failure is not a legacy answer (seeds 002, 003)',
  reset: 'a broken connection is not a legacy answer (seed 002)',
  timeout: 'a timeout over HTTP is not a legacy answer (seed 002: a timeout is thrown as is)',
};

const rule = (kind: Kind): SpecRef =>
  versioning(
    'backward-compatibility-with-initialization-based-versions',
    `Backward Compatibility: on HTTP the legacy signal is a 4xx without a modern error body — ${SEEDS[kind]}`,
    'SHOULD',
  );

export const noFallbackOnFailure = defineScenario<undefined>({
  id: 'negotiation/no-fallback-on-failure',
  title: 'A probe answered 5xx, 401/403, cut off or timed out is surfaced as an error: no initialize',
  revisions: REVISIONS,
  requires: ['mode-auto'],
  source: { spec: rule('5xx'), seed: 'seeds 002 (a timeout or a 5xx is thrown as is, never read as a legacy answer) and 003 (no fallback on authentication failures)' },
  setup: () => ({ server: { personalities: [CASES[0]!.personality()] }, state: undefined }),
  async run(context) {
    for (const [index, { name, kind, personality }] of CASES.entries()) {
      const target = index === 0 ? {} : { server: await context.startServer({ personalities: [personality()] }) };
      // A client that takes the timed-out probe for a legacy answer sends initialize within its connect.
      await runCase(context, name, kind === 'timeout' ? { negotiation: 'auto', timeoutMs: TIMEOUT_CONNECT_MS } : { negotiation: 'auto' }, target);
    }
  },
  judge(evidence) {
    const cases = CASES.map((c, index) => {
      const exchanges = exchangesOf(evidence, index);
      const probes = carrying(exchanges, PROBE);
      // Only what follows the failed probe is a fallback (a client may also open with initialize: then the
      // probe never failed and the case says nothing).
      const initializes = probes[0] === undefined ? [] : carrying(exchanges, 'initialize').filter((exchange) => exchange.seq > probes[0]!.seq);
      return { ...c, what: `${c.what} (${serverName(index - 1)})`, probes, initializes, outcome: outcomeOf(evidence, c.name) };
    });
    const kinds: Kind[] = ['5xx', 'auth', 'reset', 'timeout'];
    const unsurfaced = cases.filter((c) => c.probes.length > 0 && c.outcome?.connect !== 'failed');
    return [
      clientCompleted(evidence, rule('5xx')),
      ...kinds.map((kind) => {
        const ofKind = cases.filter((c) => c.kind === kind);
        const fellBack = ofKind.filter((c) => c.initializes.length > 0);
        return check(
          `no-fallback-on-${kind}`,
          rule(kind),
          fellBack.length === 0,
          fellBack.length === 0
            ? ofKind.map((c) => `${c.what}: ${c.probes.length === 0 ? 'no probe was sent' : 'no initialize'}`).join('; ')
            : fellBack.map((c) => `${c.what}: the client fell back (${list(c.initializes)})`).join('; '),
          [...fellBack.flatMap((c) => c.probes.slice(0, 1)), ...fellBack.flatMap((c) => c.initializes)],
        );
      }),
      check(
        'failure-surfaced',
        { ...rule('5xx'), section: 'Versioning › Backward Compatibility: a failed probe is surfaced to the caller as an error (seeds 002, 003)' },
        unsurfaced.length === 0,
        unsurfaced.length === 0 ? 'every connect failed with an error' : unsurfaced.map((c) => `${c.what}: ${describeOutcome(c.outcome)}`).join('; '),
        unsurfaced.flatMap((c) => c.probes.slice(0, 1)),
      ),
    ];
  },
  doctored: [
    {
      check: 'no-fallback-on-timeout',
      how: 'an initialize after the timed-out probe',
      doctor: (e) => ({
        ...e,
        otherServers: e.otherServers.map((other, index) => {
          if (index !== CASES.length - 2) return other;
          const probe = other.exchanges[0]!;
          return { ...other, exchanges: [...other.exchanges, { ...probe, seq: probe.seq + 1, requestMessages: [{ jsonrpc: '2.0', id: 9, method: 'initialize', params: {} }] }] };
        }),
      }),
    },
  ],
});
