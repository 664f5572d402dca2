// What a scenario is: metadata, a script that drives a client, and a judge that reads the wire record.
import type { ClientConnection, ConnectOptions, Feature, Transport } from '../clients/adapter.ts';
import type { TimePolicy } from '../config/time.ts';
import type { Era } from '../servers/era.ts';
import type { FixtureState } from '../servers/fixture-state.ts';
import type { ToolRun } from '../servers/fixtures.ts';
import type { Personality } from '../servers/personality.ts';
import type { ReferenceServer } from '../servers/reference-server.ts';
import type { StdioEra, StdioPersonality, StdioProcessState, StdioReferenceServer } from '../servers/stdio/harness.ts';
import type { Revision } from '../protocol/revisions.ts';
import type { ExchangeRecord, WireExchange } from '../servers/wire-record.ts';

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

/** The stdio server a stdio scenario's client launches (servers/stdio/). */
export interface StdioServerSetup {
  /** Default: the revision under test. */
  era?: StdioEra;
  personalities?: StdioPersonality[];
}

export interface Scenario<State = unknown> {
  /** Stable `suite/name`. */
  id: string;
  title: string;
  /** Revisions the scenario is defined for. */
  revisions: readonly Revision[];
  /** Adapter features it needs; without them it is not applicable. */
  requires: readonly Feature[];
  /**
   * The transport it runs over (default `http`): a stdio scenario's client launches the suite's stdio server itself
   * (`context.stdio`), and an adapter that does not declare the transport is not applicable.
   */
  transport?: Transport;
  /** The scenario this one runs over another transport (suites/stdio/twins.ts): same script and judge, its id prefixed. */
  twinOf?: string;
  /** Features it uses only when the adapter declares them (the script checks `context.features`). */
  optional?: readonly Feature[];
  /** The rule the scenario is about, or the seed document it comes from. */
  source: { spec: SpecRef; seed?: string };
  /**
   * The server it runs against and what the script needs from setting it up (its personalities, to
   * control them). Default: the plain era server of the revision, and no state. `time` is the case's policy, so a
   * personality's hold or interval is sized like every other bound of the case.
   */
  setup?(revision: Revision, time: TimePolicy): { server?: ServerSetup; stdio?: StdioServerSetup; state: State };
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
  /** The check the doctored record must fail, or the precondition it must leave unmet (with `unmet`). */
  check: string;
  /** The proof is of a precondition: on the doctored record it is not met and the verdict is inconclusive. */
  unmet?: true;
  /** How the record is doctored, in a few words. */
  how: string;
  doctor(evidence: Evidence): Evidence;
}

/** What every reference server has, over any transport: the record of what it received and its tools' runs. */
export interface CaseServer {
  readonly record: ExchangeRecord;
  readonly fixtures: FixtureState;
}

export interface ConnectTarget {
  /** Another server started with `startServer` (default: the scenario's server). */
  server?: ReferenceServer;
  /** Through a new client instance, with none of the first one's caches (default: the same instance). */
  newClient?: boolean;
}

export interface ScenarioContext<State = unknown> {
  readonly revision: Revision;
  /** The bounds of this case (config/time.ts): every wait and hold the script chooses derives from them. */
  readonly time: TimePolicy;
  /** The HTTP scenario's server (a stdio scenario has none: reading it throws). */
  readonly server: ReferenceServer;
  /**
   * The stdio scenario's server, which `connect()` has the client launch (an HTTP scenario has none: reading it
   * throws). Started for the case, closed at its end whatever happened, with any process still running killed.
   */
  readonly stdio: StdioReferenceServer;
  /**
   * The case's own server, whatever its transport: its wire record and its tools' runs. A script that only reads these
   * (and `connect()`s) runs unchanged over HTTP and over stdio (suites/stdio/twins.ts).
   */
  readonly wire: CaseServer;
  /** The features the adapter declares. */
  readonly features: readonly Feature[];
  /** What `setup` returned besides the server. */
  readonly state: State;
  /** Connects through the adapter (a stdio scenario: to `stdio.target`); every connection is closed by the runner afterwards whatever happens. */
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
  /** The bounds the case ran with, so the judge reads the same numbers the script waited. */
  time: TimePolicy;
  exchanges: readonly WireExchange[];
  /** Servers the script started besides the scenario's own, in order. */
  otherServers: readonly { url: string; era: Era; personalities: readonly string[]; exchanges: readonly WireExchange[]; issuedSessions: readonly string[] }[];
  issuedSessions: readonly string[];
  /**
   * The OAuth authorization server behind the case's server (servers/authorization/), when it is a protected resource:
   * what the client (and the suite's user agent, on its behalf) sent it. A lane of its own, never MCP traffic.
   */
  authorization?: { issuer: string; exchanges: readonly WireExchange[] };
  /** The revisions the client declares it speaks over the case's transport (its adapter's, from its public API). */
  clientRevisions: readonly Revision[];
  toolRuns: readonly ToolRun[];
  observed: Readonly<Record<string, unknown>>;
  /** The error the client raised while the scenario drove it, if any. */
  clientError?: string;
  /**
   * A stdio scenario's server: `exchanges` above is its record (one stdin line per exchange, servers/stdio/record.ts),
   * and this is what only stdio has.
   */
  stdio?: StdioEvidence;
  /**
   * That error was an operation running out of time: a connect the client gave up at its connect timeout (the case's
   * bound), or a start, connect or operation the runner's bound gave up on (a close waiting out a shutdown, say). On a
   * loaded machine maybe the machine's doing, until the case has run with its largest bounds.
   */
  clientTimedOut?: true;
  /** How busy the machine was while the case ran, its clean-up included (suites/outcome.ts `watchMachine`); set after the clean-up. */
  machine?: MachineLoad;
}

