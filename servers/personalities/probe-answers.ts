// Answers the era would not give: the next matching JSON-RPC requests — `server/discover` probes unless a rule
// names another method — get a scripted HTTP status and body instead of reaching the era. For the negotiation
// scenarios: a modern error to the probe (`-32022` naming a mutual or an unknown version, `-32020`, `-32021`),
// a legacy answer (`200 -32601`, `202` with an empty body, `400` without a modern error), a failure (`500` with a
// JSON-RPC body), and, for `initialize`, an unsupported revision or the lifecycle page's error form.
//
// - Rules are armed for the next `count` matching requests (Infinity: every one); the oldest matching rule
//   answers first. A request matches when its body is one JSON-RPC message of the rule's method (default
//   `server/discover`) and the rule's `when` holds. Every other request reaches the era untouched.
// - The body is a JSON-RPC message (sent as `application/json`), a string (sent as `text/plain`), a function
//   of the request returning either, or absent (an empty body, no content type). The `ANSWERS` presets echo
//   the request's id, as a server answering that request does.
// - HTTP+SSE (2024-11-05): a POST to the endpoint of an open stream (`?sessionId=` of its `endpoint` event) is
//   answered as that era answers: `202 Accepted` on the POST, and the JSON-RPC body as a `message` event on the
//   stream. Other statuses, and POSTs outside a stream (a probe to the SSE URL), are answered on the POST itself.
// - Each answered exchange is noted `probe-answer` (or the rule's `note`).
import type { ServerResponse } from 'node:http';
import { REFERENCE_SERVER_INFO } from '../fixtures.ts';
import { messagesOf } from '../http.ts';
import type { Personality } from '../personality.ts';

/** What a rule sees of the request it may answer. */
export interface ProbeRequest {
  /** The JSON-RPC message (one per body: batches are never answered here). */
  message: { id?: unknown; method: string; params?: unknown };
  /** Request headers, names lower-cased. */
  headers: Readonly<Record<string, string>>;
  /** The request path, with its query. */
  path: string;
  /** HTTP+SSE: the session of the open stream this POST belongs to (the answer then travels on the stream). */
  sseSession?: string;
}

export interface ProbeAnswer {
  /** The JSON-RPC method answered. Default `server/discover`. */
  method?: string;
  /** A further condition on the request. */
  when?(request: ProbeRequest): boolean;
  /** HTTP status. Default 200. */
  status?: number;
  /** A JSON-RPC message (JSON), a string (text/plain), a function of the request returning either, or absent (empty body). */
  body?: unknown;
  /** Extra response headers. */
  headers?: Readonly<Record<string, string>>;
  /** The note on the answered exchange. Default `probe-answer`. */
  note?: string;
}

export interface ProbeAnswers extends Personality {
  /** Answers the next `count` matching requests (Infinity: every one) with `answer`. */
  answerNext(count: number, answer: ProbeAnswer): void;
  /** How many requests the armed rules still apply to (Infinity for an always-on rule). */
  pending(): number;
  /** How many requests were answered here so far. */
  answered(): number;
}

export const PROBE_ANSWER_NOTE = 'probe-answer';

/** The 2026-07-28 `_meta` key naming the protocol version a request declares. */
const VERSION_META = 'io.modelcontextprotocol/protocolVersion';

/** The protocol version a request asks for: a probe's `_meta` version, an initialize's `protocolVersion`, else the header. */
export function requestedVersion(request: ProbeRequest): string | undefined {
  const params = request.message.params as Record<string, unknown> | undefined;
  const meta = params?.['_meta'] as Record<string, unknown> | undefined;
  const candidate = meta?.[VERSION_META] ?? params?.['protocolVersion'] ?? request.headers['mcp-protocol-version'];
  return typeof candidate === 'string' ? candidate : undefined;
}

/** A JSON-RPC error answering the request (its id echoed). */
function errorFor(code: number, message: string, data?: (request: ProbeRequest) => unknown) {
  return (request: ProbeRequest) => ({
    jsonrpc: '2.0',
    id: request.message.id ?? null,
    error: { code, message, ...(data === undefined ? {} : { data: data(request) }) },
  });
}

