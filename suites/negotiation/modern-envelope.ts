import { HEADERS, META } from '../../protocol/http.ts';
import { M } from '../../protocol/revisions.ts';
import type { SentMessage, WireExchange } from '../../servers/wire-record.ts';
import { check, checkIf, clientCompleted, precondition } from '../checks.ts';
import type { Scenario } from '../scenario.ts';
import { requestMeta, streamableHttp, versioning } from '../spec.ts';
import { envelopeOf, labels, requests } from '../wire.ts';
import { plainSession } from './support.ts';

const isObject = (value: unknown) => value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * A standard header's value as the server reads it (Value Encoding): a Base64 sentinel `=?base64?…?=` decoded, any
 * other value as it is. A client may encode a safe value too; servers decode before they compare.
 */
function headerValue(header: string): string {
  const sentinel = /^=\?base64\?([A-Za-z0-9+/]*={0,2})\?=$/.exec(header);
  return sentinel ? Buffer.from(sentinel[1]!, 'base64').toString('utf8') : header;
}

/** Requests failing `ok`, each with what was wrong. */
function failing(all: readonly SentMessage[], wrong: (request: SentMessage) => string | undefined): { exchange: WireExchange; why: string }[] {
  return all.flatMap((request) => {
    const why = wrong(request);
    return why === undefined ? [] : [{ exchange: request.exchange, why: `#${request.exchange.seq} ${request.message.method}: ${why}` }];
  });
}

/** A rule about every request of `all` (the POSTed requests, or the tools/calls among them). */
function verdict(name: string, spec: Parameters<typeof check>[1], all: readonly SentMessage[], bad: { exchange: WireExchange; why: string }[], what: string, none = 'the client POSTed no request') {
  return checkIf(
    all.length === 0 ? none : undefined,
    name,
    spec,
    () => bad.length === 0,
    () => (bad.length === 0 ? `all ${all.length} requests ${what}` : bad.map((b) => b.why).join('; ')),
    bad.map((b) => b.exchange),
  );
}

// The connect uses the runner's default for 2026-07-28 (a pin, else auto). No affinity key is asked for, so no
// request may carry Mcp-Session-Id (a client-minted key is resume/affinity-first-request's concern).
export const modernEnvelope: Scenario = {
  id: 'negotiation/modern-envelope',
  title: 'Every 2026-07-28 request carries the _meta envelope, MCP-Protocol-Version equal to it, Mcp-Method, and Mcp-Name on tools/call; no initialize, GET, DELETE or session header',
  revisions: M,
  requires: [],
  source: { spec: streamableHttp('request-metadata', 'Request Metadata', 'MUST') },
  run: plainSession,
  judge(evidence) {
    const { exchanges } = evidence;
    const all = requests(exchanges);
    const posts = all.filter(({ exchange }) => exchange.method === 'POST');

    const missingRequired = failing(posts, ({ message }) => {
      const meta = envelopeOf(message);
      if (meta === undefined) return 'no params._meta';
      const missing = [
        typeof meta[META.version] === 'string' ? undefined : META.version,
        isObject(meta[META.capabilities]) ? undefined : META.capabilities,
      ].filter((key) => key !== undefined);
      return missing.length === 0 ? undefined : `_meta lacks ${missing.join(', ')}`;
    });
    const missingInfo = failing(posts, ({ message }) => (isObject(envelopeOf(message)?.[META.clientInfo]) ? undefined : `_meta lacks ${META.clientInfo}`));
    const versionMismatch = failing(posts, ({ message, exchange }) => {
      const declared = envelopeOf(message)?.[META.version];
      const header = exchange.requestHeaders[HEADERS.version];
      return header !== undefined && header === declared ? undefined : `MCP-Protocol-Version: ${header ?? 'absent'}, _meta declares ${String(declared ?? 'nothing')}`;
    });
    const methodHeader = failing(posts, ({ message, exchange }) => {
      const header = exchange.requestHeaders[HEADERS.method];
      return header === message.method ? undefined : `Mcp-Method: ${header ?? 'absent'}`;
    });
    const calls = posts.filter(({ message }) => message.method === 'tools/call');
    const nameHeader = failing(calls, ({ message, exchange }) => {
      const header = exchange.requestHeaders[HEADERS.name];
      const name = message.params?.['name'];
      return header !== undefined && headerValue(header) === name ? undefined : `Mcp-Name: ${header ?? 'absent'}, params.name ${String(name)}`;
    });
    const initializes = exchanges.filter((exchange) => exchange.requestMessages.some((m) => m.method === 'initialize' || m.method === 'notifications/initialized'));
    const getsAndDeletes = exchanges.filter((exchange) => exchange.method === 'GET' || exchange.method === 'DELETE');
    const withSession = exchanges.filter((exchange) => exchange.requestHeaders[HEADERS.session] !== undefined);

    const metadata = streamableHttp('request-metadata', 'Request Metadata', 'MUST');
    const earlier = streamableHttp('earlier-streamable-http-revisions', 'Earlier Streamable HTTP Revisions: sessions, GET streams and DELETE are not part of this revision', 'MUST');
    return [
      // Every rule here is about the client's requests: a client that never POSTed one showed nothing.
      precondition('request-posted', metadata, posts.length > 0, posts.length > 0 ? `the client POSTed ${posts.length} requests` : `the client POSTed no request (${labels(exchanges)})`, posts.slice(0, 1).map((p) => p.exchange)),
      clientCompleted(evidence, metadata),
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
        'the client POSTed no tools/call',
      ),
      check(
        'no-initialize',
        versioning('backward-compatibility-with-initialization-based-versions', 'Backward Compatibility: a client that reached a modern server stays modern', 'MUST'),
        initializes.length === 0,
        initializes.length === 0 ? 'no initialize handshake' : `the client sent ${labels(initializes)}`,
        initializes,
      ),
      check('no-get-or-delete', earlier, getsAndDeletes.length === 0, getsAndDeletes.length === 0 ? 'only POSTs' : `the client sent ${labels(getsAndDeletes)}`, getsAndDeletes),
      check(
        'no-session-header',
        earlier,
        withSession.length === 0,
        withSession.length === 0 ? 'no request carried Mcp-Session-Id' : `Mcp-Session-Id on ${withSession.map((e) => `#${e.seq}: ${e.requestHeaders[HEADERS.session]}`).join(', ')}`,
        withSession,
      ),
    ];
  },
  doctored: [
    {
      check: 'request-posted',
      unmet: true,
      how: 'the client never reached the server (its start-up outlasted the connect)',
      doctor: (e) => ({ ...e, exchanges: [] }),
    },
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
                  delete meta[META.capabilities];
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
        const header = name === 'version-header-matches' ? HEADERS.version : name === 'method-header' ? HEADERS.method : HEADERS.name;
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
        exchanges: e.exchanges.map((x) => (x.requestMessages.some((m) => m.method === 'tools/list') ? { ...x, requestHeaders: { ...x.requestHeaders, [HEADERS.session]: 'doctored' } } : x)),
      }),
    },
  ],
};
