import { ANSWERS, probeAnswers, type ProbeAnswer } from '../../servers/personalities/probe-answers.ts';
import { LEGACY_REVISIONS } from '../../protocol/revisions.ts';
import { check, clientCompleted } from '../checks.ts';
import { defineScenario, type Evidence } from '../scenario.ts';
import { answerTo, caseExchanges, carrying, describeOutcome, list, outcomeOf, requests, runCase, servedResult, serverName, versioning } from './support.ts';

// Legacy answers a probe can get, each from its own server of the revision under test (so each connect is a
// first contact with its origin). `era` is the server's own answer: 400 -32000 "Mcp-Session-Id header is
// required" from a sessionful Streamable HTTP server, 404 text from an HTTP+SSE server.
// `bodyless`: a 2xx with no JSON-RPC answer at all is no modern answer either ("anything else identifies a legacy
// server"), but the HTTP binding spells out only the 4xx branch: that case is judged at SHOULD.
const CASES: readonly { name: string; what: string; answer?: ProbeAnswer; bodyless?: true }[] = [
  { name: 'era', what: "the era's own answer" },
  { name: 'method-not-found', what: '200 -32601 Method not found', answer: ANSWERS.methodNotFound() },
  { name: 'invalid-params-400', what: '400 -32602 (not a modern error)', answer: ANSWERS.legacyError(-32602, 'Invalid params', 400) },
  { name: 'text-400', what: '400 with a text body', answer: ANSWERS.text(400) },
  { name: 'empty-202', what: '202 with an empty body', answer: ANSWERS.empty(202), bodyless: true },
];

/** Case i runs on the scenario's server (i = 0) or on the (i-1)-th started one. */
const exchangesOf = (evidence: Evidence, index: number) => caseExchanges(evidence, index - 1) ?? [];

export const autoFallsBack = defineScenario<undefined>({
  id: 'negotiation/auto-falls-back',
  title: "Auto mode against a legacy-only server: the probe's legacy answer leads to initialize and a working session, after at most one probe",
  revisions: LEGACY_REVISIONS,
  requires: ['mode-auto'],
  source: { spec: versioning('backward-compatibility-with-initialization-based-versions', 'Backward Compatibility: anything but a recognised modern error identifies a legacy server', 'MUST') },
  async run(context) {
    for (const [index, { name, answer }] of CASES.entries()) {
      const target = index === 0 ? {} : { server: await context.startServer({ personalities: answer ? [probeAnswers(answer)] : [] }) };
      // A bound shorter than the runner's: a client that waits on a legacy answer fails within it.
      await runCase(context, name, { negotiation: 'auto', timeoutMs: 2_000 }, target);
    }
  },
  judge(evidence) {
    const fallback = versioning(
      'backward-compatibility-with-initialization-based-versions',
      'Backward Compatibility: any answer that is not a recognised modern error identifies a legacy server; the fallback MUST NOT be keyed to one error code (stdio binding)',
      'MUST',
    );
    const cases = CASES.map((c, index) => {
      const exchanges = exchangesOf(evidence, index);
      const probes = carrying(exchanges, 'server/discover');
      const firstProbe = probes[0];
      const initializes = firstProbe ? requests(exchanges, 'initialize').filter((r) => r.exchange.seq > firstProbe.seq) : [];
      const initialize = initializes[0];
      const handshake = initializes.some((r) => answerTo(exchanges, r)?.result !== undefined);
      return { ...c, what: `${c.what} (${serverName(index - 1)})`, exchanges, probes, initialize, outcome: outcomeOf(evidence, c.name), working: handshake && servedResult(exchanges, 'tools/list') };
    });
    const fallsBack = (name: string, spec: typeof fallback, group: typeof cases) => {
      const probed = group.filter((c) => c.probes.length > 0);
      const notFallenBack = probed.filter((c) => !c.working);
      return check(
        name,
        spec,
        notFallenBack.length === 0,
        probed.length === 0
          ? 'the client never probed (it went straight to initialize)'
          : notFallenBack.length === 0
            ? `every probe's legacy answer led to initialize and a working session (${probed.map((c) => c.what).join('; ')})`
            : notFallenBack.map((c) => `${c.what}: ${c.initialize ? 'initialize was sent, but no working session' : 'no initialize followed'} — ${describeOutcome(c.outcome)}`).join('; '),
        notFallenBack.flatMap((c) => c.probes.slice(0, 1)),
      );
    };
    const repeated = cases.filter((c) => c.probes.length > 1);
    return [
      clientCompleted(evidence, fallback),
      fallsBack(
        'falls-back-on-every-legacy-answer',
        fallback,
        cases.filter((c) => !c.bodyless),
      ),
      fallsBack(
        'falls-back-on-bodyless-answer',
        versioning('backward-compatibility-with-initialization-based-versions', 'Backward Compatibility: anything else (here a 2xx without any JSON-RPC answer) identifies a legacy server', 'SHOULD'),
        cases.filter((c) => c.bodyless),
      ),
      check(
        'at-most-one-probe',
        versioning('backward-compatibility-with-initialization-based-versions', 'Backward Compatibility: the era is a property of the server, determined once', 'SHOULD'),
        repeated.length === 0,
        repeated.length === 0 ? 'at most one server/discover per connect' : repeated.map((c) => `${c.what}: ${list(c.probes)}`).join('; '),
        repeated.flatMap((c) => c.probes),
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
