// The smoke scenario of the stdio transport: the client launches the suite's stdio server, runs the legacy handshake
// over its stdin and stdout, lists and calls a tool, and closes. It proves the plumbing end to end (the adapter's stdio
// target, the server's side channel, its record in the HTTP record's shape, the judges' wire queries); the rules of
// stdio itself (framing, stderr, the shutdown sequence, cancellation) are other scenarios'.
import { L } from '../../protocol/revisions.ts';
import { check, checkIf, checkInTime, clientCompleted, precondition } from '../checks.ts';
import type { Evidence, Scenario } from '../scenario.ts';
import { lifecycle } from '../spec.ts';
import { initializeAnsweredAt, isRequest, sentMessages } from '../wire.ts';

const SERVER_RECORDED = 'server-recorded';

/** The record came back: the server the client launched reported on its side channel (else the suite saw nothing). */
function serverRecorded(evidence: Evidence) {
  const reported = (evidence.stdio?.processes ?? []).some((p) => p.role === 'server');
  // A client that failed never launching it is judged (client-completed, initialize-first): only a silent record with a
  // client that says it connected is the suite's failure.
  const met = reported || evidence.clientError !== undefined;
  return precondition(
    SERVER_RECORDED,
    lifecycle(evidence.revision, 'initialization', 'Initialization', 'MUST'),
    met,
    met ? 'the launched server reported on its side channel' : 'the client completed, but no server process reported on the side channel: the suite could not see the wire',
  );
}

export const stdioHandshake: Scenario = {
  id: 'stdio/handshake',
  title: 'the handshake over stdio: `initialize` first, `notifications/initialized` after its result and before any other request',
  revisions: L,
  requires: [],
  transport: 'stdio',
  source: { spec: lifecycle('2025-06-18', 'initialization', 'Initialization', 'MUST') },
  async run({ connect, bounded }) {
    const client = await connect();
    await bounded(client.listTools(), 'tools/list');
    await bounded(client.callTool('echo', { text: 'hello' }), 'tools/call echo');
    await bounded(client.close(), 'close');
  },
  judge(evidence) {
    // A server/discover probe before initialize is how a dual-era client in auto mode finds a legacy server (on the same
    // process, or on a sibling it launched for the probe): the handshake is judged after it, as negotiation/handshake-order does.
    const all = sentMessages(evidence);
    const firstInitialize = all.findIndex(({ message }) => message.method === 'initialize');
    const sent = all.filter((s, index) => !(s.message.method === 'server/discover' && (firstInitialize < 0 || index < firstInitialize)));
    const first = sent[0];
    const initialized = sent.find(({ message }) => message.method === 'notifications/initialized');
    const answered = initializeAnsweredAt(evidence);
    const laterRequests = sent.filter((s) => isRequest(s) && s.message.method !== 'initialize' && s.message.method !== 'ping');
    const beforeInitialized = initialized ? laterRequests.filter((s) => s.exchange.seq < initialized.exchange.seq) : laterRequests;
    const spec = (section: string) => lifecycle(evidence.revision, 'initialization', section, 'MUST');
    return [
      serverRecorded(evidence),
      clientCompleted(evidence, spec('Initialization')),
      checkInTime(
        evidence.time,
        'initialize-first',
        spec('Initialization: the initialization phase MUST be the first interaction (the first line on the server’s stdin)'),
        first === undefined ? evidence.clientTimedOut === true && 'late' : first.message.method === 'initialize',
        first ? `the first message was ${first.message.method ?? 'a response'}` : 'the client wrote nothing',
        first ? [first.exchange] : [],
      ),
      checkIf(
        answered === undefined && initialized === undefined ? 'initialize was never answered with a result: nothing for notifications/initialized to follow' : undefined,
        'initialized-sent',
        spec('Initialization: the client MUST send an initialized notification'),
        () => initialized !== undefined && answered !== undefined && initialized.exchange.startedAt >= answered.at,
        () =>
          initialized === undefined
            ? 'no notifications/initialized was written'
            : answered === undefined
              ? 'notifications/initialized was written but initialize was never answered'
              : initialized.exchange.startedAt >= answered.at
                ? 'notifications/initialized followed the initialize result'
                : 'notifications/initialized arrived before the initialize result was written',
        initialized ? [initialized.exchange] : [],
      ),
      check(
        'initialized-before-requests',
        lifecycle(evidence.revision, 'operation', 'Operation begins after the initialized notification', 'MUST'),
        beforeInitialized.length === 0,
        beforeInitialized.length === 0
          ? 'every request followed notifications/initialized'
          : `${beforeInitialized.map((s) => s.message.method).join(', ')} written before notifications/initialized`,
        beforeInitialized.map((s) => s.exchange),
      ),
    ];
  },
  doctored: [
    {
      check: 'initialize-first',
      how: 'the tools/list line moved to the front',
      doctor: (e) => {
        const list = e.exchanges.find((x) => x.requestMessages.some((m) => m.method === 'tools/list'))!;
        return { ...e, exchanges: [list, ...e.exchanges.filter((x) => x !== list)] };
      },
    },
    {
      check: 'initialized-sent',
      how: 'the notifications/initialized line removed',
      doctor: (e) => ({ ...e, exchanges: e.exchanges.filter((x) => !x.requestMessages.some((m) => m.method === 'notifications/initialized')) }),
    },
    {
      check: 'initialized-before-requests',
      how: 'the notifications/initialized line moved after every other line',
      doctor: (e) => {
        const last = Math.max(...e.exchanges.map((x) => x.seq));
        return { ...e, exchanges: e.exchanges.map((x) => (x.requestMessages.some((m) => m.method === 'notifications/initialized') ? { ...x, seq: last + 1 } : x)) };
      },
    },
    {
      check: SERVER_RECORDED,
      unmet: true,
      how: 'no process reported on the side channel, and no exchange recorded',
      doctor: (e) => ({ ...e, exchanges: [], stdio: { ...e.stdio!, processes: [] } }),
    },
  ],
};
