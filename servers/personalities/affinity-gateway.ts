// A gateway in front of two instances of the era server that routes by `Mcp-Session-Id` (seed 000:
// "AgentHub routes serverless MCP instances by mcp-session-id"; scenario resume/affinity-first-request).
//
// Instance A is the era server the front is placed in front of; instance B is started with
// FrontDependencies.startInstance() (the server owns and closes both). Each request is routed:
// 1. with a key (`Mcp-Session-Id`) that is pinned: to the pinned instance;
// 2. with a key not pinned yet (a client-minted affinity key, or an id no instance issued through
//    this gateway): by hash — the first byte of SHA-256(key), even → A, odd → B — and the key is
//    pinned there, so the same key always lands on the same instance whatever traffic came before;
// 3. without a key (a legacy initialize, anything keyless): round-robin A, B, A, … over keyless
//    requests only.
// When a response carries an `Mcp-Session-Id` that is not pinned yet (the id a legacy backend
// issues with the InitializeResult), it is pinned to the instance that sent it, before the client
// sees the response. `pin(key, instance)` overrides a pin: a session sent to an instance that never
// issued it gets that backend's own unknown-session answer. Each exchange is noted `instance:A|B`.
import { createHash } from 'node:crypto';
import type { Personality } from '../personality.ts';
import { startProxy } from './proxy.ts';

export const INSTANCES = ['A', 'B'] as const;
export type InstanceName = (typeof INSTANCES)[number];

export interface Route {
  /** The front exchange's seq. */
  seq: number;
  instance: InstanceName;
  /** The request's `Mcp-Session-Id`, if any. */
  key?: string;
  by: 'pin' | 'hash' | 'round-robin';
}

export interface AffinityGateway extends Personality {
  /** How each front exchange was routed, in arrival order. */
  routes(): Route[];
  /** The instance that served the front exchange with this seq. */
  instanceOf(seq: number): InstanceName | undefined;
  /** Every pinned key and its instance. */
  pins(): Record<string, InstanceName>;
  /** (Re)pins a key: later requests with it go to `instance`, whichever issued it. */
  pin(key: string, instance: InstanceName): void;
}

/** Where an unpinned key goes: the first byte of SHA-256(key), even → A, odd → B. */
export function hashInstance(key: string): InstanceName {
  return createHash('sha256').update(key).digest()[0]! % 2 === 0 ? 'A' : 'B';
}

const SESSION_HEADER = 'mcp-session-id';

export function affinityGateway(): AffinityGateway {
  const pinned = new Map<string, InstanceName>();
  const routes: Route[] = [];
  let turn = 0;

  const choose = (key: string | undefined): Omit<Route, 'seq'> => {
    if (key === undefined) return { instance: INSTANCES[turn++ % INSTANCES.length]!, by: 'round-robin' };
    const pin = pinned.get(key);
    if (pin !== undefined) return { instance: pin, key, by: 'pin' };
    const instance = hashInstance(key);
    pinned.set(key, instance);
    return { instance, key, by: 'hash' };
  };

  return {
    name: 'affinity-gateway',
    eras: ['2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28', 'dual', 'stateless'],
    routes: () => routes.map((route) => ({ ...route })),
    instanceOf: (seq) => routes.find((route) => route.seq === seq)?.instance,
    pins: () => Object.fromEntries(pinned),
    pin(key, instance) {
      pinned.set(key, instance);
    },
    async front({ backendUrl, recording, startInstance }) {
      const second = await startInstance();
      const origins: Record<InstanceName, string> = { A: new URL(backendUrl).origin, B: new URL(second.url).origin };
      return startProxy({
        backendUrl,
        recording,
        route({ exchange, record }) {
          const route = { seq: exchange.seq, ...choose(exchange.requestHeaders[SESSION_HEADER]) };
          routes.push(route);
          record.note(exchange, `instance:${route.instance}`);
          return origins[route.instance];
        },
        rewriteHead({ exchange }, head) {
          const issued = head.headers[SESSION_HEADER];
          const instance = routes.find((route) => route.seq === exchange.seq)?.instance;
          if (typeof issued === 'string' && instance !== undefined && !pinned.has(issued)) pinned.set(issued, instance);
        },
      });
    },
  };
}
