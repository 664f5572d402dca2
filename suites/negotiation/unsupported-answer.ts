import { L } from '../../protocol/revisions.ts';
import { checkIf, clientCompleted, precondition } from '../checks.ts';
import { holdsWithin } from '../outcome.ts';
import { defineScenario } from '../scenario.ts';
import { lifecycle } from '../spec.ts';
import { answerTo, carrying, labels, requests, sent, withRefusedAttemptSharingId } from '../wire.ts';
import { answeredLazily, caseOutcome, connectBound, connectCase, describeCase, initializeAnsweredWith } from './support.ts';

/** A revision no client speaks. */
const UNSUPPORTED = '1999-01-01';

const rule = (revision: Parameters<typeof lifecycle>[0]) =>
  lifecycle(revision, 'version-negotiation', 'Version Negotiation: if the client does not support the version in the response, it SHOULD disconnect', 'SHOULD');

export const unsupportedAnswer = defineScenario<undefined>({
  id: 'negotiation/unsupported-answer',
  title: 'The server answers initialize with a revision the client does not support: the client reports an error and sends nothing more',
  revisions: L,
  requires: [],
  source: { spec: rule('2025-06-18') },
  setup: (revision) => ({ server: { personalities: [initializeAnsweredWith(revision, UNSUPPORTED)] }, state: undefined }),
  async run(context) {
    await connectCase(context, 'unsupported', { timeoutMs: connectBound(context.time) });
    // Whatever the client sends after the answer would come at once: a quiet window to see it.
    await holdsWithin(
      context.server.record,
      (record) => sent(record.exchanges).some(({ message }) => message.method !== undefined && message.method !== 'initialize' && message.method !== 'server/discover'),
      'a message after the unsupported answer',
      context.time.ms.quiet,
    );
  },
  judge(evidence) {
    const { revision, exchanges } = evidence;
    const disconnect = rule(revision);
    const outcome = caseOutcome(evidence, 'unsupported', exchanges);
    const answered = requests(exchanges, 'initialize').find((request) => answerTo(exchanges, request)?.result?.['protocolVersion'] === UNSUPPORTED);
    // Everything the client sent after it was answered 1999-01-01: a DELETE of the session the answer issued is
    // part of disconnecting, any JSON-RPC message is not.
    const after = answered ? exchanges.filter((exchange) => exchange.seq > answered.exchange.seq && exchange.requestMessages.length > 0) : [];
    const unreached = answered === undefined ? `no initialize was answered ${UNSUPPORTED} (the client sent ${labels(exchanges)}; ${describeCase(outcome)})` : undefined;
    return [
      precondition('unsupported-version-answered', disconnect, answered !== undefined, unreached ?? `${labels([answered!.exchange])} was answered ${UNSUPPORTED}`, answered ? [answered.exchange] : []),
      clientCompleted(evidence, disconnect),
      checkIf(
        unreached,
        'connect-fails',
        disconnect,
        () => outcome?.connect.state === 'rejected',
        () => (outcome?.connect.state === 'resolved' ? `the client accepted ${UNSUPPORTED}: ${describeCase(outcome)}` : describeCase(outcome)),
        answered ? [answered.exchange] : [],
      ),
      checkIf(
        unreached,
        'nothing-after-answer',
        disconnect,
        () => after.length === 0,
        () =>
          after.length === 0
            ? `nothing was sent after initialize was answered ${UNSUPPORTED} (watched ${evidence.time.ms.quiet} ms after the connect settled)`
            : `after initialize was answered ${UNSUPPORTED} the client sent ${labels(after)}`,
        after,
      ),
    ];
  },
  doctored: [
    {
      check: 'connect-fails',
      how: 'a lazy connect (nothing sent before it resolved) whose first operation, tools/list, was answered',
      doctor: (e) => answeredLazily(e, 'unsupported', e.exchanges),
    },
    {
      check: 'unsupported-version-answered',
      unmet: true,
      how: 'the client timed out before its initialize reached the server: nothing on the wire',
      doctor: (e) => ({ ...e, exchanges: [], observed: {} }),
    },
    {
      check: 'nothing-after-answer',
      how: 'the initialize refused before the HTTP+SSE fallback sharing the id of the one answered on the stream (as LangChain and mcp-remote send it), and a tools/list after the answer',
      doctor: (e) => {
        const exchanges = withRefusedAttemptSharingId(e.exchanges);
        const answered = carrying(exchanges, 'initialize').at(-1);
        const last = exchanges.at(-1);
        if (!answered || !last) return { ...e, exchanges };
        const stray = {
          ...structuredClone(answered),
          seq: last.seq + 1,
          startedAt: last.startedAt + 1,
          requestMessages: [{ jsonrpc: '2.0', id: 99, method: 'tools/list' }],
          responseMessages: [],
        };
        return { ...e, exchanges: [...exchanges, stray] };
      },
    },
  ],
});
