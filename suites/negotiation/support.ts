// What is truly the negotiation suite's: running one connect that may be meant to fail (several cases, each on its own
// server) with what it came to observed, judging a rule over such cases, what a probe's answer led to (a fallback, a
// retry with a mutual version), and the per-era answers to initialize the scenarios script. The same judgements serve
// the HTTP scenarios and their stdio counterparts (suites/stdio/probe-*.ts), where the connection a message went over
// is a process. Citations are suites/spec.ts's, wire queries suites/wire.ts's, outcomes suites/outcome.ts's.
import type { ConnectOptions } from '../../clients/adapter.ts';
import type { TimePolicy } from '../../config/time.ts';
import { META } from '../../protocol/http.ts';
import { isHttpSse, MODERN_REVISION, type Revision } from '../../protocol/revisions.ts';
import { initializeAnswers } from '../../servers/personalities/initialize-answers.ts';
import { ANSWERS, probeAnswers } from '../../servers/personalities/probe-answers.ts';
import type { Personality } from '../../servers/personality.ts';
import { PROBE_ANSWER_NOTE } from '../../servers/stdio/protocol.ts';
import type { StdioExchange } from '../../servers/stdio/record.ts';
import type { ExchangeRecord, SentMessage, WireExchange } from '../../servers/wire-record.ts';
import { check, checkIf, unexercised } from '../checks.ts';
import { settle, type Outcome } from '../outcome.ts';
import { checkInTime, type InTime } from '../deadlines.ts';
import type { Check, ConnectTarget, Evidence, ScenarioContext, SpecRef } from '../scenario.ts';
import { stdio, versioning } from '../spec.ts';
import { answerTo, carrying, envelopeOf, labels, requests, sentMessages, servedResult } from '../wire.ts';

// — time —

/** The plain session any client runs: connect, tools/list, an echo call, close (what the handshake, envelope and capability rules are read from). */
export async function plainSession({ connect, bounded }: Pick<ScenarioContext, 'connect' | 'bounded'>): Promise<void> {
  const client = await connect();
  await bounded(client.listTools(), 'tools/list');
  await bounded(client.callTool('echo', { text: 'hello' }), 'tools/call echo');
  await bounded(client.close(), 'close');
}

/**
 * The connect bound of a case whose client must act on an answer (fail, retry, fall back) rather than wait for another:
 * this client's start-up (calibrated), so a slow starter still reaches the answer, and room for several reactions, so
 * a client that reacts slowly on a loaded machine is told apart from one that sits the bound out.
 */
export const connectBound = (time: TimePolicy): number => time.ms.startup + 4 * time.ms.react;

// — running a case —

/**
 * What one case came to: as the script observed it (`connect` the connect itself), or as `caseOutcome` reads it for a
 * lazy client (`lazy`: `connect` and `startedAt` are its first operation's, the one that did the handshake).
 */
export interface CaseOutcome {
  /** The connect: resolved (connected), rejected (it failed), or pending and `hung` (the runner's bound gave up). */
  connect: Outcome;
  /** When the connect began, on the case server's clock (the judge compares it with the times of the server's answers). */
  startedAt: number;
  /** What `info()` reported after the first operation (a lazy client knows nothing before it). */
  negotiatedVersion?: string;
  era?: string;
  /** What the `tools/list` after connecting, and `info()`, came to. */
  listTools?: Outcome;
  /** The connect sent nothing: its first operation (the tools/list) did the handshake, and `connect` is what that came to. */
  lazy?: true;
}

/**
 * The connect did not complete within `boundMs`, the bound the script gave it: it was still under way when time ran out
 * (on a loaded machine, say), which says nothing about what the client would have done with more time.
 */
export const ranOutOfTime = (outcome: CaseOutcome | undefined, boundMs: number): boolean =>
  outcome !== undefined && outcome.connect.state !== 'resolved' && (outcome.connect.hung === true || outcome.connect.afterMs >= boundMs);

/** When the connect settled, on the case server's clock. */
export const settledAt = (outcome: CaseOutcome): number => outcome.startedAt + outcome.connect.afterMs;

/**
 * A lazy connect (clients/adapter.ts): it resolved before anything reached the server (`exchanges`: the case server's),
 * so the client's first operation did the handshake. A connect that sends its first request before resolving (every
 * eager client: initialize is answered before it resolves) is not one.
 */
export function connectedLazily(outcome: CaseOutcome, exchanges: readonly WireExchange[]): boolean {
  if (outcome.connect.state !== 'resolved' || outcome.listTools === undefined) return false;
  const connected = settledAt(outcome);
  return !exchanges.some((exchange) => exchange.startedAt >= outcome.startedAt && exchange.startedAt <= connected);
}

