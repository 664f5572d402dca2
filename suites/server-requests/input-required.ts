// 2026-07-28 has no server requests: a server that needs roots, a sampling or an elicitation answers the call with an
// InputRequiredResult, and the client retries the call, a new request, with the inputs and the requestState echoed
// (SEP-2322). The fixture asks in two rounds, the first with a requestState, the second without one. One scenario per
// handler, as handler-answered: a client that cannot register the handler is not applicable.
import type { ClientHandlers } from '../../clients/adapter.ts';
import { M } from '../../protocol/revisions.ts';
import { FIXTURE_TOOLS, INPUT_ROUNDS, type ServerRequestMethod } from '../../servers/fixtures.ts';
import type { JsonRpcMessage, SentMessage } from '../../servers/wire-record.ts';
import { check, checkIf, clientCompleted, precondition } from '../checks.ts';
import { defineScenario, type Evidence, type Scenario } from '../scenario.ts';
import { mrtr } from '../spec.ts';
import { answerTo, envelopeOf, labels, requests } from '../wire.ts';
import { META } from '../../protocol/http.ts';
import { HANDLER_ANSWERS } from './handler-answered.ts';
import { HANDLER_METHOD } from './support.ts';


/** One round: the client's request and the server's answer to it (an InputRequiredResult, a result, an error). */
interface Round {
  request: SentMessage;
  answer: JsonRpcMessage | undefined;
}

const isInputRequired = (answer: JsonRpcMessage | undefined) => answer?.result?.['resultType'] === 'input_required';
const paramsOf = (round: Round) => round.request.message.params ?? {};

/** The rounds of the call, in order: every tools/call of the fixture tool. */
function roundsOf(evidence: Evidence): Round[] {
  return requests(evidence.exchanges, 'tools/call', FIXTURE_TOOLS.input).map((request) => ({ request, answer: answerTo(evidence.exchanges, request) }));
}

