// What is truly the resume suite's: the session-loss judge of resume/expired-404 and
// resume/expired-400-session-message, the doctoring helpers its proofs share, and two personalities no servers/ file
// offers yet (a front that moves a URL to a server of another revision, and a stream cutter for the revisions without
// SEP-1699 polling), both candidates for servers/personalities/. Citations are suites/spec.ts's, wire queries
// suites/wire.ts's.
import { HEADERS } from '../../protocol/http.ts';
import { S, type StreamableRevision } from '../../protocol/revisions.ts';
import { FIXTURE_TOOLS } from '../../servers/fixtures.ts';
import type { ExpiringSessions } from '../../servers/personalities/expiring-sessions.ts';
import { startProxy } from '../../servers/personalities/proxy.ts';
import type { Personality } from '../../servers/personality.ts';
import type { ReferenceServer } from '../../servers/reference-server.ts';
import { startReferenceServer } from '../../servers/server.ts';
import { SseParser } from '../../servers/sse.ts';
import type { WireExchange } from '../../servers/wire-record.ts';
import { check, checkIf, clientCompleted, precondition, unexercised } from '../checks.ts';
import { ordinaryRejection } from '../outcome.ts';
import type { Check, DoctoredProof, Evidence, ScenarioContext, SpecRef } from '../scenario.ts';
import { after, callsTool, carries, carriesOperation, initializeResult, label, labels, mcpExchanges, operatingSession, operatingTraffic, seqNow, sessionOf } from '../wire.ts';

// — doctoring, for the proofs —

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
  /** The answer that loses the session: its status, the JSON-RPC error code, and the note its personality puts on the exchange (so another 400, a version refused, is not taken for it). */
  trigger: { status: 404 } | { status: 400; code: number; note: string };
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
/** The proof that `session-lost` can be unmet: the record of a client that failed before its session met the loss. */
export function sessionNeverLost(trigger: SessionLossRules['trigger'], answer: string): DoctoredProof {
  return {
    check: 'session-lost',
    unmet: true,
    how: `the client failed before its session met the ${answer}: nothing from the request that met it on`,
    doctor: (e) => {
      const { lost } = sessionLoss(e, trigger);
      return { ...e, exchanges: e.exchanges.filter((x) => lost === undefined || x.seq < lost.seq) };
    },
  };
}

/**
 * A request that met the loss of its session: one carrying the id, answered as the server answers a lost session. Not
 * the DELETE that ends the session (close's): a client ending its session has no use for a new one, whatever the answer.
 */
export function metLoss(exchange: WireExchange, dead: string | undefined, trigger: SessionLossRules['trigger']): boolean {
  return (
    dead !== undefined &&
    exchange.method !== 'DELETE' &&
    sessionOf(exchange) === dead &&
    exchange.status === trigger.status &&
    ('code' in trigger ? exchange.notes.includes(trigger.note) && exchange.responseMessages.some(({ message }) => message.error?.code === trigger.code) : true)
  );
}

export function sessionLoss(evidence: Evidence, trigger: SessionLossRules['trigger']) {
  // The session the client's requests ran on: a session it set aside before (a connection test) is not the one lost.
  const dead = operatingSession(evidence);
  const lost = evidence.exchanges.find((exchange) => metLoss(exchange, dead, trigger));
  const following = lost ? after(evidence.exchanges, lost.seq) : [];
  const reinit = following.find((exchange) => carries(exchange, 'initialize'));
  /** The replacement: the first initialize after the loss that got an InitializeResult with a session id. */
  const replacement = following.find((exchange) => initializeResult(exchange) !== undefined && exchange.responseHeaders[HEADERS.session] !== undefined);
  const newId = replacement?.responseHeaders[HEADERS.session];
  return { dead, lost, following, reinit, replacement, newId };
}

// — a client that kept no session to lose —

/** The `observed` key under which a session-loss script records the moment the server ended its sessions (the record's length then). */
export const SESSIONS_ENDED_AT = 'sessionsEndedAtSeq';