/**
 * Connects (to `target.server`, default the scenario's server), records what the connect came to under `case:<name>`,
 * and when it connected asks `info()`, lists the tools and closes. A failed or hung connect is an outcome, not a client
 * error: the judge decides. So is a failed `info()` or `tools/list`; a close that fails is the client's error. `record`
 * is the one whose clock `startedAt` reads: the server's (a stdio scenario passes its stdio server's).
 */
export async function connectCase(
  context: ScenarioContext<unknown>,
  name: string,
  options: Partial<ConnectOptions>,
  target: ConnectTarget = {},
  record: ExchangeRecord = (target.server ?? context.server).record,
): Promise<CaseOutcome> {
  const since = performance.now();
  const startedAt = record.now();
  let connection: Awaited<ReturnType<typeof context.connect>> | undefined;
  const outcome: CaseOutcome = {
    connect: await settle(context.connect(options, target).then((connected) => (connection = connected)), since),
    startedAt,
  };
  if (connection) {
    const client = connection;
    outcome.listTools = await settle(
      (async () => {
        // The first operation: a lazy client's handshake (then info() has something to report).
        await context.bounded(client.listTools(), `tools/list (${name})`);
        const info = await context.bounded(client.info(), `info (${name})`);
        if (info.negotiatedVersion !== undefined) outcome.negotiatedVersion = info.negotiatedVersion;
        if (info.era !== undefined) outcome.era = info.era;
      })(),
    );
    await context.bounded(client.close(), `close (${name})`);
  }
  context.observe(`case:${name}`, outcome);
  return outcome;
}

/**
 * What the case `name` came to, connecting as judged: rules about connecting are judged at the first operation when the
 * connect was lazy (`connectedLazily` over `exchanges`, the case server's), so then `connect` is what that operation came
 * to and `startedAt` when it began: a lazy client that refuses at its first operation refused to connect.
 */
export function caseOutcome(evidence: Evidence, name: string, exchanges: readonly WireExchange[]): CaseOutcome | undefined {
  const observed = evidence.observed[`case:${name}`] as CaseOutcome | undefined;
  if (observed === undefined || !connectedLazily(observed, exchanges)) return observed;
  return { ...observed, lazy: true, startedAt: settledAt(observed), connect: observed.listTools! };
}

/**
 * For doctored proofs: the case `name` as a lazy client's that accepted at its first operation — its connect resolved at
 * once before anything reached the server (`exchanges`, the case server's), and its tools/list was answered.
 */
export function answeredLazily(evidence: Evidence, name: string, exchanges: readonly WireExchange[]): Evidence {
  const key = `case:${name}`;
  const observed = evidence.observed[key] as CaseOutcome | undefined;
  if (observed === undefined) return evidence;
  const first = Math.min(...exchanges.map((exchange) => exchange.startedAt));
  const lazy: CaseOutcome = { startedAt: first - 2, connect: { state: 'resolved', afterMs: 1 }, listTools: { state: 'resolved', afterMs: 1, detail: 'undefined' } };
  return { ...evidence, observed: { ...evidence.observed, [key]: lazy } };
}

/** `connected (legacy 2025-06-18), tools/list answered`, `the connect failed (Error: …)`, `the connect never settled`. */
export function describeCase(outcome: CaseOutcome | undefined): string {
  if (outcome === undefined) return 'the case did not run';
  const { connect, listTools } = outcome;
  if (outcome.lazy) return `the connect sent nothing; ${describeLazy(outcome, connect)}`;
  if (connect.hung) return `the connect never settled (${connect.detail ?? 'the runner gave up'})`;
  if (connect.state === 'rejected') return `the connect failed after ${connect.afterMs} ms (${connect.detail})`;
  if (connect.state === 'pending') return 'the connect had not settled';
  const list = listTools === undefined ? '' : listTools.state === 'resolved' ? ', tools/list answered' : `, tools/list ${listTools.hung ? 'never settled' : `failed (${listTools.detail})`}`;
  return `connected${eraOf(outcome)}${list}`;
}

const eraOf = (outcome: CaseOutcome): string => (outcome.era ? ` (${outcome.era}${outcome.negotiatedVersion ? ` ${outcome.negotiatedVersion}` : ''})` : '');

