// The server role of the stdio program: the era's MCP server from the official SDK (the same fixture tools as every
// HTTP era, servers/fixtures.ts) over a transport of our own (LineTransport, on ProgramIo), so every byte in and out is
// ours to see and to shape; and the personalities that act on messages (probe answers, crashes, stderr chatter).
//
// - 2024-11-05 … 2025-11-25: one McpServer pinned to the revision (the SDK answers initialize with it whatever the
//   client offered) connected to the transport, as a hand-wired SDK stdio server is. 2025-03-26 takes batches: each
//   member is delivered, and the answers to its requests are written together as one batch.
// - 2026-07-28: the SDK's serveStdio entry, `legacy: 'reject'`, over the transport (server/discover, the envelope).
// - dual: serveStdio, `legacy: 'serve'`: the opening message decides (server/discover or a modern request: 2026-07-28;
//   initialize: 2025-11-25), for the life of the process.
// - A line that is not JSON gets -32700, one that is not a JSON-RPC message -32600 (id null), as JSON-RPC 2.0 says; a
//   line past MAX_STDIN_LINE_BYTES -32000 (id null: none of it is kept); a blank line is ignored, and so are the bytes
//   before EOF with no newline (a message ends at its newline), both recorded. At EOF the server aborts what runs and
//   exits 0, unless a personality says not. servers/robustness/stdio-bad-input.test.ts has the table, and why.
import { InMemoryTransport, isJSONRPCRequest, parseJSONRPCMessage, type JSONRPCMessage, type Transport, type TransportSendOptions } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { createFixtureServer, FixtureState, type FixtureServerOptions } from '../fixtures.ts';
import type { ProgramChannel } from './channel.ts';
import type { Arrival, ProgramIo } from './io.ts';
import { EARLY_PINGS, PROBE_ANSWER_NOTE, type StdioPersonalityName } from './personalities.ts';
import { machineNow, MAX_STDIN_LINE_BYTES, STDIO_ERA_REVISIONS, STDIO_ERAS, type StdioEra } from './protocol.ts';

type Id = string | number;
const key = (id: unknown) => JSON.stringify(id);

/** The transport the era's server is connected to: messages in from ProgramIo's lines, out through its framing. */
export class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport['onmessage'];
  private closed = false;
  /** The stdin line of each request id (the latest, should a client reuse an id). */
  private readonly lines = new Map<string, number>();
  /** Open 2025-03-26 batches: the ids still unanswered and the answers so far. */
  private readonly batches: { line: number; pending: Set<string>; answers: unknown[] }[] = [];

  private readonly io: ProgramIo;
  /** Who waits for the answer to a request id to be written (answers-after-cancel), and the ids answered so far. */
  private readonly awaitingAnswer = new Map<string, (() => void)[]>();
  private readonly answeredIds = new Set<string>();

  constructor(io: ProgramIo) {
    this.io = io;
  }

  /** Resolves once the server has written its answer to the request `id` (or the transport closed). */
  answered(id: Id): Promise<void> {
    if (this.closed || this.answeredIds.has(key(id))) return Promise.resolve();
    return new Promise((resolve) => this.awaitingAnswer.set(key(id), [...(this.awaitingAnswer.get(key(id)) ?? []), resolve]));
  }

  async start(): Promise<void> {}

  /** A message of one stdin line, to the server. */
  receive(message: JSONRPCMessage, line: number): void {
    if (isJSONRPCRequest(message)) this.lines.set(key(message.id), line);
    this.onmessage?.(message);
  }

  /**
   * The members of a 2025-03-26 batch: each to the server; the answers to its requests go out as one batch, with
   * `errors` (the answers to its members that are no JSON-RPC message: JSON-RPC 2.0 §6 puts them in the same array).
   */
  receiveBatch(messages: JSONRPCMessage[], line: number, errors: unknown[] = []): void {
    const pending = new Set(messages.filter((m) => isJSONRPCRequest(m)).map((m) => key((m as { id: Id }).id)));
    if (pending.size > 0) this.batches.push({ line, pending, answers: [...errors] });
    else if (errors.length > 0) void this.io.send(errors, line);
    for (const message of messages) this.receive(message, line);
  }

  /** The line a message answers (by its id) or belongs to (the request it relates to). */
  lineOf(message: JSONRPCMessage, options?: TransportSendOptions): number | undefined {
    const m = message as { id?: unknown; method?: unknown };
    if (m.method === undefined && m.id !== undefined) return this.lines.get(key(m.id));
    if (options?.relatedRequestId !== undefined) return this.lines.get(key(options.relatedRequestId));
    return undefined;
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if (this.closed) return;
    const line = this.lineOf(message, options);
    const m = message as { id?: unknown; method?: unknown };
    if (m.method === undefined && m.id !== undefined) {
      const batch = this.batches.find((b) => b.pending.has(key(m.id)));
      if (batch) {
        batch.pending.delete(key(m.id));
        batch.answers.push(message);
        if (batch.pending.size > 0) return;
        this.batches.splice(this.batches.indexOf(batch), 1);
        return this.io.send(batch.answers, batch.line);
      }
    }
    await this.io.send(message, line);
    if (m.method === undefined && m.id !== undefined) this.release(key(m.id));
  }

  private release(id: string): void {
    this.answeredIds.add(id);
    for (const resolve of this.awaitingAnswer.get(id) ?? []) resolve();
    this.awaitingAnswer.delete(id);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const id of [...this.awaitingAnswer.keys()]) this.release(id);
    this.onclose?.();
  }
}

