// A client that can answer roots/list, sampling/createMessage or elicitation/create, given the answer (its handler, as
// its public API registers one: ConnectOptions.handlers), declares the capability and answers the server's request with
// a result. One scenario per handler, each needing its feature: a client that cannot register one is not applicable
// here, and requests-answered judges it on refusing.
import type { ClientHandlers } from '../../clients/adapter.ts';
import { L, type Revision } from '../../protocol/revisions.ts';
import { FIXTURE_TOOLS, type ServerRequestMethod } from '../../servers/fixtures.ts';
import { check, clientCompleted, precondition } from '../checks.ts';
import { checkInTime } from '../deadlines.ts';
import { defineScenario, type Evidence, type Scenario } from '../scenario.ts';
import { clientFeature, messages } from '../spec.ts';
import { labels, requests } from '../wire.ts';
import { declaredCapabilities, describeReply, HANDLER_METHOD, notAnsweredWithin, serverRequestsOf } from './support.ts';

/** The answers the scenarios give the client's handlers. */
export const HANDLER_ANSWERS: Required<ClientHandlers> = {
  roots: [{ uri: 'file:///conformance/project', name: 'conformance project' }],
  sampling: { role: 'assistant', content: { type: 'text', text: 'hello from the conformance suite' }, model: 'conformance-model', stopReason: 'endTurn' },
  elicitation: { action: 'accept', content: { name: 'Conformance' } },
};

const REVISIONS: Record<keyof ClientHandlers, readonly Revision[]> = { roots: L, sampling: L, elicitation: ['2025-06-18', '2025-11-25'] };

function handlerAnswered(handler: keyof ClientHandlers): Scenario {
  const method = HANDLER_METHOD[handler];
  const declare = (revision: Revision) => clientFeature(revision, handler, 'capabilities', `clients that support ${handler} MUST declare the ${handler} capability during initialization`, 'MUST');
  return defineScenario({
    id: `server-requests/${handler}-answered`,
    title: `A client given a ${method} handler declares the ${handler} capability and answers the server's ${method} during a call with a result`,
    revisions: REVISIONS[handler],
    requires: [handler],
    source: { spec: declare('2025-11-25') },
    async run({ connect, bounded, time }) {
      const client = await connect({ handlers: { [handler]: HANDLER_ANSWERS[handler] } });
      await bounded(client.callTool(FIXTURE_TOOLS.ask, { method, timeoutMs: time.ms.react }), `tools/call ${FIXTURE_TOOLS.ask} (${method})`);
      await bounded(client.callTool(FIXTURE_TOOLS.echo, { text: `after ${method}` }), 'tools/call echo');
    },
    judge(evidence) {
      const { revision } = evidence;
      const { react } = evidence.time.ms;
      const [sent] = serverRequestsOf(evidence.exchanges, [method]);
      const initialize = requests(evidence.exchanges, 'initialize')[0];
      const capabilities = declaredCapabilities(evidence);
      const declared = typeof capabilities?.[handler] === 'object' && capabilities[handler] !== null;
      const reply = sent?.reply;
      return [
        precondition(
          'request-sent',
          messages(revision, 'responses', 'Responses: every request gets a response', 'MUST'),
          sent !== undefined && initialize !== undefined,
          sent === undefined ? `the server sent no ${method} (${labels(evidence.exchanges)})` : `the server sent ${method} during the call`,
          sent ? [sent.exchange] : [],
        ),
        clientCompleted(evidence, messages(revision, 'responses', `a ${method} during a call leaves the call and the session working`, 'MUST')),
        check(
          'capability-declared',
          declare(revision),
          declared,
          declared ? `initialize declared ${handler}: ${JSON.stringify(capabilities![handler])}` : `initialize declared ${JSON.stringify(capabilities ?? {})}: no ${handler}, yet the client has a handler for it`,
          initialize ? [initialize.exchange] : [],
        ),
        checkInTime(
          evidence.time,
          'answered-with-result',
          messages(revision, 'responses', `Responses: the client answers ${method} with a result (it has a handler for it)`, 'MUST'),
          reply?.error !== undefined ? false : sent === undefined || notAnsweredWithin(sent, react) ? 'late' : true,
          sent === undefined
            ? `${method} never sent`
            : `${describeReply(sent)}${reply?.error !== undefined ? ', though the client was given a handler' : ''} (within ${react} ms)`,
          sent?.replyExchange ? [sent.exchange, sent.replyExchange] : sent ? [sent.exchange] : [],
        ),
      ];
    },
    doctored: [
      {
        check: 'request-sent',
        unmet: true,
        how: `the server sent no ${method}`,
        doctor: (e: Evidence) => ({ ...e, exchanges: e.exchanges.map((x) => ({ ...x, responseMessages: x.responseMessages.filter(({ message }) => message.method !== method) })) }),
      },
      {
        check: 'answered-with-result',
        how: `${method} refused with -32601`,
        doctor: (e: Evidence) => ({
          ...e,
          exchanges: e.exchanges.map((x) => ({ ...x, requestMessages: x.requestMessages.map((m) => (m.method === undefined && m.result !== undefined ? { jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'Method not found' } } : m)) })),
        }),
      },
    ],
  });
}

export const HANDLER_SCENARIOS: readonly Scenario[] = (['roots', 'sampling', 'elicitation'] as const).map(handlerAnswered);
