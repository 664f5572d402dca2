// Runs one scenario against one adapter at one revision: a fresh server, the script, a snapshot, the judge.
//
// The client is not trusted to keep the adapter contract: every call into it goes through `invoke`, so a synchronous
// throw, a garbage return or a hang is reported as what it is (ClientMisbehaved, ClientHung) and never escapes into the
// runner; cleanup always ends with the servers closed; and what the client leaves behind after dispose (connections
// to the servers, running timers, over stdio processes of the server it launched) is reported as informational (MAY)
// findings, so it never changes a verdict. A stdio scenario has no HTTP server: the client is given the stdio server's
// target to launch, and the stdio server's close() kills whatever of it is still running.
import { AsyncLocalStorage, createHook } from 'node:async_hooks';
import { featureFor, HANDLER_FEATURES, transportsOf, type ClientAdapter, type Negotiation, type ClientConnection, type ClientUnderTest, type ConnectOptions, type Feature, type Transport } from '../clients/adapter.ts';
import { connectionsClosed, type OpenConnection } from '../servers/listen.ts';
import type { ReferenceServer } from '../servers/reference-server.ts';
import type { Personality } from '../servers/personality.ts';
import type { Revision } from '../protocol/revisions.ts';
import { startReferenceServer } from '../servers/server.ts';
import { isAlive, startStdioServer, type StdioReferenceServer } from '../servers/stdio/harness.ts';
import { basePolicy, settings } from '../config/settings.ts';
import { ATTEMPT_GROWTH, CLOCK_SLACK_MS, MAX_ATTEMPTS, provisionally, scaledBy, stdioCloseBoundMs, stdioShutdownGraceMs, type TimePolicy } from '../config/time.ts';
import { calibrate } from './calibration.ts';
import { check } from './checks.ts';
import { judgeCase } from './judge.ts';
import { ClientHung, ClientMisbehaved, describeError, describeValue, watchMachine } from './outcome.ts';
import { transportOf } from './plan.ts';
import { shutdown, stdioShutdown } from './spec.ts';
import { type Attempt, type CaseRecord, type Check, type Ending, type Evidence, type Scenario, type ScenarioContext, type ScenarioResult, type ServerSetup } from './scenario.ts';

export { CLIENT_COMPLETED, CLIENT_RUNNING } from './judge.ts';

export interface RunOptions {
  /** SHOULD violations fail instead of warning. */
  strict?: boolean;
  /** The bounds of the case (default: the settings' policy, config/settings.ts, uncalibrated). */
  time?: TimePolicy;
  /** Bound on each client operation (connect, call, close) unless a scenario sets its own; overrides `time`. */
  operationTimeoutMs?: number;
  /** Names the case for the adapter (logs, out-of-process clients); default `scenario@revision`. */
  caseId?: string;
  /** The react bound of the case's first run, when this is a rerun with larger bounds (runCase): promptness is judged by it (deadlines.ts `promptAtFirstBound`). */
  firstReactMs?: number;
}

/** The runner's own findings after the script (MAY: they inform, never change a verdict), added only when one is seen. */
export const CLEANUP_CHECKS = { connections: 'connections-released', timers: 'timers-released', processes: 'processes-released' } as const;

