import type { ClientConnection, OperationOptions } from '../../clients/adapter.ts';
import { FIXTURE_TOOLS } from '../../servers/fixtures.ts';
import { ANSWERS, PROBE_ANSWER_NOTE, probeAnswers, type ProbeAnswers, type ProbeRequest } from '../../servers/personalities/probe-answers.ts';
import { serverErrors, type ServerErrors } from '../../servers/personalities/server-errors.ts';
import { slowResponses, type SlowResponses } from '../../servers/personalities/slow-responses.ts';
import { HEADERS } from '../../protocol/http.ts';
import { isModern, MODERN_REVISION, REVISIONS } from '../../protocol/revisions.ts';
import type { WireExchange } from '../../servers/wire-record.ts';
import { checkIf, clientCompleted, precondition } from '../checks.ts';
import { ordinaryRejection } from '../outcome.ts';
import { defineScenario, type Check, type Evidence, type SpecRef } from '../scenario.ts';
import { versioning } from '../spec.ts';
import { carrying, labels, noted } from '../wire.ts';

// Six connects through one client instance to one origin, each marked on the wire record:
// 1. first contact: the client probes (or not: auto mode may also open with initialize) and learns the era;
// 2. a second connect: no probe (SHOULD cache per origin); its echo call is answered 503;
// 3. after the 5xx: still no probe; its echo call is held back past the client's request timeout (this client's
//    start-up bound, so even a slow client's request reaches the server before it gives up; the hold is longer);
// 4. after the timeout: still no probe (seed 002: a 5xx or a timeout keeps the cached era);
// 5. the server contradicts the era once, as a server of the other era answers: at a legacy revision the
//    initialize is answered 400 -32022 naming 2026-07-28 (a modern-only server's answer to initialize); at
//    2026-07-28 an echo call is answered 400 -32000 "Mcp-Session-Id header is required" (a legacy server's);
// 6. one more connect. After the contradiction the client probes again, at once or at this connect at the
//    latest (seed 002: "a start whose cached era the server contradicts forgets that era and probes again").
//    The server's era never really changed, so the re-probe confirms it and no traffic of the other era follows.
// Each connect's request is an echo call: through one client instance to one origin, a listing may be answered from the
// client's cache and never reach the server.
const STEPS = ['first', 'second', 'after-5xx', 'after-timeout', 'contradicted', 'after-contradiction'] as const;
type Step = (typeof STEPS)[number];

interface State {
  errors: ServerErrors;
  slow: SlowResponses;
  answers: ProbeAnswers;
  modern: boolean;
}

/** A request opening no session yet: not carrying a session id, and not inside an HTTP+SSE stream session. */
const sessionless = (request: ProbeRequest) => request.headers[HEADERS.session] === undefined && request.sseSession === undefined;

const BACKWARD = 'backward-compatibility-with-initialization-based-versions';

/** The exchanges of one step: from its mark to the next one (or the end). */
function segment(evidence: Evidence, step: Step): readonly WireExchange[] | undefined {
  const from = evidence.observed[`mark:${step}`];
  if (typeof from !== 'number') return undefined;
  const later = STEPS.slice(STEPS.indexOf(step) + 1)
    .map((next) => evidence.observed[`mark:${next}`])
    .find((mark): mark is number => typeof mark === 'number');
  return evidence.exchanges.slice(from, later ?? evidence.exchanges.length);
}