/** What the runner's clean-up found after the script: the MAY findings, the closes and disposes that hung or broke the contract, and the contract breaches among them. */
export interface Ending {
  findings: Check[];
  problems: string[];
  breaches: string[];
  /** Every problem is a close or dispose that ran out of its bound (on a loaded machine, maybe the machine's doing). */
  onlyHangs?: true;
}

/**
 * Everything a case's verdict is decided from besides the scenario (suites/judge.ts `judgeCase`), as plain data: saved
 * with each result, so a fixed judge can judge a saved run again without running its client.
 */
export interface CaseRecord {
  /** The evidence, with the machine's load. */
  evidence: Evidence;
  /** What the runner's clean-up found. */
  ending: Ending;
  /** The adapter contract the client broke while the script drove it (threw synchronously, returned garbage), if it did. */
  breach?: string;
  /** The adapter's word that its client could not take part in the case (its process died, say). */
  interrupted?: string;
  /** The react bound of the case's first run, when this is a rerun with larger bounds: promptness is judged by it. */
  firstReactMs?: number;
}

/** How busy the machine was while a case ran: the share of every CPU's time left idle, and this process's longest stall. */
export interface MachineLoad {
  /** Idle CPU time over all CPU time, all CPUs together, from 0 (saturated) to 1 (idle). */
  idleShare: number;
  /** The longest this process's event loop went without running a timer (watchStalls), in ms. */
  stalledMs: number;
}

/** What a stdio case leaves besides its exchanges, as it was when the script ended (before the runner's clean-up). */
export interface StdioEvidence {
  era: StdioEra;
  personalities: readonly string[];
  /** The grace the client was given for each step of its shutdown (ConnectOptions.shutdownGraceMs). */
  shutdownGraceMs: number;
  /** Every process launched from the target, in the order they reported: stdin chunks, stderr writes, EOF, signals, exit, and whether it was still alive. */
  processes: readonly StdioProcessState[];
  /** The pids of processes launched from the target still running when the script ended. */
  survivors: readonly number[];
}

/** Lets a scenario's `setup` state type its `run` context while all scenarios share one list type. */
export function defineScenario<State>(scenario: Scenario<State>): Scenario<any> {
  return scenario;
}

/**
 * What one check found. `inconclusive`: the rule was never exercised (the suite could not drive the client to it), so
 * the check says nothing about the client, neither pass nor fail.
 */
export type CheckOutcome = 'pass' | 'fail' | 'inconclusive';

export interface Check {
  /** Short kebab-case name, unique within the scenario. */
  name: string;
  spec: SpecRef;
  outcome: CheckOutcome;
  /**
   * A condition the suite needs before the scenario's rules can be judged (the behaviour under test was reached, a
   * personality acted, the client process was alive): never the client's behaviour under test. Its outcome is pass
   * or inconclusive; an unmet one makes the whole case inconclusive.
   */
  precondition?: true;
  /**
   * An unmet precondition the client kept from being met (`client`: its failed checks stand) or that a correct client
   * of its shape never meets (`shape`: the case is n/a); absent, the suite could not set the case up (checks.ts UnmetBy).
   */
  unmetBy?: 'client' | 'shape';
  /** How far past its deadline a late rule held, when the judge measured it (deadlines.ts checkInTime): lateness no load could explain is judged firmly, at once. */
  lateByMs?: number;
  /** Inconclusive for a reason more time cannot change (the client process is dead, the adapter contract cannot drive the rule): runCase does not run the case again for it. */
  lasting?: true;
  /** What was expected and what was seen (for an inconclusive check: why the rule was not exercised). */
  detail: string;
  /** Seq numbers of the exchanges that decided the check. */
  exchanges: number[];
}

