import type { TimePolicy } from '../../config/time.ts';
import { REVISIONS } from '../../protocol/revisions.ts';
import { authErrors } from '../../servers/personalities/auth-errors.ts';
import { dropConnection } from '../../servers/personalities/drop-connection.ts';
import { ANSWERS, PROBE_ANSWER_NOTE, probeAnswers } from '../../servers/personalities/probe-answers.ts';
import { serverErrors } from '../../servers/personalities/server-errors.ts';
import { slowResponses } from '../../servers/personalities/slow-responses.ts';
import type { Personality } from '../../servers/personality.ts';
import { clientCompleted } from '../checks.ts';
import { defineScenario, type Evidence, type SpecRef } from '../scenario.ts';
import { versioning } from '../spec.ts';
import { carrying, labels } from '../wire.ts';
import { acrossCases, answeredLazily, caseExchanges, caseOutcome, connectCase, describeCase, serverName } from './support.ts';

const PROBE = 'server/discover';

type Kind = '5xx' | 'auth' | 'reset' | 'timeout';

// Failures of the probe that say nothing about the server's era, each on its own server of the revision under
// test (its era answers everything but the probe normally, so a client that falls back would get a session). Each
// personality notes the probe it failed (`note`): a case whose probe was never failed so never reached its rule.
// The timeout case gives the client a connect bound of its start-up (calibrated: a slow starter still sends the
// probe) and holds the probe far longer, so the client gives up on a probe that was never answered.
const CASES: readonly { name: string; kind: Kind; what: string; note: string; personality: (time: TimePolicy) => Personality }[] = [
  { name: '503', kind: '5xx', what: '503 with Retry-After', note: 'server-error', personality: () => serverErrors({ status: 503, retryAfterSeconds: 1, method: PROBE }) },
  { name: '500-json', kind: '5xx', what: '500 with a JSON-RPC -32603 body', note: PROBE_ANSWER_NOTE, personality: () => probeAnswers(ANSWERS.serverError(500)) },
  { name: '401', kind: 'auth', what: '401 with a Bearer challenge', note: 'auth-401', personality: () => authErrors({ status: 401, method: PROBE }) },
  { name: '403', kind: 'auth', what: '403 insufficient_scope', note: 'auth-403', personality: () => authErrors({ status: 403, method: PROBE }) },
  { name: 'reset', kind: 'reset', what: 'a reset connection', note: 'dropped-before-handler', personality: () => dropConnection({ method: PROBE, when: 'before' }) },
  { name: 'timeout', kind: 'timeout', what: "no answer within the client's connect bound", note: 'slowed', personality: (time) => slowResponses({ ms: holdMs(time), method: PROBE }) },
];

const timeoutConnectMs = (time: TimePolicy) => time.ms.startup;
const holdMs = (time: TimePolicy) => timeoutConnectMs(time) + time.ms.operation;

const exchangesOf = (evidence: Evidence, index: number) => caseExchanges(evidence, index - 1);

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
  // The first case's personality needs no time policy (setup has none): only the timeout case's hold does.
  setup: () => ({ server: { personalities: [serverErrors({ status: 503, retryAfterSeconds: 1, method: PROBE })] }, state: undefined }),
  async run(context) {
    for (const [index, { name, kind, personality }] of CASES.entries()) {
      const target = index === 0 ? {} : { server: await context.startServer({ personalities: [personality(context.time)] }) };
      // A client that takes the timed-out probe for a legacy answer sends initialize within its connect.
      await connectCase(context, name, kind === 'timeout' ? { negotiation: 'auto', timeoutMs: timeoutConnectMs(context.time) } : { negotiation: 'auto' }, target);
    }
  },
  judge(evidence) {
    const cases = CASES.map((c, index) => {
      const exchanges = exchangesOf(evidence, index);
      const probes = carrying(exchanges, PROBE);
      const failed = probes.find((probe) => probe.notes.includes(c.note));
      // Only what follows the failed probe is a fallback (a client may also open with initialize: then the
      // probe never failed and the case never reached its rule).
      const initializes = failed === undefined ? [] : carrying(exchanges, 'initialize').filter((exchange) => exchange.seq > failed.seq);
      const outcome = caseOutcome(evidence, c.name, exchanges);
      const unreached =
        failed !== undefined
          ? undefined
          : probes.length > 0
            ? `its probe was not failed as scripted (${labels(probes)})`
            : `no probe reached it (${carrying(exchanges, 'initialize').length > 0 ? 'the client opened with initialize' : describeCase(outcome)})`;
      return { ...c, what: `${c.what} (${serverName(index - 1)})`, failed, initializes, outcome, unreached };
    });
    const kinds: Kind[] = ['5xx', 'auth', 'reset', 'timeout'];
    return [
      clientCompleted(evidence, rule('5xx')),
      ...kinds.map((kind) =>
        acrossCases(
          `no-fallback-on-${kind}`,
          rule(kind),
          cases
            .filter((c) => c.kind === kind)
            .map((c) => ({
              what: c.what,
              ...(c.unreached !== undefined ? { unreached: c.unreached } : {}),
              ...(c.initializes.length > 0 ? { broken: `the client fell back (${labels(c.initializes)})` } : {}),
              exchanges: [...(c.failed ? [c.failed] : []), ...c.initializes],
            })),
          cases
            .filter((c) => c.kind === kind)
            .map((c) => `${c.what}: no initialize`)
            .join('; '),
        ),
      ),
      acrossCases(
        'failure-surfaced',
        { ...rule('5xx'), section: 'Versioning › Backward Compatibility: a failed probe is surfaced to the caller as an error (seeds 002, 003)' },
        cases.map((c) => ({
          what: c.what,
          ...(c.unreached !== undefined ? { unreached: c.unreached } : {}),
          ...(c.outcome?.connect.state !== 'rejected' ? { broken: describeCase(c.outcome) } : {}),
          exchanges: c.failed ? [c.failed] : [],
        })),
        'every connect failed with an error',
      ),
    ];
  },
  doctored: [
    {
      check: 'failure-surfaced',
      how: "the 503 case as a lazy client's: nothing sent before its connect resolved, and its first operation, tools/list, answered",
      doctor: (e) => answeredLazily(e, CASES[0]!.name, exchangesOf(e, 0)),
    },
    {
      check: 'no-fallback-on-timeout',
      how: 'an initialize after the timed-out probe',
      doctor: (e) => ({
        ...e,
        otherServers: e.otherServers.map((other, index) => {
          if (index !== CASES.length - 2) return other;
          const probe = other.exchanges[0]!;
          return { ...other, exchanges: [...other.exchanges, { ...probe, seq: probe.seq + 1, notes: [], requestMessages: [{ jsonrpc: '2.0', id: 9, method: 'initialize', params: {} }] }] };
        }),
      }),
    },
  ],
});
