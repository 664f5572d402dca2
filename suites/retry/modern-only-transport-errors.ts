import { FIXTURE_TOOLS } from '../../servers/fixtures.ts';
import { dropConnection, type DropConnection } from '../../servers/personalities/drop-connection.ts';
import { specUrl } from '../../protocol/revisions.ts';
import type { SentMessage } from '../../servers/wire-record.ts';
import { check, clientCompleted } from '../checks.ts';
import { defineScenario } from '../scenario.ts';
import { answerTo, brief, describeOutcome, list, MODERN_REVISION, noted, requestIds, requests, sendingMessages, settle } from './support.ts';

/** Protocol errors the script provokes: a JSON-RPC error (-32602, unknown tool) and an isError result (invalid arguments). */
const PROVOKED = [
  { key: 'unknownTool', tool: 'no_such_tool', args: {} },
  { key: 'invalidArguments', tool: FIXTURE_TOOLS.echo, args: { text: 42 } },
] as const;

const sameCall = (a: SentMessage, b: SentMessage) =>
  a.message.method === b.message.method && a.message.params?.['name'] === b.message.params?.['name'] && JSON.stringify(a.message.params?.['arguments']) === JSON.stringify(b.message.params?.['arguments']);

const scopedRetries = (section: string, level: 'SHOULD' | 'MAY') => ({
  url: specUrl(MODERN_REVISION, 'basic/transports/streamable-http', 'sending-messages'),
  section: `Streamable HTTP › Sending Messages: ${section}`,
  level,
});

/**
 * 2026-07-28: every request is self-contained, so only a dropped connection is worth sending again (seed 000). A
 * JSON-RPC error (-32602 for an unknown tool) and an isError result (invalid arguments) are answers: the client
 * surfaces them and sends nothing again. A tools/list whose connection is reset before the server handled it may be
 * re-issued, as a new request with a new id (changelog).
 */
export const modernOnlyTransportErrors = defineScenario<{ drop: DropConnection }>({
  id: 'retry/modern-only-transport-errors',
  title: 'In 2026-07-28 only a dropped connection may be retried; protocol errors are not retried',
  revisions: [MODERN_REVISION],
  requires: [],
  source: {
    spec: scopedRetries('a protocol error is an answer: only a dropped connection may be retried (seed 000: retries are scoped per era)', 'SHOULD'),
    seed: 'seed 000 (retries are scoped per era: every modern request is self-contained, so only a dropped connection is retryable)',
  },
  setup: () => {
    const drop = dropConnection();
    return { server: { personalities: [drop] }, state: { drop } };
  },
  async run({ connect, bounded, state, observe }) {
    const client = await connect();
    await bounded(client.listTools(), 'tools/list');
    for (const { key, tool, args } of PROVOKED) {
      observe(key, await settle(bounded(client.callTool(tool, args), `tools/call ${tool} answered with a protocol error`)));
    }
    state.drop.dropNext(1, { method: 'tools/list', when: 'before' });
    observe('dropped', await settle(bounded(client.listTools(), 'tools/list whose connection is reset')));
    await bounded(client.close(), 'close');
  },
  judge(evidence) {
    const { exchanges } = evidence;
    const calls = requests(exchanges, 'tools/call');
    const provoked = PROVOKED.map(({ tool }) => calls.filter((s) => s.message.params?.['name'] === tool));
    const first = provoked.map((sends) => sends[0]).filter((s) => s !== undefined);
    const answers = first.map((s) => ({ sent: s, answer: answerTo(exchanges, s) }));
    const errorAnswered = answers.filter(({ answer }) => answer?.error !== undefined || answer?.result?.['isError'] === true);
    const resent = errorAnswered.flatMap(({ sent }) => calls.filter((s) => s.exchange.seq > sent.exchange.seq && sameCall(s, sent)));

    const dropped = noted(exchanges, 'dropped-before-handler')[0];
    const droppedRequest = dropped?.requestMessages.find((m) => m.method === 'tools/list');
    const reissues = dropped ? requests(exchanges, 'tools/list').filter((s) => s.exchange.seq > dropped.seq) : [];
    const sameId = reissues.filter((s) => s.message.id === droppedRequest?.id);
    const reissuedAnswered = reissues.some((s) => answerTo(exchanges, s)?.result !== undefined);

    return [
      clientCompleted(evidence, sendingMessages(MODERN_REVISION, 'the script runs to its end (the protocol errors are expected and caught)', 'MUST')),
      check(
        'protocol-errors-not-retried',
        scopedRetries('a JSON-RPC error or an isError result answers the request: it is not sent again (seed 000: only a dropped connection is retryable in this era)', 'SHOULD'),
        errorAnswered.length === PROVOKED.length && resent.length === 0,
        errorAnswered.length < PROVOKED.length
          ? `only ${errorAnswered.length} of ${PROVOKED.length} provoked calls were answered with a protocol error (${list(first.map((s) => s.exchange))})`
          : resent.length === 0
            ? `each protocol error was surfaced and nothing was sent again: ${answers
                .map(({ sent, answer }) => `${String(sent.message.params?.['name'])} → ${answer?.error ? `error ${answer.error.code}` : 'isError result'}`)
                .join(', ')} (${PROVOKED.map(({ key }) => `${key}: ${describeOutcome(evidence.observed[key])}`).join('; ')})`
            : `calls answered with a protocol error were sent again: ${list(resent.map((s) => s.exchange))}`,
        [...first.map((s) => s.exchange), ...resent.map((s) => s.exchange)],
      ),
      check(
        'reissued-with-new-id',
        requestIds(MODERN_REVISION),
        dropped !== undefined && sameId.length === 0,
        dropped === undefined
          ? 'no tools/list was dropped: the scenario could not drive the client'
          : sameId.length === 0
            ? reissues.length > 0
              ? `the dropped tools/list#${String(droppedRequest?.id)} was re-issued as ${reissues.map((s) => `#${String(s.message.id)}`).join(', ')}`
              : `the dropped tools/list#${String(droppedRequest?.id)} was not re-issued`
            : `the dropped tools/list#${String(droppedRequest?.id)} was re-issued with the same id: ${list(sameId.map((s) => s.exchange))}`,
        [...(dropped ? [dropped] : []), ...reissues.map((s) => s.exchange)],
      ),
      check(
        'dropped-request-may-be-reissued',
        scopedRetries(
          'a request lost with its connection may be re-issued (the changelog asks for a re-issue with a new id; informational here, the catalogue also lets a client surface the drop)',
          'MAY',
        ),
        reissuedAnswered,
        reissuedAnswered
          ? `the dropped tools/list was re-issued and answered (${list(reissues.map((s) => s.exchange))})`
          : `the dropped tools/list ${dropped ? `(${brief(dropped)}) ` : ''}was not re-issued: ${describeOutcome(evidence.observed.dropped)}`,
        [...(dropped ? [dropped] : []), ...reissues.map((s) => s.exchange)],
      ),
    ];
  },
  doctored: [
    {
      check: 'dropped-request-may-be-reissued',
      how: 'the tools/list after the drop removed',
      doctor: (e) => {
        const dropped = noted(e.exchanges, 'dropped-before-handler')[0]!;
        return { ...e, exchanges: e.exchanges.filter((x) => x.seq <= dropped.seq || !x.requestMessages.some((m) => m.method === 'tools/list')) };
      },
    },
  ],
});
