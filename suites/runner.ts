// Runs one scenario against one adapter at one revision: a fresh server, the script, a snapshot, the judge.
import { featureFor, type ClientAdapter, type Negotiation, type ClientConnection, type ClientUnderTest, type ConnectOptions, type Feature } from '../clients/adapter.ts';
import type { ReferenceServer } from '../servers/reference-server.ts';
import type { Revision } from '../servers/revisions.ts';
import { startReferenceServer } from '../servers/server.ts';
import { schemaCheck } from './schema.ts';
import { verdictOf, type Check, type Evidence, type Scenario, type ScenarioContext, type ScenarioResult, type ServerSetup } from './scenario.ts';

export interface RunOptions {
  /** SHOULD violations fail instead of warning. */
  strict?: boolean;
  /** Bound on each client operation (connect, call, close) unless a scenario sets its own. */
  operationTimeoutMs?: number;
}

export const DEFAULT_OPERATION_TIMEOUT_MS = 5_000;

export class ClientHung extends Error {}

/**
 * The negotiation a scenario gets when it names none: the mode that reaches the revision under test —
 * legacy revisions through `legacy` (else `auto`), 2026-07-28 through a pin (else `auto`).
 */
export function defaultNegotiation(adapter: ClientAdapter, revision: Revision): Negotiation | undefined {
  const has = (feature: Feature) => adapter.features.includes(feature);
  if (revision === '2026-07-28') return has('mode-pin') ? { pin: revision } : has('mode-auto') ? 'auto' : undefined;
  return has('mode-legacy') ? 'legacy' : has('mode-auto') ? 'auto' : undefined;
}

/** Why a scenario cannot run on this adapter at this revision, or undefined when it can. */
export function notApplicable(scenario: Scenario, adapter: ClientAdapter, revision: Revision): string | undefined {
  if (!adapter.revisions.includes(revision)) return `${adapter.name} does not speak ${revision}`;
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
  return features;
}

export function bounded<T>(operation: Promise<T>, what: string, timeoutMs: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new ClientHung(`${what} did not settle within ${timeoutMs} ms`)), timeoutMs);
    operation.then(resolve, reject).finally(() => clearTimeout(timer));
  });
}

export async function runScenario(scenario: Scenario, adapter: ClientAdapter, revision: Revision, options: RunOptions = {}): Promise<ScenarioResult> {
  const started = performance.now();
  const base = { scenarioId: scenario.id, adapter: adapter.name, revision };
  const reason = notApplicable(scenario, adapter, revision);
  if (reason) return { ...base, verdict: 'n/a', reason, checks: [], durationMs: 0 };

  const operationTimeoutMs = options.operationTimeoutMs ?? DEFAULT_OPERATION_TIMEOUT_MS;
  const setup = scenario.setup?.(revision) ?? { server: {}, state: undefined };
  const serve = (server: ServerSetup) => startReferenceServer({ era: server.era ?? revision, personalities: server.personalities ?? [] });
  const server = await serve(setup.server);
  const otherServers: { server: ReferenceServer; setup: ServerSetup }[] = [];
  const clients: ClientUnderTest[] = [];
  const connections: ClientConnection[] = [];
  const pendingConnects = new Set<Promise<unknown>>();
  const observed: Record<string, unknown> = {};
  let cleaningUp = false;
  let clientError: string | undefined;
  const caseId = `${scenario.id}@${revision}`;
  const startClient = async () => {
    const client = await bounded(adapter.start(caseId), 'start the client', operationTimeoutMs);
    clients.push(client);
    return client;
  };

  const context: ScenarioContext = {
    revision,
    server,
    features: adapter.features,
    state: setup.state,
    async connect(overrides: Partial<ConnectOptions> = {}, target = {}) {
      const allowed = (feature: Feature) => scenario.requires.includes(feature) || (scenario.optional?.includes(feature) && adapter.features.includes(feature));
      const undeclared = optionFeatures(overrides).filter((feature) => !allowed(feature));
      if (undeclared.length > 0) throw new Error(`scenario ${scenario.id} uses ${undeclared.join(', ')} without requiring it`);
      const connectOptions: ConnectOptions = { timeoutMs: operationTimeoutMs, negotiation: defaultNegotiation(adapter, revision), ...overrides };
      const client = target.newClient || clients.length === 0 ? await startClient() : clients.at(-1)!;
      const connecting = client.connect((target.server ?? server).url, connectOptions).then((connection) => {
        // A connect that settles after the scenario gave up on it is closed here, not leaked.
        if (cleaningUp) void connection.close().catch(() => {});
        else connections.push(connection);
        return connection;
      });
      pendingConnects.add(connecting);
      void connecting.catch(() => {}).finally(() => pendingConnects.delete(connecting));
      return bounded(connecting, 'connect', connectOptions.timeoutMs + 1_000);
    },
    async startServer(setup) {
      const other = await serve(setup);
      otherServers.push({ server: other, setup });
      return other;
    },
    observe(key, value) {
      observed[key] = value;
    },
    bounded: (operation, what, timeoutMs = operationTimeoutMs) => bounded(operation, what, timeoutMs),
  };

  let checks: Check[];
  let evidence: Evidence;
  try {
    try {
      await scenario.run(context);
    } catch (error) {
      clientError = error instanceof Error ? `${error.constructor.name}: ${error.message}` : String(error);
    }
    // Judge what the server had received when the script ended; cleanup traffic is not the client's doing.
    evidence = {
      revision,
      exchanges: structuredClone(server.record.exchanges),
      otherServers: otherServers.map(({ server: other, setup: otherSetup }) => ({
        url: other.url,
        era: other.era,
        personalities: (otherSetup.personalities ?? []).map((p) => p.name),
        exchanges: structuredClone(other.record.exchanges),
        issuedSessions: other.issuedSessions(),
      })),
      issuedSessions: server.issuedSessions(),
      toolRuns: structuredClone(server.fixtures.runs),
      observed: structuredClone(observed),
      ...(clientError !== undefined ? { clientError } : {}),
    };
    // Every scenario also checks that each message the client sent matches its revision's schemas.
    checks = [...scenario.judge(evidence), schemaCheck(evidence)];
  } finally {
    cleaningUp = true;
    await Promise.allSettled(connections.map((connection) => bounded(connection.close(), 'close', operationTimeoutMs)));
    await bounded(Promise.allSettled([...pendingConnects]), 'pending connects', operationTimeoutMs).catch(() => {});
    await Promise.allSettled(clients.map((client) => bounded(client.dispose(), 'dispose the client', operationTimeoutMs)));
    await Promise.all([server, ...otherServers.map((o) => o.server)].map((s) => s.close()));
  }
  const verdict = verdictOf(checks, options.strict);
  const failed = checks.filter((check) => !check.ok).map((check) => `${check.name}: ${check.detail}`);
  return {
    ...base,
    verdict,
    ...(failed.length > 0 ? { reason: failed.join('; ') } : {}),
    checks,
    evidence,
    durationMs: performance.now() - started,
  };
}
