import { isHttpSse, L } from '../../protocol/revisions.ts';
import { check, checkIf, clientCompleted } from '../checks.ts';
import { checkInTime } from '../deadlines.ts';
import type { Scenario } from '../scenario.ts';
import { lifecycle } from '../spec.ts';
import { initializeAnsweredAt, isRequest, labels, sentMessages } from '../wire.ts';
import { plainSession } from './support.ts';

// No precondition: the rule is exactly "initialize first", so a client that sends nothing at all breaks it. The rules
// about what follows the initialize result are exercised only once the server gave one.

export const NO_HTTP_BEFORE_INITIALIZE = 'no-http-before-initialize';

export const handshakeOrder: Scenario = {
  id: 'negotiation/handshake-order',
  title: '`initialize` first; `notifications/initialized` after its result and before any other request',
  revisions: L,
  requires: [],
  source: { spec: lifecycle('2025-06-18', 'initialization', 'Initialization', 'MUST') },
  run: plainSession,
  judge(evidence) {
    // A `server/discover` probe before `initialize` is how a dual-era client in auto mode finds a legacy
    // server (2026-07-28 basic/versioning, backward compatibility): the handshake is judged after it.
    // How many probes are sent is negotiation/auto-falls-back's concern.
    const all = sentMessages(evidence);
    const firstInitialize = all.findIndex(({ message }) => message.method === 'initialize');
    const sent = all.filter((s, index) => !(s.message.method === 'server/discover' && (firstInitialize < 0 || index < firstInitialize)));
    const first = sent[0];
    const initialized = sent.find(({ message }) => message.method === 'notifications/initialized');
    const answered = initializeAnsweredAt(evidence);
    const laterRequests = sent.filter((s) => isRequest(s) && s.message.method !== 'initialize' && s.message.method !== 'ping');
    const beforeInitialized = initialized ? laterRequests.filter((s) => s.exchange.seq < initialized.exchange.seq) : laterRequests;
    const beforeResult = answered ? laterRequests.filter((s) => s.exchange.startedAt < answered.at) : laterRequests;
    // Streamable HTTP: nothing but probes may reach the server before the initialize POST — no GET for a stream, no
    // DELETE. (HTTP+SSE opens its GET /sse first by design: that is the transport, not an interaction.)
    const initializeExchange = all[firstInitialize]?.exchange;
    const earlierHttp = evidence.exchanges.filter((x) => (initializeExchange === undefined || x.seq < initializeExchange.seq) && !x.requestMessages.some((m) => m.method === 'server/discover' || m.method === 'initialize'));
    const noHttpBeforeInitialize = check(
      NO_HTTP_BEFORE_INITIALIZE,
      lifecycle(evidence.revision, 'initialization', 'Initialization: the initialization phase MUST be the first interaction (no stream GET or other request before the initialize POST)', 'MUST'),
      earlierHttp.length === 0,
      earlierHttp.length === 0
        ? 'the initialize POST was the first exchange (after any server/discover probe)'
        : `${labels(earlierHttp)} before the initialize POST`,
      earlierHttp,
    );
    return [
      clientCompleted(evidence, lifecycle(evidence.revision, 'initialization', 'Initialization', 'MUST')),
      checkInTime(
        evidence.time,
        'initialize-first',
        lifecycle(evidence.revision, 'initialization', 'Initialization: the initialization phase MUST be the first interaction', 'MUST'),
        // Nothing sent before its connect ran out of time: on a loaded machine, perhaps a start too slow for the bound.
        first === undefined ? evidence.clientTimedOut === true && 'late' : first.message.method === 'initialize',
        first ? `the first message was ${first.message.method ?? 'a response'}` : 'the client sent nothing',
        first ? [first.exchange] : [],
      ),
      // Over stdio every line is a message, so initialize-first says it all.
      ...(isHttpSse(evidence.revision) || evidence.stdio !== undefined ? [] : [noHttpBeforeInitialize]),
      // Without an initialize result the notification has nothing to follow: sent anyway, it is early; not sent, unexercised.
      // A connect that ran out of time before the notification (a starved client, on a provisional run) is 'late'.
      initialized === undefined && answered !== undefined && evidence.clientTimedOut
        ? checkInTime(evidence.time, 'initialized-sent', lifecycle(evidence.revision, 'initialization', 'Initialization: the client MUST send an initialized notification', 'MUST'), 'late', 'no notifications/initialized was sent before the connect ran out of time')
        : checkIf(
        answered === undefined && initialized === undefined ? 'initialize was never answered with a result: nothing for notifications/initialized to follow' : undefined,
        'initialized-sent',
        lifecycle(evidence.revision, 'initialization', 'Initialization: the client MUST send an initialized notification', 'MUST'),
        () => initialized !== undefined && answered !== undefined && initialized.exchange.startedAt >= answered.at,
        () =>
          initialized === undefined
            ? 'no notifications/initialized was sent'
            : answered === undefined
              ? 'notifications/initialized was sent but initialize was never answered'
              : initialized.exchange.startedAt >= answered.at
                ? 'notifications/initialized followed the initialize result'
                : 'notifications/initialized arrived before the initialize result was sent',
        initialized ? [initialized.exchange] : [],
      ),
      check(
        'initialized-before-requests',
        lifecycle(evidence.revision, 'operation', 'Operation begins after the initialized notification', 'MUST'),
        beforeInitialized.length === 0,
        beforeInitialized.length === 0
          ? 'every request followed notifications/initialized'
          : `${beforeInitialized.map((s) => s.message.method).join(', ')} sent before notifications/initialized`,
        beforeInitialized.map((s) => s.exchange),
      ),
      checkIf(
        answered === undefined && beforeResult.length === 0 ? 'initialize was never answered with a result' : undefined,
        'only-ping-before-result',
        lifecycle(evidence.revision, 'initialization', 'Initialization: no requests but ping before the initialize result', 'SHOULD'),
        () => beforeResult.length === 0,
        () =>
          beforeResult.length === 0
            ? 'nothing but initialize was requested before its result'
            : `${beforeResult.map((s) => s.message.method).join(', ')} sent before the initialize result`,
        beforeResult.map((s) => s.exchange),
      ),
    ];
  },
  doctored: [
    {
      check: NO_HTTP_BEFORE_INITIALIZE,
      how: 'a bodiless GET for a stream before the initialize POST',
      doctor: (e) => {
        const first = e.exchanges[0]!;
        const get = { ...first, seq: 0, method: 'GET', requestMessages: [], responseMessages: [], status: 400, startedAt: first.startedAt - 1 };
        return { ...e, exchanges: [get, ...e.exchanges] };
      },
    },
    {
      check: 'initialize-first',
      how: 'the tools/list exchange moved to the front',
      doctor: (e) => {
        const list = e.exchanges.find((x) => x.requestMessages.some((m) => m.method === 'tools/list'))!;
        return { ...e, exchanges: [list, ...e.exchanges.filter((x) => x !== list)] };
      },
    },
    {
      check: 'only-ping-before-result',
      how: 'tools/list arriving while initialize was unanswered',
      doctor: (e) => ({ ...e, exchanges: e.exchanges.map((x) => (x.requestMessages.some((m) => m.method === 'tools/list') ? { ...x, startedAt: 0 } : x)) }),
    },
  ],
};