/** A lazy client's first operation, which did the handshake. */
function describeLazy(outcome: CaseOutcome, first: Outcome): string {
  const what = 'its first operation, tools/list, did the handshake';
  if (first.hung) return `${what} and never settled (${first.detail ?? 'the runner gave up'})`;
  if (first.state === 'rejected') return `${what} and failed after ${first.afterMs} ms (${first.detail})`;
  if (first.state === 'pending') return `${what} and had not settled`;
  return `${what}${eraOf(outcome)} and was answered`;
}

/** How details name a case's server: `server 1` is the scenario's own (`index` -1), `server 2` the first started. */
export function serverName(index: number): string {
  return `server ${index + 2}`;
}

/** The exchanges of one case's server: the scenario's own (`index` -1) or the one started `index`-th. */
export function caseExchanges(evidence: Evidence, index: number): readonly WireExchange[] {
  return (index < 0 ? evidence.exchanges : evidence.otherServers[index]?.exchanges) ?? [];
}

// — judging a rule over several cases —

/** One case of a rule judged over several. */
export interface CaseJudgement {
  /** The case, for details: `503 with Retry-After (server 2)`. */
  what: string;
  /** Why the case never reached the rule (its stimulus was never delivered), or undefined when it did. */
  unreached?: string;
  /** What broke the rule in this case, or undefined when it held. */
  broken?: string;
  /** Why the case had not held yet when its bound ran out (a slow start looks the same): a missed deadline, not a break (`acrossCases` with `time`). */
  late?: string;
  /** How it held, for the detail (when the rule reads better with it). */
  held?: string;
  /** The exchanges that show it. */
  exchanges?: readonly WireExchange[];
}

/**
 * A rule over several cases, each on its own server: it fails when it broke in any case that reached it, passes when
 * every case reached it and it held there (`held` says how), and is otherwise not exercised, naming the cases that
 * never got there. One case the suite could not drive never hides another case's failure.
 */
export function acrossCases(name: string, spec: SpecRef, cases: readonly CaseJudgement[], held: string, time?: TimePolicy): Check {
  const reached = cases.filter((c) => c.unreached === undefined);
  const broken = reached.filter((c) => c.broken !== undefined);
  if (broken.length > 0) return check(name, spec, false, broken.map((c) => `${c.what}: ${c.broken}`).join('; '), broken.flatMap((c) => c.exchanges ?? []));
  // Out of time: "time ran out" on a provisional run (the case runs again with larger bounds), a failure on the last.
  const late = reached.filter((c) => c.late !== undefined);
  if (late.length > 0) {
    if (time === undefined) throw new Error(`acrossCases(${name}): a late case is judged against the case's time policy, and none was given`);
    return checkInTime(time, name, spec, 'late', late.map((c) => `${c.what}: ${c.late}`).join('; '), late.flatMap((c) => c.exchanges ?? []));
  }
  const unreached = cases.filter((c) => c.unreached !== undefined);
  if (unreached.length > 0 || cases.length === 0) {
    return unexercised(name, spec, cases.length === 0 ? 'no case reached the rule' : unreached.map((c) => `${c.what}: ${c.unreached}`).join('; '));
  }
  return check(name, spec, true, held, reached.flatMap((c) => c.exchanges ?? []));
}

// — the connection a message went over —

/** The stdio process (its `index` in `evidence.stdio.processes`) whose stdin carried the exchange; undefined over HTTP. */
export function processOf(exchange: WireExchange): number | undefined {
  return (exchange as Partial<StdioExchange>).process;
}

/**
 * The exchanges that went over the connection `exchange` went over: over stdio the lines of its process (one process,
 * one conversation with the server); over HTTP every exchange (which session each belongs to is the HTTP scenarios' business).
 */
export function sameConnection(exchanges: readonly WireExchange[], exchange: WireExchange): WireExchange[] {
  const index = processOf(exchange);
  return index === undefined ? [...exchanges] : exchanges.filter((x) => processOf(x) === index);
}

// — what a probe's answer led to —

/** How a connect went on after its probe: its probes, the initializes after the first, and whether a session worked. */
export interface Fallback {
  probes: WireExchange[];
  /** The initialize requests after the first probe, in arrival order. */
  initializes: SentMessage[];
  /** An initialize after the probe was answered with a result, and a tools/list with a result over the same connection. */
  working: boolean;
}

export function fallbackOf(exchanges: readonly WireExchange[]): Fallback {
  const probes = carrying(exchanges, 'server/discover');
  const first = probes[0];
  const initializes = first ? requests(exchanges, 'initialize').filter((r) => r.exchange.seq > first.seq) : [];
  // Over stdio the session is the process the handshake ran on: a tools/list to another one (the probe's, which died) is no session.
  const working = initializes.some((r) => answerTo(exchanges, r)?.result !== undefined && servedResult(sameConnection(exchanges, r.exchange), 'tools/list'));
  return { probes, initializes, working };
}

