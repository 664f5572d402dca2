// The spec-correct reference client: a lifecycle client written straight from the spec on undici.
// Every rule it follows is a named switch in `ReferenceRules`, so a broken variant flips exactly one.
import { Agent, fetch } from 'undici';
import { SseParser } from '../../servers/sse.ts';
import { requiresProtocolVersionHeader, type Revision } from '../../servers/revisions.ts';
import type { JsonRpcMessage } from '../../servers/wire-record.ts';
import type { ClientConnection, ConnectionInfo, OperationOptions, ToolResult, ToolSummary } from '../adapter.ts';

export interface ReferenceRules {
  /** lifecycle: after the `initialize` result the client MUST send `notifications/initialized`. */
  sendInitializedNotification: boolean;
  /** transports (2025-06-18+): `MCP-Protocol-Version` MUST be on every request after `initialize`. */
  sendProtocolVersionHeader: boolean;
  /** transports, session management: the client SHOULD DELETE its session when done. */
  deleteSessionOnClose: boolean;
}

export const SPEC_RULES: ReferenceRules = {
  sendInitializedNotification: true,
  sendProtocolVersionHeader: true,
  deleteSessionOnClose: true,
};

/** The revisions the reference client speaks, newest first: it offers the first. */
export const REFERENCE_REVISIONS = ['2025-11-25', '2025-06-18', '2025-03-26'] as const satisfies readonly Revision[];

const CLIENT_INFO = { name: 'mcp-client-conformance-reference', version: '0.1.0' };

export class JsonRpcError extends Error {
  readonly code: number;
  readonly data: unknown;
  constructor(error: { code: number; message: string; data?: unknown }) {
    super(`JSON-RPC error ${error.code}: ${error.message}`);
    this.code = error.code;
    this.data = error.data;
  }
}

export class HttpError extends Error {
  readonly status: number;
  constructor(status: number, body: string) {
    super(`HTTP ${status}${body ? `: ${body.slice(0, 200)}` : ''}`);
    this.status = status;
  }
}

export async function connectReference(url: string, rules: ReferenceRules, timeoutMs: number): Promise<ClientConnection> {
  const session = new StreamableHttpSession(url, rules);
  try {
    await session.initialize(AbortSignal.timeout(timeoutMs));
  } catch (error) {
    await session.dispose();
    throw error;
  }
  return session;
}

class StreamableHttpSession implements ClientConnection {
  private readonly agent = new Agent();
  private nextId = 1;
  private version: Revision | undefined;
  private session: string | undefined;
  private closed = false;

  private readonly url: string;
  private readonly rules: ReferenceRules;

  constructor(url: string, rules: ReferenceRules) {
    this.url = url;
    this.rules = rules;
  }

  async info(): Promise<ConnectionInfo> {
    const resumeState = this.version ? { protocolVersion: this.version, ...(this.session ? { sessionId: this.session } : {}) } : undefined;
    return { negotiatedVersion: this.version, era: 'legacy', sessionId: this.session, resumeState };
  }

  async initialize(signal: AbortSignal): Promise<void> {
    const offered = REFERENCE_REVISIONS[0];
    const { response, result } = await this.request(
      'initialize',
      { protocolVersion: offered, capabilities: {}, clientInfo: CLIENT_INFO },
      signal,
    );
    const answered = String((result as { protocolVersion?: unknown }).protocolVersion);
    if (!(REFERENCE_REVISIONS as readonly string[]).includes(answered)) {
      throw new Error(`server answered unsupported protocol version ${answered}`);
    }
    this.version = answered as Revision;
    this.session = response.headers.get('mcp-session-id') ?? undefined;
    if (this.rules.sendInitializedNotification) await this.notify('notifications/initialized', undefined, signal);
  }

  async listTools(options: OperationOptions = {}): Promise<ToolSummary[]> {
    const { result } = await this.request('tools/list', {}, operationSignal(options));
    return ((result as { tools?: ToolSummary[] }).tools ?? []).map(({ name }) => ({ name }));
  }

