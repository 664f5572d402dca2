// The connection a caller holds: operations with their signals and timeouts, cancellation, idempotency (from
// the tools' annotations), close(). The transport session underneath can be replaced once, when a server
// contradicts the era the client had cached for it.
import type { ClientConnection, ClientHandlers, ConnectionInfo, OperationOptions, ToolResult, ToolSummary } from '../adapter.ts';
import { ConnectionClosedError, ConnectionDropped, EraContradiction, isAuthOrServerFailure, ProtocolError, RequestCancelledError, RequestTimeoutError } from './errors.ts';
import { inputResponsesFor } from './server-messages.ts';
import type { Params } from './protocol.ts';
import type { ReferenceRules } from './rules.ts';
import { Call, Tasks, type Session } from './session.ts';
import { Deadline } from './timers.ts';

export interface ConnectionHooks {
  /** The cached era was wrong: forget it, find the server's era again and open a session in it. */
  renegotiate(signal: AbortSignal): Promise<Session>;
  /** A request failed with a server error, a timeout or a dropped connection. */
  failed(error: unknown): void;
  /** The connection is closed: the client instance forgets it. */
  closed(): void;
}

interface InFlight {
  call: Call;
  controller: AbortController;
}

const MAX_TOOL_PAGES = 50;
/** Most rounds of one multi-round-trip request: a server that asks for input again and again gets an error. */
const MAX_INPUT_ROUNDS = 8;

export class ReferenceConnection implements ClientConnection {
  private session: Session;
  private switching: Promise<Session> | undefined;
  private switched = false;
  private closed = false;
  private closing: Promise<void> | undefined;
  private nextProgressToken = 1;
  private readonly inFlight = new Set<InFlight>();
  private readonly tasks = new Tasks();
  private readonly rules: ReferenceRules;
  private readonly idempotentTools: Map<string, boolean>;
  private readonly keepSessionOnClose: boolean;
  private readonly hooks: ConnectionHooks;
  private readonly handlers: ClientHandlers;

  constructor(
    session: Session,
    options: { rules: ReferenceRules; idempotentTools: Map<string, boolean>; keepSessionOnClose: boolean; hooks: ConnectionHooks; handlers: ClientHandlers },
  ) {
    this.session = session;
    this.rules = options.rules;
    this.idempotentTools = options.idempotentTools;
    this.keepSessionOnClose = options.keepSessionOnClose;
    this.hooks = options.hooks;
    this.handlers = options.handlers;
  }

  async info(): Promise<ConnectionInfo> {
    return this.session.info();
  }

  async listTools(options: OperationOptions = {}): Promise<ToolSummary[]> {
    const tools: { name: string; annotations?: { idempotentHint?: unknown } }[] = [];
    const followed = new Set<string>();
    let cursor: string | undefined;
    for (let page = 0; ; page++) {
      // A server whose pages never end is an error, never a list that looks complete.
      if (page === MAX_TOOL_PAGES) {
        if (this.rules.pageBoundIsAnError) throw new ProtocolError(`tools/list: ${MAX_TOOL_PAGES} pages and the server still names a nextCursor`);
        break;
      }
      const result = await this.run('tools/list', cursor === undefined ? {} : { cursor }, options, true);
      if (Array.isArray(result['tools'])) tools.push(...(result['tools'] as typeof tools));
      if (!this.rules.followNextCursor) break;
      const next = result['nextCursor'];
      // Opaque: only its presence says there is more (an empty string is a cursor, a repeated one too).
      if (typeof next !== 'string') break;
      if (next === '' && !this.rules.cursorPresenceOnly) break;
      if (followed.has(next) && !this.rules.followRepeatedCursors) break;
      followed.add(next);
      cursor = next;
    }
    // Remembered for retries: only a tool annotated idempotentHint: true may be called twice.
    for (const tool of tools) this.idempotentTools.set(tool.name, tool.annotations?.idempotentHint === true);
    return tools.map(({ name }) => ({ name }));
  }

