import { HEADERS } from '../../protocol/http.ts';
import { isModern, requiresProtocolVersionHeader, S } from '../../protocol/revisions.ts';
import { check, checkIf, clientCompleted, precondition } from '../checks.ts';
import type { Check, Scenario } from '../scenario.ts';
import { lifecycle, protocolVersionHeader } from '../spec.ts';
import { answerTo, labels, requests } from '../wire.ts';

// The server of the revision under test is pinned to it: offered anything newer, it answers its own revision
// (Lifecycle › Version Negotiation: otherwise the server MUST respond with another version it supports). A client
// whose newest revision is the one under test (2025-11-25 for every client today) offers exactly it: there is no
// downgrade to see, and the checks then only confirm the client kept the answered revision.
export const downgrade: Scenario = {
  id: 'negotiation/downgrade',
  title: 'The client offers its latest revision; the server answers an older one it supports; the client adopts that one, in what it reports and in its headers',
  revisions: S,
  requires: [],
  source: { spec: lifecycle('2025-06-18', 'version-negotiation', 'Version Negotiation', 'MUST') },
  async run({ connect, bounded, observe }) {
    const client = await connect();
    await bounded(client.listTools(), 'tools/list');
    // Asked after the first operation: a lazy client negotiates there.
    observe('negotiatedVersion', (await bounded(client.info(), 'info')).negotiatedVersion);
    await bounded(client.callTool('echo', { text: 'hello' }), 'tools/call echo');
    await bounded(client.close(), 'close');
  },
  judge(evidence) {
    const { revision, exchanges } = evidence;
    const negotiation = lifecycle(revision, 'version-negotiation', 'Version Negotiation: the client uses the version the server answered', 'MUST');
    const handshake = requests(exchanges, 'initialize').find((request) => answerTo(exchanges, request)?.result !== undefined);
    const offered = handshake?.message.params?.['protocolVersion'];
    const answered = handshake ? answerTo(exchanges, handshake)?.result?.['protocolVersion'] : undefined;
    const scene =
      handshake === undefined
        ? 'no initialize was answered with a result'
        : offered === answered
          ? `the client offered ${String(offered)}, the revision the server answers: no downgrade to exercise`
          : `the client offered ${String(offered)}, the server answered ${String(answered)}`;
    const reported = evidence.observed.negotiatedVersion;
    const checks: Check[] = [
      precondition('handshake-answered', negotiation, handshake !== undefined, handshake ? `${labels([handshake.exchange])} was answered ${String(answered)}` : `no initialize was answered with a result (${labels(exchanges)})`, handshake ? [handshake.exchange] : []),
      clientCompleted(evidence, negotiation),
      reported === undefined
        ? check('adopts-answered-version', { ...negotiation, level: 'MAY' }, false, `${scene}; the client does not report the version it negotiated`, handshake ? [handshake.exchange] : [])
        : checkIf(handshake === undefined ? scene : undefined, 'adopts-answered-version', negotiation, () => reported === answered, () => `${scene}; the client reports ${String(reported)}`, handshake ? [handshake.exchange] : []),
    ];
    // The offer: the newest handshake revision the client declares (the suite's own are its revisions list).
    const newest = [...evidence.clientRevisions].filter((r) => !isModern(r)).sort().at(-1);
    checks.push(
      checkIf(
        handshake === undefined ? 'no initialize was answered with a result' : newest === undefined ? 'the client declares no handshake revision' : undefined,
        'offers-newest',
        lifecycle(revision, 'version-negotiation', 'Version Negotiation: the client SHOULD send the latest version it supports', 'SHOULD'),
        () => offered === newest,
        () => `the client offered ${String(offered)}; the newest handshake revision it declares is ${String(newest)}`,
        handshake ? [handshake.exchange] : [],
      ),
    );
    // Never a different version: a header that is sent names the answered one. A missing header is
    // negotiation/version-per-revision's concern.
    const later = handshake ? exchanges.filter((exchange) => exchange.seq > handshake.exchange.seq) : [];
    const versioned = later.filter((exchange) => exchange.requestHeaders[HEADERS.version] !== undefined);
    const other = versioned.filter((exchange) => exchange.requestHeaders[HEADERS.version] !== answered);
    const header = requiresProtocolVersionHeader(revision)
      ? protocolVersionHeader(revision, 'the version negotiated during initialization', 'MUST')
      : protocolVersionHeader(revision, 'the version negotiated during initialization (defined from 2025-06-18; informational at 2025-03-26)', 'MAY');
    checks.push(
      checkIf(
        handshake === undefined ? scene : later.length === 0 ? `${scene}; no request followed the handshake` : undefined,
        'headers-name-answered-version',
        header,
        () => other.length === 0,
        () =>
          other.length === 0
            ? `${scene}; ${versioned.length} of ${later.length} later requests carried MCP-Protocol-Version, all ${String(answered)}`
            : `${scene}; later requests named another version: ${other.map((e) => `#${e.seq} ${e.requestHeaders[HEADERS.version]}`).join(', ')}`,
        other,
      ),
    );
    return checks;
  },
  doctored: [
    { check: 'adopts-answered-version', how: 'the client reports the version it offered, 2099-01-01', doctor: (e) => ({ ...e, observed: { ...e.observed, negotiatedVersion: '2099-01-01' } }) },
    {
      check: 'offers-newest',
      how: 'the initialize offering 2024-11-05, an older revision than the client declares',
      doctor: (e) => ({
        ...e,
        exchanges: e.exchanges.map((x) => ({ ...x, requestMessages: x.requestMessages.map((m) => (m.method === 'initialize' ? { ...m, params: { ...m.params, protocolVersion: '2024-11-05' } } : m)) })),
      }),
    },
    { check: 'handshake-answered', unmet: true, how: 'the client gave up before the server answered its initialize', doctor: (e) => ({ ...e, exchanges: e.exchanges.map((x) => ({ ...x, responseMessages: [] })) }) },
    {
      check: 'headers-name-answered-version',
      how: 'tools/list carrying MCP-Protocol-Version: 2099-01-01',
      doctor: (e) => ({
        ...e,
        exchanges: e.exchanges.map((x) =>
          x.requestMessages.some((m) => m.method === 'tools/list') ? { ...x, requestHeaders: { ...x.requestHeaders, [HEADERS.version]: '2099-01-01' } } : x,
        ),
      }),
    },
  ],
};
