// What the resume scenarios share: spec references, wire-record helpers, the session-loss judge of
// resume/expired-404 and resume/expired-400-session-message, and two personalities no servers/ file
// offers yet (a front that moves a URL to a server of another revision, and a stream cutter for the
// revisions without SEP-1699 polling). Both personalities are candidates for servers/personalities/.
import type { Personality } from '../../servers/personality.ts';
import { startProxy } from '../../servers/personalities/proxy.ts';
import type { ReferenceServer } from '../../servers/reference-server.ts';
import { specUrl, type Revision, type StreamableRevision } from '../../protocol/revisions.ts';
import { startReferenceServer } from '../../servers/server.ts';
import { SseParser } from '../../servers/sse.ts';
import type { JsonRpcMessage, WireExchange } from '../../servers/wire-record.ts';
import { check, clientCompleted } from '../checks.ts';
import { operatingSession, operatingTraffic } from '../wire.ts';
import type { ExpiringSessions } from '../../servers/personalities/expiring-sessions.ts';
import type { Check, Evidence, Level, ScenarioContext, SpecRef } from '../scenario.ts';

export const SESSION_HEADER = 'mcp-session-id';
export const VERSION_HEADER = 'mcp-protocol-version';

/** The Streamable HTTP legacy revisions and 2026-07-28 (the catalogue's S,M). */
export const STREAMABLE_AND_MODERN = ['2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28'] as const satisfies readonly Revision[];

/** A section of the transports page at the revision under test (2026-07-28 has a page per transport). */
export function transports(revision: Revision, anchor: string, section: string, level: Level): SpecRef {
  const page = revision === '2026-07-28' ? 'basic/transports/streamable-http' : 'basic/transports';
  return { url: specUrl(revision, page, anchor), section: `Transports › ${section}`, level };
}

export function lifecycle(revision: Revision, anchor: string, section: string, level: Level): SpecRef {
  return { url: specUrl(revision, 'basic/lifecycle', anchor), section: `Lifecycle › ${section}`, level };
}

export function sessionOf(exchange: WireExchange): string | undefined {
  return exchange.requestHeaders[SESSION_HEADER];
}

export function carries(exchange: WireExchange, method: string): boolean {
  return exchange.requestMessages.some((message) => message.method === method);
}

/** The exchange's request carries a `tools/call` of this tool. */
export function callsTool(exchange: WireExchange, tool: string): boolean {
  return exchange.requestMessages.some((message) => message.method === 'tools/call' && message.params?.['name'] === tool);
}

/** The result the server wrote for an `initialize` on this exchange (JSON or SSE), if any. */
export function initializeResult(exchange: WireExchange): Record<string, unknown> | undefined {
  const request = exchange.requestMessages.find((message) => message.method === 'initialize' && message.id !== undefined);
  if (!request) return undefined;
  return exchange.responseMessages.find(({ message }) => message.id === request.id && message.result !== undefined)?.message.result;
}

/** `#3 POST tools/list` — how a detail names an exchange. */
export function describe(exchange: WireExchange): string {
  const methods = exchange.requestMessages.map((message: JsonRpcMessage) => message.method ?? 'response').join('+');
  return `#${exchange.seq} ${exchange.method}${methods ? ` ${methods}` : ''}`;
}

export function list(exchanges: readonly WireExchange[], limit = 4): string {
  const shown = exchanges.slice(0, limit).map(describe).join(', ');
  return exchanges.length > limit ? `${shown} and ${exchanges.length - limit} more` : shown;
}

/** What the client sent its MCP endpoint after `exchange` (outside a session it set aside before its own). */
export function laterRequests(evidence: Evidence, exchange: WireExchange): WireExchange[] {
  return operatingTraffic(evidence).filter((later) => later.seq > exchange.seq);
}

/** The evidence with the exchanges matching `pick` rewritten (for doctored proofs). */
export function doctorExchanges(evidence: Evidence, pick: (exchange: WireExchange) => boolean, rewrite: (exchange: WireExchange) => WireExchange): Evidence {
  return { ...evidence, exchanges: evidence.exchanges.map((exchange) => (pick(exchange) ? rewrite(exchange) : exchange)) };
}

export function withHeader(exchange: WireExchange, name: string, value: string | undefined): WireExchange {
  const requestHeaders = { ...exchange.requestHeaders };
  if (value === undefined) delete requestHeaders[name];
  else requestHeaders[name] = value;
  return { ...exchange, requestHeaders };
}

// — the session-loss judge (resume/expired-404, resume/expired-400-session-message) —

export interface SessionLossRules {
  /** How the server told the client its session is gone. */
  trigger: { status: 404 } | { status: 400; code: number };
  /** What the answer is, for details: `404`, `400 -32000 "…No valid session ID provided"`. */
  answer: string;
  /** The rule that makes the client start over (404: MUST; the SDK-example 400: interoperability, SHOULD). */
  recover: SpecRef;
  /** The rules that hold once a new session is being started (MUST in the transports section). */
  restart: SpecRef;
  /** Level of client-completed (the call after the loss succeeds on the new session). */
  completed: SpecRef;
}

