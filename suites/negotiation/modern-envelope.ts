import type { WireExchange } from '../../servers/wire-record.ts';
import { check, clientCompleted } from '../checks.ts';
import type { Scenario } from '../scenario.ts';
import { envelopeOf, list, META_CAPABILITIES, META_CLIENT_INFO, META_VERSION, MODERN, requestMeta, requests, streamableHttp, versioning, type Sent } from './support.ts';

const isObject = (value: unknown) => value !== null && typeof value === 'object' && !Array.isArray(value);

/** Requests failing `ok`, each with what was wrong. */
function failing(all: readonly Sent[], wrong: (request: Sent) => string | undefined): { exchange: WireExchange; why: string }[] {
  return all.flatMap((request) => {
    const why = wrong(request);
    return why === undefined ? [] : [{ exchange: request.exchange, why: `#${request.exchange.seq} ${request.message.method}: ${why}` }];
  });
}

function verdict(name: string, spec: Parameters<typeof check>[1], all: readonly Sent[], bad: { exchange: WireExchange; why: string }[], what: string) {
  return check(
    name,
    spec,
    all.length > 0 && bad.length === 0,
    all.length === 0 ? 'the client sent no request' : bad.length === 0 ? `all ${all.length} requests ${what}` : bad.map((b) => b.why).join('; '),
    bad.map((b) => b.exchange),
  );
}