const listed = (names: readonly string[]) => (names.length === 1 ? names[0]! : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`);

/** The problem with a value that should be an object with these methods, or undefined. */
function withMethods(noun: string, methods: readonly string[]): (value: unknown) => string | undefined {
  return (value) => {
    if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return `returned ${describeValue(value)}, not ${noun}`;
    const missing = methods.filter((method) => {
      try {
        return typeof (value as Record<string, unknown>)[method] !== 'function';
      } catch {
        return true; // a getter that throws is no method either
      }
    });
    return missing.length > 0 ? `returned an object without ${listed(missing)}, not ${noun}` : undefined;
  };
}
const A_CLIENT = withMethods('a client instance', ['connect', 'dispose']);
const A_CONNECTION = withMethods('a connection', ['info', 'listTools', 'callTool', 'close']);
const AN_OBJECT = (noun: string) => (value: unknown) => (typeof value === 'object' && value !== null && !Array.isArray(value) ? undefined : `returned ${describeValue(value)}, not ${noun}`);
const AN_ARRAY = (noun: string) => (value: unknown) => (Array.isArray(value) ? undefined : `returned ${describeValue(value)}, not ${noun}`);

/** What one case's client created that can outlive it. */
interface ClientTraces {
  timers: NodeJS.Timeout[];
}

// An in-process client shares the runner's process: a timer it leaves running would keep a finished run (the command
// line) alive. Every call into the client runs in its case's async context, so a timer is traced to the case whose
// client created it, even with cases running concurrently. The hook is on only while a case runs.
const clientContext = new AsyncLocalStorage<ClientTraces>();
const timerHook = createHook({
  init(_asyncId, type, _triggerAsyncId, resource) {
    if (type === 'Timeout') clientContext.getStore()?.timers.push(resource as NodeJS.Timeout);
  },
});
let casesTracing = 0;

/** Node's own fields of a Timeout (stable since Node 10; no public API tells whether a timer is still scheduled). */
type TimeoutFields = { _destroyed: boolean; _idleTimeout: number; _repeat: number | null };
const fields = (timer: NodeJS.Timeout) => timer as unknown as TimeoutFields;

/** Timers a client left scheduled and holding the process open: not yet fired or cleared, and ref'd. */
function runningTimers(traces: ClientTraces): NodeJS.Timeout[] {
  return traces.timers.filter((timer) => !fields(timer)._destroyed && timer.hasRef());
}

/** "a 60000 ms interval", "a 1000 ms timeout". */
const describeTimer = (timer: NodeJS.Timeout) => `a ${fields(timer)._idleTimeout} ms ${fields(timer)._repeat === null ? 'timeout' : 'interval'}`;

/**
 * Calls into the client. A synchronous throw becomes a rejection naming the operation, a result `problem` names is a
 * rejection too, and everything the call starts runs in the case's client context (for the timer trace).
 */
function invoke<T>(traces: ClientTraces, what: string, call: () => T | PromiseLike<T>, problem?: (value: unknown) => string | undefined): Promise<T> {
  let returned: T | PromiseLike<T>;
  try {
    returned = clientContext.run(traces, call);
  } catch (error) {
    return Promise.reject(new ClientMisbehaved(`${what} threw ${describeError(error)}`));
  }
  return Promise.resolve(returned).then((value) => {
    const wrong = problem?.(value);
    if (wrong !== undefined) throw new ClientMisbehaved(`${what} ${wrong}`);
    return value;
  });
}

/** A connection as the scenario sees it: each method through `invoke`, and its close remembered (cleanup must not bound it twice). */
interface HeldConnection {
  connection: ClientConnection;
  /** The latest close() the scenario started, while it has not settled, and when its bound ends. */
  closing?: { deadline: number; settled: Promise<unknown> };
  /** A close() the scenario called that broke the contract (threw synchronously, returned garbage). */
  closeProblem?: string;
}

function guarded(traces: ClientTraces, held: HeldConnection, closeBoundMs: number): ClientConnection {
  const { connection } = held;
  return {
    info: () => invoke(traces, 'info', () => connection.info(), AN_OBJECT('connection info')),
    listTools: (options) => invoke(traces, 'listTools', () => connection.listTools(options), AN_ARRAY('a list of tools')),
    callTool: (name, args, options) => invoke(traces, 'callTool', () => connection.callTool(name, args, options), AN_OBJECT('a tool result')),
    close() {
      const closing = invoke(traces, 'close', () => connection.close());
      const entry = {
        deadline: performance.now() + closeBoundMs,
        settled: closing.then(noop, (error: unknown) => {
          if (error instanceof ClientMisbehaved) held.closeProblem = error.message;
        }),
      };
      held.closing = entry;
      void entry.settled.then(() => {
        if (held.closing === entry) held.closing = undefined;
      });
      return closing;
    },
  };
}

const noop = () => {};

/**
 * A connection the client holds open for no HTTP reason: one that never carried a request, or one whose request is still
 * open. An idle keep-alive connection is not one: HTTP/1.1 keeps connections for reuse, a runtime's shared pool holds
 * them (the official SDKs on Node's global fetch leave one or two after close and dispose), and the server's keep-alive
 * timeout ends them.
 */
const heldOpen = (connection: OpenConnection) => connection.requests === 0 || connection.inFlight > 0;

/** "the client left 4 connections open to the server 100 ms after dispose (4 never carried a request)". */
function describeLeftOpen(left: readonly OpenConnection[], servers: number, drainMs: number): string {
  const never = left.filter((c) => c.requests === 0).length;
  const busy = left.length - never;
  const kinds = [...(never > 0 ? [`${never} never carried a request`] : []), ...(busy > 0 ? [`${busy} with a request still open`] : [])].join(', ');
  const plural = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;
  return `the client left ${plural(left.length, 'connection')} open to the server${servers > 1 ? 's' : ''} ${drainMs} ms after dispose (${kinds})`;
}

/**
 * The negotiation a scenario gets when it names none: the mode that reaches the revision under test —
 * legacy revisions through `legacy` (else `auto`), 2026-07-28 through a pin (else `auto`).
 */
export function defaultNegotiation(adapter: ClientAdapter, revision: Revision): Negotiation | undefined {
  const has = (feature: Feature) => adapter.features.includes(feature);
  if (revision === '2026-07-28') return has('mode-pin') ? { pin: revision } : has('mode-auto') ? 'auto' : undefined;
  return has('mode-legacy') ? 'legacy' : has('mode-auto') ? 'auto' : undefined;
}

/** The revisions a client declares it speaks over a transport. */
const revisionsOver = (adapter: ClientAdapter, transport: Transport): readonly Revision[] => (transport === 'stdio' ? (adapter.stdioRevisions ?? adapter.revisions) : adapter.revisions);

/** Why a scenario cannot run on this adapter at this revision, or undefined when it can. */
export function notApplicable(scenario: Scenario, adapter: ClientAdapter, revision: Revision): string | undefined {
  const transport = transportOf(scenario);
  if (!transportsOf(adapter).includes(transport)) return `${adapter.name} does not declare the ${transport} transport`;
  if (!revisionsOver(adapter, transport).includes(revision)) return `${adapter.name} does not speak ${revision}${transport === 'stdio' ? ' over stdio' : ''}`;
  if (!defaultNegotiation(adapter, revision)) return `${adapter.name} declares no negotiation mode that reaches ${revision}`;
  const missing = scenario.requires.filter((feature) => !adapter.features.includes(feature));
  if (missing.length > 0) return `${adapter.name} does not declare ${missing.join(', ')}`;
  return undefined;
}

/** The features the connect options use, which the scenario must require. */
function optionFeatures(options: Partial<ConnectOptions>): Feature[] {
  const features: Feature[] = [];
  if (options.negotiation !== undefined) features.push(featureFor(options.negotiation));
  if (options.resume !== undefined) features.push('resume');
  if (options.affinityKey !== undefined) features.push('affinity-key');
  if (options.keepSessionOnClose) features.push('keep-session');
  if (options.listen) features.push('listen');
  if (options.authorization !== undefined) features.push('oauth');
  for (const handler of Object.keys(options.handlers ?? {}) as (keyof typeof HANDLER_FEATURES)[]) features.push(HANDLER_FEATURES[handler]);
  return features;
}

export function bounded<T>(operation: Promise<T>, what: string, timeoutMs: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new ClientHung(`${what} did not settle within ${timeoutMs} ms`)), timeoutMs);
    operation.then(resolve, reject).finally(() => clearTimeout(timer));
  });
}

export async function runScenario(scenario: Scenario, adapter: ClientAdapter, revision: Revision, options: RunOptions = {}): Promise<ScenarioResult> {
  return (await runJudged(scenario, adapter, revision, options)).result;
}

/** One run of a case, with the judge's word on whether larger bounds could change its verdict (runCase reads it). */
async function runJudged(scenario: Scenario, adapter: ClientAdapter, revision: Revision, options: RunOptions): Promise<{ result: ScenarioResult; moreTimeMayChange: boolean }> {
  const started = performance.now();
  const identity = { scenarioId: scenario.id, adapter: adapter.name, revision };
  const reason = notApplicable(scenario, adapter, revision);
  if (reason) return { result: { ...identity, verdict: 'n/a', reason, checks: [], durationMs: 0 }, moreTimeMayChange: false };

  const base = options.time ?? basePolicy();
  const time: TimePolicy = options.operationTimeoutMs === undefined ? base : { ...base, ms: { ...base.ms, operation: options.operationTimeoutMs } };
  const operationTimeoutMs = time.ms.operation;
  const setup = scenario.setup?.(revision, time) ?? { server: {}, state: undefined };
  const serve = (server: ServerSetup) => startReferenceServer({ era: server.era ?? revision, personalities: server.personalities ?? [] });
  // A stdio case has no HTTP server of its own: its client launches the stdio server's program.
  const overStdio = transportOf(scenario) === 'stdio';
  const stdioPersonalities = setup.stdio?.personalities ?? [];
  const stdioServer: StdioReferenceServer | undefined = overStdio ? await startStdioServer({ era: setup.stdio?.era ?? revision, personalities: stdioPersonalities, policy: time }) : undefined;
  const httpServer: ReferenceServer | undefined = overStdio ? undefined : await serve(setup.server ?? {});
  const shutdownGraceMs = stdioShutdownGraceMs(time);
  // The runner's own findings cite the case's transport: over stdio its shutdown sequence, never an HTTP section.
  const shutdownRule = overStdio ? stdioShutdown : shutdown;
  // A close over stdio is a shutdown sequence: it may wait a grace after closing stdin and another after SIGTERM.
  const closeBoundMs = stdioCloseBoundMs(time, stdioServer !== undefined);
  const otherServers: { server: ReferenceServer; setup: ServerSetup }[] = [];
  const clients: ClientUnderTest[] = [];
  const connections: HeldConnection[] = [];
  /** Connects not yet settled, with the time their own bound ends. */
  const pendingConnects = new Map<Promise<unknown>, number>();
  const observed: Record<string, unknown> = {};
  const traces: ClientTraces = { timers: [] };
  let cleaningUp = false;
  let clientError: string | undefined;
  /** The errors of starts, connects and bounded operations that ran out of time (Evidence.clientTimedOut). */
  const timedOut = new WeakSet<object>();
  let clientTimedOut = false;
  const caseId = options.caseId ?? `${scenario.id}@${revision}`;
  const startClient = async () => {
    // A client in another process (one that can be interrupted) may be started again here, with a fresh hello.
    const startBound = adapter.interrupted ? operationTimeoutMs + time.ms.hello : operationTimeoutMs;
    const client = await bounded(invoke(traces, 'start', () => adapter.start(caseId, time), A_CLIENT), 'start the client', startBound).catch((error: unknown) => {
      if (error instanceof ClientHung) timedOut.add(error); // a start that ran out of time, as a connect can
      throw error;
    });
    clients.push(client);
    return client;
  };
  if (casesTracing++ === 0) timerHook.enable();

  const context: ScenarioContext = {
    revision,
    time,
    get server(): ReferenceServer {
      if (httpServer === undefined) throw new Error(`scenario ${scenario.id} runs over stdio: it has no HTTP server (its server is context.stdio)`);
      return httpServer;
    },
    get stdio(): StdioReferenceServer {
      if (stdioServer === undefined) throw new Error(`scenario ${scenario.id} runs over HTTP: it has no stdio server (its server is context.server)`);
      return stdioServer;
    },
    get wire() {
      return httpServer ?? stdioServer!;
    },
    features: adapter.features,
    state: setup.state,
    async connect(overrides: Partial<ConnectOptions> = {}, target = {}) {
      const allowed = (feature: Feature) => scenario.requires.includes(feature) || (scenario.optional?.includes(feature) && adapter.features.includes(feature));
      const undeclared = optionFeatures(overrides).filter((feature) => !allowed(feature));
      if (undeclared.length > 0) throw new Error(`scenario ${scenario.id} uses ${undeclared.join(', ')} without requiring it`);
      // The contract gives authorization over HTTP only (ConnectOptions.authorization): over stdio it would be a suite bug.
      if (overrides.authorization !== undefined && stdioServer !== undefined && target.server === undefined) throw new Error(`scenario ${scenario.id} gives a stdio connect authorization, which the contract gives HTTP only`);
      const connectOptions: ConnectOptions = {
        timeoutMs: operationTimeoutMs,
        negotiation: defaultNegotiation(adapter, revision),
        ...(stdioServer !== undefined && target.server === undefined ? { shutdownGraceMs } : {}),
        ...overrides,
      };
      const client = target.newClient || clients.length === 0 ? await startClient() : clients.at(-1)!;
      const url = target.server !== undefined ? target.server.url : stdioServer !== undefined ? stdioServer.target : httpServer!.url;
      const connectStarted = performance.now();
      const connecting = invoke(traces, 'connect', () => client.connect(url, connectOptions), A_CONNECTION).then((connection) => {
        const held: HeldConnection = { connection };
        // A connect that settles after the scenario gave up on it is closed here, not leaked.
        if (cleaningUp) void invoke(traces, 'close', () => connection.close()).catch(noop);
        else connections.push(held);
        return guarded(traces, held, closeBoundMs);
      });
      // The client's own timeout, then room for it to report it; over stdio also the shutdown it may run on the server
      // it launched before it rejects (stdin closed, a grace, SIGTERM, a grace, SIGKILL): a bounded wait, no hang.
      const launched = stdioServer !== undefined && target.server === undefined ? 2 * (connectOptions.shutdownGraceMs ?? 0) : 0;
      const boundMs = connectOptions.timeoutMs + 2 * time.ms.react + launched;
      pendingConnects.set(connecting, performance.now() + boundMs);
      void connecting.catch(noop).finally(() => pendingConnects.delete(connecting));
      const connection = await bounded(connecting, 'connect', boundMs).catch((error: unknown) => {
        // Given up at (or past) its own timeout, or by the runner's bound: the connect ran out of time.
        const late = error instanceof ClientHung || (!(error instanceof ClientMisbehaved) && performance.now() - connectStarted >= connectOptions.timeoutMs - CLOCK_SLACK_MS);
        if (late && typeof error === 'object' && error !== null) timedOut.add(error);
        throw error;
      });
      // Over stdio the script goes on once the server it launched is up: its start-up is the suite's, not the client's.
      if (stdioServer !== undefined && target.server === undefined) await stdioServer.serving(time.ms.startup);
      return connection;
    },
    async startServer(setup) {
      const other = await serve(setup);
      otherServers.push({ server: other, setup });
      return other;
    },
    observe(key, value) {
      observed[key] = value;
    },
    // An operation the script gave up on at its bound ran out of time, as a connect can (Evidence.clientTimedOut).
    bounded: (operation, what, timeoutMs = operationTimeoutMs) =>
      bounded(operation, what, timeoutMs).catch((error: unknown) => {
        if (error instanceof ClientHung) timedOut.add(error);
        throw error;
      }),
  };

  let evidence: Evidence;
  let ending: Ending = { findings: [], problems: [], breaches: [] };
  /** Where the script met the client breaking the adapter contract (threw synchronously, returned garbage): its doing, never inconclusive. */
  let breach: string | undefined;
  const machine = watchMachine();
  try {
    try {
      await scenario.run(context);
    } catch (error) {
      clientError = describeError(error);
      clientTimedOut = typeof error === 'object' && error !== null && timedOut.has(error);
      if (error instanceof ClientMisbehaved) breach = error.message;
    }
    // Judge what the server had received when the script ended; cleanup traffic is not the client's doing. A stdio
    // process that ended during the script (killed by the client's close) is given the moment its record needs to say so.
    await stdioServer?.settle(time.ms.react);
    const own = httpServer ?? stdioServer!;
    evidence = {
      revision,
      time,
      exchanges: structuredClone(own.record.exchanges),
      otherServers: otherServers.map(({ server: other, setup: otherSetup }) => ({
        url: other.url,
        era: other.era,
        personalities: (otherSetup.personalities ?? []).map((p) => p.name),
        exchanges: structuredClone(other.record.exchanges),
        issuedSessions: other.issuedSessions(),
      })),
      issuedSessions: httpServer?.issuedSessions() ?? [],
      ...authorizationLane(setup.server?.personalities),
      clientRevisions: revisionsOver(adapter, transportOf(scenario)),
      toolRuns: structuredClone(own.fixtures.runs),
      observed: recordable(observed),
      ...(clientError !== undefined ? { clientError } : {}),
      ...(stdioServer !== undefined
        ? {
            stdio: {
              era: stdioServer.era,
              personalities: stdioPersonalities.map((p) => (typeof p === 'string' ? p : p.name)),
              shutdownGraceMs,
              processes: structuredClone(stdioServer.processes()),
              survivors: stdioServer.survivors(),
            },
          }
        : {}),
      ...(clientTimedOut ? { clientTimedOut: true as const } : {}),
    };
  } finally {
    cleaningUp = true;
    const servers = [...(httpServer ? [httpServer] : []), ...otherServers.map((o) => o.server)];
    try {
      ending = await cleanUp({ revision, servers, stdioServer, shutdownRule, traces, connections, clients, pendingConnects, time, closeBoundMs, failedAlready: clientError !== undefined });
    } finally {
      if (--casesTracing === 0) timerHook.disable();
      // The stdio server's close() kills (and notes in its record) any process of the target still running.
      await Promise.all([...servers.map((s) => s.close()), stdioServer?.close()]);
    }
  }
  evidence = { ...evidence, machine: machine.stop() };
  // Judged after clean-up, from what the case left (judge.ts): the same judgement a saved run gets from --rejudge.
  const interrupted = askInterrupted(adapter, caseId);
  const record: CaseRecord = {
    evidence,
    ending,
    ...(breach !== undefined ? { breach } : {}),
    ...(interrupted !== undefined ? { interrupted } : {}),
    ...(options.firstReactMs !== undefined ? { firstReactMs: options.firstReactMs } : {}),
  };
  const { checks, verdict, reason: why, moreTimeMayChange } = judgeCase(scenario, record, options.strict);
  const result: ScenarioResult = {
    ...identity,
    verdict,
    ...(why !== undefined ? { reason: why } : {}),
    checks,
    evidence,
    record,
    durationMs: performance.now() - started,
  };
  return { result, moreTimeMayChange };
}

/** The authorization server a personality of the case's server runs (servers/authorization/), as the evidence's lane of its own. */
function authorizationLane(personalities: readonly Personality[] = []): Pick<Evidence, 'authorization'> {
  const server = personalities.flatMap((p) => (p.authorizationServer === undefined ? [] : [p.authorizationServer]))[0];
  return server === undefined ? {} : { authorization: { issuer: server.issuer, exchanges: structuredClone(server.record.exchanges) } };
}

/** The adapter's word on whether its client could take part in the case; an adapter that throws here has said nothing. */
function askInterrupted(adapter: ClientAdapter, caseId: string): string | undefined {
  try {
    const why = adapter.interrupted?.(caseId);
    return typeof why === 'string' && why !== '' ? why : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Runs a case as the suites do: with the client's calibrated time policy (suites/calibration.ts), and, while the judge
 * says larger bounds could change its verdict (deadlines.ts `moreTimeMayChange`: inconclusive because time ran out,
 * nothing lasting keeping it so), again with bounds twice as large, at most MAX_ATTEMPTS runs in all. The result is the
 * last run's, with the earlier runs in `attempts`. Every run but the last is provisional (a deadline missed there is
 * inconclusive, deadlines.ts `checkInTime`, unless no load explains it), so lateness is judged firmly with the largest
 * bounds. A pass, a fail or a warn is never run again: no time can change what the client did.
 */
export async function runCase(scenario: Scenario, adapter: ClientAdapter, revision: Revision, options: Omit<RunOptions, 'time'> & { time?: TimePolicy } = {}): Promise<ScenarioResult> {
  if (notApplicable(scenario, adapter, revision)) return runScenario(scenario, adapter, revision, options);
  let time = options.time ?? (await calibratedPolicy(adapter, transportOf(scenario)));
  const firstReact = time.ms.react;
  const attempts: Attempt[] = [];
  for (let attempt = 1; ; attempt++) {
    const caseId = attempt === 1 ? `${scenario.id}@${revision}` : `${scenario.id}@${revision}#${attempt}`;
    // Every run but the last is provisional: a deadline it misses is "time ran out", for the next run to judge.
    const { result, moreTimeMayChange } = await runJudged(scenario, adapter, revision, { ...options, time: provisionally(time, attempt < MAX_ATTEMPTS), caseId, ...(attempt > 1 ? { firstReactMs: firstReact } : {}) });
    const again = moreTimeMayChange && attempt < MAX_ATTEMPTS;
    if (!again) return attempts.length > 0 ? { ...result, attempts } : result;
    attempts.push({ verdict: result.verdict, ...(result.reason !== undefined ? { reason: result.reason } : {}), scale: time.scale });
    time = scaledBy(time, ATTEMPT_GROWTH);
  }
}

