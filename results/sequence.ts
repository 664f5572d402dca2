// A failing case's exchange as a sequence diagram's data (report.html draws it): one lane for the client, one per
// server it talked to (the case's server, servers the script started, an authorization server when the record has
// one) or per process it launched (stdio), and one step per exchange in time order, each with what went out and what
// came back; the exchanges a failed check was decided by are marked with those checks. Pure: from a cell and its record.
import type { WireExchange } from '../servers/wire-record.ts';
import type { CaseRecord } from '../suites/scenario.ts';
import { decidingChecks, type Cell } from './results.ts';

export interface SequenceLane {
  id: string;
  label: string;
  kind: 'client' | 'server' | 'process' | 'authorization';
}

export interface SequenceStep {
  /** The exchange's number on its server (`#5`), as checks name it. */
  seq: number;
  /** The lane the client talks to (the client's is always `client`); a STDOUT message goes from it to the client. */
  lane: string;
  /** ms since the case's record began. */
  at: number;
  /** `request`: client → lane, then the answer back; `message`: the lane wrote on its own (a stdio server's line). */
  kind: 'request' | 'message';
  /** What went out: `POST tools/call#2`, `STDIN initialize#0`. */
  sent: string;
  /** What came back (or what the lane wrote): `200 sse [result#2]`, `no answer`. */
  answer: string;
  /** Headers and notes worth seeing: session id, protocol version, personality labels. */
  notes: string[];
  /** The failed (or undecided) checks this exchange decided, by name: the step is marked. */
  decided: string[];
}

/** Something that happened to a launched process (stdio): launched, stdin closed, a signal, its exit. */
export interface SequenceEvent {
  lane: string;
  at: number;
  text: string;
}

export interface SequenceModel {
  lanes: SequenceLane[];
  steps: SequenceStep[];
  events: SequenceEvent[];
  /** Exchanges left out to keep the picture readable (the ones far from a marked step). */
  omitted: number;
  clientError?: string;
}

/** At most this many steps are drawn: the marked ones and their neighbours first. */
export const MAX_STEPS = 40;

const SHOWN_HEADERS: [string, string][] = [
  ['mcp-session-id', 'session'],
  ['mcp-protocol-version', 'version'],
  ['last-event-id', 'last-event-id'],
];

function describe(message: { method?: string; id?: unknown; error?: { code: number; message: string } }): string {
  if (message.method !== undefined) return message.id === undefined ? message.method : `${message.method}#${String(message.id)}`;
  if (message.error !== undefined) return `error#${String(message.id)} ${message.error.code}`;
  return `result#${String(message.id)}`;
}

/** A short form of a header value (session ids are long UUIDs). */
const short = (value: string) => (value.length > 14 ? `${value.slice(0, 8)}…` : value);

function stepOf(exchange: WireExchange, lane: string, decided: Map<number, string[]> | undefined): SequenceStep {
  const sent = exchange.requestMessages.map(describe).join(' ');
  const answered = exchange.responseMessages.map(({ message }) => describe(message)).join(' ');
  const base = { seq: exchange.seq, lane, at: Math.round(exchange.startedAt), decided: decided?.get(exchange.seq) ?? [] };
  if (exchange.method === 'STDOUT') return { ...base, kind: 'message', sent: '', answer: answered || 'a line', notes: [...exchange.notes] };
  if (exchange.method === 'STDIN') {
    return { ...base, kind: 'request', sent: `stdin ${sent || '(not JSON-RPC)'}`, answer: answered ? `[${answered}]` : 'no answer', notes: [...exchange.notes] };
  }
  const headers = SHOWN_HEADERS.filter(([name]) => exchange.requestHeaders[name] !== undefined).map(([name, label]) => `${label} ${short(exchange.requestHeaders[name]!)}`);
  const issued = exchange.responseHeaders['mcp-session-id'];
  const status = exchange.status === undefined ? 'no answer' : `${exchange.status}${exchange.sse ? ' sse' : ''}`;
  const ended = exchange.endedBy === 'client' ? 'client closed it' : exchange.endedBy === 'server-dropped' ? 'server dropped it' : undefined;
  return {
    ...base,
    kind: 'request',
    sent: `${exchange.method}${sent ? ` ${sent}` : ` ${exchange.path}`}`,
    answer: [status, answered && `[${answered}]`].filter(Boolean).join(' '),
    notes: [...headers, ...(issued !== undefined ? [`issued session ${short(issued)}`] : []), ...(ended !== undefined ? [ended] : []), ...exchange.notes],
  };
}