// The connect uses the runner's default for 2026-07-28 (a pin, else auto). No affinity key is asked for, so no
// request may carry Mcp-Session-Id (a client-minted key is resume/affinity-first-request's concern).
export const modernEnvelope: Scenario = {
  id: 'negotiation/modern-envelope',
  title: 'Every 2026-07-28 request carries the _meta envelope, MCP-Protocol-Version equal to it, Mcp-Method, and Mcp-Name on tools/call; no initialize, GET, DELETE or session header',
  revisions: [MODERN],
  requires: [],
  source: { spec: streamableHttp('request-metadata', 'Request Metadata', 'MUST') },
  async run({ connect, bounded }) {
    const client = await connect();
    await bounded(client.listTools(), 'tools/list');
    await bounded(client.callTool('echo', { text: 'hello' }), 'tools/call echo');
    await bounded(client.close(), 'close');
  },
  judge(evidence) {
    const { exchanges } = evidence;
    const all = requests(exchanges);
    const posts = all.filter(({ exchange }) => exchange.method === 'POST');

    const missingRequired = failing(posts, ({ message }) => {
      const meta = envelopeOf(message);
      if (meta === undefined) return 'no params._meta';
      const missing = [
        typeof meta[META_VERSION] === 'string' ? undefined : META_VERSION,
        isObject(meta[META_CAPABILITIES]) ? undefined : META_CAPABILITIES,
      ].filter((key) => key !== undefined);
      return missing.length === 0 ? undefined : `_meta lacks ${missing.join(', ')}`;
    });
    const missingInfo = failing(posts, ({ message }) => (isObject(envelopeOf(message)?.[META_CLIENT_INFO]) ? undefined : `_meta lacks ${META_CLIENT_INFO}`));
    const versionMismatch = failing(posts, ({ message, exchange }) => {
      const declared = envelopeOf(message)?.[META_VERSION];
      const header = exchange.requestHeaders['mcp-protocol-version'];
      return header !== undefined && header === declared ? undefined : `MCP-Protocol-Version: ${header ?? 'absent'}, _meta declares ${String(declared ?? 'nothing')}`;
    });
    const methodHeader = failing(posts, ({ message, exchange }) => {
      const header = exchange.requestHeaders['mcp-method'];
      return header === message.method ? undefined : `Mcp-Method: ${header ?? 'absent'}`;
    });
    const calls = posts.filter(({ message }) => message.method === 'tools/call');
    const nameHeader = failing(calls, ({ message, exchange }) => {
      const header = exchange.requestHeaders['mcp-name'];
      const name = message.params?.['name'];
      return header !== undefined && header === name ? undefined : `Mcp-Name: ${header ?? 'absent'}, params.name ${String(name)}`;
    });
    const initializes = exchanges.filter((exchange) => exchange.requestMessages.some((m) => m.method === 'initialize' || m.method === 'notifications/initialized'));
    const getsAndDeletes = exchanges.filter((exchange) => exchange.method === 'GET' || exchange.method === 'DELETE');
    const withSession = exchanges.filter((exchange) => exchange.requestHeaders['mcp-session-id'] !== undefined);

    const earlier = streamableHttp('earlier-streamable-http-revisions', 'Earlier Streamable HTTP Revisions: sessions, GET streams and DELETE are not part of this revision', 'MUST');
    return [
      clientCompleted(evidence, streamableHttp('request-metadata', 'Request Metadata', 'MUST')),
      verdict(
        'envelope-required-fields',
        requestMeta('protocolVersion and clientCapabilities MUST be included on every request', 'MUST'),
        posts,
        missingRequired,
        'carried protocolVersion and clientCapabilities in _meta',
      ),
      verdict('envelope-client-info', requestMeta('clients SHOULD include clientInfo on every request', 'SHOULD'), posts, missingInfo, 'carried clientInfo in _meta'),
      verdict(
        'version-header-matches',
        streamableHttp('protocol-version-header', 'Protocol Version Header: present on every POST and equal to the _meta version', 'MUST'),
        posts,
        versionMismatch,
        'carried MCP-Protocol-Version equal to their _meta version',
      ),
      verdict('method-header', streamableHttp('standard-request-headers', 'Standard Request Headers: Mcp-Method on all requests', 'MUST'), posts, methodHeader, 'carried Mcp-Method equal to their method'),
      verdict(
        'name-header',
        streamableHttp('standard-request-headers', 'Standard Request Headers: Mcp-Name on tools/call', 'MUST'),
        calls,
        nameHeader,
        'tools/call carried Mcp-Name equal to params.name',
      ),
      check(
        'no-initialize',
        versioning('backward-compatibility-with-initialization-based-versions', 'Backward Compatibility: a client that reached a modern server stays modern', 'MUST'),
        initializes.length === 0,
        initializes.length === 0 ? 'no initialize handshake' : `the client sent ${list(initializes)}`,
        initializes,
      ),
      check('no-get-or-delete', earlier, getsAndDeletes.length === 0, getsAndDeletes.length === 0 ? 'only POSTs' : `the client sent ${list(getsAndDeletes)}`, getsAndDeletes),
      check(
        'no-session-header',
        earlier,
        withSession.length === 0,
        withSession.length === 0 ? 'no request carried Mcp-Session-Id' : `Mcp-Session-Id on ${withSession.map((e) => `#${e.seq}: ${e.requestHeaders['mcp-session-id']}`).join(', ')}`,
        withSession,
      ),
    ];
  },
  doctored: [
    {
      check: 'envelope-required-fields',
      how: 'tools/list without io.modelcontextprotocol/clientCapabilities',
      doctor: (e) => ({
        ...e,
        exchanges: e.exchanges.map((x) =>
          x.requestMessages.some((m) => m.method === 'tools/list')
            ? {
                ...x,
                requestMessages: x.requestMessages.map((m) => {
                  const meta = { ...(m.params?.['_meta'] as Record<string, unknown>) };
                  delete meta[META_CAPABILITIES];
                  return { ...m, params: { ...m.params, _meta: meta } };
                }),
              }
            : x,
        ),
      }),
    },
    ...(['version-header-matches', 'method-header', 'name-header'] as const).map((name) => ({
      check: name,
      how: `tools/call without its ${name === 'version-header-matches' ? 'MCP-Protocol-Version' : name === 'method-header' ? 'Mcp-Method' : 'Mcp-Name'} header`,
      doctor: (e: Parameters<NonNullable<Scenario['doctored']>[number]['doctor']>[0]) => {
        const header = name === 'version-header-matches' ? 'mcp-protocol-version' : name === 'method-header' ? 'mcp-method' : 'mcp-name';
        return {
          ...e,
          exchanges: e.exchanges.map((x) => {
            if (!x.requestMessages.some((m) => m.method === 'tools/call')) return x;
            const requestHeaders = { ...x.requestHeaders };
            delete requestHeaders[header];
            return { ...x, requestHeaders };
          }),
        };
      },
    })),
    {
      check: 'no-initialize',
      how: 'an initialize request added in front',
      doctor: (e) => ({ ...e, exchanges: [{ ...e.exchanges[0]!, seq: 0, requestMessages: [{ jsonrpc: '2.0', id: 0, method: 'initialize', params: {} }] }, ...e.exchanges] }),
    },
    {
      check: 'no-get-or-delete',
      how: 'a DELETE at the end',
      doctor: (e) => ({ ...e, exchanges: [...e.exchanges, { ...e.exchanges.at(-1)!, seq: e.exchanges.length + 1, method: 'DELETE', requestMessages: [] }] }),
    },
    {
      check: 'no-session-header',
      how: 'tools/list carrying Mcp-Session-Id',
      doctor: (e) => ({
        ...e,
        exchanges: e.exchanges.map((x) => (x.requestMessages.some((m) => m.method === 'tools/list') ? { ...x, requestHeaders: { ...x.requestHeaders, 'mcp-session-id': 'doctored' } } : x)),
      }),
    },
  ],
};