/**
 * `inconclusive`: the suite could not judge (a precondition was not met, or a rule was never exercised), with the
 * reason; `n/a`: the client does not declare what the scenario needs.
 */
export type Verdict = 'pass' | 'fail' | 'warn' | 'inconclusive' | 'n/a';

/** One run of a case that was run again because it was inconclusive (time ran out, say), with larger bounds. */
export interface Attempt {
  verdict: Verdict;
  reason?: string;
  /** The time scale it ran at. */
  scale: number;
}

export interface ScenarioResult {
  scenarioId: string;
  adapter: string;
  revision: Revision;
  verdict: Verdict;
  /** Why not applicable or inconclusive, or the failing checks in one line each. */
  reason?: string;
  checks: Check[];
  evidence?: Evidence;
  /** What the verdict was decided from (judge.ts `judgeCase`): absent for n/a, and in results read from older files. */
  record?: CaseRecord;
  durationMs: number;
  /** Earlier runs of the same case, when it was run again (each inconclusive), oldest first. */
  attempts?: Attempt[];
}

export const failed = (check: Check): boolean => check.outcome === 'fail';
export const unmet = (check: Check): boolean => check.precondition === true && check.outcome !== 'pass';

/**
 * The verdict a set of checks earns. An unmet precondition the suite could not meet: inconclusive, whatever else the
 * checks say (the suite could not set the case up; a failure there is not the client's). One a correct client of this
 * shape never meets: n/a. Else any failed MUST fails; a failed SHOULD warns, or fails when strict — also where the
 * client kept a precondition from being met (it hung or broke a rule first: what it broke stands); else a MUST or
 * SHOULD rule never exercised, or a precondition the client kept unmet, leaves the case inconclusive (never a
 * vacuous pass).
 */
export function verdictOf(checks: readonly Check[], strict = false): Verdict {
  if (checks.some(unmetBySuite)) return 'inconclusive';
  if (checks.some((check) => unmet(check) && check.unmetBy === 'shape')) return 'n/a';
  const broken = checks.filter(failed);
  if (broken.some((check) => check.spec.level === 'MUST')) return 'fail';
  if (broken.some((check) => check.spec.level === 'SHOULD')) return strict ? 'fail' : 'warn';
  if (checks.some(unmet)) return 'inconclusive';
  if (checks.some((check) => check.outcome === 'inconclusive' && check.spec.level !== 'MAY')) return 'inconclusive';
  return 'pass';
}

/** How strong each level is, for `cappedAt`. */
const STRENGTH: Record<Level, number> = { MAY: 0, SHOULD: 1, MUST: 2 };

/**
 * A scenario's level (its `source.spec.level`) caps every check in it, the runner's own included: a SHOULD scenario
 * drives the client into a SHOULD behaviour, so a MUST it breaks there (a call it could not complete once it took the
 * road the scenario set out) is judged at SHOULD, never a MUST failure. The section says so.
 */
export function cappedAt(checks: readonly Check[], level: Level): Check[] {
  return checks.map((check) =>
    STRENGTH[check.spec.level] > STRENGTH[level] ? { ...check, spec: { ...check.spec, level, section: `${check.spec.section} (judged at ${level}, the scenario's level)` } } : check,
  );
}

/** A precondition the suite (not the client, not its shape) could not meet. */
export const unmetBySuite = (check: Check): boolean => unmet(check) && check.unmetBy === undefined;

/** The one-line reason of a verdict: the unmet preconditions, else the failed checks, else the rules never exercised. */
export function reasonOf(checks: readonly Check[], verdict: Verdict): string | undefined {
  const line = (check: Check) => `${check.name}: ${check.detail}`;
  const shown =
    verdict === 'inconclusive' || verdict === 'n/a'
      ? checks.some(unmet)
        ? checks.filter(unmet)
        : checks.filter((check) => check.outcome === 'inconclusive')
      : checks.filter(failed);
  // A failure that kept the client from the behaviour under test: say which step it never reached.
  const neverReached = verdict === 'fail' || verdict === 'warn' ? checks.filter((check) => unmet(check) && check.unmetBy === 'client') : [];
  const text = [...shown, ...neverReached].map((check) => (neverReached.includes(check) ? `never reached ${line(check)}` : line(check)));
  return text.length > 0 ? text.join('; ') : undefined;
}
