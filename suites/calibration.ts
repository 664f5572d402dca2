// Calibration: what a client needs to start and connect, measured once per run against a plain server, so the
// scenarios that bound a connect are sized for this client (a process, a JVM, a proxy that starts its own process)
// and judge its behaviour, not its start-up. Measured twice (a first start pays for module loading and caches), the
// slower of the two kept; config/time.ts turns it into the `startup` bound. Per transport: over stdio the connect
// includes launching the server (a process that loads its SDK), so stdio cases are sized by a stdio connect.
import type { ClientAdapter, ClientUnderTest, Negotiation, Transport } from '../clients/adapter.ts';
import { stdioShutdownGraceMs, type TimePolicy } from '../config/time.ts';
import { REVISIONS, isModern, type Revision } from '../protocol/revisions.ts';
import { startReferenceServer } from '../servers/server.ts';
import { startStdioServer } from '../servers/stdio/harness.ts';


/** Runs measured: the slower one counts. */
const RUNS = 2;

const measured = new WeakMap<ClientAdapter, Map<Transport, Promise<number | undefined>>>();

/** The revision and mode a plain connect uses: the newest legacy revision the client speaks, else 2026-07-28. */
function plainCase(adapter: ClientAdapter): { revision: Revision; negotiation: Negotiation } | undefined {
  const has = (feature: string) => (adapter.features as readonly string[]).includes(feature);
  for (const revision of [...REVISIONS].reverse().filter((r) => !isModern(r))) {
    if (!adapter.revisions.includes(revision)) continue;
    if (has('mode-legacy')) return { revision, negotiation: 'legacy' };
    if (has('mode-auto')) return { revision, negotiation: 'auto' };
  }
  const modern = REVISIONS.find(isModern)!;
  if (!adapter.revisions.includes(modern)) return undefined;
  if (has('mode-pin')) return { revision: modern, negotiation: { pin: modern } };
  return has('mode-auto') ? { revision: modern, negotiation: 'auto' } : undefined;
}

const within = <T>(operation: Promise<T>, ms: number): Promise<T> =>
  new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`calibration: no answer within ${ms} ms`)), ms);
    operation.then(resolve, reject).finally(() => clearTimeout(timer));
  });

/** One start → connect → tools/list → close → dispose, in milliseconds; undefined when any step failed. */
async function once(adapter: ClientAdapter, run: number, policy: TimePolicy, enter: Enter, transport: Transport): Promise<number | undefined> {
  const plain = plainCase(adapter);
  if (!plain) return undefined;
  const server =
    transport === 'stdio'
      ? await startStdioServer({ era: plain.revision, policy }).then((stdio) => ({ target: stdio.target, close: () => stdio.close() }))
      : await startReferenceServer({ era: plain.revision }).then((http) => ({ target: http.url, close: () => http.close() }));
  // One bound on the whole run: a client that hangs costs it once, and then keeps the base bounds.
  const bound = policy.ms.operation * 2;
  let client: ClientUnderTest | undefined;
  const started = performance.now();
  const steps = async () => {
    client = await enter(() => adapter.start(`calibration#${run}`));
    const connection = await client.connect(server.target, { timeoutMs: bound, negotiation: plain.negotiation, ...(transport === 'stdio' ? { shutdownGraceMs: stdioShutdownGraceMs(policy) } : {}) });
    await connection.listTools();
    await connection.close();
  };
  try {
    await within(enter(steps), bound);
    return performance.now() - started;
  } catch {
    // A client that cannot connect to a plain server is judged by the scenarios; its bounds stay the base ones.
    return undefined;
  } finally {
    const begun = client as ClientUnderTest | undefined;
    if (begun) await within(Promise.resolve().then(() => enter(() => begun.dispose())), policy.ms.operation).catch(() => {});
    await server.close();
  }
}

/** Runs a call into the client where the runner traces what it leaves behind (its timers), as in a case. */
export type Enter = <T>(call: () => T) => T;

/**
 * The client's measured start-up in ms over a transport (memoized per adapter and transport for the run), or undefined
 * when it could not be measured.
 */
export function calibrate(adapter: ClientAdapter, policy: TimePolicy, enter: Enter = (call) => call(), transport: Transport = 'http'): Promise<number | undefined> {
  const byTransport = measured.get(adapter) ?? new Map<Transport, Promise<number | undefined>>();
  measured.set(adapter, byTransport);
  let found = byTransport.get(transport);
  if (!found) {
    found = (async () => {
      const runs: number[] = [];
      for (let run = 1; run <= RUNS; run++) {
        const ms = await once(adapter, run, policy, enter, transport);
        if (ms === undefined) return undefined;
        runs.push(ms);
      }
      return Math.round(Math.max(...runs));
    })();
    byTransport.set(transport, found);
  }
  return found;
}
