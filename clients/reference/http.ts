// HTTP on undici for the reference client: one request, a classified failure, JSON or SSE answers.
// A response body is either read to its end, handed to a background drain, or destroyed: never left hanging.
import type { Agent, Dispatcher } from 'undici';
import { request } from 'undici';
// Its own SSE parser (eventsource-parser), not the servers' (servers/sse.ts): a parsing bug cannot hide on both sides at once.
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { ConnectionDropped, HttpStatusError, MalformedStream, ProtocolError, StreamCut } from './errors.ts';
import { isAnswerTo, jsonRpcErrorIn, messagesIn, parseJson, type JsonRpcMessage } from './protocol.ts';
import type { ReferenceRules } from './rules.ts';

export type Body = Dispatcher.ResponseData['body'];

export interface HttpRequest {
  method: 'GET' | 'POST' | 'DELETE';
  url: string;
  headers: Record<string, string>;
  body?: string;
  signal: AbortSignal;
  /** A broken variant's: the Authorization header kept when a redirect leads to another origin. */
  authorizationAcrossOrigins?: boolean;
}

export interface HttpAnswer {
  status: number;
  /** Names lower-cased; repeated headers joined with ", ". */
  headers: Record<string, string>;
  body: Body;
}

/** What sends a client's requests to an MCP server when it is authorized: oauth.ts `Authorizer`, over the agent. */
export interface Sender {
  send(req: HttpRequest): Promise<HttpAnswer>;
}

/** The client's agent, or the Sender its requests to an authorized server go through. */
export type Via = Agent | Sender;

/** The most redirects one request follows. */
const MAX_REDIRECTS = 5;

/**
 * Sends one request, following 307/308 redirects (the method and body kept, as fetch does). A failure without an HTTP
 * answer is a ConnectionDropped; an abort rethrows the signal's reason.
 */
export async function send(via: Via, req: HttpRequest): Promise<HttpAnswer> {
  if (isSender(via)) return via.send(req);
  let current = req;
  for (let hops = 0; ; hops++) {
    const answer = await sendOnce(via, current);
    const location = answer.headers['location'];
    if ((answer.status !== 307 && answer.status !== 308) || location === undefined || hops >= MAX_REDIRECTS) return answer;
    discard(answer.body);
    current = redirected(current, location);
  }
}

/**
 * The request sent again where a redirect points. Across origins it loses its Authorization header (the Fetch
 * standard's HTTP-redirect fetch): a token is for the server it was issued for, never for wherever that server points.
 */
function redirected(req: HttpRequest, location: string): HttpRequest {
  const url = new URL(location, req.url);
  if (url.origin === new URL(req.url).origin || req.authorizationAcrossOrigins === true) return { ...req, url: url.toString() };
  const { authorization: _dropped, ...headers } = req.headers;
  return { ...req, url: url.toString(), headers };
}

async function sendOnce(agent: Agent, req: HttpRequest): Promise<HttpAnswer> {
  if (req.signal.aborted) throw req.signal.reason;
  try {
    const response = await request(req.url, {
      method: req.method,
      headers: req.headers,
      ...(req.body === undefined ? {} : { body: req.body }),
      dispatcher: agent,
      signal: req.signal,
    });
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(response.headers)) {
      if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
    }
    return { status: response.statusCode, headers, body: response.body };
  } catch (error) {
    if (req.signal.aborted) throw req.signal.reason;
    throw new ConnectionDropped(`${req.method} ${req.url}: the connection broke without an answer (${describe(error)})`, { cause: error });
  }
}

function isSender(via: Via): via is Sender {
  return typeof (via as Partial<Sender>).send === 'function';
}

export function describe(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return `${error.name}${typeof code === 'string' ? ` ${code}` : ''}: ${error.message}`;
  }
  return String(error);
}

export function isSse(answer: HttpAnswer): boolean {
  return (answer.headers['content-type'] ?? '').includes('text/event-stream');
}

export function isOk(answer: HttpAnswer): boolean {
  return answer.status >= 200 && answer.status < 300;
}

/** The whole body as text. A body cut mid-way is a ConnectionDropped; an abort rethrows the reason. */
export async function readText(answer: HttpAnswer, signal: AbortSignal): Promise<string> {
  try {
    return await answer.body.text();
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    throw new ConnectionDropped(`the response body broke off (${describe(error)})`, { cause: error });
  }
}

/** Reads an error answer's body and turns it into an HttpStatusError (with the JSON-RPC error it carried, if any). */
export async function statusError(what: string, answer: HttpAnswer, signal: AbortSignal): Promise<HttpStatusError> {
  const text = await readText(answer, signal).catch((error: unknown) => {
    if (signal.aborted) throw error;
    return '';
  });
  return new HttpStatusError(what, answer.status, text, jsonRpcErrorIn(parseJson(text)));
}