/** The settings' policy with this client's start-up over the transport measured once per run (memoized per adapter and transport). */
export async function calibratedPolicy(adapter: ClientAdapter, transport: Transport = 'http'): Promise<TimePolicy> {
  // Traced like a case, so a timer the client leaves running cannot keep a finished run alive either.
  const traces: ClientTraces = { timers: [] };
  if (casesTracing++ === 0) timerHook.enable();
  try {
    const startup = await calibrate(adapter, basePolicy(), (call) => clientContext.run(traces, call), transport);
    return basePolicy(settings(), startup);
  } finally {
    for (const timer of runningTimers(traces)) timer.unref();
    if (--casesTracing === 0) timerHook.disable();
  }
}

/**
 * The processes launched from a stdio target the client left running after dispose, given `ms` to end (a process killed
 * a moment ago may still be on its way out). The reported ones are watched by their pid; the full scan (any process
 * with the target's channel in its environment) is made once at the end. A process that reported its own exit is on its
 * way out by its own doing (it flushes its channel, then ends): not one the client left, even if a busy machine has not
 * ended it yet (the stdio server's close() kills whatever is still there).
 */
async function processesLeft(server: StdioReferenceServer, ms: number): Promise<number[]> {
  const deadline = performance.now() + ms;
  const running = () => server.processes().some((p) => isAlive(p.pid, p.procStart));
  while (running() && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, Math.max(5, Math.round(ms / 20))));
  const exiting = new Set(server.processes().flatMap((p) => (p.exit !== undefined && p.pid !== undefined ? [p.pid] : [])));
  return server.survivors().filter((pid) => !exiting.has(pid));
}