/**
 * Why a case never reached the fallback rule, or undefined when it did: no probe reached the server, its probe never got
 * the answer the case is about (`answered`), or the client fell back but its connect ran out of `boundMs` before the
 * session worked (still under way: more time is what it needed, not a verdict).
 */
export function fallbackUnreached(fallback: Fallback, exchanges: readonly WireExchange[], outcome: CaseOutcome | undefined, boundMs: number, answered: (probe: WireExchange) => boolean): string | undefined {
  const first = fallback.probes[0];
  if (first === undefined) return `no probe reached it (${requests(exchanges, 'initialize').length > 0 ? 'the client opened with initialize' : describeCase(outcome)})`;
  if (!answered(first)) return 'its probe was never answered';
  if (!fallback.working && fallback.initializes.length > 0 && ranOutOfTime(outcome, boundMs)) {
    return `it fell back (${labels(fallback.initializes.map((r) => r.exchange))}), but the connect bound of ${boundMs} ms ran out first (${describeCase(outcome)})`;
  }
  return undefined;
}

/**
 * A case whose probe was answered but whose connect ran out of its bound before any initialize: a client that waits on
 * a legacy answer, or one too slow to start on a loaded machine — a missed deadline (CaseJudgement.late), not a break.
 */
export function fallbackLate(fallback: Fallback, outcome: CaseOutcome | undefined, boundMs: number): string | undefined {
  if (fallback.working || fallback.initializes.length > 0 || !ranOutOfTime(outcome, boundMs)) return undefined;
  return `no initialize followed within the connect bound of ${boundMs} ms — ${describeCase(outcome)}`;
}

/** What broke the fallback in a case that reached it, or undefined when it held: no initialize followed, or no session worked. */
export function fallbackBroken(fallback: Fallback, outcome: CaseOutcome | undefined): string | undefined {
  if (fallback.working) return undefined;
  return `${fallback.initializes.length > 0 ? 'initialize was sent, but no working session' : 'no initialize followed'} — ${describeCase(outcome)}`;
}

/**
 * `retries-mutual-version`: after the probe was refused with -32022 naming a version the client speaks (`refused`, the
 * exchange that carried the refusal; `what` names it), the client's next request other than initialize declares
 * 2026-07-28 in its `_meta`, no initialize followed (`initializes`), and tools/list was answered: it stayed modern.
 */
export function retriesMutualVersion(
  what: string,
  exchanges: readonly WireExchange[],
  refused: WireExchange | undefined,
  initializes: readonly WireExchange[],
  outcome: CaseOutcome | undefined,
  unreached: string | undefined,
): Check {
  const afterRefusal = refused ? requests(exchanges).filter((r) => r.exchange.seq > refused.seq) : [];
  const retry = afterRefusal.find((r) => r.message.method !== 'initialize');
  const retriedVersion = retry ? envelopeOf(retry.message)?.[META.version] : undefined;
  const retried = retry !== undefined && retriedVersion === MODERN_REVISION && initializes.length === 0 && servedResult(exchanges, 'tools/list');
  return checkIf(
    refused === undefined ? `${what}: ${unreached ?? 'the server never gave its modern error'}` : undefined,
    'retries-mutual-version',
    versioning('protocol-version-negotiation', 'Protocol Version Negotiation: the client SHOULD select a mutually supported version from `supported` and retry', 'SHOULD'),
    () => retried,
    () =>
      retried
        ? `after ${what} the client retried declaring ${MODERN_REVISION} and stayed modern (${describeCase(outcome)})`
        : `after ${what}: ${retry ? `the next request declared ${String(retriedVersion)}` : 'no modern request followed'}; ${initializes.length > 0 ? `it fell back (${labels(initializes)}); ` : ''}${describeCase(outcome)}`,
    [refused, retry?.exchange].filter((e) => e !== undefined),
  );
}

/** The tools/list and tools/call requests, and those of them whose `_meta` declares no `version` (operations of another era). */
export function operationsDeclaring(exchanges: readonly WireExchange[], version: string): { operations: SentMessage[]; others: SentMessage[] } {
  const operations = requests(exchanges).filter(({ message }) => message.method === 'tools/list' || message.method === 'tools/call');
  return { operations, others: operations.filter(({ message }) => envelopeOf(message)?.[META.version] !== version) };
}

// — the probe over stdio (2026-07-28 stdio › Backward Compatibility) —

