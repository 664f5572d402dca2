import type { ReferenceServer } from '../../servers/reference-server.ts';
import { LEGACY_REVISIONS, type Revision } from '../../protocol/revisions.ts';
import type { WireExchange } from '../../servers/wire-record.ts';
import { check, clientCompleted } from '../checks.ts';
import { withRefusedAttemptSharingId } from '../wire.ts';
import { defineScenario, type Evidence } from '../scenario.ts';
import {
  answeredAt,
  answerTo,
  caseExchanges,
  describeOutcome,
  initializeRefusedUnless,
  lifecycle,
  list,
  outcomeOf,
  requests,
  runCase,
  serverName,
  type Sent,
} from './support.ts';

/** A revision no client speaks: an error form listing only it leaves the client nothing to retry with. */
const UNKNOWN = '1999-01-01';
/** How soon after the error form a connect must settle: a client that handles it settles in milliseconds. */
const PROMPT_MS = 750;

// Two cases, each on its own server:
// - `listed`: the server refuses an initialize offering anything but the revision under test, naming it in
//   `data.supported`. A retry offering it reaches the era and succeeds; failing cleanly is also allowed. A client
//   whose newest revision is the one under test is not refused at all (the case then only shows it connects).
// - `unknown`: every initialize is refused naming only 1999-01-01: the client must fail, promptly.
const CASES = [
  { name: 'listed', server: -1 },
  { name: 'unknown', server: 0 },
] as const;

interface Refusal {
  request: Sent;
  supported: unknown[];
  at: number | undefined;
}

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
    const exchanges = caseExchanges(evidence, server) ?? [];
    return { name: `${name} (${serverName(server)})`, key: name, exchanges, outcome: outcomeOf(evidence, name), refused: refusals(exchanges) };
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

export const errorForm = defineScenario<{ revision: Revision }>({
  id: 'negotiation/error-form',
  title: 'initialize answered with -32602 "Unsupported protocol version" and data.supported: the client fails cleanly or retries with a listed version; it never hangs',
  revisions: LEGACY_REVISIONS,
  requires: [],
  source: { spec: lifecycle('2025-06-18', 'error-handling', 'Error Handling: be prepared to handle a protocol version mismatch (the error form)', 'SHOULD') },
  setup: (revision) => ({ server: { personalities: [initializeRefusedUnless(revision, [revision])] }, state: { revision } }),
  async run(context) {
    const { state, startServer } = context;
    // A short connect bound: a client that ignores the error form and waits for a result hangs until it.
    const options = { timeoutMs: 1_500 };
    await runCase(context, 'listed', options);
    const unknown: ReferenceServer = await startServer({ personalities: [initializeRefusedUnless(state.revision, [UNKNOWN])] });
    await runCase(context, 'unknown', options, { server: unknown });
  },
  judge(evidence) {
    const { revision } = evidence;
    const handling = lifecycle(revision, 'error-handling', 'Error Handling: implementations SHOULD be prepared to handle a protocol version mismatch', 'SHOULD');
    const negotiation = lifecycle(revision, 'version-negotiation', 'Version Negotiation (the error form of the answer)', 'SHOULD');
    const cases = casesOf(evidence);

    const slow = cases.flatMap(({ name, outcome, refused }) => {
      const first = refused[0];
      if (first === undefined) return [];
      if (outcome === undefined) return [`${name}: the case did not run`];
      if (outcome.connect === 'hung') return [`${name}: the connect never settled`];
      const took = first.at === undefined ? undefined : outcome.settledAt - first.at;
      return took !== undefined && took > PROMPT_MS ? [`${name}: the connect settled ${Math.round(took)} ms after the error form`] : [];
    });

    const badRetries = cases.flatMap(({ name, refused, exchanges }) =>
      refused.flatMap((refusal, index) => {
        const next = refused[index + 1]?.request ?? requests(exchanges, 'initialize').find((r) => r.exchange.seq > refusal.request.exchange.seq);
        const offered = next?.message.params?.['protocolVersion'];
        return next !== undefined && !refusal.supported.includes(offered) ? [{ name, exchange: next.exchange, offered, supported: refusal.supported }] : [];
      }),
    );

    // Without a successful handshake, nothing but initialize retries may follow the refusal.
    const strays = cases.flatMap(({ exchanges, refused }) => {
      const first = refused[0];
      const succeeded = requests(exchanges, 'initialize').some((request) => answerTo(exchanges, request)?.result !== undefined);
      if (first === undefined || succeeded) return [];
      return exchanges.filter((exchange) => exchange.seq > first.request.exchange.seq && exchange.requestMessages.some((message) => message.method !== 'initialize'));
    });

    const refusedAnywhere = cases.flatMap(({ refused }) => refused.map((r) => r.request.exchange));

    return [
      clientCompleted(evidence, handling),
      check(
        'settles-promptly',
        handling,
        refusedAnywhere.length > 0 && slow.length === 0,
        refusedAnywhere.length === 0
          ? 'no initialize was refused'
          : slow.length === 0
            ? cases.map(({ name, outcome }) => `${name}: ${describeOutcome(outcome)}`).join('; ')
            : slow.join('; '),
        refusedAnywhere,
      ),
      check(
        'retry-offers-listed',
        negotiation,
        badRetries.length === 0,
        badRetries.length === 0
          ? 'every initialize after an error form offered a version it listed (or none followed)'
          : badRetries.map((bad) => `${bad.name}: #${bad.exchange.seq} offered ${String(bad.offered)}, not one of ${JSON.stringify(bad.supported)}`).join('; '),
        badRetries.map((bad) => bad.exchange),
      ),
      check(
        'nothing-else-after-refusal',
        { ...negotiation, section: 'Lifecycle › Version Negotiation: a client that cannot agree on a version SHOULD disconnect' },
        strays.length === 0,
        strays.length === 0 ? 'after an error form left no handshake, nothing but initialize was sent' : `after the refusal the client sent ${list(strays)}`,
        strays,
      ),
    ];
  },
  doctored: [
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