export const eraCached = defineScenario<State>({
  id: 'negotiation/era-cached',
  title: 'A second connect to the same origin does not probe again; the cached era survives a 5xx and a timeout, and is re-probed only when the server contradicts it',
  revisions: REVISIONS,
  requires: ['mode-auto', 'request-timeout'],
  source: { spec: versioning('backward-compatibility-with-initialization-based-versions', 'Backward Compatibility: clients SHOULD cache the era per origin, re-probing if the cached assumption fails', 'SHOULD'), seed: 'seed 002 (re-probe only when the cached era is contradicted; a timeout or a 5xx keeps it)' },
  setup(revision) {
    const state: State = { errors: serverErrors(), slow: slowResponses(), answers: probeAnswers(), modern: isModern(revision) };
    return { server: { personalities: [state.errors, state.slow, state.answers] }, state };
  },
  async run({ connect, bounded, observe, server, state, time }) {
    const mark = (step: Step) => observe(`mark:${step}`, server.record.exchanges.length);
    const expectFailure = async (operation: Promise<unknown>, key: string, boundMs?: number) => {
      try {
        await bounded(operation, key, boundMs);
        observe(key, 'ok');
      } catch (error) {
        // A rejection is the answer looked for; a hang or a broken contract is the client's error.
        observe(key, ordinaryRejection(error));
      }
    };

    const echo = (client: ClientConnection, step: Step, options?: OperationOptions) => client.callTool(FIXTURE_TOOLS.echo, { text: step }, options);

    mark('first');
    const first = await connect({ negotiation: 'auto' });
    await bounded(echo(first, 'first'), 'tools/call echo (first)');
    await bounded(first.close(), 'close (first)');

    mark('second');
    const second = await connect({ negotiation: 'auto' });
    state.errors.failNext(1, { method: 'tools/call', status: 503 });
    await expectFailure(echo(second, 'second'), 'tools/call answered 503');
    await bounded(second.close(), 'close (second)');

    mark('after-5xx');
    const third = await connect({ negotiation: 'auto' });
    // The hold outlasts the client's timeout; a client that keeps waiting past its timeout gets the late answer within
    // the call's bound (that it should not is cancellation/timeout-cancels' rule, not this one's).
    const holdMs = time.ms.startup + 2 * time.ms.react;
    state.slow.slowNext(1, { method: 'tools/call', ms: holdMs });
    await expectFailure(echo(third, 'after-5xx', { timeoutMs: time.ms.startup }), 'tools/call timed out', holdMs + time.ms.operation);
    await bounded(third.close(), 'close (after-5xx)');

    mark('after-timeout');
    const fourth = await connect({ negotiation: 'auto' });
    await bounded(echo(fourth, 'after-timeout'), 'tools/call echo (after-timeout)');
    await bounded(fourth.close(), 'close (after-timeout)');

    mark('contradicted');
    if (state.modern) state.answers.answerNext(1, { ...ANSWERS.sessionRequired(), method: 'tools/call', when: sessionless });
    else state.answers.answerNext(1, { ...ANSWERS.unsupportedVersion([MODERN_REVISION]), method: 'initialize', when: sessionless });
    // A client may recover at once (re-probe, then carry on) or fail this connect and re-probe at the next.
    await expectFailure(
      (async () => {
        const fifth = await connect({ negotiation: 'auto' });
        await bounded(echo(fifth, 'contradicted'), 'tools/call echo (contradicted)');
        await bounded(fifth.close(), 'close (contradicted)');
      })(),
      'contradicted',
    );

    mark('after-contradiction');
    const sixth = await connect({ negotiation: 'auto' });
    await bounded(echo(sixth, 'after-contradiction'), 'tools/call echo (after-contradiction)');
    await bounded(sixth.close(), 'close (after-contradiction)');
  },
  judge(evidence) {
    const cache = versioning(BACKWARD, 'Backward Compatibility: clients SHOULD cache the era per origin', 'SHOULD');
    const keep = (what: string) => versioning(BACKWARD, `Backward Compatibility: re-probe only when the cached assumption fails — ${what} does not (seed 002)`, 'SHOULD');
    const first = segment(evidence, 'first') ?? [];
    // The first contact must have been answered (the era was there to learn); what the client made of it is its own.
    const answered = first.filter((exchange) => exchange.status !== undefined);
    const firstProbed = carrying(first, 'server/discover').length > 0;
    // Whether the client caches at all: its second connect did not probe. A client that probes on every connect
    // fails no-probe-on-second-connect once; the rules about keeping the cached era then have nothing to say.
    const caches = carrying(segment(evidence, 'second') ?? [], 'server/discover').length === 0;
    const noProbe = (name: string, step: Step, spec: SpecRef, context: string, reached: string | undefined): Check => {
      const exchanges = segment(evidence, step);
      const probes = carrying(exchanges ?? [], 'server/discover');
      return checkIf(
        !firstProbed
          ? `the client never probed on first contact (it opened with ${labels(first.slice(0, 1))}): no era learned to cache`
          : (reached ?? (exchanges === undefined || exchanges.length === 0 ? `the ${step} connect never reached the server` : undefined)),
        name,
        spec,
        () => probes.length === 0,
        () => (probes.length === 0 ? `no server/discover ${context} (${labels(exchanges ?? [])})` : `the client probed again ${context}: ${labels(probes)}`),
        probes,
      );
    };
    const uncached = caches ? undefined : 'the client caches no era (it probed on the second connect too): nothing to keep';
    const fivexx = (segment(evidence, 'second') ?? []).filter((exchange) => exchange.status === 503);
    const held = noted(segment(evidence, 'after-5xx') ?? [], 'slowed');
    const checks: Check[] = [
      precondition('first-contact-answered', cache, answered.length > 0, answered.length > 0 ? `the first connect was answered (${labels(answered)})` : 'nothing the client sent on first contact was answered: no era to learn', answered),
      clientCompleted(evidence, cache),
      noProbe('no-probe-on-second-connect', 'second', cache, 'on the second connect', undefined),
      noProbe(
        'era-kept-after-5xx',
        'after-5xx',
        keep('a 5xx'),
        `after an echo call was answered 503 (${labels(fivexx)}: ${String(evidence.observed['tools/call answered 503'])})`,
        uncached ?? (fivexx.length === 0 ? 'no echo call of the second connect was answered 503' : undefined),
      ),
      noProbe(
        'era-kept-after-timeout',
        'after-timeout',
        keep('a timeout'),
        `after an echo call timed out (${labels(held)}: ${String(evidence.observed['tools/call timed out'])})`,
        uncached ?? (held.length === 0 ? 'no echo call of the third connect reached the server to be held' : undefined),
      ),
    ];
    const contradicted = segment(evidence, 'contradicted') ?? [];
    const contradiction = noted(contradicted, PROBE_ANSWER_NOTE)[0];
    const afterwards = contradiction ? [...contradicted, ...(segment(evidence, 'after-contradiction') ?? [])].filter((exchange) => exchange.seq > contradiction.seq) : [];
    const reprobe = carrying(afterwards, 'server/discover')[0];
    checks.push(
      checkIf(
        contradiction === undefined
          ? `the contradicting answer was never given (${labels(contradicted)})`
          : reprobe === undefined && segment(evidence, 'after-contradiction') === undefined
            ? 'the script never reached the connect after the contradiction'
            : undefined,
        'reprobes-on-contradiction',
        versioning(BACKWARD, 'Backward Compatibility: re-probing if the cached assumption later fails (seed 002: at the next start at the latest)', 'SHOULD'),
        () => reprobe !== undefined,
        () =>
          reprobe !== undefined
            ? `after ${labels([contradiction!])} the client probed again (${labels([reprobe])}; the contradicted connect: ${String(evidence.observed['contradicted'])})`
            : `after ${labels([contradiction!])} the client never probed again: ${labels(afterwards)}`,
        [contradiction, reprobe].filter((e) => e !== undefined),
      ),
    );
    return checks;
  },
  doctored: [
    {
      check: 'first-contact-answered',
      unmet: true,
      how: 'the first connect gave up before the server answered it',
      doctor: (e) => {
        const from = e.observed['mark:second'] as number;
        return { ...e, exchanges: e.exchanges.map((x, index) => (index < from ? { ...x, status: undefined, responseMessages: [] } : x)) };
      },
    },
    {
      check: 'reprobes-on-contradiction',
      how: 'every server/discover after the contradicting answer removed',
      doctor: (e) => {
        const from = e.observed['mark:contradicted'] as number;
        return { ...e, exchanges: e.exchanges.filter((x, index) => index < from || !x.requestMessages.some((m) => m.method === 'server/discover')) };
      },
    },
    {
      check: 'era-kept-after-timeout',
      how: 'a server/discover at the start of the connect after the timeout',
      doctor: (e) => {
        const from = e.observed['mark:after-timeout'] as number;
        const probe = e.exchanges.find((x) => x.requestMessages.some((m) => m.method === 'server/discover' || m.method === 'initialize'))!;
        const injected = { ...probe, requestMessages: [{ jsonrpc: '2.0', id: 99, method: 'server/discover', params: {} }] };
        return { ...e, exchanges: [...e.exchanges.slice(0, from), injected, ...e.exchanges.slice(from)] };
      },
    },
  ],
});