/** The stdio binding's section on the probe and its fallback, cited at 2026-07-28 whatever revision the server speaks. */
export const stdioBackward = (section: string, level: SpecRef['level']): SpecRef => stdio(MODERN_REVISION, `Backward Compatibility: ${section}`, level, 'backward-compatibility');

/** When the server wrote its answer to the request on this stdin line, if it did. */
export function answerAt(line: WireExchange): number | undefined {
  return line.responseMessages.find(({ message }) => message.method === undefined)?.at;
}

/**
 * A probe over stdio got the answer a case is about: a probe personality acted on its line (an error, the silence, the
 * exit), or the server answered it (the era's own answer).
 */
export function stdioProbeAnswered(probe: WireExchange): boolean {
  return probe.notes.includes(PROBE_ANSWER_NOTE) || answerAt(probe) !== undefined;
}

/**
 * How long a dual-era client over stdio waits for its probe's answer at the least before taking silence for a legacy
 * server, as this suite judges it: two reaction bounds past the server reading the probe, room for a server that starts
 * slowly (the copilot-cli race: a probe timeout of 0.6 s against a server answering 1.4 s after its launch).
 */
export const reasonableProbeWaitMs = (time: TimePolicy): number => 2 * time.ms.react;

/**
 * The connect timeout of a stdio case whose server is (or may be) modern: twice the operation bound, so that a
 * reasonable probe timeout within it outlasts the start of a server on a loaded machine — an initialize sent to a modern
 * server there is the client's choice, not the load's (and would break the revision's schemas beyond any rerun).
 */
export const modernConnectMs = (time: TimePolicy): number => 2 * time.ms.operation;

/**
 * Whether an initialize after the probe is the client's reaction to the probe's answer (undefined: the server read it
 * after writing that answer), or came before any answer: the client gave up on the probe first, taking it for silence.
 * How long it waited the record cannot say (a server still starting reads both lines at once), only that it was no
 * longer than from the connect's start (`connectStartedAt`, the record's clock) to the initialize: less than
 * `reasonableProbeWaitMs`, a probe timeout too short to wait out a start (false); else perhaps a server slower than the
 * machine should make it — 'late', for a run with larger bounds to judge.
 */
export function earlyFallback(probe: WireExchange, initialize: WireExchange, time: TimePolicy, connectStartedAt: number): InTime | undefined {
  const answered = answerAt(probe);
  if (answered !== undefined && initialize.startedAt >= answered) return undefined;
  return initialize.startedAt - connectStartedAt >= reasonableProbeWaitMs(time) ? 'late' : false;
}

/**
 * `probe-first`: a dual-era client's first line, on whatever process it launched first (a sibling it probes on is one),
 * is server/discover. A client that wrote nothing because its connect ran out of time may be a slow starter: 'late'.
 */
export function probeFirst(evidence: Evidence): Check {
  const first = sentMessages(evidence).find(({ message }) => message.method !== undefined);
  return checkInTime(
    evidence.time,
    'probe-first',
    stdioBackward('a client that supports both eras SHOULD probe with server/discover before sending any other request', 'SHOULD'),
    first === undefined ? evidence.clientTimedOut === true && 'late' : first.message.method === 'server/discover',
    first ? `the first line on the server's stdin was ${first.message.method}${processOf(first.exchange) !== undefined ? ` (process ${processOf(first.exchange)})` : ''}` : 'the client wrote nothing',
    first ? [first.exchange] : [],
  );
}

// — era-appropriate answers to initialize —

/** HTTP+SSE (2024-11-05) answers travel on the stream: only the in-session POST to its endpoint is answered. */
const inSseSession = (request: { sseSession?: string }) => request.sseSession !== undefined;

/** `initialize` answered with a well-formed result naming `revision`, whatever was offered. */
export function initializeAnsweredWith(era: Revision, revision: string): Personality {
  if (!isHttpSse(era)) return initializeAnswers({ revision });
  return probeAnswers({ ...ANSWERS.initializeResult(revision), when: inSseSession });
}

/**
 * `initialize` refused with the lifecycle error form (`-32602` with `data.supported`) whenever it offers a version
 * not in `supported`: a retry offering a listed version reaches the era.
 */
export function initializeRefusedUnless(era: Revision, supported: readonly string[]): Personality {
  if (!isHttpSse(era)) return initializeAnswers({ error: { supported } });
  return probeAnswers({
    ...ANSWERS.initializeErrorForm(supported),
    when: (request) => {
      const offered = (request.message.params as { protocolVersion?: unknown } | undefined)?.protocolVersion;
      return inSseSession(request) && !(typeof offered === 'string' && supported.includes(offered));
    },
  });
}
