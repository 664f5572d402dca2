// What the negotiation scenarios share: spec references, reading the wire record, running one case (a connect that
// may be meant to fail) with what it ended in observed, and the per-era server answers they script.
import type { ClientConnection, ConnectOptions } from '../../clients/adapter.ts';
import { initializeAnswers } from '../../servers/personalities/initialize-answers.ts';
import { ANSWERS, probeAnswers } from '../../servers/personalities/probe-answers.ts';
import type { Personality } from '../../servers/personality.ts';
import type { ReferenceServer } from '../../servers/reference-server.ts';
import { specUrl, type Revision } from '../../protocol/revisions.ts';
import type { JsonRpcMessage, WireExchange } from '../../servers/wire-record.ts';
import { answerOf } from '../wire.ts';
import { ClientHung } from '../outcome.ts';
import type { ConnectTarget, Evidence, Level, ScenarioContext, SpecRef } from '../scenario.ts';

export const MODERN = '2026-07-28' as const;

// — spec references —

/** A section of the legacy lifecycle page at the revision under test. */
export function lifecycle(revision: Revision, anchor: string, section: string, level: Level): SpecRef {
  return { url: specUrl(revision, 'basic/lifecycle', anchor), section: `Lifecycle › ${section}`, level };
}

/**
 * The 2026-07-28 versioning page. Dual-era rules (probe, fallback, era cache) exist only from 2026-07-28 on, so
 * they are cited there even when the server under test speaks a legacy revision.
 */
export function versioning(anchor: 'protocol-version-negotiation' | 'backward-compatibility-with-initialization-based-versions', section: string, level: Level): SpecRef {
  return { url: specUrl(MODERN, 'basic/versioning', anchor), section: `Versioning › ${section}`, level };
}

/** The 2026-07-28 Streamable HTTP page. */
export function streamableHttp(anchor: string, section: string, level: Level): SpecRef {
  return { url: specUrl(MODERN, 'basic/transports/streamable-http', anchor), section: `Streamable HTTP (2026-07-28) › ${section}`, level };
}

/** The 2026-07-28 `_meta` per-request fields. */
export function requestMeta(section: string, level: Level): SpecRef {
  return { url: specUrl(MODERN, 'basic/index', 'meta'), section: `Basic › _meta: ${section}`, level };
}

// — the wire —

export const META_VERSION = 'io.modelcontextprotocol/protocolVersion';
export const META_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';
export const META_CLIENT_INFO = 'io.modelcontextprotocol/clientInfo';

export interface Sent {
  message: JsonRpcMessage;
  exchange: WireExchange;
}

/** Every JSON-RPC message the client sent in these exchanges, in arrival order. */
export function sent(exchanges: readonly WireExchange[]): Sent[] {
  return exchanges.flatMap((exchange) => exchange.requestMessages.map((message) => ({ message, exchange })));
}

/** Requests (a method and an id) of `method`, or of every method. */
export function requests(exchanges: readonly WireExchange[], method?: string): Sent[] {
  return sent(exchanges).filter(({ message }) => message.method !== undefined && message.id !== undefined && (method === undefined || message.method === method));
}

/** The exchanges carrying a message of `method`. */
export function carrying(exchanges: readonly WireExchange[], method: string): WireExchange[] {
  return exchanges.filter((exchange) => exchange.requestMessages.some((message) => message.method === method));
}

/** The server's answer to a request on the connection that carried it (HTTP+SSE: the stream that named its endpoint). */
export function answerTo(exchanges: readonly WireExchange[], request: Sent): JsonRpcMessage | undefined {
  return answerOf(exchanges, request)?.message;
}

/** When an answer was written (for the time a client took to react to it); without one, when the response head was. */
export function answeredAt(exchanges: readonly WireExchange[], request: Sent): number | undefined {
  return answerOf(exchanges, request)?.at ?? request.exchange.headersAt;
}

/** True when a request of `method` was answered with a result. */
export function servedResult(exchanges: readonly WireExchange[], method: string): boolean {
  return requests(exchanges, method).some((request) => answerTo(exchanges, request)?.result !== undefined);
}

/** The `_meta` envelope of a 2026-07-28 request, if it carries one. */
export function envelopeOf(message: JsonRpcMessage): Record<string, unknown> | undefined {
  const meta = message.params?.['_meta'];
  return meta !== null && typeof meta === 'object' ? (meta as Record<string, unknown>) : undefined;
}

/** `#3 POST initialize → 200`, for details. */
export function describeExchange(exchange: WireExchange): string {
  const methods = exchange.requestMessages.map((message) => message.method ?? 'response').join(',');
  return `#${exchange.seq} ${exchange.method}${methods ? ` ${methods}` : ''} → ${exchange.status ?? (exchange.endedBy === 'server-dropped' ? 'dropped' : 'no answer')}`;
}

export function list(exchanges: readonly WireExchange[]): string {
  return exchanges.length === 0 ? 'nothing' : exchanges.map(describeExchange).join(', ');
}

// — running a case —