/** Where the session was lost and what the client did next, as the server saw it. */
export function sessionLoss(evidence: Evidence, trigger: SessionLossRules['trigger']) {
  // The session the client's requests ran on: a session it set aside before (a connection test) is not the one lost.
  const dead = operatingSession(evidence);
  const lost = evidence.exchanges.find(
    (exchange) =>
      dead !== undefined &&
      sessionOf(exchange) === dead &&
      exchange.status === trigger.status &&
      ('code' in trigger ? exchange.responseMessages.some(({ message }) => message.error?.code === trigger.code) : true),
  );
  const after = lost ? evidence.exchanges.filter((exchange) => exchange.seq > lost.seq) : [];
  const reinit = after.find((exchange) => carries(exchange, 'initialize'));
  /** The replacement: the first initialize after the loss that got an InitializeResult with a session id. */
  const replacement = after.find((exchange) => initializeResult(exchange) !== undefined && exchange.responseHeaders[SESSION_HEADER] !== undefined);
  const newId = replacement?.responseHeaders[SESSION_HEADER];
  return { dead, lost, after, reinit, replacement, newId };
}

export function judgeSessionLoss(evidence: Evidence, rules: SessionLossRules): Check[] {
  const { dead, lost, after, reinit, replacement, newId } = sessionLoss(evidence, rules.trigger);
  const checks: Check[] = [clientCompleted(evidence, rules.completed)];
  if (!lost) {
    // Without the loss on the wire nothing else can be judged: say so on every check.
    const why =
      dead === undefined
        ? 'the server issued no session (the scenario could not start)'
        : `no request carrying the session id ${dead} was answered ${rules.answer} (the scenario could not run)`;
    for (const [name, spec] of [
      ['new-initialize', rules.recover],
      ['reinitialize-without-session-id', rules.restart],
      ['new-id-adopted', rules.restart],
      ['dead-id-never-sent-again', rules.recover],
    ] as const) {
      checks.push(check(name, spec, false, why));
    }
    return checks;
  }
  checks.push(
    check(
      'new-initialize',
      rules.recover,
      reinit !== undefined,
      reinit
        ? `${describe(lost)} was answered ${rules.answer}; the client started a new session with ${describe(reinit)}`
        : `${describe(lost)} was answered ${rules.answer}; no initialize followed (${after.length === 0 ? 'nothing followed' : `then ${list(after)}`})`,
      reinit ? [lost, reinit] : [lost, ...after],
    ),
  );
  const carried = reinit ? sessionOf(reinit) : undefined;
  // The restart rules bind once the client starts over; a client that never did fails them at the level of
  // the rule that should have made it start over (for the SDK-example 400: SHOULD).
  checks.push(
    check(
      'reinitialize-without-session-id',
      reinit ? rules.restart : rules.recover,
      reinit !== undefined && carried === undefined,
      reinit === undefined
        ? 'no new initialize was sent'
        : carried === undefined
          ? `${describe(reinit)} carried no Mcp-Session-Id`
          : `${describe(reinit)} carried Mcp-Session-Id: ${carried}${carried === dead ? ' (the dead id)' : ''}`,
      reinit ? [reinit] : [],
    ),
  );
  const later = replacement ? laterRequests(evidence, replacement) : [];
  const notNew = later.filter((exchange) => sessionOf(exchange) !== newId);
  checks.push(
    check(
      'new-id-adopted',
      reinit ? rules.restart : rules.recover,
      replacement !== undefined && later.length > 0 && notNew.length === 0,
      replacement === undefined
        ? 'no new session was issued to the client'
        : later.length === 0
          ? `the server issued ${newId} on ${describe(replacement)}, and nothing followed`
          : notNew.length === 0
            ? `all ${later.length} requests after ${describe(replacement)} carried the new id ${newId}`
            : `the server issued ${newId} on ${describe(replacement)}, but ${list(notNew)} carried ${[...new Set(notNew.map((e) => sessionOf(e) ?? 'no id'))].join(', ')}`,
      replacement ? [replacement, ...notNew] : [],
    ),
  );
  const resent = after.filter((exchange) => sessionOf(exchange) === dead);
  checks.push(
    check(
      'dead-id-never-sent-again',
      rules.recover,
      resent.length === 0,
      resent.length === 0 ? `no request after ${describe(lost)} carried the dead id ${dead}` : `the dead id ${dead} was sent again on ${list(resent)}`,
      [lost, ...resent],
    ),
  );
  return checks;
}

// — personalities —

export interface RevisionSwitch extends Personality {
  /** The revision the URL serves after `switchNow()`. */
  readonly next: StreamableRevision;
  /** From now on every request reaches a server pinned to `next` (which knows none of the earlier sessions). */
  switchNow(): void;
}

