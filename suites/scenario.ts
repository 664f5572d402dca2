// What a scenario is: metadata, a script that drives a client, and a judge that reads the wire record.
import type { ClientConnection, ConnectOptions, Feature } from '../clients/adapter.ts';
import type { ToolRun } from '../servers/fixtures.ts';
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

export interface Scenario {
  /** Stable `suite/name`. */
  id: string;
  title: string;
  /** Revisions the scenario is defined for. */
  revisions: readonly Revision[];
  /** Adapter features it needs; without them it is not applicable. */
  requires: readonly Feature[];
  /** The rule the scenario is about, or the seed document it comes from. */
  source: { spec: SpecRef; seed?: string };
  /** Drives the client. Throwing records a client error that the judge sees. */
  run(context: ScenarioContext): Promise<void>;
  /** Decides from the evidence alone (pure, so doctored evidence can prove it fails). */
  judge(evidence: Evidence): Check[];
}

export interface ScenarioContext {
  readonly revision: Revision;
  readonly server: ReferenceServer;
  /** Connects through the adapter; every connection is closed by the runner afterwards whatever happens. */
  connect(options?: Partial<ConnectOptions>): Promise<ClientConnection>;
  /** Records what the adapter returned, for the judge and the report. */
  observe(key: string, value: unknown): void;
  /** Bounds one client operation so a hanging client fails the scenario instead of the run. */
  bounded<T>(operation: Promise<T>, what: string, timeoutMs?: number): Promise<T>;
}

/** Everything a judge may look at: what the server received and what the adapter returned. */
export interface Evidence {
  revision: Revision;
  exchanges: readonly WireExchange[];
  issuedSessions: readonly string[];
  toolRuns: readonly ToolRun[];
  observed: Readonly<Record<string, unknown>>;
  /** The error the client raised while the scenario drove it, if any. */
  clientError?: string;
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
