// What is truly the negotiation suite's: running one connect that may be meant to fail (several cases, each on its own
// server) with what it came to observed, judging a rule over such cases, and the per-era answers to initialize the
// scenarios script. Citations are suites/spec.ts's, wire queries suites/wire.ts's, outcomes suites/outcome.ts's.
import type { ConnectOptions } from '../../clients/adapter.ts';
import type { TimePolicy } from '../../config/time.ts';
import { isHttpSse, type Revision } from '../../protocol/revisions.ts';
import { initializeAnswers } from '../../servers/personalities/initialize-answers.ts';
import { ANSWERS, probeAnswers } from '../../servers/personalities/probe-answers.ts';
import type { Personality } from '../../servers/personality.ts';
import type { WireExchange } from '../../servers/wire-record.ts';
import { check, unexercised } from '../checks.ts';
import { settle, type Outcome } from '../outcome.ts';
import type { Check, ConnectTarget, Evidence, ScenarioContext, SpecRef } from '../scenario.ts';

// — time —

/**
 * The connect bound of a case whose client must act on an answer (fail, retry, fall back) rather than wait for another:
 * this client's start-up (calibrated), so a slow starter still reaches the answer, and room for several reactions, so
 * a client that reacts slowly on a loaded machine is told apart from one that sits the bound out.
 */
export const connectBound = (time: TimePolicy): number => time.ms.startup + 4 * time.ms.react;

// — running a case —

/** What one case came to, as the script observed it. */
export interface CaseOutcome {
  /** The connect: resolved (connected), rejected (it failed), or pending and `hung` (the runner's bound gave up). */
  connect: Outcome;
  /** When the connect began, on the case server's clock (the judge compares it with the times of the server's answers). */
  startedAt: number;
  /** What `info()` reported, when connected. */
  negotiatedVersion?: string;
  era?: string;
  /** What `info()` and the `tools/list` after connecting came to. */
  listTools?: Outcome;
}

/**
 * The connect did not complete within `boundMs`, the bound the script gave it: it was still under way when time ran out
 * (on a loaded machine, say), which says nothing about what the client would have done with more time.
 */
export const ranOutOfTime = (outcome: CaseOutcome | undefined, boundMs: number): boolean =>
  outcome !== undefined && outcome.connect.state !== 'resolved' && (outcome.connect.hung === true || outcome.connect.afterMs >= boundMs);

/** When the connect settled, on the case server's clock. */
export const settledAt = (outcome: CaseOutcome): number => outcome.startedAt + outcome.connect.afterMs;

/**
 * Connects (to `target.server`, default the scenario's server), records what the connect came to under `case:<name>`,
 * and when it connected asks `info()`, lists the tools and closes. A failed or hung connect is an outcome, not a client
 * error: the judge decides. So is a failed `info()` or `tools/list`; a close that fails is the client's error.
 */
export async function connectCase(context: ScenarioContext<unknown>, name: string, options: Partial<ConnectOptions>, target: ConnectTarget = {}): Promise<CaseOutcome> {
  const server = target.server ?? context.server;
  const since = performance.now();
  const startedAt = server.record.now();
  let connection: Awaited<ReturnType<typeof context.connect>> | undefined;
  const outcome: CaseOutcome = {
    connect: await settle(context.connect(options, target).then((connected) => (connection = connected)), since),
    startedAt,
  };
  if (connection) {
    const client = connection;
    outcome.listTools = await settle(
      (async () => {
        const info = await context.bounded(client.info(), `info (${name})`);
        if (info.negotiatedVersion !== undefined) outcome.negotiatedVersion = info.negotiatedVersion;
        if (info.era !== undefined) outcome.era = info.era;
        await context.bounded(client.listTools(), `tools/list (${name})`);
      })(),
    );
    await context.bounded(client.close(), `close (${name})`);
  }
  context.observe(`case:${name}`, outcome);
  return outcome;
}

export function caseOutcome(evidence: Evidence, name: string): CaseOutcome | undefined {
  return evidence.observed[`case:${name}`] as CaseOutcome | undefined;
}

