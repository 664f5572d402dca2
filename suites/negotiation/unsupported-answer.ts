import { LEGACY_REVISIONS } from '../../protocol/revisions.ts';
import { check, clientCompleted } from '../checks.ts';
import { withRefusedAttemptSharingId } from '../wire.ts';
import { defineScenario } from '../scenario.ts';
import { answerTo, carrying, describeOutcome, initializeAnsweredWith, lifecycle, list, outcomeOf, quietWindow, requests, runCase, sent } from './support.ts';

/** A revision no client speaks. */
const UNSUPPORTED = '1999-01-01';

export const unsupportedAnswer = defineScenario<undefined>({
  id: 'negotiation/unsupported-answer',
  title: 'The server answers initialize with a revision the client does not support: the client reports an error and sends nothing more',
  revisions: LEGACY_REVISIONS,
  requires: [],
  source: { spec: lifecycle('2025-06-18', 'version-negotiation', 'Version Negotiation: if the client does not support the version in the response, it SHOULD disconnect', 'SHOULD') },
  setup: (revision) => ({ server: { personalities: [initializeAnsweredWith(revision, UNSUPPORTED)] }, state: undefined }),
  async run(context) {
    await runCase(context, 'unsupported', { timeoutMs: 1_500 });
    // Whatever the client sends after the answer would come at once: a short window to see it.
    await quietWindow(context.server, 'a message after the unsupported answer', (exchanges) =>
      sent(exchanges).some(({ message }) => message.method !== undefined && message.method !== 'initialize' && message.method !== 'server/discover'),
    );
  },
  judge(evidence) {
    const { revision, exchanges } = evidence;
    const disconnect = lifecycle(revision, 'version-negotiation', 'Version Negotiation: if the client does not support the version in the response, it SHOULD disconnect', 'SHOULD');
    const outcome = outcomeOf(evidence, 'unsupported');
    const answered = requests(exchanges, 'initialize').find((request) => answerTo(exchanges, request)?.result?.['protocolVersion'] === UNSUPPORTED);
    // Everything the client sent after it was answered 1999-01-01: a DELETE of the session the answer issued is
    // part of disconnecting, any JSON-RPC message is not.
    const after = answered ? exchanges.filter((exchange) => exchange.seq > answered.exchange.seq && exchange.requestMessages.length > 0) : [];
    return [
      clientCompleted(evidence, disconnect),
      check(
        'connect-fails',
        disconnect,
        answered !== undefined && outcome?.connect === 'failed',
        answered === undefined
          ? `initialize was never answered ${UNSUPPORTED} (${list(exchanges)})`
          : outcome?.connect === 'connected'
            ? `the client accepted ${UNSUPPORTED}: ${describeOutcome(outcome)}`
            : describeOutcome(outcome),
        answered ? [answered.exchange] : [],
      ),
      check(
        'nothing-after-answer',
        disconnect,
        answered !== undefined && after.length === 0,
        answered === undefined
          ? `initialize was never answered ${UNSUPPORTED}`
          : after.length === 0
            ? `nothing was sent after initialize was answered ${UNSUPPORTED}`
            : `after initialize was answered ${UNSUPPORTED} the client sent ${list(after)}`,
        after,
      ),
    ];
  },
  doctored: [
    {
      check: 'nothing-after-answer',
      how: 'the initialize refused before the HTTP+SSE fallback sharing the id of the one answered on the stream (as LangChain and mcp-remote send it), and a tools/list after the answer',
      doctor: (e) => {
        const exchanges = withRefusedAttemptSharingId(e.exchanges);
        const answered = carrying(exchanges, 'initialize').at(-1);
        const last = exchanges.at(-1);
        if (!answered || !last) return { ...e, exchanges };
        const stray = { ...structuredClone(answered), seq: last.seq + 1, startedAt: last.startedAt + 1, requestMessages: [{ jsonrpc: '2.0', id: 99, method: 'tools/list' }], responseMessages: [] };
        return { ...e, exchanges: [...exchanges, stray] };
      },
    },
  ],
});
