import { L, type Revision } from '../../protocol/revisions.ts';
import type { ReferenceServer } from '../../servers/reference-server.ts';
import type { SentMessage, WireExchange } from '../../servers/wire-record.ts';
import { clientCompleted } from '../checks.ts';
import { defineScenario, type Evidence } from '../scenario.ts';
import { lifecycle } from '../spec.ts';
import { answeredAt, answerTo, labels, requests, withRefusedAttemptSharingId } from '../wire.ts';
import { acrossCases, caseExchanges, caseOutcome, connectBound, connectCase, describeCase, initializeRefusedUnless, ranOutOfTime, serverName, settledAt, type CaseJudgement, type CaseOutcome } from './support.ts';

/** A revision no client speaks: an error form listing only it leaves the client nothing to retry with. */
const UNKNOWN = '1999-01-01';

// Two cases, each on its own server:
// - `listed`: the server refuses an initialize offering anything but the revision under test, naming it in
//   `data.supported`. A retry offering it reaches the era and succeeds; failing cleanly is also allowed. A client
//   whose newest revision is the one under test is not refused at all (the case then only shows it connects).
// - `unknown`: every initialize is refused naming only 1999-01-01: the client must fail, not wait.
// A client reacts to the error form by retrying or by failing its connect; one that ignores it and waits for a
// result sits out its connect bound (support.ts connectBound).
const CASES = [
  { name: 'listed', server: -1 },
  { name: 'unknown', server: 0 },
] as const;

interface Refusal {
  request: SentMessage;
  supported: unknown[];
  at: number | undefined;
}

/** When the client had the refusal: when it was written, else when its request arrived. */
const refusedAtOf = (refusal: Refusal): number => refusal.at ?? refusal.request.exchange.startedAt;

function refusals(exchanges: readonly WireExchange[]): Refusal[] {
  return requests(exchanges, 'initialize').flatMap((request) => {
    const error = answerTo(exchanges, request)?.error;
    if (error?.code !== -32602) return [];
    const supported = (error.data as { supported?: unknown } | undefined)?.supported;
    return [{ request, supported: Array.isArray(supported) ? supported : [], at: answeredAt(exchanges, request) }];
  });
}

function casesOf(evidence: Evidence) {
  return CASES.map(({ name, server }) => {
    const exchanges = caseExchanges(evidence, server);
    return { name: `${name} (${serverName(server)})`, exchanges, outcome: caseOutcome(evidence, name, exchanges), refused: refusals(exchanges) };
  });
}

/** The record with a notifications/initialized sent to the server of the `unknown` case after everything else. */
function withStrayAfterUnknown(evidence: Evidence): Evidence {
  return {
    ...evidence,
    otherServers: evidence.otherServers.map((other, index) => {
      if (index !== 0) return other;
      const last = other.exchanges.at(-1)!;
      const stray = { ...last, seq: last.seq + 1, requestMessages: [{ jsonrpc: '2.0', method: 'notifications/initialized' }], responseMessages: [] };
      return { ...other, exchanges: [...other.exchanges, stray] };
    }),
  };
}

/** Why a case never met the error form: no initialize of it reached its server (an unrefused one did not need to). */
function unreached(c: ReturnType<typeof casesOf>[number]): string | undefined {
  return requests(c.exchanges, 'initialize').length === 0 ? `no initialize reached it (${describeCase(c.outcome)})` : undefined;
}