/**
 * A client that keeps no session between operations (a session per operation) never meets the loss of one: after the
 * server ended its sessions (the script's mark, `observed[SESSIONS_ENDED_AT]`), no request carried an id issued
 * before it, and the next operation went out in a session the client opened afterwards itself (an initialize with
 * no session id, which issued the id the operation carried). Read from the wire, never from what the client declares.
 * Undefined where the client met the loss or may have: a request with an earlier id, an operation outside a session
 * it opened after the mark, no mark. A client that ignores a 404 has sent the dead id and met it, so it is judged.
 */
export function keptNoSession(evidence: Evidence): { why: string; exchanges: WireExchange[] } | undefined {
  const mark = evidence.observed[SESSIONS_ENDED_AT];
  if (typeof mark !== 'number') return undefined;
  const traffic = mcpExchanges(evidence.exchanges, evidence.revision);
  const earlier = new Set(
    traffic
      .filter((x) => x.seq <= mark)
      .flatMap((x) => [sessionOf(x), x.responseHeaders[HEADERS.session]])
      .filter((id) => id !== undefined),
  );
  const later = after(traffic, mark);
  if (later.some((x) => earlier.has(sessionOf(x) ?? ''))) return undefined;
  const operation = later.find(carriesOperation);
  const id = operation && sessionOf(operation);
  const opened =
    id === undefined ? undefined : later.find((x) => x.seq < operation!.seq && sessionOf(x) === undefined && initializeResult(x) !== undefined && x.responseHeaders[HEADERS.session] === id);
  if (opened === undefined) return undefined;
  return {
    why:
      `the client kept no session to lose: after the server ended its sessions no request carried an id issued before, and the next operation ${label(operation!)} ` +
      `went out in a session the client opened itself (${label(opened)}), as a client with a session per operation does: it never meets the loss`,
    exchanges: [opened, operation!],
  };
}

/**
 * A session-loss precondition (`lossMet`) as it stands, or, where it is unmet because the client kept no session to lose
 * (`keptNoSession`), unmet by the client's shape: the case is n/a, with the wire's reason. Also for a precondition that
 * needs the loss first (two requests in flight on the dead session), named `also`.
 */
export function unlessKeptNoSession(lossMet: Check, evidence: Evidence, also?: string): Check {
  if (lossMet.outcome === 'pass') return lossMet;
  const fresh = keptNoSession(evidence);
  if (fresh === undefined) return lossMet;
  return precondition(lossMet.name, lossMet.spec, false, also === undefined ? fresh.why : `${also}: ${fresh.why}`, fresh.exchanges, { by: 'shape' });
}

/** Records the mark `keptNoSession` reads: call it right after the server ended the client's sessions. */
export function markSessionsEnded({ wire, observe }: Pick<ScenarioContext<unknown>, 'wire' | 'observe'>): void {
  observe(SESSIONS_ENDED_AT, seqNow(wire.record));
}

/** `session-lost`: the precondition of every session-loss rule, that the client's session met the server's answer for a lost one. */
export function sessionLost(evidence: Evidence, spec: SpecRef, trigger: SessionLossRules['trigger'], answer: string): Check {
  const { dead, lost } = sessionLoss(evidence, trigger);
  const met = precondition(
    'session-lost',
    spec,
    lost !== undefined,
    lost
      ? `${label(lost)}, carrying the session id ${dead}, was answered ${answer}`
      : dead === undefined
        ? 'the server issued no session the client used: there was none to lose'
        : `no request carrying the session id ${dead} was answered ${answer} (it carried it on ${labels(evidence.exchanges.filter((x) => sessionOf(x) === dead))}; a DELETE ending the session does not count)`,
    lost ? [lost] : [],
  );
  return unlessKeptNoSession(met, evidence);
}

/**
 * Requests carrying what an answer made stale (a dead session id, an old version), split by whether the client can
 * have known better. A GET for the standalone SSE stream that reached the server within a reaction time of that answer
 * may have been sent before the client read it: the client reconnects it on its own timer, on another connection, and
 * on a loaded machine it arrives after. So may a POST within a reaction time of an answer to that stream's GET (the
 * GET's 404 came first, and the caller's request was already on its way: mcp-remote beside a CPU hog). Every other
 * stale request (a POST after a POST's answer, or anything well after) is the client's doing.
 */