/** The observed values as plain data: one the client gave that cannot be cloned (a function, say) is recorded as what it is. */
function recordable(observed: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(observed).map(([key, value]) => {
      try {
        return [key, structuredClone(value)];
      } catch {
        return [key, `${describeValue(value)} that cannot be recorded`];
      }
    }),
  );
}

/**
 * Closes every connection and disposes every client, each bounded once (a close the scenario already started is
 * waited for only for what is left of its bound), then looks at what the client left behind.
 */
async function cleanUp({ revision, servers, stdioServer, shutdownRule, traces, connections, clients, pendingConnects, time, closeBoundMs, failedAlready }: {
  revision: Revision;
  servers: readonly ReferenceServer[];
  /** A stdio case's server: the processes the client leaves running after dispose are a finding. */
  stdioServer: StdioReferenceServer | undefined;
  /** The shutdown rule of the case's transport (`shutdown` over HTTP, `stdioShutdown` over stdio). */
  shutdownRule: typeof shutdown;
  traces: ClientTraces;
  connections: readonly HeldConnection[];
  clients: readonly ClientUnderTest[];
  pendingConnects: ReadonlyMap<Promise<unknown>, number>;
  time: TimePolicy;
  /** The bound on one close (longer over stdio: stdioCloseBoundMs). */
  closeBoundMs: number;
  /** The script already met a client error: an ordinary dispose rejection after it is the same fault, not another. */
  failedAlready: boolean;
}): Promise<Ending> {
  const operationTimeoutMs = time.ms.operation;
  // A Set: the script's close() and cleanup's may meet the same fault; it is said once.
  const problems = new Set<string>();
  const breaches = new Set<string>();
  /** The problems that are an operation running out of its bound. */
  const hangs = new Set<string>();
  // Only the contract's own failures are problems here: an ordinary rejection of a second close is disposal/idempotent-close's to judge.
  const note = (error: unknown) => {
    if (error instanceof ClientHung || error instanceof ClientMisbehaved) problems.add(error.message);
    if (error instanceof ClientHung) hangs.add(error.message);
    if (error instanceof ClientMisbehaved) breaches.add(error.message);
  };
  // What is left of an operation's own bound (never more than one operation timeout): a hung operation is not waited for twice.
  const remaining = (deadline: number, bound = operationTimeoutMs) => Math.max(0, Math.min(bound, deadline - performance.now()));
  await Promise.all(
    connections.map((held) =>
      held.closing
        ? bounded(held.closing.settled, 'close', remaining(held.closing.deadline, closeBoundMs)).catch(() => {
            problems.add(`close did not settle within ${closeBoundMs} ms`);
            hangs.add(`close did not settle within ${closeBoundMs} ms`);
          })
        : bounded(invoke(traces, 'close', () => held.connection.close()), 'close', closeBoundMs).catch(note),
    ),
  );
  for (const held of connections) {
    if (held.closeProblem === undefined) continue;
    problems.add(held.closeProblem);
    breaches.add(held.closeProblem);
  }
  await Promise.all([...pendingConnects].map(([connecting, deadline]) => bounded(connecting, 'connect', remaining(deadline)).catch(noop)));
  await Promise.all(
    clients.map((client) =>
      // A dispose may close what the client still has open: over stdio, a shutdown sequence.
      bounded(invoke(traces, 'dispose', () => client.dispose()), 'dispose', closeBoundMs).catch((error: unknown) => {
        if (error instanceof ClientHung || error instanceof ClientMisbehaved) note(error);
        else if (!failedAlready && problems.size === 0) problems.add(`dispose failed: ${describeError(error)}`);
      }),
    ),
  );
  const findings: Check[] = [];
  const finding = (name: string, section: string, detail: string, rule = shutdownRule) => findings.push(check(name, rule(revision, section, 'MAY'), false, detail));
  const left = (await Promise.all(servers.map((s) => connectionsClosed(s.url, time.ms.drain, heldOpen)))).flat();
  if (left.length > 0) finding(CLEANUP_CHECKS.connections, 'shutdown is closing the HTTP connections: none stays open after the client is disposed', describeLeftOpen(left, servers.length, time.ms.drain), shutdown);
  if (stdioServer !== undefined) {
    const left = await processesLeft(stdioServer, time.ms.react);
    if (left.length > 0) {
      finding(
        CLEANUP_CHECKS.processes,
        'a disposed client leaves no process of the server it launched running',
        `the client left ${left.length} process${left.length === 1 ? '' : 'es'} of the server running ${time.ms.react} ms after dispose (pid${left.length === 1 ? '' : 's'} ${left.join(', ')}), killed by the runner`,
        stdioShutdown,
      );
    }
  }
  const timers = runningTimers(traces);
  // Unref'd, they can no longer keep a finished run alive; cleared they are not: a timer may belong to a library the next case shares.
  for (const timer of timers) timer.unref();
  if (timers.length > 0) {
    finding(
      CLEANUP_CHECKS.timers,
      'a disposed client keeps nothing running',
      `the client left ${timers.length} timer${timers.length === 1 ? '' : 's'} running after dispose (${listed(timers.map(describeTimer))}), unref'd by the runner so ${timers.length === 1 ? 'it' : 'they'} cannot keep the process alive`,
    );
  }
  return { findings, problems: [...problems], breaches: [...breaches], ...(problems.size > 0 && [...problems].every((p) => hangs.has(p)) ? { onlyHangs: true as const } : {}) };
}