/** The era's server on the transport; `close` aborts what runs and closes it. `shape`: a legacy era's server (tools-only). */
async function startEra(
  era: StdioEra,
  transport: Transport,
  fixtures: FixtureState,
  onerror: (error: Error) => void,
  shape: FixtureServerOptions = {},
): Promise<{ close(): Promise<void> }> {
  if (era === '2026-07-28' || era === 'dual') {
    const handle = serveStdio(
      ({ era: side }) => createFixtureServer(fixtures, side === 'modern' || era === '2026-07-28' ? ['2026-07-28'] : ['2025-11-25']),
      { legacy: era === 'dual' ? 'serve' : 'reject', transport, onerror },
    );
    return handle;
  }
  const server = createFixtureServer(fixtures, [...STDIO_ERA_REVISIONS[era]], shape);
  server.server.onerror = onerror;
  await server.connect(transport);
  return { close: () => server.close() };
}

/**
 * One session of every era over an in-memory transport (the handshake or a probe, tools/list, an echo call), its answers
 * awaited: what the SDK builds on first use (its schemas per revision, the tools' JSON Schemas, zod's compiled parsers)
 * is then built. The startup snapshot runs it while it is built (snapshot-entry.ts), so no launch builds them again.
 */
export async function warmUp(): Promise<void> {
  for (const era of STDIO_ERAS) {
    const revision = STDIO_ERA_REVISIONS[era][0]!;
    const modern = revision === '2026-07-28';
    const _meta = { 'io.modelcontextprotocol/protocolVersion': revision, 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': { name: 'warm-up', version: '1' } };
    const requests = [
      modern ? { method: 'server/discover', params: { _meta } } : { method: 'initialize', params: { protocolVersion: revision, capabilities: {}, clientInfo: { name: 'warm-up', version: '1' } } },
      { method: 'tools/list', params: modern ? { _meta } : {} },
      { method: 'tools/call', params: { name: 'echo', arguments: { text: 'warm' }, ...(modern ? { _meta } : {}) } },
    ];
    const [client, server] = InMemoryTransport.createLinkedPair();
    const answered = new Map<number, () => void>();
    client.onmessage = (message) => answered.get((message as { id?: number }).id ?? -1)?.();
    const handle = await startEra(era, server, new FixtureState(), () => {});
    await client.start();
    for (const [index, request] of requests.entries()) {
      const answer = new Promise<void>((resolve) => answered.set(index + 1, resolve));
      await client.send({ jsonrpc: '2.0', id: index + 1, ...request } as JSONRPCMessage);
      await answer;
      if (!modern && index === 0) await client.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    }
    await handle.close();
    await client.close();
  }
}

const errorAnswer = (id: unknown, code: number, message: string, data?: unknown) => ({
  jsonrpc: '2.0',
  id: id ?? null,
  error: { code, message, ...(data !== undefined && { data }) },
});

/** The protocol version a probe asks for in its `_meta`. */
const requestedVersion = (message: { params?: unknown }) => {
  const meta = (message.params as { _meta?: Record<string, unknown> } | undefined)?._meta;
  const version = meta?.['io.modelcontextprotocol/protocolVersion'];
  return typeof version === 'string' ? version : undefined;
};

const PROBE_PERSONALITIES = [
  'probe-method-not-found',
  'probe-invalid-params',
  'probe-silence',
  'probe-exit',
  'probe-corrective-version',
  'probe-unsupported-version',
] as const satisfies readonly StdioPersonalityName[];

const CHATTER = [
  '[reference-stdio] starting up (this is stderr: logging, not an error)\n',
  'Warning: a start-up warning a real server might print; nothing is wrong\n',
  'Error: an error-looking log line at start-up; the server is fine and will answer\n',
  '[reference-stdio] ready on stdio\n',
];

export async function serveEra(io: ProgramIo, channel: ProgramChannel, era: StdioEra): Promise<void> {
  const has = (name: StdioPersonalityName) => io.has(name);
  const fixtures = new FixtureState();
  /** tools/call requests a crash personality waits on: when the tool starts for one of them, the server goes down. */
  const crashOn = new Map<string, 'crash-mid-call' | 'close-stdout-and-exit'>();
  const probesAnswered = new Map<string, number>();

  fixtures.on('run', (run) => {
    channel.report({ t: 'run', at: machineNow(), tool: run.tool, requestId: run.requestId });
    const crash = crashOn.get(key(run.requestId));
    if (crash === undefined) return;
    crashOn.clear();
    // Mid-call: the tool has started; its answer must never go out.
    io.freeze();
    void goDown(crash);
  });
  fixtures.on('aborted', (run) => channel.report({ t: 'aborted', at: machineNow(), tool: run.tool, requestId: run.requestId }));

  const goDown = async (how: 'crash-mid-call' | 'close-stdout-and-exit') => {
    if (how === 'crash-mid-call') {
      io.note('crash-mid-call');
      await io.stderr(`${new Error('reference-stdio: crash-mid-call: the server dies in the middle of a call').stack}\n`);
      return io.exit({ code: 1 }, 'crash-mid-call');
    }
    io.note('close-stdout-and-exit');
    await io.closeStdout();
    return io.exit({ code: 0 }, 'close-stdout-and-exit');
  };

  const transport = new LineTransport(io);
  const sdkError = (error: Error) => io.note(`sdk-error: ${error.message}`);
  // tools-only takes no launch option (checkPersonalities): it is known before the harness says which launch this is.
  const loading = startEra(era, transport, fixtures, sdkError, { toolsOnly: has('tools-only') !== undefined });
  io.hold(loading);
  const handle = await loading;

  const chatter = has('stderr-chatter');
  if (chatter) for (const line of CHATTER) await io.stderr(line);

  /** A probe personality's answer, if one applies to this message; true when it took the message. */
  const answerProbe = async (message: { id?: unknown; method?: unknown; params?: unknown }, line: number): Promise<boolean> => {
    if (message.method !== 'server/discover' || message.id === undefined) return false;
    for (const name of PROBE_PERSONALITIES) {
      const spec = has(name);
      if (!spec) continue;
      const used = probesAnswered.get(name) ?? 0;
      const limit = spec.count ?? (name === 'probe-corrective-version' ? 1 : Infinity);
      if (used >= limit) continue;
      probesAnswered.set(name, used + 1);
      io.note(PROBE_ANSWER_NOTE, line);
      io.note(name, line);
      const requested = requestedVersion(message);
      switch (name) {
        case 'probe-method-not-found':
          await io.send(errorAnswer(message.id, -32601, 'Method not found'), line);
          break;
        case 'probe-invalid-params':
          await io.send(errorAnswer(message.id, -32602, 'Invalid params: unknown request before initialize'), line);
          break;
        case 'probe-silence':
          break;
        case 'probe-exit':
          await io.stderr('reference-stdio: probe-exit: unknown method server/discover before initialize; exiting\n');
          await io.exit({ code: 1 }, 'probe-exit');
          break;
        case 'probe-corrective-version':
          await io.send(errorAnswer(message.id, -32022, 'Unsupported protocol version', { supported: spec.supported ?? ['2026-07-28'], requested }), line);
          break;
        case 'probe-unsupported-version':
          await io.send(errorAnswer(message.id, -32022, 'Unsupported protocol version', { supported: spec.supported ?? ['2099-01-01'], requested }), line);
          break;
      }
      return true;
    }
    return false;
  };

  const dispatch = async (arrival: Arrival): Promise<void> => {
    if (arrival.kind === 'eof') {
      if (has('ignores-stdin-eof')) return io.note('ignored-stdin-eof');
      await handle.close().catch(() => {});
      // The handlers the close aborted report it before the process goes.
      await new Promise((resolve) => setImmediate(resolve));
      await io.exit({ code: 0 }, 'stdin EOF');
      return;
    }
    const { line, value, error, blank, unterminated, tooLong } = arrival.line;
    // Recorded (the record notes them); nothing to answer: a blank line is no message, and a message ends at its
    // newline (the SDK's stdio transport, too, serves only what a newline ended).
    if (blank || unterminated) return;
    if (tooLong !== undefined) return void io.send(errorAnswer(null, -32000, `Line Too Long: a stdin line must not exceed ${MAX_STDIN_LINE_BYTES} bytes`), line);
    if (error !== undefined && value === undefined) return void io.send(errorAnswer(null, -32700, `Parse error: ${error}`), line);
    if (chatter) void io.stderr(`[reference-stdio] debug: line ${line}: ${Array.isArray(value) ? 'a batch' : String((value as { method?: unknown }).method ?? 'a response')}\n`);
    if (Array.isArray(value)) {
      if (era !== '2025-03-26') return void io.send(errorAnswer(null, -32600, `Invalid Request: JSON-RPC batches are not accepted at ${era}`), line);
      if (value.length === 0) return void io.send(errorAnswer(null, -32600, 'Invalid Request: an empty batch'), line);
      const members: JSONRPCMessage[] = [];
      const errors: unknown[] = [];
      for (const member of value) {
        try {
          members.push(parseJSONRPCMessage(member));
        } catch {
          errors.push(errorAnswer((member as { id?: unknown } | null)?.id, -32600, 'Invalid Request: a batch member is not a JSON-RPC message'));
        }
      }
      transport.receiveBatch(members, line, errors);
      return;
    }
    let message: JSONRPCMessage;
    try {
      message = parseJSONRPCMessage(value);
    } catch {
      return void io.send(errorAnswer((value as { id?: unknown } | null)?.id, -32600, 'Invalid Request: not a JSON-RPC message'), line);
    }
    const m = message as { id?: unknown; method?: unknown; params?: { name?: unknown; requestId?: unknown } };
    if (await answerProbe(m, line)) return;
    const requestId = m.params?.requestId;
    if (m.method === 'notifications/cancelled' && has('answers-after-cancel') && (typeof requestId === 'string' || typeof requestId === 'number')) {
      // The race of cancellation › Timing Considerations, made certain: the cancel reaches the server only once it has
      // answered the request it names; later lines go on meanwhile.
      io.note('held-cancel-until-answered', line);
      void transport.answered(requestId).then(() => transport.receive(message, line));
      return;
    }
    // The answer comes from a server that advertises tools alone.
    if (m.method === 'initialize' && has('tools-only')) io.note('tools-only', line);
    if (m.method === 'initialize' && m.id !== undefined && has('ping-at-initialize')) {
      // Pings are allowed before the handshake completes (lifecycle › Initialization): one before the result, one after.
      const [before, after] = EARLY_PINGS;
      await io.send({ jsonrpc: '2.0', id: before, method: 'ping' });
      void transport.answered(m.id as Id).then(() => io.send({ jsonrpc: '2.0', id: after, method: 'ping' }));
    }
    if (m.method === 'tools/call' && m.id !== undefined) {
      for (const name of ['crash-mid-call', 'close-stdout-and-exit'] as const) {
        const spec = has(name);
        if (spec && (spec.tool === undefined || spec.tool === m.params?.name) && crashOn.size === 0) crashOn.set(key(m.id), name);
      }
    }
    transport.receive(message, line);
  };
  io.setDispatcher(dispatch);

  channel.onCommand((command) => {
    switch (command.t) {
      case 'send':
        void io.send(command.message);
        break;
      case 'write':
        void io.writeRaw(Buffer.from(command.data, 'base64'));
        break;
      case 'stderr':
        void io.stderr(command.text);
        break;
      case 'exit':
        void (async () => {
          if (command.closeStdout) await io.closeStdout();
          await io.exit({ code: command.code ?? 0 }, 'told to exit by the harness');
        })();
        break;
    }
  });
}