/**
 * The diagram of a cell that failed, warned or could not be judged, from its record; undefined for other cells and
 * for cells without a record (results of format version 2 keep the evidence as text only).
 */
export function sequenceOf(cell: Pick<Cell, 'verdict' | 'checks'>, record: CaseRecord): SequenceModel | undefined {
  if (cell.verdict !== 'fail' && cell.verdict !== 'warn' && cell.verdict !== 'inconclusive') return undefined;
  const { evidence } = record;
  // Exchange numbers a check names are the case's own server's (the record checks are judged on).
  const decided = new Map<number, string[]>();
  for (const check of decidingChecks(cell)) for (const seq of check.exchanges) decided.set(seq, [...(decided.get(seq) ?? []), check.name]);

  const lanes: SequenceLane[] = [{ id: 'client', label: 'client', kind: 'client' }];
  const steps: SequenceStep[] = [];
  const events: SequenceEvent[] = [];
  if (evidence.stdio !== undefined) {
    // Over stdio the server is the process the client launched: a lane per process (a relaunch, a wrapper's child).
    for (const process of evidence.stdio.processes) {
      const lane = `process-${process.index}`;
      lanes.push({ id: lane, label: `process ${process.index} (${process.role})`, kind: 'process' });
      if (process.connectedAt !== undefined) events.push({ lane, at: Math.round(process.connectedAt), text: `launched${process.pid !== undefined ? `, pid ${process.pid}` : ''}` });
      if (process.stdinEofAt !== undefined) events.push({ lane, at: Math.round(process.stdinEofAt), text: 'stdin closed' });
      for (const signal of process.signals) events.push({ lane, at: Math.round(signal.at), text: signal.signal });
      if (process.exit) events.push({ lane, at: Math.round(process.exit.at), text: `exit ${process.exit.signal ?? process.exit.code}` });
      if (process.killedByHarness) events.push({ lane, at: Math.round(process.killedByHarness.at), text: 'killed by the suite' });
    }
    for (const exchange of evidence.exchanges as (WireExchange & { process?: number })[]) steps.push(stepOf(exchange, `process-${exchange.process ?? 1}`, decided));
  } else {
    lanes.push({ id: 'server', label: 'server', kind: 'server' });
    for (const exchange of evidence.exchanges) steps.push(stepOf(exchange, 'server', decided));
  }
  for (const [index, other] of evidence.otherServers.entries()) {
    const lane = `server-${index + 2}`;
    lanes.push({ id: lane, label: `server ${index + 2} (${[other.era, ...other.personalities].join(' + ')})`, kind: 'server' });
    for (const exchange of other.exchanges) steps.push(stepOf(exchange, lane, undefined));
  }
  // An authorization server's exchanges, when the record has them (its lane is drawn only then).
  const authorization = (evidence as { authorization?: { exchanges: readonly WireExchange[] } }).authorization;
  if (authorization !== undefined) {
    lanes.push({ id: 'authorization', label: 'authorization server', kind: 'authorization' });
    for (const exchange of authorization.exchanges) steps.push(stepOf(exchange, 'authorization', undefined));
  }
  steps.sort((a, b) => a.at - b.at);
  const kept = keepAroundMarked(steps);
  const shown = new Set(kept);
  const from = kept[0]?.at ?? 0;
  const to = kept.at(-1)?.at ?? Number.POSITIVE_INFINITY;
  return {
    lanes,
    steps: kept,
    events: events.filter((event) => kept.length === steps.length || (event.at >= from && event.at <= to)).sort((a, b) => a.at - b.at),
    omitted: steps.filter((step) => !shown.has(step)).length,
    ...(evidence.clientError !== undefined ? { clientError: evidence.clientError.split('\n')[0]!.slice(0, 300) } : {}),
  };
}

/** At most MAX_STEPS steps, in time order: every marked one and those nearest it, else the first ones. */
function keepAroundMarked(steps: readonly SequenceStep[]): SequenceStep[] {
  if (steps.length <= MAX_STEPS) return [...steps];
  const marked = steps.flatMap((step, index) => (step.decided.length > 0 ? [index] : []));
  if (marked.length === 0) return steps.slice(0, MAX_STEPS);
  const distance = (index: number) => Math.min(...marked.map((at) => Math.abs(at - index)));
  const chosen = steps.map((_, index) => index).sort((a, b) => distance(a) - distance(b) || a - b).slice(0, MAX_STEPS).sort((a, b) => a - b);
  return chosen.map((index) => steps[index]!);
}