/** One server-sent event as the client reads it. */
export type SseEvent = EventSourceMessage;

/** The rules an SSE reader follows. */
export type SseRules = Pick<ReferenceRules, 'ignoreSseComments'>;

/** An SSE response body, event by event; remembers the last event id and the last retry interval. */
export class SseReader {
  lastEventId: string | undefined;
  retryMs: number | undefined;
  private readonly queue: SseEvent[] = [];
  /** Set when a comment line arrived and the rules take it for malformed input. */
  private malformed: MalformedStream | undefined;
  private readonly parser = createParser({
    onEvent: (event) => this.queue.push(event),
    onRetry: (ms) => (this.retryMs = ms),
    // A comment line (a keep-alive) carries nothing: the parser skips it. The rule is read only when one arrives.
    onComment: (comment) => {
      if (!this.rules.ignoreSseComments) this.malformed ??= new MalformedStream(`the SSE stream carried a comment line (":${comment}"), taken for malformed input`);
    },
  });
  private readonly decoder = new TextDecoder();
  private readonly iterator: AsyncIterator<Buffer>;
  private readonly body: Body;
  private readonly rules: SseRules;

  constructor(body: Body, rules: SseRules) {
    this.body = body;
    this.rules = rules;
    this.iterator = body[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  }

  /** The next event; undefined when the stream ended. Throws when it broke (or was taken for malformed, and aborted). */
  async next(): Promise<SseEvent | undefined> {
    while (this.queue.length === 0) {
      const chunk = await this.iterator.next();
      // An event cut off before its blank line is not dispatched (WHATWG event stream interpretation).
      if (chunk.done) return undefined;
      this.parser.feed(this.decoder.decode(chunk.value, { stream: true }));
      if (this.malformed !== undefined) {
        this.destroy();
        throw this.malformed;
      }
    }
    const event = this.queue.shift()!;
    if (event.id !== undefined) this.lastEventId = event.id;
    return event;
  }

  /** Reads to the end, handing each JSON-RPC message to `onMessage` (by default ignoring what comes); never throws. */
  async drain(onMessage?: (message: JsonRpcMessage) => void): Promise<void> {
    try {
      for (let event = await this.next(); event !== undefined; event = await this.next()) if (onMessage) for (const message of messagesOfEvent(event)) onMessage(message);
    } catch {
      // A stream that breaks after its answer changes nothing.
    }
  }

  destroy(): void {
    discard(this.body);
  }
}

/** Ends a response body we no longer read. (undici emits an AbortError on a destroyed body: it is expected here.) */
export function discard(body: Body): void {
  body.on('error', () => {});
  body.destroy();
}

/** The JSON-RPC messages an SSE event carries (only `message` events with data). */
export function messagesOfEvent(event: SseEvent): JsonRpcMessage[] {
  if (event.data === '' || (event.event !== undefined && event.event !== 'message')) return [];
  return messagesIn(parseJson(event.data));
}

export interface Answered {
  message: JsonRpcMessage;
  /** The rest of an SSE stream after the answer, to drain in the background. */
  rest?: SseReader;
}

/**
 * Reads the answer to request `id` from a 2xx response: a JSON body, or an SSE stream whose other messages go to
 * `onMessage`. A stream that ends or breaks first throws StreamCut (with the last event id, if any).
 */
export async function readAnswer(answer: HttpAnswer, id: number | string, signal: AbortSignal, onMessage: (message: JsonRpcMessage) => void, rules: SseRules): Promise<Answered> {
  if (isSse(answer)) return readSseAnswer(new SseReader(answer.body, rules), id, signal, onMessage);
  const type = answer.headers['content-type'] ?? '';
  const text = await readText(answer, signal);
  if (!type.includes('application/json')) {
    throw new ProtocolError(`the answer to request ${id} had content type "${type}" (HTTP ${answer.status}${text === '' ? ', empty body' : ''})`);
  }
  const message = messagesIn(parseJson(text)).find((m) => isAnswerTo(m, id));
  if (!message) throw new ProtocolError(`the JSON answer (HTTP ${answer.status}) carried no response to request ${id}`);
  return { message };
}

export async function readSseAnswer(reader: SseReader, id: number | string, signal: AbortSignal, onMessage: (message: JsonRpcMessage) => void): Promise<Answered> {
  try {
    for (;;) {
      const event = await reader.next();
      if (event === undefined) break;
      for (const message of messagesOfEvent(event)) {
        if (isAnswerTo(message, id)) return { message, rest: reader };
        onMessage(message);
      }
    }
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    // A stream the client itself took for malformed: the request fails with that, no resumption.
    if (error instanceof MalformedStream) throw error;
  }
  if (signal.aborted) throw signal.reason;
  throw new StreamCut(reader.lastEventId, reader.retryMs);
}
