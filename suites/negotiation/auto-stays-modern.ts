import { M, MODERN_REVISION } from '../../protocol/revisions.ts';
import { ANSWERS, PROBE_ANSWER_NOTE, probeAnswers, type ProbeAnswer } from '../../servers/personalities/probe-answers.ts';
import { clientCompleted } from '../checks.ts';
import { defineScenario, type Evidence } from '../scenario.ts';
import { streamableHttp } from '../spec.ts';
import { carrying, labels, noted } from '../wire.ts';
import { acrossCases, caseExchanges, caseOutcome, connectCase, describeCase, retriesMutualVersion, serverName } from './support.ts';

// A 2026-07-28 server answers the first probe of each case with a recognised modern error (once: a retry reaches
// the era). Each case has its own server, so each connect is a first contact with its origin.
// - `mutual`: -32022 naming 2026-07-28, which the client speaks: it SHOULD retry with it and stay modern.
// - `unknown-version`, `header-mismatch`, `missing-capability`: -32022 naming only a version no client speaks,
//   -32020, -32021: the server is modern; the client may correct and retry, or surface the error, never fall back.
// - `legacy-only` (revisions.md tension 4): -32022 naming only 2025-11-25. The spec's reading (a modern error:
//   no fallback) is what this check enforces, informationally: some SDKs fall back here.
// A case reaches its rule when the server gave its modern error (or the client sent initialize there anyway).
const CASES: readonly { name: string; what: string; answer: ProbeAnswer }[] = [
  { name: 'mutual', what: `-32022 naming ${MODERN_REVISION}`, answer: ANSWERS.unsupportedVersion([MODERN_REVISION]) },
  { name: 'unknown-version', what: '-32022 naming only 2099-01-01', answer: ANSWERS.unsupportedVersion(['2099-01-01']) },
  { name: 'header-mismatch', what: '-32020 HeaderMismatch', answer: ANSWERS.headerMismatch() },
  { name: 'missing-capability', what: '-32021 MissingRequiredClientCapability', answer: ANSWERS.missingCapability() },
  { name: 'legacy-only', what: '-32022 naming only 2025-11-25', answer: ANSWERS.unsupportedVersion(['2025-11-25']) },
];

const exchangesOf = (evidence: Evidence, index: number) => caseExchanges(evidence, index - 1);

export const autoStaysModern = defineScenario<undefined>({
  id: 'negotiation/auto-stays-modern',
  title: 'Auto mode: -32022 naming a mutual version is retried with it; -32020/-32021 (and -32022 without one) never lead to initialize',
  revisions: M,
  requires: ['mode-auto'],
  setup: () => ({ server: { personalities: [probeAnswers({ ...CASES[0]!.answer, count: 1 })] }, state: undefined }),
  source: { spec: streamableHttp('backward-compatibility', 'Backward Compatibility: a recognised modern error means retry or correct, not fall back', 'SHOULD') },
  async run(context) {
    for (const [index, { name, answer }] of CASES.entries()) {
      const target = index === 0 ? {} : { server: await context.startServer({ personalities: [probeAnswers({ ...answer, count: 1 })] }) };
      await connectCase(context, name, { negotiation: 'auto' }, target);
    }
  },
  judge(evidence) {
    const noFallback = streamableHttp('backward-compatibility', 'Backward Compatibility: a recognised modern error identifies a modern server — retry or correct the request rather than falling back', 'SHOULD');
    const cases = CASES.map((c, index) => {
      const exchanges = exchangesOf(evidence, index);
      const refused = noted(exchanges, PROBE_ANSWER_NOTE)[0];
      const initializes = carrying(exchanges, 'initialize');
      const outcome = caseOutcome(evidence, c.name, exchanges);
      const unreached = refused === undefined && initializes.length === 0 ? `the server never gave its modern error (${labels(exchanges)}; ${describeCase(outcome)})` : undefined;
      return { ...c, what: `${c.what} (${serverName(index - 1)})`, exchanges, refused, initializes, outcome, unreached };
    });
    const fallbacks = (names: readonly string[]) =>
      cases
        .filter((c) => names.includes(c.name))
        .map((c) => ({
          what: c.what,
          ...(c.unreached !== undefined ? { unreached: c.unreached } : {}),
          ...(c.initializes.length > 0 ? { broken: labels(c.initializes) } : {}),
          exchanges: c.initializes,
        }));

    const mutual = cases[0]!;
    const tension = cases[4]!;
    return [
      clientCompleted(evidence, noFallback),
      retriesMutualVersion(mutual.what, mutual.exchanges, mutual.refused, mutual.initializes, mutual.outcome, mutual.unreached),
      acrossCases('no-fallback-on-modern-error', noFallback, fallbacks(['mutual', 'unknown-version', 'header-mismatch', 'missing-capability']), 'no modern error led to initialize'),
      acrossCases(
        'no-fallback-on-legacy-only-list',
        { ...noFallback, section: 'Streamable HTTP (2026-07-28) › Backward Compatibility: -32022 naming only legacy versions is still a modern error (revisions.md tension 4; informational)', level: 'MAY' },
        fallbacks(['legacy-only']),
        `${tension.what}: no initialize (${describeCase(tension.outcome)})`,
      ),
    ];
  },
});
