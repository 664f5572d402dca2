import type { TimePolicy } from '../../config/time.ts';
import { L_AND_M } from '../../protocol/revisions.ts';
import { FIXTURE_TOOLS } from '../../servers/fixtures.ts';
import { serverErrors, type ServerErrors } from '../../servers/personalities/server-errors.ts';
import { check, clientCompleted, precondition } from '../checks.ts';
import { describeOutcome, outcomeOf, settle, type Outcome } from '../outcome.ts';
import { defineScenario } from '../scenario.ts';
import { sendingMessages, timeouts } from '../spec.ts';
import { label, labels, noted, requests } from '../wire.ts';

/** The Retry-After every 503 carries: the least whole second, so a client that honours it stays within the bound. */
export const RETRY_AFTER_SECONDS = 1;
/** Most attempts of one request a client may make against a server that keeps answering 503 (the first and three retries). */
export const MAX_ATTEMPTS = 4;
/**
 * Part of the rule's threshold, not a bound (so not scaled): the server measures a client's wait from the answer's last
 * byte to the next request's arrival, which load can only lengthen; the slack covers a timer that fires a little early.
 */
const SLACK_MS = 50;
/** Bound on the refused call: the waits Retry-After asks for up to MAX_ATTEMPTS (the rule, unscaled), and room to react. */
const boundOf = (time: TimePolicy): number => MAX_ATTEMPTS * RETRY_AFTER_SECONDS * 1_000 + 2 * time.ms.react;

/**
 * The tool whose calls are answered 503: annotated idempotentHint: true, so a client that retries only what is safe to
 * send again may retry it. A call, not a listing: a listing may be answered from the client's cache, never the wire.
 */
const REFUSED = FIXTURE_TOOLS.idempotentCount;

/**
 * After a first tools/list, every tools/call is answered `503 Service Unavailable` with `Retry-After: 1`. A client may
 * retry, but only a few times and each time after waiting what the server asked for; then the error reaches the caller.
 * Measured on the wire: the number of attempts and the time between an answer and the next attempt.
 */
export const boundedOn5xx = defineScenario<{ errors: ServerErrors }>({
  id: 'retry/bounded-on-5xx',
  title: 'Repeated 503: retries (if any) are bounded and back off; the error reaches the caller',
  revisions: L_AND_M,
  requires: [],
  source: { spec: timeouts('2025-11-25', 'requests do not hang: a failure reaches the caller', 'SHOULD') },
  setup: () => {
    const errors = serverErrors();
    return { server: { personalities: [errors] }, state: { errors } };
  },
  async run({ connect, bounded, state, observe, time }) {
    const client = await connect();
    await bounded(client.listTools(), 'tools/list');
    state.errors.failNext(Infinity, { method: 'tools/call', status: 503, retryAfterSeconds: RETRY_AFTER_SECONDS });
    observe('refused', await settle(bounded(client.callTool(REFUSED, {}), `tools/call ${REFUSED} answered 503`, boundOf(time))));
    await bounded(client.close(), 'close');
  },
  judge(evidence) {
    const { revision, exchanges } = evidence;
    const first = noted(exchanges, 'server-error')[0];
    const attempts = first ? requests(exchanges.filter((e) => e.seq >= first.seq), 'tools/call', REFUSED).map((s) => s.exchange) : [];
    const waits = attempts.slice(1).map((attempt, index) => {
      const previous = attempts[index]!;
      return { attempt, ms: attempt.startedAt - (previous.endedAt ?? previous.headersAt ?? previous.startedAt) };
    });
    const early = waits.filter(({ ms }) => ms < RETRY_AFTER_SECONDS * 1_000 - SLACK_MS);
    const outcome = outcomeOf(evidence, 'refused');
    const spacing = waits.map(({ attempt, ms }) => `#${attempt.seq} after ${ms.toFixed(0)} ms`).join(', ');

    return [
      precondition(
        'answered-503',
        sendingMessages(revision, 'a 5xx is the server’s answer: retries, if any, are few and back off', 'SHOULD'),
        first !== undefined,
        first === undefined ? `no tools/call of ${REFUSED} was answered 503: the scenario could not drive the client there` : `${label(first)} with Retry-After: ${RETRY_AFTER_SECONDS}`,
        first ? [first] : [],
      ),
      clientCompleted(evidence, sendingMessages(revision, 'the script runs to its end (the refused tools/call is expected and caught)', 'MUST')),
      check(
        'error-reaches-caller',
        timeouts(revision, 'a request does not hang: the 503 reaches the caller as an error, within a bound', 'SHOULD'),
        outcome?.state === 'rejected',
        describeOutcome(outcome, `the tools/call of ${REFUSED} answered 503`),
        attempts,
      ),
      check(
        'retries-bounded',
        sendingMessages(revision, `a 5xx is the server's answer: retries, if any, are few (at most ${MAX_ATTEMPTS} attempts in all; catalogue retry/bounded-on-5xx)`, 'SHOULD'),
        attempts.length <= MAX_ATTEMPTS,
        `${attempts.length} attempt${attempts.length === 1 ? '' : 's'} of the tools/call of ${REFUSED} against the 503s (${labels(attempts)})`,
        attempts,
      ),
      check(
        'retries-back-off',
        sendingMessages(
          revision,
          `a retry waits at least the Retry-After the 503 carried (${RETRY_AFTER_SECONDS} s; RFC 9110 §10.2.3: how long the user agent ought to wait before a follow-up request)`,
          'SHOULD',
        ),
        early.length === 0,
        waits.length === 0 ? 'no retry: nothing to space' : early.length === 0 ? `every retry waited for Retry-After: ${spacing}` : `retries came before Retry-After (${RETRY_AFTER_SECONDS} s) elapsed: ${spacing}`,
        early.map(({ attempt }) => attempt),
      ),
    ];
  },
  doctored: [
    {
      check: 'retries-bounded',
      how: `the refused tools/call repeated ${MAX_ATTEMPTS} more times, each a second later`,
      doctor: (e) => {
        const refused = e.exchanges.find((x) => x.notes.includes('server-error'))!;
        const copies = Array.from({ length: MAX_ATTEMPTS }, (_, i) => ({
          ...structuredClone(refused),
          seq: refused.seq + 1 + i,
          startedAt: refused.startedAt + (i + 1) * 1_100,
          headersAt: refused.startedAt + (i + 1) * 1_100 + 1,
          endedAt: refused.startedAt + (i + 1) * 1_100 + 2,
        }));
        const later = e.exchanges.filter((x) => x.seq > refused.seq).map((x) => ({ ...x, seq: x.seq + MAX_ATTEMPTS }));
        return { ...e, exchanges: [...e.exchanges.filter((x) => x.seq <= refused.seq), ...copies, ...later] };
      },
    },
    {
      check: 'error-reaches-caller',
      how: 'the refused tools/call reported as hanging',
      doctor: (e) => ({ ...e, observed: { ...e.observed, refused: { state: 'pending', afterMs: boundOf(e.time), detail: 'the tools/call answered 503 did not settle', hung: true } satisfies Outcome } }),
    },
    {
      check: 'answered-503',
      unmet: true,
      how: 'no tools/call was answered 503',
      doctor: (e) => ({ ...e, exchanges: e.exchanges.map((x) => ({ ...x, notes: x.notes.filter((note) => note !== 'server-error') })) }),
    },
  ],
});