/** `connected (legacy 2025-06-18), tools/list answered`, `the connect failed (Error: …)`, `the connect never settled`. */
export function describeCase(outcome: CaseOutcome | undefined): string {
  if (outcome === undefined) return 'the case did not run';
  const { connect, listTools } = outcome;
  if (connect.hung) return `the connect never settled (${connect.detail ?? 'the runner gave up'})`;
  if (connect.state === 'rejected') return `the connect failed after ${connect.afterMs} ms (${connect.detail})`;
  if (connect.state === 'pending') return 'the connect had not settled';
  const era = outcome.era ? ` (${outcome.era}${outcome.negotiatedVersion ? ` ${outcome.negotiatedVersion}` : ''})` : '';
  const list = listTools === undefined ? '' : listTools.state === 'resolved' ? ', tools/list answered' : `, tools/list ${listTools.hung ? 'never settled' : `failed (${listTools.detail})`}`;
  return `connected${era}${list}`;
}

/** How details name a case's server: `server 1` is the scenario's own (`index` -1), `server 2` the first started. */
export function serverName(index: number): string {
  return `server ${index + 2}`;
}

/** The exchanges of one case's server: the scenario's own (`index` -1) or the one started `index`-th. */
export function caseExchanges(evidence: Evidence, index: number): readonly WireExchange[] {
  return (index < 0 ? evidence.exchanges : evidence.otherServers[index]?.exchanges) ?? [];
}

// — judging a rule over several cases —

/** One case of a rule judged over several. */
export interface CaseJudgement {
  /** The case, for details: `503 with Retry-After (server 2)`. */
  what: string;
  /** Why the case never reached the rule (its stimulus was never delivered), or undefined when it did. */
  unreached?: string;
  /** What broke the rule in this case, or undefined when it held. */
  broken?: string;
  /** How it held, for the detail (when the rule reads better with it). */
  held?: string;
  /** The exchanges that show it. */
  exchanges?: readonly WireExchange[];
}

/**
 * A rule over several cases, each on its own server: it fails when it broke in any case that reached it, passes when
 * every case reached it and it held there (`held` says how), and is otherwise not exercised, naming the cases that
 * never got there. One case the suite could not drive never hides another case's failure.
 */
export function acrossCases(name: string, spec: SpecRef, cases: readonly CaseJudgement[], held: string): Check {
  const reached = cases.filter((c) => c.unreached === undefined);
  const broken = reached.filter((c) => c.broken !== undefined);
  if (broken.length > 0) return check(name, spec, false, broken.map((c) => `${c.what}: ${c.broken}`).join('; '), broken.flatMap((c) => c.exchanges ?? []));
  const unreached = cases.filter((c) => c.unreached !== undefined);
  if (unreached.length > 0 || cases.length === 0) {
    return unexercised(name, spec, cases.length === 0 ? 'no case reached the rule' : unreached.map((c) => `${c.what}: ${c.unreached}`).join('; '));
  }
  return check(name, spec, true, held, reached.flatMap((c) => c.exchanges ?? []));
}

// — era-appropriate answers to initialize —

/** HTTP+SSE (2024-11-05) answers travel on the stream: only the in-session POST to its endpoint is answered. */
const inSseSession = (request: { sseSession?: string }) => request.sseSession !== undefined;

/** `initialize` answered with a well-formed result naming `revision`, whatever was offered. */
export function initializeAnsweredWith(era: Revision, revision: string): Personality {
  if (!isHttpSse(era)) return initializeAnswers({ revision });
  return probeAnswers({ ...ANSWERS.initializeResult(revision), when: inSseSession });
}

/**
 * `initialize` refused with the lifecycle error form (`-32602` with `data.supported`) whenever it offers a version
 * not in `supported`: a retry offering a listed version reaches the era.
 */
export function initializeRefusedUnless(era: Revision, supported: readonly string[]): Personality {
  if (!isHttpSse(era)) return initializeAnswers({ error: { supported } });
  return probeAnswers({
    ...ANSWERS.initializeErrorForm(supported),
    when: (request) => {
      const offered = (request.message.params as { protocolVersion?: unknown } | undefined)?.protocolVersion;
      return inSseSession(request) && !(typeof offered === 'string' && supported.includes(offered));
    },
  });
}