export function staleAfter(stale: readonly WireExchange[], answer: WireExchange, evidence: Evidence): { late: WireExchange[]; inFlight: WireExchange[] } {
  const learnedAt = answer.headersAt ?? answer.startedAt;
  const inFlight = stale.filter((x) => (x.method === 'GET' || answer.method === 'GET') && x.startedAt < learnedAt + evidence.time.ms.react);
  return { late: stale.filter((x) => !inFlight.includes(x)), inFlight };
}

/** Why a stale-request rule is not judged when its only stale requests may have been in flight (`staleAfter`); else undefined. */
export function onlyInFlight({ late, inFlight }: ReturnType<typeof staleAfter>, what: string, answer: WireExchange): string | undefined {
  if (late.length > 0 || inFlight.length === 0) return undefined;
  const learnedAt = answer.headersAt ?? answer.startedAt;
  const gaps = inFlight.map((x) => `${label(x)} ${Math.max(0, Math.round(x.startedAt - learnedAt))} ms after`).join(', ');
  const sent = answer.method === 'GET' ? 'a request' : 'a stream reconnect';
  return `only ${gaps} ${label(answer)} carried ${what}: ${sent} the client may have sent before it read that answer, which a wire record cannot tell from a stale one`;
}

/**
 * The traffic of a session until the client ends it itself (its DELETE, included): a session the client opens after
 * that (a client that starts over after an error ends the replacement too, when the call that met the loss failed) is
 * its own, and carries its own id.
 */
export function untilEndedByClient(traffic: readonly WireExchange[], id: string | undefined): WireExchange[] {
  const ended = traffic.find((exchange) => exchange.method === 'DELETE' && id !== undefined && sessionOf(exchange) === id);
  return ended === undefined ? [...traffic] : traffic.filter((exchange) => exchange.seq <= ended.seq);
}