/** What one case ended in, as the script observed it (times on the case's server clock). */
export interface CaseOutcome {
  /** `connected`: the connect resolved; `failed`: it rejected; `hung`: the runner's bound gave up on it. */
  connect: 'connected' | 'failed' | 'hung';
  error?: string;
  /** What `info()` reported, when connected. */
  negotiatedVersion?: string;
  era?: string;
  /** `ok`, or the error of the `tools/list` made after connecting. */
  listTools?: string;
  startedAt: number;
  settledAt: number;
}

const describeError = (error: unknown) => (error instanceof Error ? `${error.constructor.name}: ${error.message}` : String(error));

/**
 * Connects (to `target.server`, default the scenario's server), reports what the connect ended in, and when it
 * connected lists the tools and closes. A failed or hung connect is an outcome, not a client error: the judge
 * decides. Failures of `info()`, `listTools` or `close` after a successful connect are outcomes too (`listTools`),
 * except a hung close, which is the client's error.
 */
export async function runCase(
  context: ScenarioContext<unknown>,
  name: string,
  options: Partial<ConnectOptions>,
  target: ConnectTarget = {},
  afterConnect?: (connection: ClientConnection) => Promise<void>,
): Promise<CaseOutcome> {
  const server = target.server ?? context.server;
  const startedAt = server.record.now();
  let outcome: CaseOutcome;
  let connection: ClientConnection | undefined;
  try {
    connection = await context.connect(options, target);
    outcome = { connect: 'connected', startedAt, settledAt: server.record.now() };
  } catch (error) {
    outcome = { connect: error instanceof ClientHung ? 'hung' : 'failed', error: describeError(error), startedAt, settledAt: server.record.now() };
  }
  if (connection) {
    try {
      const info = await context.bounded(connection.info(), `info (${name})`);
      if (info.negotiatedVersion !== undefined) outcome.negotiatedVersion = info.negotiatedVersion;
      if (info.era !== undefined) outcome.era = info.era;
      await context.bounded(connection.listTools(), `tools/list (${name})`);
      outcome.listTools = 'ok';
      await afterConnect?.(connection);
    } catch (error) {
      outcome.listTools = describeError(error);
    }
    await context.bounded(connection.close(), `close (${name})`);
  }
  context.observe(`case:${name}`, outcome);
  return outcome;
}

export function outcomeOf(evidence: Evidence, name: string): CaseOutcome | undefined {
  return evidence.observed[`case:${name}`] as CaseOutcome | undefined;
}

export function describeOutcome(outcome: CaseOutcome | undefined): string {
  if (outcome === undefined) return 'the case did not run';
  if (outcome.connect !== 'connected') return `the connect ${outcome.connect === 'hung' ? 'hung' : `failed (${outcome.error})`}`;
  return `connected${outcome.era ? ` (${outcome.era}${outcome.negotiatedVersion ? ` ${outcome.negotiatedVersion}` : ''})` : ''}${outcome.listTools === 'ok' ? ', tools/list answered' : outcome.listTools ? `, tools/list failed (${outcome.listTools})` : ''}`;
}

/**
 * A quiet window: waits up to `ms` for `predicate` to become true on the server's record (something the client
 * must not send), and returns early when it does. The one timed wait the scenarios use; short on purpose.
 */
export async function quietWindow(server: ReferenceServer, what: string, predicate: (exchanges: readonly WireExchange[]) => boolean, ms = 150): Promise<void> {
  await server.record.waitFor((record) => predicate(record.exchanges), what, ms).catch(() => {});
}

/** How the evidence explanation names a case's server: `server 1` is the scenario's own (`index` -1). */
export function serverName(index: number): string {
  return `server ${index + 2}`;
}

/** The exchanges of one case's server: the scenario's own (`index` -1) or the one started `index`-th. */
export function caseExchanges(evidence: Evidence, index: number): readonly WireExchange[] | undefined {
  return index < 0 ? evidence.exchanges : evidence.otherServers[index]?.exchanges;
}

// — era-appropriate answers to initialize —

/** HTTP+SSE (2024-11-05) answers travel on the stream: only the in-session POST to its endpoint is answered. */
const inSseSession = (request: { sseSession?: string }) => request.sseSession !== undefined;

/** `initialize` answered with a well-formed result naming `revision`, whatever was offered. */
export function initializeAnsweredWith(era: Revision, revision: string): Personality {
  if (era !== '2024-11-05') return initializeAnswers({ revision });
  return probeAnswers({ ...ANSWERS.initializeResult(revision), when: inSseSession });
}

/**
 * `initialize` refused with the lifecycle error form (`-32602` with `data.supported`) whenever it offers a version
 * not in `supported`: a retry offering a listed version reaches the era.
 */
export function initializeRefusedUnless(era: Revision, supported: readonly string[]): Personality {
  if (era !== '2024-11-05') return initializeAnswers({ error: { supported } });
  return probeAnswers({
    ...ANSWERS.initializeErrorForm(supported),
    when: (request) => {
      const offered = (request.message.params as { protocolVersion?: unknown } | undefined)?.protocolVersion;
      return inSseSession(request) && !(typeof offered === 'string' && supported.includes(offered));
    },
  });
}
