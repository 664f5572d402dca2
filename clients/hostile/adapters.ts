// Hostile clients, as test fixtures: the reference client with exactly one hostile behaviour added (a hang, a
// synchronous throw, a garbage return, a leak), so every other operation is real and a scenario runs on the wire as
// usual. They prove the suite stays in charge of a run whatever the client does (clients/hostile/hostile.test.ts).
// The modules in ./modules export some of them for `run --adapter` and the Node driver (out of process).
import { connect as tcpConnect, type Socket } from 'node:net';
import { PassThrough } from 'node:stream';
import { Agent, request } from 'undici';
import type { ClientAdapter, ClientConnection, ClientUnderTest } from '../adapter.ts';
import { createReferenceClient, REFERENCE_FEATURES } from '../reference/index.ts';
import type { Revision } from '../../protocol/revisions.ts';

/** The operations a hostile client can misbehave in. */
export type Operation = 'start' | 'connect' | 'info' | 'listTools' | 'callTool' | 'close' | 'dispose';

/** What a garbage return is. */
export const GARBAGE = {
  'start-null': 'start() resolves to null',
  'connect-null': 'connect() resolves to null',
  'connect-number': 'connect() resolves to 42',
  'connect-without-methods': 'connect() resolves to an object with info() only',
  'listTools-string': 'listTools() resolves to a string',
  'info-string': 'info() resolves to a string',
  'info-function-members': 'info() resolves to an object whose members are functions (not cloneable)',
  'callTool-rejects-null-prototype': 'callTool() rejects with an object that has no prototype (String() of it throws)',
} as const;
export type Garbage = keyof typeof GARBAGE;

export type Leak = 'raw-sockets' | 'open-requests' | 'keep-alive' | 'interval';

export type Hostility =
  /** The operation returns a promise that never settles. */
  | { hangs: Operation }
  /** The operation throws before returning a promise (it is not an async function). */
  | { throws: Exclude<Operation, 'info' | 'listTools'> }
  | { returns: Garbage }
  /**
   * raw-sockets: on connect, opens `count` bare TCP connections to the server (no request on them) and never closes
   * them. open-requests: on connect, starts `count` POSTs through its own undici keep-alive Agent whose bodies never
   * end (with the session's headers, so a judge reading headers sees nothing else wrong), and never closes the Agent.
   * keep-alive: on dispose, sends `count` concurrent requests through its own undici Agent with a long keep-alive and
   * never closes it, so `count` idle pooled sockets stay (sent at dispose so the scenario's wire record, taken when its
   * script ends, does not see them). interval: on connect, starts a setInterval it never clears.
   */
  | { leaks: Leak; count?: number };

/** The revision the hostile clients speak: one, so a `run` through the command line is one case per scenario. */
export const HOSTILE_REVISION: Revision = '2025-06-18';

export const THROWN_MESSAGE = 'hostile client throws synchronously';

// What the leaking clients leave behind, across instances (in process, a client's leftovers outlive it): tests
// release it at the end, after proving the suite coped.
const leftovers = { sockets: new Set<Socket>(), agents: new Set<Agent>(), intervals: new Set<NodeJS.Timeout>() };

/** What the leaking clients still hold: sockets not destroyed, agents not closed, intervals not cleared. */
export function leaked(): { sockets: number; agents: number; intervals: number } {
  return { sockets: [...leftovers.sockets].filter((s) => !s.destroyed).length, agents: leftovers.agents.size, intervals: leftovers.intervals.size };
}

/** Ends everything the leaking clients left behind (what the suite itself cannot reach in process). */
export async function releaseLeaks(): Promise<void> {
  for (const socket of leftovers.sockets) socket.destroy();
  for (const interval of leftovers.intervals) clearInterval(interval);
  await Promise.all([...leftovers.agents].map((agent) => agent.destroy()));
  leftovers.sockets.clear();
  leftovers.intervals.clear();
  leftovers.agents.clear();
}

const never = <T>(): Promise<T> => new Promise<T>(() => {});

function label(hostility: Hostility): string {
  if ('hangs' in hostility) return `hangs-in-${hostility.hangs}`;
  if ('throws' in hostility) return `throws-in-${hostility.throws}`;
  if ('returns' in hostility) return `returns-${hostility.returns}`;
  return `leaks-${hostility.leaks}`;
}

function explain(hostility: Hostility): string {
  if ('hangs' in hostility) return `${hostility.hangs}() never settles`;
  if ('throws' in hostility) return `${hostility.throws}() throws synchronously`;
  if ('returns' in hostility) return GARBAGE[hostility.returns];
  return `it leaks ${hostility.leaks}`;
}

function throwNow(operation: Operation): never {
  throw new TypeError(`${THROWN_MESSAGE} in ${operation}`);
}

function openRawSockets(url: string, count: number): Promise<void> {
  const { hostname, port } = new URL(url);
  return Promise.all(
    Array.from({ length: count }, () => {
      const socket = tcpConnect({ host: hostname, port: Number(port) });
      leftovers.sockets.add(socket);
      // The server ends them when it closes: that is no error of the test's.
      socket.on('error', () => {});
      return new Promise<void>((resolve) => socket.once('connect', resolve).once('close', resolve));
    }),
  ).then(() => {});
}