export function judgeSessionLoss(evidence: Evidence, rules: SessionLossRules): Check[] {
  const { dead, lost, following, reinit, replacement, newId } = sessionLoss(evidence, rules.trigger);
  const checks: Check[] = [sessionLost(evidence, rules.recover, rules.trigger, rules.answer), clientCompleted(evidence, rules.completed)];
  if (!lost) {
    // Without the loss on the wire no rule was exercised: each says so (the precondition names why).
    const why = 'the session never met its loss';
    checks.push(
      unexercised('new-initialize', rules.recover, why),
      unexercised('reinitialize-without-session-id', rules.restart, why),
      unexercised('new-id-adopted', rules.restart, why),
      unexercised('dead-id-never-sent-again', rules.recover, why),
    );
    return checks;
  }
  checks.push(
    check(
      'new-initialize',
      rules.recover,
      reinit !== undefined,
      reinit
        ? `${label(lost)} was answered ${rules.answer}; the client started a new session with ${label(reinit)}`
        : `${label(lost)} was answered ${rules.answer}; no initialize followed (${following.length === 0 ? 'nothing followed' : `then ${labels(following)}`})`,
      reinit ? [lost, reinit] : [lost, ...following],
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
          ? `${label(reinit)} carried no Mcp-Session-Id`
          : `${label(reinit)} carried Mcp-Session-Id: ${carried}${carried === dead ? ' (the dead id)' : ''}`,
      reinit ? [reinit] : [],
    ),
  );
  const later = replacement ? untilEndedByClient(after(operatingTraffic(evidence), replacement.seq), newId) : [];
  // A DELETE of the dead session is judged by dead-id-never-sent-again, not charged here a second time.
  const notNew = later.filter((exchange) => sessionOf(exchange) !== newId && !(exchange.method === 'DELETE' && sessionOf(exchange) === dead));
  const notNewInFlight = replacement ? onlyInFlight(staleAfter(notNew, replacement, evidence), 'another id than the new one', replacement) : undefined;
  const spec = reinit ? rules.restart : rules.recover;
  checks.push(
    replacement !== undefined && later.length === 0
      ? unexercised('new-id-adopted', spec, `the server issued ${newId} on ${label(replacement)}, and the client sent nothing after it`, [replacement])
      : notNewInFlight !== undefined
        ? unexercised('new-id-adopted', spec, notNewInFlight, [replacement!, ...notNew])
      : check(
          'new-id-adopted',
          spec,
          replacement !== undefined && notNew.length === 0,
          replacement === undefined
            ? 'no new session was issued to the client'
            : notNew.length === 0
              ? `all ${later.length} requests after ${label(replacement)} carried the new id ${newId}`
              : `the server issued ${newId} on ${label(replacement)}, but ${labels(notNew)} carried ${[...new Set(notNew.map((e) => sessionOf(e) ?? 'no id'))].join(', ')}`,
          replacement ? [replacement, ...notNew] : [],
        ),
  );
  const resent = following.filter((exchange) => sessionOf(exchange) === dead);
  checks.push(
    checkIf(
      onlyInFlight(staleAfter(resent, lost, evidence), 'the dead id', lost),
      'dead-id-never-sent-again',
      rules.recover,
      () => resent.length === 0,
      () => (resent.length === 0 ? `no request after ${label(lost)} carried the dead id ${dead}` : `the dead id ${dead} was sent again on ${labels(resent)}`),
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
    eras: S,
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
  /**
   * The next POST carrying a `tools/call` of `tool` has its SSE response cut right after its first event with an id; a
   * resuming GET is held at most `releaseMs` while the era lets go of the cut stream.
   */
  cutNext(tool: string, releaseMs: number): void;
}

/**
 * Cuts a POST's SSE response right after the first event that carries an id, without the answer (as a
 * network failure or an impatient proxy does): the connection is ended, the exchange noted
 * `stream-cut-after-event-id` and marked as the server's doing, and nothing the era writes afterwards
 * reaches the client or the record. The era keeps running the request and stores its later events
 * (the era servers keep an event store at every revision), so `GET` + `Last-Event-ID` replays them.
 *
 * The SDK transport lets go of the cut stream only when its writer notices the connection is gone (at
 * its next event); until then it would refuse a resumption with 409. A `GET` with `Last-Event-ID`
 * arriving in that window is held until the era has let go (at most `releaseMs`): server-side latency,
 * invisible to a client except as a slower answer.
 */
export function streamCutter(): StreamCutter {
  let armed: string | undefined;
  let releaseMs = 0;
  const unreleased = new Set<Promise<void>>();
  return {
    name: 'cut-stream-after-event-id',
    eras: S,
    cutNext(tool, ms) {
      armed = tool;
      releaseMs = ms;
    },
    async middleware({ req, res, exchange, record }, next) {
      if (req.method === 'GET' && exchange.requestHeaders[HEADERS.lastEventId] !== undefined && unreleased.size > 0) {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([Promise.all(unreleased), new Promise<void>((resolve) => (timer = setTimeout(resolve, releaseMs)))]);
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

/** The text of the echo calls the session-loss scripts make after the server ended the session. */
export const AFTER_LOSS_TEXT = 'after the session ended';

/**
 * The session-loss script: a session works, the server ends it, and the client meets the server's answer for
 * the dead id (`answer` names it in the operation labels); then one more request and close. The requests after the
 * loss are calls of the fixture's echo tool: a listing may be answered from the client's cache, and never meet it.
 */
export async function runSessionLoss(context: ScenarioContext<{ expiring: ExpiringSessions }>, answer: string): Promise<void> {
  const { connect, bounded, state, observe } = context;
  const client = await connect();
  await bounded(client.listTools(), 'tools/list');
  await state.expiring.expireNow();
  markSessionsEnded(context);
  // Whether the request that met the answer is retried is retry/session-reestablished's question: it may fail.
  try {
    await bounded(client.callTool(FIXTURE_TOOLS.echo, { text: AFTER_LOSS_TEXT }), `tools/call echo meeting the ${answer}`);
  } catch (error) {
    // A rejection is an answer; a hang or a broken contract is the client's error.
    observe('lossSurfaced', ordinaryRejection(error));
  }
  await bounded(client.callTool(FIXTURE_TOOLS.echo, { text: AFTER_LOSS_TEXT }), 'tools/call echo on the new session');
  observe('sessionId', (await bounded(client.info(), 'info')).sessionId);
  await bounded(client.close(), 'close');
}
