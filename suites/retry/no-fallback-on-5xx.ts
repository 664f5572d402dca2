// retry/no-fallback-on-5xx: a 5xx to the initialize POST is an outage, not a sign of an HTTP+SSE server. The servers
// here do speak HTTP+SSE (a GET of the URL opens their stream), so a client that falls back on a 5xx gets a working
// connection and hides the outage (only the first initialize POST is refused): the bug shows only on the wire, as
// the GET after the refused initialize.
import { serverErrors } from '../../servers/personalities/server-errors.ts';
import type { WireExchange } from '../../servers/wire-record.ts';
import type { ClientConnection } from '../../clients/adapter.ts';
import { check, clientCompleted, precondition } from '../checks.ts';
import { describeOutcome, holdsWithin, outcomeOf, settle, type Outcome } from '../outcome.ts';
import { defineScenario, type Evidence } from '../scenario.ts';
import { fallbackRule } from '../spec.ts';
import { label, labels, noted, serverName } from '../wire.ts';
import { opensSseStream } from './support.ts';

const HTTP_SSE = '2024-11-05';
/** The status each server answers its initialize POST with: the scenario's own server first, then the others it starts. */
const STATUSES = [500, 502, 503] as const;
type Status = (typeof STATUSES)[number];

/** Each server's initialize POST answered 5xx, and the GETs for an HTTP+SSE stream that followed it. */
function refusals(evidence: Evidence) {
  const records: readonly (readonly WireExchange[])[] = [evidence.exchanges, ...evidence.otherServers.map((other) => other.exchanges)];
  return STATUSES.map((status, index) => {
    const exchanges = records[index] ?? [];
    const refused = noted(exchanges, 'server-error').find((e) => e.method === 'POST' && e.status === status && e.requestMessages.some((m) => m.method === 'initialize'));
    const gets = refused ? exchanges.filter((e) => e.seq > refused.seq && opensSseStream(e, HTTP_SSE)) : [];
    return { status, index, where: index === 0 ? 'the server' : serverName(index - 1), refused, gets };
  });
}

export const noFallbackOn5xx = defineScenario({
  id: 'retry/no-fallback-on-5xx',
  title: 'A 5xx to the initialize POST is surfaced: no GET for an HTTP+SSE stream, though the server offers one',
  revisions: [HTTP_SSE],
  // A client that never falls back cannot break the rule: the case says nothing about it.
  requires: ['transport-fallback'],
  source: {
    spec: fallbackRule(HTTP_SSE, 'fall back to HTTP+SSE only when the initialize POST fails with 400, 404 or 405', 'SHOULD'),
    seed: 'issue 28 (a client fell back to HTTP+SSE after a 5xx at connect); seed 003 (no fallback on outages)',
  },
  setup: () => ({ server: { personalities: [serverErrors({ status: STATUSES[0], method: 'initialize', count: 1 })] }, state: undefined }),
  async run({ connect, bounded, observe, startServer, time }) {
    let last = undefined as Awaited<ReturnType<typeof startServer>> | undefined;
    for (const [index, status] of STATUSES.entries()) {
      const server = index === 0 ? undefined : await startServer({ era: HTTP_SSE, personalities: [serverErrors({ status, method: 'initialize', count: 1 })] });
      if (server) last = server;
      const connecting = connect({}, server ? { server } : {});
      const connected = await settle(connecting);
      observe(`connect${status}`, connected);
      // A lazy client connects without a request: its first operation sends the initialize.
      if (connected.state === 'resolved') {
        const connection: ClientConnection = await connecting;
        observe(`list${status}`, await settle(bounded(connection.listTools(), `tools/list after the initialize answered ${status}`)));
      }
    }
    // A fallback comes right after the refusal; a client that falls back in the background is given a reaction time.
    if (last) await holdsWithin(last.record, (record) => record.exchanges.some((e) => opensSseStream(e, HTTP_SSE)), 'a GET for an HTTP+SSE stream', time.ms.react);
  },
  judge(evidence) {
    const { revision } = evidence;
    const rule = fallbackRule(revision, 'fall back to HTTP+SSE only when the initialize POST fails with 400, 404 or 405: a 5xx is none of them (an outage), so no GET for a stream', 'SHOULD');
    const all = refusals(evidence);
    const unreached = all.filter((s) => s.refused === undefined);
    const fellBack = all.filter((s) => s.gets.length > 0);
    const outcomes = (status: Status) => {
      const connected: Outcome | undefined = outcomeOf(evidence, `connect${status}`);
      const listed = outcomeOf(evidence, `list${status}`);
      return listed ? `${describeOutcome(connected, 'the connect')}, ${describeOutcome(listed, 'tools/list')}` : describeOutcome(connected, 'the connect');
    };
    return [
      precondition(
        'initialize-answered-5xx',
        rule,
        unreached.length === 0,
        unreached.length > 0
          ? `no initialize POST was answered ${unreached.map((s) => `${s.status} by ${s.where}`).join(' or ')}: the scenario could not drive the client there`
          : all.map((s) => `${s.where}: ${label(s.refused!)}`).join('; '),
        all.flatMap((s) => (s.refused ? [s.refused] : [])),
      ),
      clientCompleted(evidence, rule),
      check(
        'no-fallback-on-5xx',
        rule,
        fellBack.length === 0,
        fellBack.length === 0
          ? `initialize answered ${STATUSES.join(', ')}: no GET for an HTTP+SSE stream followed (${STATUSES.map((status) => `${status}: ${outcomes(status)}`).join('; ')})`
          : fellBack.map((s) => `${s.where}: ${label(s.refused!)}, then ${labels(s.gets)}`).join('; '),
        fellBack.flatMap((s) => [s.refused!, ...s.gets]),
      ),
    ];
  },
  doctored: [
    {
      check: 'initialize-answered-5xx',
      unmet: true,
      how: 'the server answering 503 received nothing (a client that gave up before it POSTed)',
      doctor: (e) => ({ ...e, otherServers: e.otherServers.map((other, index) => (index === 1 ? { ...other, exchanges: [] } : other)) }),
    },
  ],
});
