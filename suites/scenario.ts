// What a scenario is: metadata, a script that drives a client, and a judge that reads the wire record.
import type { ClientConnection, ConnectOptions, Feature } from '../clients/adapter.ts';
import type { Era } from '../servers/era.ts';
import type { ToolRun } from '../servers/fixtures.ts';
import type { Personality } from '../servers/personality.ts';
import type { ReferenceServer } from '../servers/reference-server.ts';
import type { Revision } from '../servers/revisions.ts';
import type { WireExchange } from '../servers/wire-record.ts';

/** RFC 2119 level of the rule a check enforces: MUST → fail, SHOULD → warn (fail when strict), MAY → informational. */
export type Level = 'MUST' | 'SHOULD' | 'MAY';

export interface SpecRef {
  /** Public spec URL with the section anchor. */
  url: string;
  /** Human name of the section. */
  section: string;
  level: Level;
}

/** The server a scenario runs against. */
export interface ServerSetup {
  /** Default: the revision under test. */
  era?: Era;
  personalities?: Personality[];
}

export interface Scenario<State = unknown> {
  /** Stable `suite/name`. */
  id: string;
  title: string;
  /** Revisions the scenario is defined for. */
  revisions: readonly Revision[];
  /** Adapter features it needs; without them it is not applicable. */
  requires: readonly Feature[];
  /** Features it uses only when the adapter declares them (the script checks `context.features`). */
  optional?: readonly Feature[];
  /** The rule the scenario is about, or the seed document it comes from. */
  source: { spec: SpecRef; seed?: string };
  /**
   * The server it runs against and what the script needs from setting it up (its personalities, to
   * control them). Default: the plain era server of the revision, and no state.
   */
  setup?(revision: Revision): { server: ServerSetup; state: State };
  /** Drives the client. Throwing records a client error that the judge sees. */
  run(context: ScenarioContext<State>): Promise<void>;
  /** Decides from the evidence alone (pure, so doctored evidence can prove it fails). */
  judge(evidence: Evidence): Check[];
  /**
   * Proof for checks no broken variant reaches: the reference client's evidence, doctored to break
   * exactly that rule, must fail the named check (suites/self-test.test.ts). `client-completed` is
   * proven for every scenario there.
   */
  doctored?: readonly DoctoredProof[];
}

export interface DoctoredProof {
  check: string;
  /** How the record is doctored, in a few words. */
  how: string;
  doctor(evidence: Evidence): Evidence;
}

export interface ConnectTarget {
  /** Another server started with `startServer` (default: the scenario's server). */
  server?: ReferenceServer;
  /** Through a new client instance, with none of the first one's caches (default: the same instance). */
  newClient?: boolean;
}

export interface ScenarioContext<State = unknown> {
  readonly revision: Revision;
  readonly server: ReferenceServer;
  /** The features the adapter declares. */
  readonly features: readonly Feature[];
  /** What `setup` returned besides the server. */
  readonly state: State;
  /** Connects through the adapter; every connection is closed by the runner afterwards whatever happens. */
  connect(options?: Partial<ConnectOptions>, target?: ConnectTarget): Promise<ClientConnection>;
  /** Starts a further server (closed by the runner); its record is in the evidence as `otherServers`. */
  startServer(setup: ServerSetup): Promise<ReferenceServer>;
  /** Records what the adapter returned, for the judge and the report. */
  observe(key: string, value: unknown): void;
  /** Bounds one client operation so a hanging client fails the scenario instead of the run. */
  bounded<T>(operation: Promise<T>, what: string, timeoutMs?: number): Promise<T>;
}

/** Everything a judge may look at: what the server received and what the adapter returned. */
export interface Evidence {
  revision: Revision;
  exchanges: readonly WireExchange[];
  /** Servers the script started besides the scenario's own, in order. */
  otherServers: readonly { url: string; era: Era; personalities: readonly string[]; exchanges: readonly WireExchange[]; issuedSessions: readonly string[] }[];
  issuedSessions: readonly string[];
  toolRuns: readonly ToolRun[];
  observed: Readonly<Record<string, unknown>>;
  /** The error the client raised while the scenario drove it, if any. */
  clientError?: string;
}

/** Lets a scenario's `setup` state type its `run` context while all scenarios share one list type. */
export function defineScenario<State>(scenario: Scenario<State>): Scenario<any> {
  return scenario;
}

export interface Check {
  /** Short kebab-case name, unique within the scenario. */
  name: string;
  spec: SpecRef;
  ok: boolean;
  /** What was expected and what was seen. */
  detail: string;
  /** Seq numbers of the exchanges that decided the check. */
  exchanges: number[];
}

export type Verdict = 'pass' | 'fail' | 'warn' | 'n/a';

export interface ScenarioResult {
  scenarioId: string;
  adapter: string;
  revision: Revision;
  verdict: Verdict;
  /** Why not applicable, or the failing checks in one line each. */
  reason?: string;
  checks: Check[];
  evidence?: Evidence;
  durationMs: number;
}

/** The verdict a set of checks earns: any failed MUST fails; a failed SHOULD warns, or fails when strict. */
export function verdictOf(checks: readonly Check[], strict = false): Verdict {
  const failed = checks.filter((check) => !check.ok);
  if (failed.some((check) => check.spec.level === 'MUST')) return 'fail';
  if (failed.some((check) => check.spec.level === 'SHOULD')) return strict ? 'fail' : 'warn';
  return 'pass';
}