/**
 * A front that serves the URL from the scenario's era server until `switchNow()`, then from a second
 * reference server pinned to `next` (as a redeployment at another revision does): the old sessions get
 * that server's 404, and the replacement `initialize` is answered with `next`. Exchanges routed to the
 * second server are noted `revision:<next>`. The second server's sessions are not in `issuedSessions`:
 * read them from the InitializeResult's `Mcp-Session-Id` in the (front's) record.
 */
export function revisionSwitch(next: StreamableRevision): RevisionSwitch {
  let other: ReferenceServer | undefined;
  let switched = false;
  return {
    name: 'revision-switch',
    eras: ['2025-03-26', '2025-06-18', '2025-11-25'],
    next,
    switchNow() {
      switched = true;
    },
    async start() {
      other = await startReferenceServer({ era: next });
    },
    async close() {
      await other?.close();
    },
    front: ({ backendUrl, recording }) =>
      startProxy({
        backendUrl,
        recording,
        route({ exchange, record }) {
          if (!switched || !other) return new URL(backendUrl).origin;
          record.note(exchange, `revision:${next}`);
          return new URL(other.url).origin;
        },
      }),
  };
}

export interface StreamCutter extends Personality {
  /** The next POST carrying a `tools/call` of `tool` has its SSE response cut right after its first event with an id. */
  cutNext(tool: string): void;
}

/** The longest a resuming GET is held while the era lets go of the cut stream. */
const RELEASE_MS = 2_000;

/**
 * Cuts a POST's SSE response right after the first event that carries an id, without the answer (as a
 * network failure or an impatient proxy does): the connection is ended, the exchange noted
 * `stream-cut-after-event-id` and marked as the server's doing, and nothing the era writes afterwards
 * reaches the client or the record. The era keeps running the request and stores its later events
 * (the era servers keep an event store at every revision), so `GET` + `Last-Event-ID` replays them.
 *
 * The SDK transport lets go of the cut stream only when its writer notices the connection is gone (at
 * its next event); until then it would refuse a resumption with 409. A `GET` with `Last-Event-ID`
 * arriving in that window is held until the era has let go (at most RELEASE_MS): server-side latency,
 * invisible to a client except as a slower answer.
 */
export function streamCutter(): StreamCutter {
  let armed: string | undefined;
  const unreleased = new Set<Promise<void>>();
  return {
    name: 'cut-stream-after-event-id',
    eras: ['2025-03-26', '2025-06-18', '2025-11-25'],
    cutNext(tool) {
      armed = tool;
    },
    async middleware({ req, res, exchange, record }, next) {
      if (req.method === 'GET' && exchange.requestHeaders['last-event-id'] !== undefined && unreleased.size > 0) {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([Promise.all(unreleased), new Promise<void>((resolve) => (timer = setTimeout(resolve, RELEASE_MS)))]);
        clearTimeout(timer);
        return next();
      }
      if (armed === undefined || req.method !== 'POST' || !callsTool(exchange, armed)) return next();
      armed = undefined;
      let release: () => void = () => {};
      const released = new Promise<void>((resolve) => (release = resolve));
      unreleased.add(released);
      void released.then(() => unreleased.delete(released));
      const write = res.write.bind(res) as (...args: unknown[]) => boolean;
      const parser = new SseParser();
      const decoder = new TextDecoder();
      let cut = false;
      res.write = ((chunk: unknown, ...rest: unknown[]) => {
        if (cut) return true;
        const written = write(chunk, ...rest);
        const text = typeof chunk === 'string' ? chunk : chunk instanceof Uint8Array ? decoder.decode(chunk, { stream: true }) : '';
        if (parser.push(text).some((event) => event.id !== undefined)) {
          cut = true;
          record.note(exchange, 'stream-cut-after-event-id');
          record.markDropped(exchange);
          // end(): what was written goes out first, then the connection closes without the stream's end.
          res.socket?.end();
        }
        return written;
      }) as typeof res.write;
      const end = res.end.bind(res) as (...args: unknown[]) => typeof res;
      res.end = ((...args: unknown[]) => (cut ? res : end(...args))) as typeof res.end;
      try {
        await next();
      } finally {
        release();
      }
    },
  };
}

/**
 * The session-loss script: a session works, the server ends it, and the client meets the server's answer for
 * the dead id (`answer` names it in the operation labels); then one more request and close.
 */
export async function runSessionLoss({ connect, bounded, state, observe }: ScenarioContext<{ expiring: ExpiringSessions }>, answer: string): Promise<void> {
  const client = await connect();
  await bounded(client.listTools(), 'tools/list');
  await state.expiring.expireNow();
  // Whether the request that met the answer is retried is retry/session-reestablished's question: it may fail.
  try {
    await bounded(client.listTools(), `tools/list meeting the ${answer}`);
  } catch (error) {
    observe('lossSurfaced', String(error));
  }
  await bounded(client.listTools(), 'tools/list on the new session');
  observe('sessionId', (await bounded(client.info(), 'info')).sessionId);
  await bounded(client.close(), 'close');
}