export const errorForm = defineScenario<{ revision: Revision }>({
  id: 'negotiation/error-form',
  title: 'initialize answered with -32602 "Unsupported protocol version" and data.supported: the client fails cleanly or retries with a listed version; it never hangs',
  revisions: L,
  requires: [],
  source: { spec: lifecycle('2025-06-18', 'error-handling', 'Error Handling: be prepared to handle a protocol version mismatch (the error form)', 'SHOULD') },
  setup: (revision) => ({ server: { personalities: [initializeRefusedUnless(revision, [revision])] }, state: { revision } }),
  async run(context) {
    const { state, startServer } = context;
    const options = { timeoutMs: connectBound(context.time) };
    await connectCase(context, 'listed', options);
    const unknown: ReferenceServer = await startServer({ personalities: [initializeRefusedUnless(state.revision, [UNKNOWN])] });
    await connectCase(context, 'unknown', options, { server: unknown });
  },
  judge(evidence) {
    const { revision } = evidence;
    const handling = lifecycle(revision, 'error-handling', 'Error Handling: implementations SHOULD be prepared to handle a protocol version mismatch', 'SHOULD');
    const negotiation = lifecycle(revision, 'version-negotiation', 'Version Negotiation (the error form of the answer)', 'SHOULD');
    const reactMs = evidence.time.ms.react;
    const boundMs = connectBound(evidence.time);
    const cases = casesOf(evidence);
    // Only a case the client was refused in says anything: one whose first initialize was accepted had nothing to handle.
    const judged = (judge: (c: (typeof cases)[number], first: Refusal) => Omit<CaseJudgement, 'what'>): CaseJudgement[] =>
      cases.flatMap((c) => {
        const why = unreached(c);
        if (why !== undefined) return [{ what: c.name, unreached: why }];
        const first = c.refused[0];
        return first === undefined ? [] : [{ what: c.name, ...judge(c, first) }];
      });

    // The reaction to the error form: the next initialize to the same server, or the connect settling, whichever came
    // first. A client that handles the error form reacts before its connect bound runs out, however slow the machine;
    // one that waits for a result sits out the bound. When the error form itself came with less than the time to react
    // left, the bound says nothing either way: time ran out.
    const promptly = judged(({ exchanges, outcome }, first) => {
      if (outcome === undefined) return { unreached: 'the case did not run' };
      const shown = { exchanges: [first.request.exchange] };
      const left = Math.round(outcome.startedAt + boundMs - refusedAtOf(first));
      const noTimeLeft = `the error form came only ${left} ms before the connect bound of ${boundMs} ms ran out: no time left to react`;
      // A connect that hung after an error form that left no time to react says nothing either way.
      if (outcome.connect.hung) return left < reactMs ? { unreached: noTimeLeft, ...shown } : { broken: describeCase(outcome), ...shown };
      const retry = requests(exchanges, 'initialize').find((r) => r.exchange.seq > first.request.exchange.seq);
      const reactedAt = Math.min(settledAt(outcome), retry?.exchange.startedAt ?? Infinity);
      const refusedAt = refusedAtOf(first);
      const took = Math.round(reactedAt - refusedAt);
      const retried = retry !== undefined && retry.exchange.startedAt <= settledAt(outcome);
      if (retried || !ranOutOfTime(outcome, boundMs)) return { ...shown, held: `reacted ${took} ms after the error form (${retried ? `retried with ${labels([retry.exchange])}` : describeCase(outcome)})` };
      if (left < reactMs) return { unreached: noTimeLeft, ...shown };
      return { broken: `the client sat out its connect bound: ${took} ms after the error form ${describeCase(outcome)}`, ...shown };
    });

    const retries = judged(({ refused, exchanges }) => {
      const bad = refused.flatMap((refusal, index) => {
        const next = refused[index + 1]?.request ?? requests(exchanges, 'initialize').find((r) => r.exchange.seq > refusal.request.exchange.seq);
        const offered = next?.message.params?.['protocolVersion'];
        return next !== undefined && !refusal.supported.includes(offered) ? [{ exchange: next.exchange, offered, supported: refusal.supported }] : [];
      });
      return bad.length === 0
        ? {}
        : { broken: bad.map((b) => `#${b.exchange.seq} offered ${String(b.offered)}, not one of ${JSON.stringify(b.supported)}`).join('; '), exchanges: bad.map((b) => b.exchange) };
    });

    // Without a successful handshake, nothing but initialize retries may follow the refusal.
    const quiet = judged(({ exchanges }, first) => {
      const succeeded = requests(exchanges, 'initialize').some((request) => answerTo(exchanges, request)?.result !== undefined);
      const strays = succeeded ? [] : exchanges.filter((exchange) => exchange.seq > first.request.exchange.seq && exchange.requestMessages.some((message) => message.method !== 'initialize'));
      return strays.length === 0 ? {} : { broken: `after the refusal the client sent ${labels(strays)}`, exchanges: strays };
    });

    return [
      clientCompleted(evidence, handling),
      acrossCases(
        'settles-promptly',
        handling,
        promptly,
        `every error form was acted on before the connect bound of ${boundMs} ms ran out (${cases.map(({ name }, index) => `${name}: ${promptly.find((c) => c.what === name)?.held ?? describeCase(cases[index]!.outcome)}`).join('; ')})`,
      ),
      acrossCases('retry-offers-listed', negotiation, retries, 'every initialize after an error form offered a version it listed (or none followed)'),
      acrossCases(
        'nothing-else-after-refusal',
        { ...negotiation, section: 'Lifecycle › Version Negotiation: a client that cannot agree on a version SHOULD disconnect' },
        quiet,
        'after an error form left no handshake, nothing but initialize was sent',
      ),
    ];
  },
  doctored: [
    {
      check: 'settles-promptly',
      how: 'the unknown case waited for a result: its connect failed only when its bound ran out, without a retry',
      doctor: (e) => {
        const outcome = e.observed['case:unknown'] as CaseOutcome;
        const connect = { state: 'rejected', afterMs: connectBound(e.time) + 1, detail: 'Error: connect timed out' };
        return { ...e, observed: { ...e.observed, 'case:unknown': { ...outcome, connect } } };
      },
    },
    {
      check: 'nothing-else-after-refusal',
      how: 'notifications/initialized sent after the unknown case was refused',
      doctor: (e) => withStrayAfterUnknown(e),
    },
    {
      check: 'nothing-else-after-refusal',
      how: 'the initialize refused before the HTTP+SSE fallback sharing the id of the one refused on the stream (as LangChain and mcp-remote send it), and notifications/initialized after the unknown case was refused',
      doctor: (e) => withStrayAfterUnknown({ ...e, otherServers: e.otherServers.map((other) => ({ ...other, exchanges: withRefusedAttemptSharingId(other.exchanges) })) }),
    },
    {
      check: 'retry-offers-listed',
      how: 'an initialize offering 2099-01-01 after the unknown case was refused',
      doctor: (e) => ({
        ...e,
        otherServers: e.otherServers.map((other, index) => {
          if (index !== 0) return other;
          const first = other.exchanges.find((x) => x.requestMessages.some((m) => m.method === 'initialize' && m.id !== undefined))!;
          const retry = {
            ...first,
            seq: other.exchanges.length + 1,
            requestMessages: [{ ...first.requestMessages[0]!, id: 99, params: { ...first.requestMessages[0]!.params, protocolVersion: '2099-01-01' } }],
            responseMessages: [],
          };
          return { ...other, exchanges: [...other.exchanges, retry] };
        }),
      }),
    },
  ],
});