  async callTool(name: string, args: Record<string, unknown>, options: OperationOptions = {}): Promise<ToolResult> {
    const params: Params = { name, arguments: args };
    // With a timeout the client watches progress (a progress token asks the server for it).
    if (options.timeoutMs !== undefined) params['_meta'] = { progressToken: `reference-${this.nextProgressToken++}` };
    return (await this.run('tools/call', params, options, this.idempotentTools.get(name) === true)) as unknown as ToolResult;
  }

  /**
   * logging/setLevel: the server's log messages from `level` up. The reference never sends it (it asks the server for no
   * log messages); a broken variant does, whatever the server advertised (client.ts, onlyNegotiatedCapabilities).
   */
  async setLoggingLevel(level: string, options: OperationOptions = {}): Promise<void> {
    await this.run('logging/setLevel', { level }, options, true);
  }

  /** One operation: settles at once when cancelled (signal, timeout, close), and cancels on the wire. */
  private run(method: string, params: Params, options: OperationOptions, idempotent: boolean): Promise<Params> {
    if (this.closed) return Promise.reject(new ConnectionClosedError());
    const callerSignal = options.signal;
    if (callerSignal?.aborted) return Promise.reject(callerSignal.reason ?? new RequestCancelledError(`${method} was cancelled before it was sent`));
    const controller = new AbortController();
    const call = new Call(method, params, idempotent, controller.signal);
    const entry: InFlight = { call, controller };
    // A client with no request timeout at all ignores the one it is given: a silent server holds the call for ever.
    const deadline =
      options.timeoutMs === undefined || !this.rules.applyRequestTimeout ? undefined : new Deadline(options.timeoutMs, () => new RequestTimeoutError(`${method} timed out after ${options.timeoutMs} ms`));
    // Progress restarting the clock with no maximum: the one thing the spec asks not to do.
    if (deadline !== undefined && !this.rules.enforceMaximumTimeout) call.onProgress = () => deadline.restart();
    const onCallerAbort = () => controller.abort(callerSignal?.reason ?? new RequestCancelledError(`${method} was cancelled`));
    const onDeadline = () => controller.abort(deadline?.signal.reason);
    callerSignal?.addEventListener('abort', onCallerAbort, { once: true });
    deadline?.signal.addEventListener('abort', onDeadline, { once: true });
    this.inFlight.add(entry);

    return new Promise<Params>((resolve, reject) => {
      const onAbort = () => {
        const reason: unknown = controller.signal.reason;
        if (this.rules.settleOnCancel) reject(reason);
        // close() cancels its calls itself, before it ends the session.
        if (reason instanceof ConnectionClosedError) return;
        this.tasks.add(this.session.cancel(call, { closeStream: this.rules.settleOnCancel, reason: reasonText(reason) }));
        if (!this.rules.cancelOnlyTheAbortedCall) for (const other of this.inFlight) if (other !== entry) other.controller.abort(reason);
      };
      controller.signal.addEventListener('abort', onAbort, { once: true });
      this.onSession(call)
        .then(resolve, (error: unknown) => {
          if (!controller.signal.aborted && (error instanceof ConnectionDropped || isAuthOrServerFailure(error))) this.hooks.failed(error);
          if (controller.signal.aborted && controller.signal.reason instanceof RequestTimeoutError) this.hooks.failed(controller.signal.reason);
          reject(controller.signal.aborted && this.rules.settleOnCancel ? controller.signal.reason : error);
        })
        .finally(() => {
          deadline?.clear();
          callerSignal?.removeEventListener('abort', onCallerAbort);
          deadline?.signal.removeEventListener('abort', onDeadline);
          controller.signal.removeEventListener('abort', onAbort);
          this.inFlight.delete(entry);
        });
    });
  }

