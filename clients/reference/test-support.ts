// What the reference client's own tests share: real servers and clients cleaned up after each test, and a
// compact view of the wire record. Only tests import this module.
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import type { ConnectOptions, StdioTarget } from '../adapter.ts';
import { basePolicy } from '../../config/settings.ts';
import type { Era } from '../../servers/era.ts';
import type { Personality } from '../../servers/personality.ts';
import type { ReferenceServer } from '../../servers/reference-server.ts';
import { startReferenceServer } from '../../servers/server.ts';
import type { WireExchange, WireRecord } from '../../servers/wire-record.ts';
import { ReferenceClient, type ReferenceClientOptions } from './client.ts';

/** The suite's time policy (config/time.ts): every bound of these tests derives from it. */
export const POLICY = basePolicy();
/** The bound each connect and operation of a test gets, and each wait for the server to see something: a safety net, never what a test measures. */
export const BOUND_MS = POLICY.ms.operation;
export const CONNECT: ConnectOptions = { timeoutMs: BOUND_MS };

const cleanups: (() => Promise<unknown>)[] = [];

afterEach(async () => {
  // Clients first (they may still be talking), then the servers.
  const pending = cleanups.splice(0).reverse();
  for (const cleanup of pending) await cleanup();
});

export async function serve(era: Era, personalities: readonly Personality[] = [], port?: number): Promise<ReferenceServer> {
  const server = await startReferenceServer({ era, personalities, ...(port === undefined ? {} : { port }) });
  cleanups.unshift(() => server.close());
  return server;
}

export function newClient(options: ReferenceClientOptions = {}): ReferenceClient {
  const client = new ReferenceClient(options);
  cleanups.push(() => client.dispose());
  return client;
}

/** One line per JSON-RPC message (or bare request): `POST tools/list#3 → 200`, `DELETE → 200`, `GET → 200`. */
export function describeExchange(exchange: WireExchange): string {
  const messages = exchange.requestMessages.map((m) => `${m.method ?? (m.error ? 'error' : 'result')}${m.id !== undefined && m.id !== null ? `#${m.id}` : ''}`);
  return `${exchange.method}${messages.length > 0 ? ` ${messages.join(',')}` : ''} → ${exchange.status ?? (exchange.endedBy === 'server-dropped' ? 'dropped' : '-')}`;
}

/** `POST initialize`, `POST notifications/initialized`, `DELETE`, … in arrival order (no ids, no statuses). */
export function methods(record: WireRecord): string[] {
  return record.exchanges.map((e) => `${e.method}${e.requestMessages[0]?.method ? ` ${e.requestMessages[0].method}` : ''}`);
}

/** The exchanges carrying a JSON-RPC message of `method` (or of every method when omitted). */
export function carrying(record: WireRecord, method: string): WireExchange[] {
  return record.exchanges.filter((e) => e.requestMessages.some((m) => m.method === method));
}

export function header(exchange: WireExchange | undefined, name: string): string | undefined {
  return exchange?.requestHeaders[name];
}

/** Every exchange after the first one carrying `method`. */
export function after(record: WireRecord, method: string): WireExchange[] {
  const index = record.exchanges.findIndex((e) => e.requestMessages.some((m) => m.method === method));
  return index < 0 ? [] : record.exchanges.slice(index + 1);
}

/** Waits until every exchange of the record has ended (the server finished or the client hung up). */
export function settled(record: WireRecord, what = 'every exchange to end'): Promise<void> {
  return record.waitFor((r) => r.exchanges.every((e) => e.endedBy !== undefined), what, BOUND_MS);
}

/** The rejection of a promise that must reject (fails the test if it resolves). */
export async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a rejection, got a result');
}

/**
 * A scripted answer, for what no reference personality produces: the next `count` requests for which `matches`
 * holds get `status` and `body` (JSON when not a string) instead of reaching the era. Noted `scripted`.
 */
export function scripted(matches: (body: unknown, method: string) => boolean, status: number, answer: unknown, count = 1): Personality {
  let remaining = count;
  return {
    name: 'scripted',
    async middleware({ req, res, exchange, body: parsed, record }, next) {
      if (remaining <= 0 || !matches(parsed, req.method ?? '')) return next();
      remaining -= 1;
      record.note(exchange, 'scripted');
      const body = typeof answer === 'function' ? (answer as (request: unknown) => unknown)(parsed) : answer;
      const text = typeof body === 'string' ? body : JSON.stringify(body);
      const type = typeof body === 'string' ? 'text/plain' : 'application/json';
      res.writeHead(status, text === '' ? {} : { 'content-type': type }).end(text);
    },
  };
}