/** Ready-made answers; each is a complete rule, to spread and adjust (`{ ...ANSWERS.methodNotFound(), status: 404 }`). */
export const ANSWERS = {
  /** `-32022` UnsupportedProtocolVersionError naming `supported`, with the version the request asked for (400, as 2026-07-28 answers it). */
  unsupportedVersion: (supported: readonly string[], status = 400): ProbeAnswer => ({
    status,
    body: errorFor(-32022, 'Unsupported protocol version', (request) => ({ supported, requested: requestedVersion(request) })),
  }),
  /** `-32020` HeaderMismatch (400). */
  headerMismatch: (status = 400): ProbeAnswer => ({
    status,
    body: errorFor(-32020, 'Header mismatch: MCP-Protocol-Version does not match the _meta protocol version'),
  }),
  /** `-32021` MissingRequiredClientCapability (400), naming the capabilities the server requires. */
  missingCapability: (requiredCapabilities: Record<string, unknown> = { sampling: {} }, status = 400): ProbeAnswer => ({
    status,
    body: errorFor(-32021, 'Missing required client capability', () => ({ requiredCapabilities })),
  }),
  /** `-32601` Method not found, as a legacy server answers an unknown method (200 by default). */
  methodNotFound: (status = 200): ProbeAnswer => ({ status, body: errorFor(-32601, 'Method not found') }),
  /** Any other JSON-RPC error a legacy server may give an unknown pre-initialize request (implementation-defined). */
  legacyError: (code: number, message: string, status = 200): ProbeAnswer => ({ status, body: errorFor(code, message) }),
  /** What a sessionful legacy Streamable HTTP server answers a POST without a session id: `400 -32000`, id null. */
  sessionRequired: (): ProbeAnswer => ({
    status: 400,
    body: { jsonrpc: '2.0', error: { code: -32000, message: 'Bad Request: Mcp-Session-Id header is required' }, id: null },
  }),
  /** A status with an empty body and no content type (202 by default: what a POST of notifications gets). */
  empty: (status = 202): ProbeAnswer => ({ status }),
  /** A status with a plain-text body (400 `Bad Request` by default: no JSON-RPC at all). */
  text: (status = 400, text = 'Bad Request'): ProbeAnswer => ({ status, body: text }),
  /** A server failure carrying a JSON-RPC `-32603` body (500 by default). */
  serverError: (status = 500): ProbeAnswer => ({ status, body: errorFor(-32603, 'Internal error') }),
  /** The lifecycle page's error form for `initialize`: `-32602 Unsupported protocol version` with `data: { supported, requested }`. */
  initializeErrorForm: (supported: readonly string[], status = 200): ProbeAnswer => ({
    method: 'initialize',
    status,
    body: errorFor(-32602, 'Unsupported protocol version', (request) => ({ supported, requested: requestedVersion(request) })),
  }),
  /** A well-formed InitializeResult naming `revision` (whatever was offered). */
  initializeResult: (revision: string): ProbeAnswer => ({
    method: 'initialize',
    body: (request: ProbeRequest) => ({
      jsonrpc: '2.0',
      id: request.message.id ?? null,
      result: { protocolVersion: revision, capabilities: { tools: {} }, serverInfo: REFERENCE_SERVER_INFO },
    }),
  }),
} as const;

const ENDPOINT_EVENT = /event: endpoint\r?\ndata: ([^\r\n]*)/;

/** With `answer`, that rule is armed from the start for `answer.count` requests (default: every matching one). */
export function probeAnswers(answer?: ProbeAnswer & { count?: number }): ProbeAnswers {
  const armed: { rule: ProbeAnswer; remaining: number }[] = [];
  /** HTTP+SSE: the open stream of each session, learned from its `endpoint` event. */
  const streams = new Map<string, ServerResponse>();
  let answered = 0;

  const arm = (count: number, rule: ProbeAnswer) => {
    if (!(count >= 1)) throw new Error(`a probe answer must be armed for at least one request, not ${count}`);
    armed.push({ rule, remaining: count });
  };
  if (answer) {
    const { count = Infinity, ...rule } = answer;
    arm(count, rule);
  }

  const take = (request: ProbeRequest): ProbeAnswer | undefined => {
    const index = armed.findIndex(({ rule }) => request.message.method === (rule.method ?? 'server/discover') && (rule.when?.(request) ?? true));
    const entry = armed[index];
    if (!entry) return undefined;
    entry.remaining -= 1;
    if (entry.remaining <= 0) armed.splice(index, 1);
    return entry.rule;
  };

  /** Learns the session of a GET stream from the `endpoint` event the era writes on it. */
  const watchStream = (res: ServerResponse) => {
    const write = res.write.bind(res) as (...args: unknown[]) => boolean;
    let sessionId: string | undefined;
    res.write = ((...args: unknown[]) => {
      if (sessionId === undefined) {
        const chunk = args[0];
        const text = typeof chunk === 'string' ? chunk : chunk instanceof Uint8Array ? Buffer.from(chunk).toString('utf8') : '';
        const endpoint = ENDPOINT_EVENT.exec(text)?.[1];
        const id = endpoint === undefined ? null : new URL(endpoint, 'http://localhost').searchParams.get('sessionId');
        if (id) {
          sessionId = id;
          streams.set(id, res);
          res.once('close', () => streams.delete(id));
        }
      }
      return write(...args);
    }) as ServerResponse['write'];
  };

  return {
    name: 'probe-answers',
    answerNext: arm,
    pending: () => armed.reduce((sum, { remaining }) => sum + remaining, 0),
    answered: () => answered,
    async middleware({ req, res, exchange, body, record }, next) {
      if (req.method === 'GET') {
        watchStream(res);
        return next();
      }
      const messages = messagesOf(body);
      const [message] = messages;
      if (req.method !== 'POST' || messages.length !== 1 || typeof message?.method !== 'string') return next();
      const path = req.url ?? '';
      const session = new URL(path, 'http://localhost').searchParams.get('sessionId');
      const request: ProbeRequest = {
        message: { id: message.id, method: message.method, params: message.params },
        headers: exchange.requestHeaders,
        path,
        ...(session !== null && streams.has(session) ? { sseSession: session } : {}),
      };
      const rule = take(request);
      if (!rule) return next();
      answered += 1;
      record.note(exchange, rule.note ?? PROBE_ANSWER_NOTE);
      const status = rule.status ?? 200;
      const produced: unknown = typeof rule.body === 'function' ? (rule.body as (request: ProbeRequest) => unknown)(request) : rule.body;
      const stream = request.sseSession === undefined ? undefined : streams.get(request.sseSession);
      if (stream && (status === 200 || status === 202) && typeof produced === 'object' && produced !== null) {
        // As HTTP+SSE answers: the POST is accepted, the answer is an event on the session's stream.
        res.writeHead(202, rule.headers ?? {}).end('Accepted');
        stream.write(`event: message\ndata: ${JSON.stringify(produced)}\n\n`);
        return;
      }
      const text = produced === undefined ? '' : typeof produced === 'string' ? produced : JSON.stringify(produced);
      const type = text === '' ? {} : { 'content-type': typeof produced === 'string' ? 'text/plain' : 'application/json' };
      res.writeHead(status, { ...type, ...rule.headers }).end(text);
    },
  };
}