  async callTool(name: string, args: Record<string, unknown>, options: OperationOptions = {}): Promise<ToolResult> {
    const { result } = await this.request('tools/call', { name, arguments: args }, operationSignal(options));
    return result as unknown as ToolResult;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      if (this.rules.deleteSessionOnClose && this.session !== undefined) {
        // Any answer ends the session from our side; 405 means the server keeps it, which is its choice.
        const response = await fetch(this.url, { method: 'DELETE', headers: this.headers(), dispatcher: this.agent, signal: AbortSignal.timeout(5_000) });
        await response.body?.cancel();
      }
    } finally {
      await this.dispose();
    }
  }

  async dispose(): Promise<void> {
    await this.agent.destroy();
  }

  private headers(extra: Record<string, string> = {}): Record<string, string> {
    const headers: Record<string, string> = { ...extra };
    if (this.session !== undefined) headers['mcp-session-id'] = this.session;
    if (this.version !== undefined && this.rules.sendProtocolVersionHeader && requiresProtocolVersionHeader(this.version)) {
      headers['mcp-protocol-version'] = this.version;
    }
    return headers;
  }

  private post(body: JsonRpcMessage, signal: AbortSignal) {
    return fetch(this.url, {
      method: 'POST',
      headers: this.headers({ 'content-type': 'application/json', accept: 'application/json, text/event-stream' }),
      body: JSON.stringify(body),
      dispatcher: this.agent,
      signal,
    });
  }

  private async notify(method: string, params: Record<string, unknown> | undefined, signal: AbortSignal): Promise<void> {
    const response = await this.post({ jsonrpc: '2.0', method, ...(params ? { params } : {}) }, signal);
    const text = await response.text();
    if (response.status !== 202 && !response.ok) throw new HttpError(response.status, text);
  }

  private async request(method: string, params: Record<string, unknown>, signal: AbortSignal) {
    if (this.closed) throw new Error('connection is closed');
    const id = this.nextId++;
    const response = await this.post({ jsonrpc: '2.0', id, method, params }, signal);
    if (!response.ok) throw new HttpError(response.status, await response.text());
    const answer = await readAnswer(response, id);
    if (answer.error) throw new JsonRpcError(answer.error);
    return { response, result: answer.result ?? {} };
  }
}

/** Reads a JSON body or an SSE stream until the response to `id` arrives. */
async function readAnswer(response: Awaited<ReturnType<typeof fetch>>, id: number): Promise<JsonRpcMessage> {
  const type = response.headers.get('content-type') ?? '';
  if (type.includes('application/json')) {
    const body = (await response.json()) as JsonRpcMessage | JsonRpcMessage[];
    const found = (Array.isArray(body) ? body : [body]).find((m) => m.id === id);
    if (!found) throw new Error(`JSON response carried no answer to request ${id}`);
    return found;
  }
  if (!type.includes('text/event-stream') || !response.body) throw new Error(`unexpected content type "${type}"`);
  const parser = new SseParser();
  const decoder = new TextDecoder();
  for await (const chunk of response.body) {
    for (const event of parser.push(decoder.decode(chunk, { stream: true }))) {
      if (event.data === '' || (event.event !== undefined && event.event !== 'message')) continue;
      const message = JSON.parse(event.data) as JsonRpcMessage;
      // Returning from the loop cancels the rest of the stream.
      if (message.id === id && message.method === undefined) return message;
    }
  }
  throw new Error(`SSE stream ended without an answer to request ${id}`);
}

function operationSignal(options: OperationOptions): AbortSignal {
  const signals = [options.signal, options.timeoutMs === undefined ? undefined : AbortSignal.timeout(options.timeoutMs)];
  return AbortSignal.any(signals.filter((s): s is AbortSignal => s !== undefined));
}