  /**
   * Runs the call, answering each InputRequiredResult (2026-07-28 multi round-trip) with the handlers' inputResponses
   * and retrying with the requestState it carried, as a new request (the session gives each its own id).
   */
  private async onSession(call: Call): Promise<Params> {
    const original = call.params;
    let lastState: string | undefined;
    for (let round = 1; ; round++) {
      const result = await this.onSessionOnce(call);
      if (result['resultType'] !== 'input_required') return result;
      // The habit answerInputRequired rules out: the result surfaced as an error, the request never retried.
      if (!this.rules.answerInputRequired) throw new ProtocolError(`${call.method} was answered with resultType "input_required", which this client does not handle`);
      if (round >= MAX_INPUT_ROUNDS) throw new ProtocolError(`${call.method} still asked for input after ${MAX_INPUT_ROUNDS} rounds`);
      const inputs = inputResponsesFor(result['inputRequests'], this.rules, this.handlers);
      if ('missing' in inputs) throw new ProtocolError(`${call.method} asked for input this client has no handler for: ${inputs.missing}`);
      const given = typeof result['requestState'] === 'string' ? result['requestState'] : undefined;
      // The habits echoRequestState and requestStateOfTheLastRound rule out: the state dropped, or an earlier one carried on.
      const state = !this.rules.echoRequestState ? undefined : given ?? (this.rules.requestStateOfTheLastRound ? undefined : lastState);
      lastState = given ?? lastState;
      call.params = { ...original, ...(result['inputRequests'] !== undefined ? { inputResponses: inputs.responses } : {}), ...(state !== undefined ? { requestState: state } : {}) };
      call.answered = false;
    }
  }

  /** Runs the call on the session once; a contradicted cached era switches the session once (the refused request never ran). */
  private async onSessionOnce(call: Call): Promise<Params> {
    try {
      return await this.session.request(call);
    } catch (error) {
      if (!(error instanceof EraContradiction) || this.closed) throw error;
      if (!this.switched) {
        this.switched = true;
        this.switching = this.hooks.renegotiate(call.signal).then((replacement) => {
          const old = this.session;
          this.session = replacement;
          old.abandon();
          if (this.closed) replacement.abandon();
          return replacement;
        });
      }
      if (this.switching === undefined) throw error;
      const replacement = await this.switching;
      return await replacement.request(call);
    }
  }

  close(): Promise<void> {
    if (this.closing !== undefined) {
      // A second close() is a no-op; a client without that guard ends the session a second time.
      if (this.rules.closeOnce) return this.closing;
      return this.closing.then(() => this.session.close({ keepSession: this.keepSessionOnClose }));
    }
    this.closed = true;
    this.closing = (async () => {
      try {
        if (this.rules.closeTearsDown) {
          const calls = [...this.inFlight];
          const reason = new ConnectionClosedError('the connection was closed while the call was in flight');
          for (const { controller } of calls) controller.abort(reason);
          await Promise.all(calls.map(({ call }) => this.session.cancel(call, { closeStream: true, reason: 'the client closed the connection' })));
        }
        // The cancels already due (a call aborted or timed out just before) go out before the session ends: ending it
        // first would tear down their POSTs, and a caller that closes right after giving up a call (a session per
        // operation) would never cancel it. Each is bounded by the close bound.
        await this.tasks.settled();
        await this.session.close({ keepSession: this.keepSessionOnClose });
      } finally {
        if (this.rules.closeTearsDown) await this.tasks.settled();
        this.hooks.closed();
      }
    })();
    return this.closing;
  }

  /** Drops everything at once (dispose), sending nothing. */
  abandon(): void {
    this.closed = true;
    const reason = new ConnectionClosedError('the client was disposed');
    for (const { controller } of this.inFlight) controller.abort(reason);
    this.session.abandon();
  }
}

function reasonText(reason: unknown): string {
  if (reason instanceof RequestTimeoutError) return 'request timed out';
  if (reason instanceof Error && reason.message) return reason.message;
  return 'cancelled by the caller';
}
