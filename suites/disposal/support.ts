// What the disposal and cancellation scenarios share: the spec sections they cite, the windows they wait,
// how a call left in flight is watched, and small views of the wire record.
import { isModern, type Revision } from '../../protocol/revisions.ts';
import type { FixtureState, ToolRun } from '../../servers/fixtures.ts';
import type { WireExchange, WireRecord } from '../../servers/wire-record.ts';
import { check } from '../checks.ts';
import type { Check, Evidence, Level, SpecRef } from '../scenario.ts';

export { L, S, M, L_AND_M, S_AND_M, isModern, isHttpSse } from '../../protocol/revisions.ts';
export { spec, shutdown, cancellation, cancelOnTheWire, timeouts, sessionManagement } from '../spec.ts';

// — timing —
// Every number here is paid by every adapter and broken variant at every revision it applies to: short, but
// with room for a loaded two-core machine. A correct client settles in a few milliseconds.

/** How soon a cancelled or closed call must have settled (rejected), from the abort or from calling close(). */
export const PROMPTLY_MS = 500;
/** How long to wait for a server-side effect of the client's doing (a notification, a closed stream, an aborted handler). */
export const WIRE_EFFECT_MS = 500;
/** A quiet window: nothing may arrive from the client in it. The timed wait is the check itself. */
export const QUIET_MS = 200;

// — a call left in flight —

export type Outcome = 'resolved' | 'rejected' | 'pending';

/** What became of a call, as the script saw it: the judge reads it from `observed`. */
export interface Settlement {
  outcome: Outcome;
  /** Milliseconds from the moment of interest (an abort, a close) to the settlement. */
  afterMs?: number;
  /** The rejection, or the result's text. */
  detail?: string;
}

/** Watches a call without awaiting it: when it settles, and how. */
export class Watched {
  private state: { outcome: Outcome; at?: number; detail?: string } = { outcome: 'pending' };
  readonly settled: Promise<void>;

  constructor(call: Promise<unknown>) {
    this.settled = call.then(
      (value) => {
        this.state = { outcome: 'resolved', at: performance.now(), detail: textOf(value) };
      },
      (error: unknown) => {
        this.state = { outcome: 'rejected', at: performance.now(), detail: error instanceof Error ? `${error.constructor.name}: ${error.message}` : String(error) };
      },
    );
  }

  /** Waits at most `ms` for the call to settle (never throws). */
  async within(ms: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.settled, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
    clearTimeout(timer);
  }

  /** The settlement as seen from `since` (performance.now() of the abort or close). */
  since(since: number): Settlement {
    const { outcome, at, detail } = this.state;
    return { outcome, ...(at === undefined ? {} : { afterMs: Math.round(at - since) }), ...(detail === undefined ? {} : { detail }) };
  }
}

function textOf(value: unknown): string {
  const content = (value as { content?: { text?: unknown }[] } | undefined)?.content;
  const text = Array.isArray(content) ? content.map((item) => item?.text).filter((t) => typeof t === 'string') : [];
  return text.length > 0 ? `result "${text.join(' ')}"` : 'a result';
}

/** Reads a Settlement back from `observed` (undefined when the script never recorded it). */
export function settlementOf(evidence: Evidence, key: string): Settlement | undefined {
  return evidence.observed[key] as Settlement | undefined;
}

export function describeSettlement(settlement: Settlement | undefined, what: string): string {
  if (settlement === undefined) return `${what}: the script did not get that far`;
  if (settlement.outcome === 'pending') return `${what} had not settled ${PROMPTLY_MS} ms later`;
  return `${what} ${settlement.outcome} after ${settlement.afterMs} ms${settlement.detail ? ` (${settlement.detail})` : ''}`;
}

/** Rejected within PROMPTLY_MS. */
export function rejectedPromptly(settlement: Settlement | undefined): boolean {
  return settlement?.outcome === 'rejected' && (settlement.afterMs ?? Infinity) <= PROMPTLY_MS;
}

// — waiting on the server —

/** True when `predicate` held on the record within `ms` (never throws). */
export function holdsWithin(record: WireRecord, predicate: (record: WireRecord) => boolean, what: string, ms: number): Promise<boolean> {
  return record.waitFor(predicate, what, ms).then(
    () => true,
    () => false,
  );
}

