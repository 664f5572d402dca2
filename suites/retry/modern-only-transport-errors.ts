import { MODERN_REVISION } from '../../protocol/revisions.ts';
import { FIXTURE_TOOLS } from '../../servers/fixtures.ts';
import { dropConnection, type DropConnection } from '../../servers/personalities/drop-connection.ts';
import type { SentMessage } from '../../servers/wire-record.ts';
import { check, checkIf, clientCompleted, precondition } from '../checks.ts';
import { describeOutcome, outcomeOf, settle } from '../outcome.ts';
import { defineScenario, type Level } from '../scenario.ts';
import { reissuedIds, sendingMessages } from '../spec.ts';
import { answerTo, callsTool, label, labels, noted, requests } from '../wire.ts';

/** Protocol errors the script provokes: a JSON-RPC error (-32602, unknown tool) and an isError result (invalid arguments). */
const PROVOKED = [
  { key: 'unknownTool', tool: 'no_such_tool', args: {} },
  { key: 'invalidArguments', tool: FIXTURE_TOOLS.echo, args: { text: 42 } },
] as const;

const sameCall = (a: SentMessage, b: SentMessage) =>
  a.message.method === b.message.method && a.message.params?.['name'] === b.message.params?.['name'] && JSON.stringify(a.message.params?.['arguments']) === JSON.stringify(b.message.params?.['arguments']);

/**
 * The request whose connection is reset: a tools/call annotated idempotentHint: true, which may be re-issued. A call,
 * not a listing: a listing may be answered from the client's cache, and never reach the wire.
 */
const DROPPED = FIXTURE_TOOLS.idempotentCount;

const scopedRetries = (section: string, level: Level) => sendingMessages(MODERN_REVISION, section, level);

/**
 * 2026-07-28: every request is self-contained, so only a dropped connection is worth sending again (seed 000). A
 * JSON-RPC error (-32602 for an unknown tool) and an isError result (invalid arguments) are answers: the client
 * surfaces them and sends nothing again. A tools/call of an idempotent tool whose connection is reset before the server
 * handled it may be re-issued, as a new request with a new id (changelog).
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
    state.drop.dropNext(1, { method: 'tools/call', when: 'before' });
    observe('dropped', await settle(bounded(client.callTool(DROPPED, {}), `tools/call ${DROPPED} whose connection is reset`)));
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
    const droppedRequest = dropped?.requestMessages.find((m) => m.method === 'tools/call');
    const reissues = dropped ? requests(exchanges, 'tools/call', DROPPED).filter((s) => s.exchange.seq > dropped.seq) : [];
    const sameId = reissues.filter((s) => s.message.id === droppedRequest?.id);
    const reissuedAnswered = reissues.some((s) => answerTo(exchanges, s)?.result !== undefined);

    return [
      precondition(
        'connection-dropped',
        scopedRetries('only a dropped connection may be retried, as a new request with a new id', 'SHOULD'),
        dropped !== undefined,
        dropped === undefined ? `no tools/call of ${DROPPED} was dropped: the scenario could not drive the client there` : `${label(dropped)}: the connection was reset before the server handled the tools/call of ${DROPPED}`,
        dropped ? [dropped] : [],
      ),
      clientCompleted(evidence, sendingMessages(MODERN_REVISION, 'the script runs to its end (the protocol errors are expected and caught)', 'MUST')),
      checkIf(
        // A call the client refused to send (it checks arguments against the tool's schema, say) provokes nothing.
        errorAnswered.length === 0 ? `none of the ${PROVOKED.length} provoked calls was answered with a protocol error (sent: ${labels(first.map((s) => s.exchange))})` : undefined,
        'protocol-errors-not-retried',
        scopedRetries('a JSON-RPC error or an isError result answers the request: it is not sent again (seed 000: only a dropped connection is retryable in this era)', 'SHOULD'),
        () => resent.length === 0,
        () =>
          resent.length === 0
            ? `each protocol error was surfaced and nothing was sent again: ${errorAnswered
                .map(({ sent, answer }) => `${String(sent.message.params?.['name'])} → ${answer?.error ? `error ${answer.error.code}` : 'isError result'}`)
                .join(', ')} (${PROVOKED.map(({ key, tool }) => describeOutcome(outcomeOf(evidence, key), `the call of ${tool}`)).join('; ')})`
            : `calls answered with a protocol error were sent again: ${labels(resent.map((s) => s.exchange))}`,
        [...first.map((s) => s.exchange), ...resent.map((s) => s.exchange)],
      ),
      check(
        'reissued-with-new-id',
        reissuedIds(MODERN_REVISION),
        sameId.length === 0,
        sameId.length === 0
          ? reissues.length > 0
            ? `the dropped tools/call#${String(droppedRequest?.id)} was re-issued as ${reissues.map((s) => `#${String(s.message.id)}`).join(', ')}`
            : `the dropped tools/call#${String(droppedRequest?.id)} was not re-issued`
          : `the dropped tools/call#${String(droppedRequest?.id)} was re-issued with the same id: ${labels(sameId.map((s) => s.exchange))}`,
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
          ? `the dropped tools/call of ${DROPPED} was re-issued and answered (${labels(reissues.map((s) => s.exchange))})`
          : `the dropped tools/call of ${DROPPED} ${dropped ? `(${label(dropped)}) ` : ''}was not re-issued: ${describeOutcome(outcomeOf(evidence, 'dropped'), 'the call')}`,
        [...(dropped ? [dropped] : []), ...reissues.map((s) => s.exchange)],
      ),
    ];
  },
  doctored: [
    {
      check: 'connection-dropped',
      unmet: true,
      how: 'no tools/call was dropped',
      doctor: (e) => ({ ...e, exchanges: e.exchanges.map((x) => ({ ...x, notes: x.notes.filter((note) => note !== 'dropped-before-handler') })) }),
    },
    {
      check: 'dropped-request-may-be-reissued',
      how: `the tools/call of ${DROPPED} after the drop removed`,
      doctor: (e) => {
        const dropped = noted(e.exchanges, 'dropped-before-handler')[0]!;
        return { ...e, exchanges: e.exchanges.filter((x) => x.seq <= dropped.seq || !callsTool(x, DROPPED)) };
      },
    },
  ],
});