/** True for a body whose (first) JSON-RPC message has this method. */
export function isMethod(method: string): (body: unknown) => boolean {
  return (body) => (Array.isArray(body) ? body[0] : (body as { method?: unknown } | undefined))?.method === method;
}

/** A JSON-RPC error response to the request it answers (its id echoed). */
export function errorFor(code: number, message: string, data?: unknown): (request: unknown) => unknown {
  return (request) => ({ jsonrpc: '2.0', id: (request as { id?: unknown } | undefined)?.id ?? null, error: { code, message, ...(data === undefined ? {} : { data }) } });
}

// — stdio —

/** The small stdio server of these tests (testdata/stdio-server.ts), which logs what it sees to a file. */
export const STDIO_SERVER = join(import.meta.dirname, 'testdata', 'stdio-server.ts');

/** The connect options of a stdio test: the graces of the policy's reaction time. */
export const STDIO_CONNECT: ConnectOptions = { timeoutMs: BOUND_MS, shutdownGraceMs: POLICY.ms.react };

export type StdioEvent =
  | { type: 'start'; pid: number; at: number }
  | { type: 'stdin'; bytes: string; at: number }
  | { type: 'eof'; at: number }
  | { type: 'signal'; signal: string; at: number }
  | { type: 'exit'; code: number; at: number }
  | { type: 'descendant'; pid: number; at: number }
  | { type: 'unparsable'; line: string; at: number };

export interface StdioTestServer {
  target: StdioTarget;
  /** Every event of every process launched from the target, in order per process (one file each). */
  events(): StdioEvent[][];
  /** What the (first, or n-th) process received on stdin, as text. */
  stdin(process?: number): string;
  /** The messages it received, one per line (a line that is not JSON is kept as its text). */
  lines(process?: number): unknown[];
  /** Every pid it and its descendants had. */
  pids(): number[];
}

/** Whether a process is running (not a zombie), from /proc. */
export function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

/**
 * A target launching the test server with these STDIO_TEST_* settings (names without the prefix). Each process it
 * launches logs to a file of its own; afterwards any process still running is killed (SIGKILL) and the files removed.
 */
export function stdioServer(settings: Record<string, string> = {}): StdioTestServer {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-stdio-test-'));
  // A process-unique file per launch: the shell wrapper is avoided, so the server picks its own name from its pid.
  const env = Object.fromEntries(Object.entries(settings).map(([name, value]) => [`STDIO_TEST_${name}`, value]));
  const target: StdioTarget = { transport: 'stdio', command: process.execPath, args: [STDIO_SERVER], env: { ...env, STDIO_TEST_EVENTS_DIR: dir } };
  const files = () =>
    readdirSync(dir)
      .filter((name) => name.endsWith('.jsonl'))
      .sort((a, b) => Number(a.split('-')[0]) - Number(b.split('-')[0]));
  const events = () => files().map((name) => readFileSync(join(dir, name), 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as StdioEvent));
  const stdin = (index = 0) =>
    Buffer.concat((events()[index] ?? []).flatMap((event) => (event.type === 'stdin' ? [Buffer.from(event.bytes, 'base64')] : []))).toString('utf8');
  const pids = () => events().flatMap((list) => list.flatMap((event) => (event.type === 'start' || event.type === 'descendant' ? [event.pid] : [])));
  cleanups.push(async () => {
    for (const pid of pids()) {
      try {
        if (running(pid)) process.kill(pid, 'SIGKILL');
      } catch {
        // gone meanwhile
      }
    }
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    target,
    events,
    stdin,
    lines: (index = 0) =>
      stdin(index)
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => {
          try {
            return JSON.parse(line) as unknown;
          } catch {
            return line;
          }
        }),
    pids,
  };
}

/** Polls (bounded by BOUND_MS) until `condition` holds: for state outside this process, which sends no events. */
export async function eventually(condition: () => boolean, what: string): Promise<void> {
  const deadline = performance.now() + BOUND_MS;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`timed out after ${BOUND_MS} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