/** True when a run matching `predicate` was seen within `ms` (never throws). */
export function runWithin(fixtures: FixtureState, predicate: Parameters<FixtureState['waitForRun']>[0], what: string, ms: number): Promise<boolean> {
  return fixtures.waitForRun(predicate, what, ms).then(
    () => true,
    () => false,
  );
}

// — views of the wire —

/** The exchanges whose body carries a message of `method`. */
export function carrying(exchanges: readonly WireExchange[], method: string): WireExchange[] {
  return exchanges.filter((exchange) => exchange.requestMessages.some((message) => message.method === method));
}

/** The exchange carrying the `tools/call` of this tool (the first one, or the nth). */
export function toolCallExchanges(exchanges: readonly WireExchange[], tool: string): WireExchange[] {
  return exchanges.filter((exchange) => exchange.requestMessages.some((message) => message.method === 'tools/call' && message.params?.['name'] === tool));
}

/** The JSON-RPC id of the message of `method` in the exchange. */
export function idOf(exchange: WireExchange | undefined, method: string): string | number | null | undefined {
  return exchange?.requestMessages.find((message) => message.method === method)?.id;
}

/** The `notifications/cancelled` messages the client sent, each with its exchange and the request id it names. */
export function cancelNotifications(exchanges: readonly WireExchange[]): { exchange: WireExchange; requestId: unknown }[] {
  return exchanges.flatMap((exchange) =>
    exchange.requestMessages.filter((message) => message.method === 'notifications/cancelled').map((message) => ({ exchange, requestId: message.params?.['requestId'] })),
  );
}

/** The exchanges with a seq above `afterSeq` (those that began after the moment the script recorded). */
export function after(exchanges: readonly WireExchange[], afterSeq: number | undefined): WireExchange[] {
  return afterSeq === undefined ? [] : exchanges.filter((exchange) => exchange.seq > afterSeq);
}

/** The server's answer to a client request id, wherever it travelled (its own response, or the HTTP+SSE GET stream). */
export function answerTo(exchanges: readonly WireExchange[], id: unknown): { exchange: WireExchange; at: number; ok: boolean } | undefined {
  if (id === undefined || id === null) return undefined;
  for (const exchange of exchanges) {
    const found = exchange.responseMessages.find(({ message }) => message.method === undefined && message.id === id);
    if (found) return { exchange, at: found.at, ok: found.message.result !== undefined };
  }
  return undefined;
}

/** `#3 POST tools/call`, for details. */
export function label(exchange: WireExchange): string {
  const methods = exchange.requestMessages.map((message) => message.method ?? 'response').join(',');
  return `#${exchange.seq} ${exchange.method}${methods ? ` ${methods}` : ''}`;
}

export function labels(exchanges: readonly WireExchange[]): string {
  return exchanges.map(label).join(', ');
}

/** The number of exchanges the server has recorded: a marker for "what came after this moment". */
export function seqNow(record: WireRecord): number {
  return record.exchanges.length;
}

// — a call cancelled on the wire —

export interface WireCancel {
  /** The call was cancelled the way the revision says. */
  ok: boolean;
  /** Something decisive happened (a notification naming the call, or its exchange ended): the script may stop waiting. */
  done: boolean;
  detail: string;
  exchanges: WireExchange[];
}

/**
 * Whether a call (the `nth` tools/call of `tool`) was cancelled on the wire as the revision says: legacy, a
 * `notifications/cancelled` naming its id that the server accepted (2xx: a notification reaching an ended
 * session cancels nothing); 2026-07-28, its response stream closed by the client and no `notifications/cancelled`
 * POSTed (that revision defines no client notification over Streamable HTTP: closing the stream is the cancel).
 */