async function leaveKeepAliveSockets(url: string, count: number): Promise<void> {
  // The server asks for `Keep-Alive: timeout=1`; with no threshold undici keeps each socket that long, as a pool would.
  const agent = new Agent({ connections: count, keepAliveTimeout: 600_000, keepAliveMaxTimeout: 600_000, keepAliveTimeoutThreshold: 0 });
  leftovers.agents.add(agent);
  // Concurrent, so each takes its own socket; each body is read to its end, so each socket goes back to the pool idle.
  await Promise.all(
    Array.from({ length: count }, async () => {
      const answer = await request(url, { method: 'GET', dispatcher: agent, headers: { accept: 'text/event-stream' } });
      await answer.body.text();
    }),
  );
}

async function leaveRequestsOpen(url: string, count: number, connection: ClientConnection): Promise<void> {
  const { negotiatedVersion, sessionId } = await connection.info();
  const agent = new Agent({ connections: count, keepAliveTimeout: 600_000, keepAliveMaxTimeout: 600_000 });
  leftovers.agents.add(agent);
  const headers = { 'content-type': 'application/json', 'content-length': '1024', 'mcp-protocol-version': negotiatedVersion ?? '', 'mcp-session-id': sessionId ?? '' };
  for (let i = 0; i < count; i++) {
    // A body promised 1 KiB long that stops after one byte: the request stays open until someone ends the connection.
    const body = new PassThrough();
    body.write('{');
    // It ends when the server closes the connection: that is no error of the test's.
    void request(url, { method: 'POST', dispatcher: agent, body, headers }).catch(() => {});
  }
}

function hostileConnection(real: ClientConnection, hostility: Hostility): ClientConnection {
  const hangs = 'hangs' in hostility ? hostility.hangs : undefined;
  const returns = 'returns' in hostility ? hostility.returns : undefined;
  return {
    info() {
      if (hangs === 'info') return never();
      if (returns === 'info-string') return Promise.resolve('2025-06-18' as never);
      if (returns === 'info-function-members') return Promise.resolve({ negotiatedVersion: (() => '2025-06-18') as never, era: Symbol('legacy') as never });
      return real.info();
    },
    listTools(options) {
      if (hangs === 'listTools') return never();
      if (returns === 'listTools-string') return Promise.resolve('echo' as never);
      return real.listTools(options);
    },
    callTool(name, args, options) {
      if (hangs === 'callTool') return never();
      if ('throws' in hostility && hostility.throws === 'callTool') throwNow('callTool');
      if (returns === 'callTool-rejects-null-prototype') return Promise.reject(Object.assign(Object.create(null), { message: 'no prototype' }));
      return real.callTool(name, args, options);
    },
    close() {
      if (hangs === 'close') return never();
      if ('throws' in hostility && hostility.throws === 'close') throwNow('close');
      return real.close();
    },
  };
}

function hostileClient(hostility: Hostility, urls: string[]): ClientUnderTest {
  const real = createReferenceClient();
  const hangs = 'hangs' in hostility ? hostility.hangs : undefined;
  const throws = 'throws' in hostility ? hostility.throws : undefined;
  const returns = 'returns' in hostility ? hostility.returns : undefined;
  const leaks = 'leaks' in hostility ? hostility.leaks : undefined;
  const count = 'leaks' in hostility ? (hostility.count ?? 4) : 0;
  let lastUrl: string | undefined;
  return {
    connect(url: string, options) {
      urls.push(url);
      if (hangs === 'connect') return never();
      if (throws === 'connect') throwNow('connect');
      if (returns === 'connect-null') return Promise.resolve(null as never);
      if (returns === 'connect-number') return Promise.resolve(42 as never);
      if (returns === 'connect-without-methods') return Promise.resolve({ info: async () => ({}) } as never);
      lastUrl = url;
      return (async () => {
        const connection = await real.connect(url, options);
        if (leaks === 'raw-sockets') await openRawSockets(url, count);
        if (leaks === 'open-requests') await leaveRequestsOpen(url, count, connection);
        if (leaks === 'interval') leftovers.intervals.add(setInterval(() => {}, 60_000));
        return hostileConnection(connection, hostility);
      })();
    },
    dispose() {
      if (hangs === 'dispose') return never();
      if (throws === 'dispose') throwNow('dispose');
      return (async () => {
        await real.dispose();
        if (leaks === 'keep-alive' && lastUrl !== undefined) await leaveKeepAliveSockets(lastUrl, count);
      })();
    },
  };
}

export interface HostileAdapter extends ClientAdapter {
  /** Every URL its clients were told to connect to (so a test can check those servers are gone). */
  readonly urls: string[];
}

/** A hostile adapter: the reference client (every feature) at HOSTILE_REVISION, with one hostile behaviour. */
export function hostileAdapter(hostility: Hostility): HostileAdapter {
  const name = `hostile-${label(hostility)}`;
  const urls: string[] = [];
  return {
    name,
    urls,
    description: `a hostile test client: the reference client, except that ${explain(hostility)}`,
    revisions: [HOSTILE_REVISION],
    features: REFERENCE_FEATURES,
    start() {
      if ('hangs' in hostility && hostility.hangs === 'start') return never();
      if ('throws' in hostility && hostility.throws === 'start') throwNow('start');
      if ('returns' in hostility && hostility.returns === 'start-null') return Promise.resolve(null as never);
      return Promise.resolve(hostileClient(hostility, urls));
    },
  };
}
