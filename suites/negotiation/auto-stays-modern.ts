import { ANSWERS, probeAnswers, type ProbeAnswer } from '../../servers/personalities/probe-answers.ts';
import { check, clientCompleted } from '../checks.ts';
import { defineScenario, type Evidence } from '../scenario.ts';
import { caseExchanges, carrying, describeOutcome, envelopeOf, list, META_VERSION, MODERN, outcomeOf, requests, servedResult, runCase, serverName, streamableHttp, versioning } from './support.ts';

// A 2026-07-28 server answers the first probe of each case with a recognised modern error (once: a retry reaches
// the era). Each case has its own server, so each connect is a first contact with its origin.
// - `mutual`: -32022 naming 2026-07-28, which the client speaks: it SHOULD retry with it and stay modern.
// - `unknown-version`, `header-mismatch`, `missing-capability`: -32022 naming only a version no client speaks,
//   -32020, -32021: the server is modern; the client may correct and retry, or surface the error, never fall back.
// - `legacy-only` (revisions.md tension 4): -32022 naming only 2025-11-25. The spec's reading (a modern error:
//   no fallback) is what this check enforces, informationally: some SDKs fall back here.
const CASES: readonly { name: string; what: string; answer: ProbeAnswer }[] = [
  { name: 'mutual', what: '-32022 naming 2026-07-28', answer: ANSWERS.unsupportedVersion([MODERN]) },
  { name: 'unknown-version', what: '-32022 naming only 2099-01-01', answer: ANSWERS.unsupportedVersion(['2099-01-01']) },
  { name: 'header-mismatch', what: '-32020 HeaderMismatch', answer: ANSWERS.headerMismatch() },
  { name: 'missing-capability', what: '-32021 MissingRequiredClientCapability', answer: ANSWERS.missingCapability() },
  { name: 'legacy-only', what: '-32022 naming only 2025-11-25', answer: ANSWERS.unsupportedVersion(['2025-11-25']) },
];

const exchangesOf = (evidence: Evidence, index: number) => caseExchanges(evidence, index - 1) ?? [];

export const autoStaysModern = defineScenario<undefined>({
  id: 'negotiation/auto-stays-modern',
  title: 'Auto mode: -32022 naming a mutual version is retried with it; -32020/-32021 (and -32022 without one) never lead to initialize',
  revisions: [MODERN],
  requires: ['mode-auto'],
  setup: () => ({ server: { personalities: [probeAnswers({ ...CASES[0]!.answer, count: 1 })] }, state: undefined }),
  source: { spec: streamableHttp('backward-compatibility', 'Backward Compatibility: a recognised modern error means retry or correct, not fall back', 'SHOULD') },
  async run(context) {
    for (const [index, { name, answer }] of CASES.entries()) {
      const target = index === 0 ? {} : { server: await context.startServer({ personalities: [probeAnswers({ ...answer, count: 1 })] }) };
      await runCase(context, name, { negotiation: 'auto' }, target);
    }
  },
  judge(evidence) {
    const noFallback = streamableHttp('backward-compatibility', 'Backward Compatibility: a recognised modern error identifies a modern server — retry or correct the request rather than falling back', 'SHOULD');
    const cases = CASES.map((c, index) => {
      const exchanges = exchangesOf(evidence, index);
      return { ...c, what: `${c.what} (${serverName(index - 1)})`, exchanges, refused: carrying(exchanges, 'server/discover')[0], initializes: carrying(exchanges, 'initialize'), outcome: outcomeOf(evidence, c.name) };
    });
    const fellBack = (names: readonly string[]) => cases.filter((c) => names.includes(c.name) && c.initializes.length > 0);

    const mutual = cases[0]!;
    const afterRefusal = mutual.refused ? requests(mutual.exchanges).filter((r) => r.exchange.seq > mutual.refused!.seq) : [];
    const retry = afterRefusal.find((r) => r.message.method !== 'initialize');
    const retriedVersion = retry ? envelopeOf(retry.message)?.[META_VERSION] : undefined;
    const retried = retry !== undefined && retriedVersion === MODERN && mutual.initializes.length === 0 && servedResult(mutual.exchanges, 'tools/list');

    const strict = fellBack(['mutual', 'unknown-version', 'header-mismatch', 'missing-capability']);
    const tension = fellBack(['legacy-only']);
    return [
      clientCompleted(evidence, noFallback),
      check(
        'retries-mutual-version',
        versioning('protocol-version-negotiation', 'Protocol Version Negotiation: the client SHOULD select a mutually supported version from `supported` and retry', 'SHOULD'),
        retried,
        mutual.refused === undefined
          ? 'the client sent no server/discover'
          : retried
            ? `after ${mutual.what} the client retried declaring ${MODERN} and stayed modern (${describeOutcome(mutual.outcome)})`
            : `after ${mutual.what}: ${retry ? `the next request declared ${String(retriedVersion)}` : 'no modern request followed'}; ${mutual.initializes.length > 0 ? `it fell back (${list(mutual.initializes)}); ` : ''}${describeOutcome(mutual.outcome)}`,
        [mutual.refused, retry?.exchange].filter((e) => e !== undefined),
      ),
      check(
        'no-fallback-on-modern-error',
        noFallback,
        strict.length === 0,
        strict.length === 0
          ? 'no modern error led to initialize'
          : strict.map((c) => `${c.what}: ${list(c.initializes)}`).join('; '),
        strict.flatMap((c) => c.initializes),
      ),
      check(
        'no-fallback-on-legacy-only-list',
        { ...noFallback, section: 'Streamable HTTP (2026-07-28) › Backward Compatibility: -32022 naming only legacy versions is still a modern error (revisions.md tension 4; informational)', level: 'MAY' },
        tension.length === 0,
        tension.length === 0 ? `${cases[4]!.what}: no initialize (${describeOutcome(cases[4]!.outcome)})` : `${cases[4]!.what}: the client fell back (${list(tension[0]!.initializes)})`,
        tension.flatMap((c) => c.initializes),
      ),
    ];
  },
});