export function wireCancelOf(revision: Revision, exchanges: readonly WireExchange[], tool: string, nth = 0): WireCancel {
  const call = toolCallExchanges(exchanges, tool)[nth];
  if (call === undefined) return { ok: false, done: false, detail: `no tools/call of ${tool} reached the server`, exchanges: [] };
  const id = idOf(call, 'tools/call');
  const notifications = cancelNotifications(exchanges);
  if (isModern(revision)) {
    const closed = call.endedBy === 'client';
    const posted = notifications.map((n) => n.exchange);
    return {
      ok: closed && posted.length === 0,
      done: call.endedBy !== undefined,
      detail: [
        closed
          ? `the client closed the response stream of ${label(call)}`
          : call.endedBy === undefined
            ? `the response stream of ${label(call)} was still open`
            : `the client never closed the response stream of ${label(call)} (it ended by ${call.endedBy})`,
        posted.length > 0 ? `notifications/cancelled was POSTed (${labels(posted)}), which 2026-07-28 Streamable HTTP does not define` : '',
      ]
        .filter(Boolean)
        .join('; '),
      exchanges: [call, ...posted],
    };
  }
  const naming = notifications.filter((n) => n.requestId === id);
  const accepted = naming.filter((n) => n.exchange.status !== undefined && n.exchange.status < 300);
  const others = notifications.filter((n) => n.requestId !== id);
  return {
    ok: accepted.length > 0,
    // Decided once a notification naming the call has been answered (accepted or not).
    done: naming.some((n) => n.exchange.status !== undefined || n.exchange.endedBy !== undefined),
    detail:
      naming.length === 0
        ? `no notifications/cancelled named the call’s id ${JSON.stringify(id)}${others.length > 0 ? ` (notifications named ${others.map((n) => JSON.stringify(n.requestId)).join(', ')})` : ''}`
        : accepted.length > 0
          ? `notifications/cancelled named ${JSON.stringify(id)} (${labels(accepted.map((n) => n.exchange))}, answered ${accepted[0]!.exchange.status})`
          : `notifications/cancelled named ${JSON.stringify(id)} but was not accepted (${naming.map((n) => `${label(n.exchange)} → ${n.exchange.status ?? 'no answer'}`).join(', ')})`,
    exchanges: [call, ...naming.map((n) => n.exchange)],
  };
}

/** The context's bound, as scenarios get it. */
export type Bound = <T>(operation: Promise<T>, what: string, timeoutMs?: number) => Promise<T>;

/**
 * Watches a call to the fixture `tool` and waits (bounded) until its handler runs on the server; fails at once
 * when the call settles before that (so a broken call does not cost the whole bound).
 */
export async function startCall(fixtures: FixtureState, bounded: Bound, call: Promise<unknown>, tool: string, what: string, nth = 1): Promise<Watched> {
  const watched = new Watched(call);
  let unsubscribe = () => {};
  const started = new Promise<void>((resolve, reject) => {
    const onChange = () => {
      if (fixtures.runsOf(tool) >= nth) resolve();
    };
    unsubscribe = fixtures.on('run', onChange);
    onChange();
    void watched.settled.then(() => reject(new Error(`${what} settled before its handler started (${watched.since(0).detail ?? ''})`)));
  });
  try {
    await bounded(started, `${what} to reach its handler`);
  } finally {
    unsubscribe();
  }
  return watched;
}

/** `handler-aborted`: the slow tool's handler saw its abort signal fire; `why` says what a client that fails it did. */
export function handlerAborted(spec: SpecRef, run: ToolRun | undefined, slow: WireExchange | undefined, why?: string): Check {
  const detail =
    run === undefined
      ? 'the slow tool never ran'
      : run.abortedAt !== undefined
        ? 'the slow handler’s abort signal fired'
        : `the slow handler was never aborted${why ? ` (${why})` : ''}`;
  return check('handler-aborted', spec, run?.abortedAt !== undefined, detail, slow ? [slow] : []);
}

/** `call-rejected-promptly`: the aborted call rejected within PROMPTLY_MS of its abort. */
export function callRejectedPromptly(spec: SpecRef, call: Settlement | undefined, slow: WireExchange | undefined): Check {
  return check(
    'call-rejected-promptly',
    spec,
    rejectedPromptly(call),
    `${describeSettlement(call, 'the aborted call')}; expected a rejection within ${PROMPTLY_MS} ms of the abort`,
    slow ? [slow] : [],
  );
}
