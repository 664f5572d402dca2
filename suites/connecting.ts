// A client may connect lazily (clients/adapter.ts): connect() resolves having sent nothing, and its first operation does
// the handshake. A script whose rule is about connecting, or that needs the client's session up before it acts, tells
// such a connect by the wire (nothing reached the server while it ran) and drives that first operation.
import type { ClientConnection, ConnectOptions } from '../clients/adapter.ts';
import type { ExchangeRecord } from '../servers/wire-record.ts';
import { FIXTURE_TOOLS } from '../servers/fixtures.ts';
import { outcomeOf, settle, type Outcome } from './outcome.ts';
import type { Evidence, ScenarioContext } from './scenario.ts';

/** How much a record held at a moment: its exchanges and, over stdio, the processes launched from the target. */
export interface WireMark {
  exchanges: number;
  processes: number;
}

export function markOf(record: ExchangeRecord): WireMark {
  return { exchanges: record.exchanges.length, processes: (record as { processes?: readonly unknown[] }).processes?.length ?? 0 };
}

/**
 * Nothing reached the server since `mark`: no exchange and, over stdio, no process launched. Asked when a connect has
 * resolved, it tells a lazy connect: an eager one resolves only once its handshake was answered (over stdio the runner's
 * connect also waits for the launched server to report, so a launch is seen by then).
 */
export function nothingSince(record: ExchangeRecord, mark: WireMark): boolean {
  const now = markOf(record);
  return now.exchanges === mark.exchanges && now.processes === mark.processes;
}

/** The text of the echo call a script makes as a lazy client's first operation. */
export const FIRST_OPERATION_TEXT = 'the first operation';

/**
 * A lazy client's first operation, which does its handshake: an echo call, which always reaches the server (a listing
 * may be answered from a client's cache).
 */
export function firstOperation(client: ClientConnection, bounded: ScenarioContext['bounded']): Promise<unknown> {
  return bounded(client.callTool(FIXTURE_TOOLS.echo, { text: FIRST_OPERATION_TEXT }), 'tools/call echo (the first operation, after a connect that sent nothing)');
}

/** Where `connectObserved` records the connect, and a lazy client's first operation. */
export const CONNECT = 'connect';
export const FIRST_OPERATION = 'firstOperation';

/**
 * Connects and records what the connect came to (CONNECT); when it resolved with nothing on the wire (a lazy connect),
 * drives the first operation, whose handshake is then the connect's, and records what that came to (FIRST_OPERATION).
 * Each outcome's time counts from `fromMs` after its start (the moment it should have given up, say).
 */
export async function connectObserved(context: Pick<ScenarioContext<unknown>, 'connect' | 'wire' | 'observe' | 'bounded'>, options: Partial<ConnectOptions>, fromMs = 0): Promise<void> {
  const { connect, wire, observe, bounded } = context;
  const mark = markOf(wire.record);
  let client: ClientConnection | undefined;
  observe(CONNECT, await settle(connect(options).then((connected) => (client = connected)), performance.now() + fromMs));
  if (client !== undefined && nothingSince(wire.record, mark)) observe(FIRST_OPERATION, await settle(firstOperation(client, bounded), performance.now() + fromMs));
}

/** What connecting came to, as `connectObserved` recorded it: a lazy client's first operation (`lazy`), else the connect. */
export function connectingOf(evidence: Pick<Evidence, 'observed'>): { outcome: Outcome | undefined; lazy: boolean } {
  const first = outcomeOf(evidence, FIRST_OPERATION);
  return first !== undefined ? { outcome: first, lazy: true } : { outcome: outcomeOf(evidence, CONNECT), lazy: false };
}
