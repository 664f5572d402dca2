// The streaming reverse proxy the front personalities are built on (echo-session-headers, affinity-gateway).
//
// It listens on 127.0.0.1, records every client exchange in its own wire record (the client-facing
// record, which becomes the server's main record), forwards method, path, body and end-to-end
// headers to a backend with undici, and streams the answer back chunk by chunk: an SSE stream (a GET
// stream, a long tools/call) flows event by event. A client that goes away aborts the upstream
// request, so the backend sees its stream end too. The Origin check stays the backend's: the Origin
// header is forwarded, and the backend's 403 comes back unchanged.
import type { IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';
import { Agent, request } from 'undici';
import { sendJsonRpcError, type HttpContext } from '../http.ts';
import { listenOnLoopback } from '../listen.ts';
import type { Front } from '../personality.ts';
import { WireRecord } from '../wire-record.ts';

/** The backend's response head, as the hooks may change it before it is written to the client. */
export interface ResponseHead {
  status: number;
  /** Names lower-cased; hop-by-hop headers already removed. */
  headers: OutgoingHttpHeaders;
}

export interface ProxyOptions {
  /** The era server's URL: its origin is the default backend, its path the path clients are given. */
  backendUrl: string;
  /** The origin (`http://127.0.0.1:<port>`) one exchange is forwarded to; default: backendUrl's. */
  route?(context: HttpContext): string;
  /** Sees (and may change) the backend's response head before the client gets it. */
  rewriteHead?(context: HttpContext, head: ResponseHead): void;
  /** Keep the front's wire record (default); off only when the whole server was started without recording. */
  recording?: boolean;
}

/** Connection-level headers (RFC 9110 §7.6.1) and those undici computes itself: never forwarded as they are. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'expect',
  'host',
  'content-length',
]);

function endToEnd(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const named = new Set(
    String(headers.connection ?? '')
      .split(',')
      .map((name) => name.trim().toLowerCase()),
  );
  const kept: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (value !== undefined && !HOP_BY_HOP.has(lower) && !named.has(lower)) kept[lower] = value;
  }
  return kept;
}

/** Starts a front that forwards everything to the backend (or where `route` says). */
export async function startProxy(options: ProxyOptions): Promise<Front> {
  const backend = new URL(options.backendUrl);
  const record = new WireRecord({ enabled: options.recording ?? true });
  const agent = new Agent();
  const inFlight = new Set<Promise<void>>();

  const forward = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    // Set before anything is awaited: a client gone at any point aborts whatever is under way upstream.
    const upstreamAbort = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) upstreamAbort.abort(new Error('the client closed the connection'));
    });
    try {
      const { exchange, parsedBody } = await record.begin(req, res);
      const context: HttpContext = { req, res, exchange, body: parsedBody, record };
      const origin = options.route?.(context) ?? backend.origin;
      const withBody = exchange.requestBody !== '' && req.method !== 'GET' && req.method !== 'HEAD';
      const upstream = await request(new URL(req.url ?? '/', origin), {
        method: (req.method ?? 'GET') as 'GET',
        headers: endToEnd(req.headers),
        body: withBody ? exchange.requestBody : null,
        dispatcher: agent,
        signal: upstreamAbort.signal,
      });
      const head: ResponseHead = { status: upstream.statusCode, headers: endToEnd(upstream.headers) };
      options.rewriteHead?.(context, head);
      res.writeHead(head.status, head.headers);
      // Send the head now: an SSE stream may stay silent for a long time after it.
      res.flushHeaders();
      // Chunk by chunk, with backpressure; if the client goes, pipeline destroys the upstream body.
      await pipeline(upstream.body, res);
    } catch (error) {
      if (upstreamAbort.signal.aborted || res.destroyed) return;
      if (!res.headersSent) sendJsonRpcError(res, 502, -32000, `Bad Gateway: ${(error as Error).message}`);
      else res.destroy(error as Error);
    }
  };

  const listening = await listenOnLoopback((req, res) => {
    const handling = forward(req, res);
    inFlight.add(handling);
    void handling.finally(() => inFlight.delete(handling));
  });

  let closed: Promise<void> | undefined;
  return {
    url: `${listening.origin}${backend.pathname}${backend.search}`,
    record,
    close() {
      closed ??= (async () => {
        // Ending every client connection aborts every upstream request (see `forward`).
        await listening.close();
        await Promise.allSettled([...inFlight]);
        await agent.destroy(null);
      })();
      return closed;
    },
  };
}