function inputRequired(handler: keyof ClientHandlers): Scenario {
  const method = HANDLER_METHOD[handler];
  return defineScenario({
    id: `server-requests/${handler}-input-required`,
    title: `A client given a ${method} handler answers each InputRequiredResult asking for it: the call retried as a new request, with the inputs and exactly the requestState it was given`,
    revisions: M,
    requires: [handler],
    source: { spec: mrtr('2026-07-28', 'client-requirements-basic-workflow', 'Client Requirements: construct the inputs, echo the requestState, a new id', 'MUST') },
    async run({ connect, bounded }) {
      const client = await connect({ handlers: { [handler]: HANDLER_ANSWERS[handler] } });
      await bounded(client.callTool(FIXTURE_TOOLS.input, { method }), `tools/call ${FIXTURE_TOOLS.input} (${method})`);
    },
    judge(evidence) {
      const { revision } = evidence;
      const rounds = roundsOf(evidence);
      // What each request declared in its envelope: the first round's (every round must declare it).
      const declared = rounds.map((round) => envelopeOf(round.request.message)?.[META.capabilities] as Record<string, unknown> | undefined);
      const undeclared = rounds.filter((_, n) => typeof declared[n]?.[handler] !== 'object' || declared[n]![handler] === null);
      // Each retry against the result it answers: the round before it, when that asked for input.
      const retries = rounds.slice(1).map((round, n) => ({ round, asked: rounds[n]! })).filter(({ asked }) => isInputRequired(asked.answer));
      const keysAsked = (asked: Round) => Object.keys((asked.answer?.result?.['inputRequests'] as Record<string, unknown> | undefined) ?? {});
      const missingInputs = retries.filter(({ round, asked }) => {
        const given = paramsOf(round)['inputResponses'] as Record<string, unknown> | undefined;
        return keysAsked(asked).some((key) => typeof given?.[key] !== 'object' || given[key] === null);
      });
      const wrongState = retries.filter(({ round, asked }) => paramsOf(round)['requestState'] !== asked.answer?.result?.['requestState']);
      const ids = rounds.map((round) => JSON.stringify(round.request.message.id));
      const reused = rounds.filter((_, n) => ids.indexOf(ids[n]!) !== n);
      const final = rounds.at(-1);
      const completed = final !== undefined && final.answer?.result !== undefined && !isInputRequired(final.answer);
      const describeState = ({ round, asked }: (typeof retries)[number]) => {
        const given = asked.answer?.result?.['requestState'];
        const sent = paramsOf(round)['requestState'];
        return `round ${rounds.indexOf(round) + 1}: ${given === undefined ? 'none given' : 'given'}, ${sent === undefined ? 'none sent' : sent === given ? 'the same sent' : 'another sent'}`;
      };
      const exchanges = rounds.map((round) => round.request.exchange);
      return [
        precondition(
          'input-required-sent',
          mrtr(revision, 'basic-workflow', 'Basic Workflow: the server answers with an InputRequiredResult', 'MUST'),
          // A server may ask only for what the client declared: not asked because undeclared is the client's doing.
          rounds.length > 0 && (isInputRequired(rounds[0]!.answer) || undeclared.includes(rounds[0]!)),
          rounds.length === 0
            ? `the client never called ${FIXTURE_TOOLS.input} (${labels(evidence.exchanges)})`
            : isInputRequired(rounds[0]!.answer)
              ? `the server asked for ${method} (InputRequiredResult)`
              : undeclared.includes(rounds[0]!)
                ? `the server could not ask for ${method}: the client did not declare ${handler}`
                : 'the server did not answer the first call with an InputRequiredResult',
          exchanges.slice(0, 1),
        ),
        clientCompleted(evidence, mrtr(revision, 'basic-workflow', 'Basic Workflow: the client retries and the call completes', 'MUST')),
        check(
          'capability-declared',
          mrtr(revision, 'client-requirements-basic-workflow', `a server may ask only for what the client declared: a client with a ${handler} handler declares ${handler} in each request's clientCapabilities`, 'MUST'),
          undeclared.length === 0,
          undeclared.length === 0 ? `every request declared ${handler}: ${JSON.stringify(declared[0]?.[handler])}` : `no ${handler} in the clientCapabilities of round ${undeclared.map((round) => rounds.indexOf(round) + 1).join(', ')} (${JSON.stringify(declared[rounds.indexOf(undeclared[0]!)] ?? null)})`,
          undeclared.map((round) => round.request.exchange),
        ),
        check(
          'retried-to-completion',
          mrtr(revision, 'basic-workflow', `Basic Workflow: the client retries the request with the inputs until it completes (${INPUT_ROUNDS.length} rounds of input here)`, 'SHOULD'),
          completed,
          completed ? `completed after ${rounds.length} requests` : `${rounds.length} requests, the last answered ${final?.answer === undefined ? 'nothing' : isInputRequired(final.answer) ? 'with an InputRequiredResult never retried' : 'with an error'}`,
          exchanges,
        ),
        checkIf(
          retries.length === 0 ? 'the client never retried' : undefined,
          'inputs-constructed',
          mrtr(revision, 'client-requirements-basic-workflow', 'the client MUST construct the requested inputs before retrying: inputResponses has a result for every key asked', 'MUST'),
          () => missingInputs.length === 0,
          () => (missingInputs.length === 0 ? `every retry answered every key asked (${retries.map(({ asked }) => keysAsked(asked).join(', ')).join('; ')})` : `missing inputs in round ${missingInputs.map(({ round }) => rounds.indexOf(round) + 1).join(', ')}`),
          missingInputs.map(({ round }) => round.request.exchange),
        ),
        checkIf(
          retries.length === 0 ? 'the client never retried' : undefined,
          'request-state-echoed',
          mrtr(revision, 'client-requirements-basic-workflow', 'the client MUST echo back the exact requestState, and MUST NOT include one when the result had none', 'MUST'),
          () => wrongState.length === 0,
          () => retries.map(describeState).join('; '),
          wrongState.map(({ round }) => round.request.exchange),
        ),
        checkIf(
          retries.length === 0 ? 'the client never retried' : undefined,
          'new-id',
          mrtr(revision, 'client-requirements-basic-workflow', 'the JSON-RPC id MUST be different between the initial request and the retry', 'MUST'),
          () => reused.length === 0,
          () => `ids ${ids.join(', ')}`,
          reused.map((round) => round.request.exchange),
        ),
      ];
    },
    doctored: [
      {
        check: 'input-required-sent',
        unmet: true,
        how: 'the server answered the first call with its result',
        doctor: (e: Evidence) => ({ ...e, exchanges: e.exchanges.map((x) => ({ ...x, responseMessages: x.responseMessages.map((m) => (m.message.result?.['resultType'] === 'input_required' ? { ...m, message: { ...m.message, result: { content: [] } } } : m)) })) }),
      },
      {
        check: 'new-id',
        how: 'every retry sent with the id of the first request',
        doctor: (e: Evidence) => {
          const first = roundsOf(e)[0]?.request.message.id;
          return { ...e, exchanges: e.exchanges.map((x) => ({ ...x, requestMessages: x.requestMessages.map((m) => (m.method === 'tools/call' && m.params?.['name'] === FIXTURE_TOOLS.input ? { ...m, id: first! } : m)) })) };
        },
      },
      {
        check: 'inputs-constructed',
        how: 'every retry sent without its inputResponses',
        doctor: (e: Evidence) => ({
          ...e,
          exchanges: e.exchanges.map((x) => ({ ...x, requestMessages: x.requestMessages.map((m) => (m.params?.['inputResponses'] === undefined ? m : { ...m, params: { ...m.params, inputResponses: {} } })) })),
        }),
      },
    ],
  });
}

export const INPUT_REQUIRED_SCENARIOS: readonly Scenario[] = (['roots', 'sampling', 'elicitation'] as const).map(inputRequired);
