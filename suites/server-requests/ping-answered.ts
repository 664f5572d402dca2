import { L } from '../../protocol/revisions.ts';
import { FIXTURE_TOOLS } from '../../servers/fixtures.ts';
import type { WireExchange } from '../../servers/wire-record.ts';
import { checkIf, clientCompleted, precondition } from '../checks.ts';
import { checkInTime } from '../deadlines.ts';
import { defineScenario, type Check, type DoctoredProof, type Evidence } from '../scenario.ts';
import { ping } from '../spec.ts';
import { label, labels } from '../wire.ts';
import { describeReply, notAnsweredWithin, replyExchanges, serverRequestsOf, type ServerRequest } from './support.ts';

/** How many pings the server sends during the call, one after the other. */
const PINGS = 2;

/** The server's pings to the client and the client's reply to each, read from the wire (either transport). */
export const pingsOf = (exchanges: readonly WireExchange[]): ServerRequest[] => serverRequestsOf(exchanges, ['ping']);

/** A result with nothing in it but, at most, `_meta`. */
const isEmpty = (result: Record<string, unknown>) => Object.keys(result).every((key) => key === '_meta');

/**
 * The rules every ping is judged on, whatever sent it: answered promptly (a refusal fails at once, no answer or a late
 * one is "time ran out" on a provisional run), with an empty result. `when`: where the pings came, for the citation;
 * `reached`: why no ping could be sent, if none could.
 */
export function pingChecks(evidence: Evidence, pings: readonly ServerRequest[], when: string, reached?: string): Check[] {
  const { revision } = evidence;
  const { react } = evidence.time.ms;
  const refused = pings.filter((p) => p.reply?.error !== undefined);
  const results = pings.filter((p) => p.reply?.result !== undefined);
  const nonEmpty = results.filter((p) => !isEmpty(p.reply!.result!));
  const replies = replyExchanges(pings);
  const answered = ping(revision, `the receiver MUST respond promptly to a ping (${when})`, 'MUST');
  return [
    reached !== undefined
      ? checkIf(reached, 'ping-answered', answered, () => false, () => '')
      : checkInTime(
          evidence.time,
          'ping-answered',
          answered,
          refused.length > 0 ? false : pings.some((p) => notAnsweredWithin(p, react)) ? 'late' : true,
          `${pings.map((p) => describeReply(p, `ping ${JSON.stringify(p.id)}`)).join('; ')} (promptly: within ${react} ms)`,
          [...pings.map((p) => p.exchange), ...replies],
        ),
    checkIf(
      reached ?? (results.length === 0 ? 'no ping was answered with a result' : undefined),
      'empty-result',
      ping(revision, 'the response is an empty result', 'MUST'),
      () => nonEmpty.length === 0,
      () => (nonEmpty.length === 0 ? `every result was empty (${results.length})` : `not empty: ${nonEmpty.map((p) => JSON.stringify(p.reply!.result)).join(', ')}`),
      replies,
    ),
  ];
}

/** The proofs of the ping rules a variant cannot show: the pings missing (the precondition), and each answered with more than nothing. */
export const PING_PROOFS: readonly DoctoredProof[] = [
  {
    check: 'ping-sent',
    unmet: true,
    how: 'the server sent no ping',
    doctor: (e: Evidence) => ({ ...e, exchanges: e.exchanges.map((x) => ({ ...x, responseMessages: x.responseMessages.filter(({ message }) => message.method !== 'ping') })) }),
  },
  {
    check: 'empty-result',
    how: 'each ping answered with a result that is not empty',
    doctor: (e: Evidence) => ({
      ...e,
      exchanges: e.exchanges.map((x) => ({ ...x, requestMessages: x.requestMessages.map((m) => (m.method === undefined && m.result !== undefined ? { ...m, result: { pong: true } } : m)) })),
    }),
  },
];

export const pingAnswered = defineScenario({
  id: 'server-requests/ping-answered',
  title: "The server pings the client during a call: each ping is answered promptly with an empty result, and the call goes on",
  revisions: L,
  requires: [],
  source: { spec: ping('2025-11-25', 'the receiver MUST respond promptly with an empty response', 'MUST') },
  async run({ connect, bounded, time }) {
    const client = await connect();
    // Each ping waits at most a reaction time for its answer; the call answers either way, with what came back.
    await bounded(client.callTool(FIXTURE_TOOLS.ping, { times: PINGS, timeoutMs: time.ms.react }), `tools/call ${FIXTURE_TOOLS.ping}`);
    await bounded(client.callTool(FIXTURE_TOOLS.echo, { text: 'after the pings' }), 'tools/call echo');
  },
  judge(evidence) {
    const { revision } = evidence;
    const pings = pingsOf(evidence.exchanges);
    return [
      precondition(
        'ping-sent',
        ping(revision, 'the receiver MUST respond promptly with an empty response', 'MUST'),
        pings.length > 0,
        pings.length > 0 ? `the server sent ${pings.length} pings during ${label(pings[0]!.exchange)}` : `the server sent no ping (${labels(evidence.exchanges)})`,
        pings.map((p) => p.exchange),
      ),
      clientCompleted(evidence, ping(revision, 'a ping during a call leaves the call and the session working', 'MUST')),
      ...pingChecks(evidence, pings, 'during a call, on its stream'),
    ];
  },
  doctored: PING_PROOFS,
});
