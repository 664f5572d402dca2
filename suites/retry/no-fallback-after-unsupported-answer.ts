// retry/no-fallback-after-unsupported-answer: the initialize POST is answered 200 with an InitializeResult naming a
// revision no client speaks, and the server answers DELETE 405. The connect fails (negotiation/unsupported-answer
// judges that), but the server spoke Streamable HTTP: a client that reads the 405 to the DELETE it sent while
// disconnecting as "this server speaks HTTP+SSE" GETs the URL for a stream, a fallback after a successful initialize.
import { S } from '../../protocol/revisions.ts';
import { delete405 } from '../../servers/personalities/delete-405.ts';
import { initializeAnswers } from '../../servers/personalities/initialize-answers.ts';
import type { ClientConnection } from '../../clients/adapter.ts';
import { check, clientCompleted, precondition } from '../checks.ts';
import { describeOutcome, holdsWithin, outcomeOf, settle } from '../outcome.ts';
import { defineScenario } from '../scenario.ts';
import { fallbackRule } from '../spec.ts';
import { label, labels, noted } from '../wire.ts';
import { opensSseStream } from './support.ts';

/** A revision no client speaks. */
const UNSUPPORTED = '1999-01-01';

export const noFallbackAfterUnsupportedAnswer = defineScenario({
  id: 'retry/no-fallback-after-unsupported-answer',
  title: 'initialize answered 200 with an unsupported revision, DELETE answered 405: no fallback to HTTP+SSE',
  revisions: S,
  // A client that never falls back cannot break the rule: the case says nothing about it.
  requires: ['transport-fallback'],
  source: {
    spec: fallbackRule('2025-11-25', 'fall back only when the initialize POST fails with 400, 404 or 405: one answered 200 with an InitializeResult did not fail', 'SHOULD'),
    seed: 'issue 28 (after a 200 initialize with an unsupported version and a 405 to the DELETE, a client fell back to HTTP+SSE); seed 003 (no fallback after initialize)',
  },
  setup: () => ({ server: { personalities: [initializeAnswers({ revision: UNSUPPORTED }), delete405()] }, state: undefined }),
  async run({ connect, bounded, observe, server, time, revision }) {
    const connecting = connect();
    const connected = await settle(connecting);
    observe('connect', connected);
    // A lazy client connects without a request: its first operation sends the initialize.
    if (connected.state === 'resolved') {
      const connection: ClientConnection = await connecting;
      observe('list', await settle(bounded(connection.listTools(), 'tools/list after the unsupported answer')));
    }
    // A fallback follows the DELETE at once; one the client starts in the background is given a reaction time.
    await holdsWithin(server.record, (record) => record.exchanges.some((e) => opensSseStream(e, revision)), 'a GET for an HTTP+SSE stream', time.ms.react);
  },
  judge(evidence) {
    const { revision, exchanges } = evidence;
    const rule = fallbackRule(revision, 'fall back only when the initialize POST fails with 400, 404 or 405: after one answered 200 with an InitializeResult (whatever revision it names) the server speaks Streamable HTTP, and a 404/405 to the DELETE is no reason to GET an HTTP+SSE stream', 'SHOULD');
    const answered = noted(exchanges, 'initialize-unsupported-revision')[0];
    const after = answered ? exchanges.filter((e) => e.seq > answered.seq) : [];
    const gets = after.filter((e) => opensSseStream(e, revision));
    const deletes = after.filter((e) => e.method === 'DELETE');
    const connected = outcomeOf(evidence, 'connect');
    const listed = outcomeOf(evidence, 'list');
    const outcome = listed ? `${describeOutcome(connected, 'the connect')}, ${describeOutcome(listed, 'tools/list')}` : describeOutcome(connected, 'the connect');
    return [
      precondition(
        'initialize-answered-unsupported',
        rule,
        answered !== undefined,
        answered === undefined ? `no initialize was answered 200 with ${UNSUPPORTED} (the client sent ${labels(exchanges)}): the scenario could not drive the client there` : `${label(answered)} was answered 200 with ${UNSUPPORTED}`,
        answered ? [answered] : [],
      ),
      clientCompleted(evidence, rule),
      check(
        'no-fallback-after-answered-initialize',
        rule,
        gets.length === 0,
        gets.length === 0
          ? `after ${answered ? label(answered) : 'the initialize'} no GET for an HTTP+SSE stream followed (${deletes.length > 0 ? labels(deletes) : 'no DELETE'}; ${outcome})`
          : `after ${label(answered!)}${deletes.length > 0 ? ` and ${labels(deletes)}` : ''}, the client fell back: ${labels(gets)}`,
        [...(answered ? [answered] : []), ...deletes, ...gets],
      ),
    ];
  },
  doctored: [
    {
      check: 'initialize-answered-unsupported',
      unmet: true,
      how: 'the client gave up before its initialize reached the server: nothing on the wire',
      doctor: (e) => ({ ...e, exchanges: [] }),
    },
  ],
});
