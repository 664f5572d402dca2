import { L } from '../../protocol/revisions.ts';
import { ANSWERS, probeAnswers, type ProbeAnswer } from '../../servers/personalities/probe-answers.ts';
import { clientCompleted } from '../checks.ts';
import { defineScenario, type Evidence } from '../scenario.ts';
import { versioning } from '../spec.ts';
import { labels } from '../wire.ts';
import { acrossCases, caseExchanges, caseOutcome, connectBound, connectCase, fallbackBroken, fallbackLate, fallbackOf, fallbackUnreached, serverName, type CaseJudgement } from './support.ts';

// Legacy answers a probe can get, each from its own server of the revision under test (so each connect is a
// first contact with its origin). `era` is the server's own answer: 400 -32000 "Mcp-Session-Id header is
// required" from a sessionful Streamable HTTP server, 404 text from an HTTP+SSE server.
// `bodyless`: a 2xx with no JSON-RPC answer at all is no modern answer either ("anything else identifies a legacy
// server"), but the HTTP binding spells out only the 4xx branch: that case is judged at SHOULD.
// A case reaches the rule when its probe was answered; a client that opens with initialize never gets there.
const CASES: readonly { name: string; what: string; answer?: ProbeAnswer; bodyless?: true }[] = [
  { name: 'era', what: "the era's own answer" },
  { name: 'method-not-found', what: '200 -32601 Method not found', answer: ANSWERS.methodNotFound() },
  { name: 'invalid-params-400', what: '400 -32602 (not a modern error)', answer: ANSWERS.legacyError(-32602, 'Invalid params', 400) },
  { name: 'text-400', what: '400 with a text body', answer: ANSWERS.text(400) },
  { name: 'empty-202', what: '202 with an empty body', answer: ANSWERS.empty(202), bodyless: true },
];

/** Case i runs on the scenario's server (i = 0) or on the (i-1)-th started one. */
const exchangesOf = (evidence: Evidence, index: number) => caseExchanges(evidence, index - 1);

const BACKWARD = 'backward-compatibility-with-initialization-based-versions';

export const autoFallsBack = defineScenario<undefined>({
  id: 'negotiation/auto-falls-back',
  title: "Auto mode against a legacy-only server: the probe's legacy answer leads to initialize and a working session, after at most one probe",
  revisions: L,
  requires: ['mode-auto'],
  source: { spec: versioning(BACKWARD, 'Backward Compatibility: anything but a recognised modern error identifies a legacy server', 'MUST') },
  async run(context) {
    for (const [index, { name, answer }] of CASES.entries()) {
      const target = index === 0 ? {} : { server: await context.startServer({ personalities: answer ? [probeAnswers(answer)] : [] }) };
      // A bound shorter than the runner's: a client that waits on a legacy answer fails within it.
      await connectCase(context, name, { negotiation: 'auto', timeoutMs: connectBound(context.time) }, target);
    }
  },
  judge(evidence) {
    const fallback = versioning(
      BACKWARD,
      'Backward Compatibility: any answer that is not a recognised modern error identifies a legacy server; the fallback MUST NOT be keyed to one error code (stdio binding)',
      'MUST',
    );
    const cases = CASES.map((c, index) => {
      const exchanges = exchangesOf(evidence, index);
      const outcome = caseOutcome(evidence, c.name, exchanges);
      const fallback = fallbackOf(exchanges);
      // Over HTTP a probe was answered when its response head was written.
      const unreached = fallbackUnreached(fallback, exchanges, outcome, connectBound(evidence.time), (probe) => probe.status !== undefined);
      const late = fallbackLate(fallback, outcome, connectBound(evidence.time));
      return { ...c, what: `${c.what} (${serverName(index - 1)})`, probes: fallback.probes, broken: late === undefined ? fallbackBroken(fallback, outcome) : undefined, late, unreached };
    });
    const fallsBack = (group: typeof cases): CaseJudgement[] =>
      group.map((c) => ({
        what: c.what,
        ...(c.unreached !== undefined ? { unreached: c.unreached } : {}),
        ...(c.broken !== undefined ? { broken: c.broken } : {}),
        ...(c.late !== undefined ? { late: c.late } : {}),
        exchanges: c.probes.slice(0, 1),
      }));
    const held = (group: typeof cases) => `every probe's legacy answer led to initialize and a working session (${group.map((c) => c.what).join('; ')})`;
    const plain = cases.filter((c) => !c.bodyless);
    const bodyless = cases.filter((c) => c.bodyless);
    return [
      clientCompleted(evidence, fallback),
      acrossCases('falls-back-on-every-legacy-answer', fallback, fallsBack(plain), held(plain), evidence.time),
      acrossCases(
        'falls-back-on-bodyless-answer',
        versioning(BACKWARD, 'Backward Compatibility: anything else (here a 2xx without any JSON-RPC answer) identifies a legacy server', 'SHOULD'),
        fallsBack(bodyless),
        held(bodyless),
        evidence.time,
      ),
      acrossCases(
        'at-most-one-probe',
        versioning(BACKWARD, 'Backward Compatibility: the era is a property of the server, determined once', 'SHOULD'),
        cases.map((c) => ({
          what: c.what,
          ...(c.probes.length === 0 ? { unreached: c.unreached ?? 'no probe reached it' } : {}),
          ...(c.probes.length > 1 ? { broken: labels(c.probes) } : {}),
          exchanges: c.probes,
        })),
        'at most one server/discover per connect',
      ),
    ];
  },
  doctored: [
    {
      check: 'at-most-one-probe',
      how: "the era case's probe sent twice",
      doctor: (e) => {
        const probe = e.exchanges.find((x) => x.requestMessages.some((m) => m.method === 'server/discover'))!;
        return { ...e, exchanges: [probe, { ...probe, seq: probe.seq + 0.5 }, ...e.exchanges.filter((x) => x !== probe)] };
      },
    },
  ],
});
