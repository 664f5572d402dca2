// The one place a case's verdict is decided: from what the case left (its CaseRecord: the evidence, what clean-up
// found, the adapter's word on its client, the first run's react bound), the scenario's judge, the schema check and
// the runner's own rules give the checks, the verdict and its reason. Pure: no I/O, no clock, no server. The runner,
// the self-test's doctored proofs and `--rejudge` (a saved run judged again, api/index.ts) all call `judgeCase`, so
// what the proofs test is the assembly the matrix uses.
import type { TimePolicy } from '../config/time.ts';
import { check, precondition } from './checks.ts';
import { checkInTime, judgedAgainstLoad, moreTimeMayChange } from './deadlines.ts';
import { transportOf } from './plan.ts';
import { schemaCheck } from './schema.ts';
import { onStdio, shutdown, stdioShutdown } from './spec.ts';
import { cappedAt, reasonOf, verdictOf, type CaseRecord, type Check, type Ending, type Evidence, type Scenario, type Verdict } from './scenario.ts';

/** The check every scenario carries; a close() or dispose() that hangs or breaks the contract fails it, whatever the judge said. */
export const CLIENT_COMPLETED = 'client-completed';

/** The precondition added when the adapter says its client could not take part (its process died, say). */
export const CLIENT_RUNNING = 'client-running';

/** What a case comes to: every check, the verdict they earn, and the one-line reason. */
export interface Judgement {
  checks: Check[];
  verdict: Verdict;
  reason?: string;
  /** Larger bounds could change the verdict (deadlines.ts moreTimeMayChange): the runner runs the case again exactly then. */
  moreTimeMayChange: boolean;
}

/** A record with nothing found at clean-up and nothing said by the adapter: how a doctored proof judges bare evidence. */
export const recordOf = (evidence: Evidence): CaseRecord => ({ evidence, ending: { findings: [], problems: [], breaches: [] } });

/** The scenario's own checks and the schema check every scenario carries, on this evidence. */
const judged = (scenario: Scenario, evidence: Evidence): Check[] => [...scenario.judge(evidence), schemaCheck(evidence)];

/**
 * Judges a case from its record. The scenario's judge and the schema check first; then what clean-up found (a close or
 * dispose that hung or broke the contract fails client-completed; the MAY findings inform); on a rerun, promptness at
 * the first run's react bound; the client-running precondition when the adapter says its client could not take part;
 * the scenario's level caps every check; and a case the suite could not judge because the client broke the adapter
 * contract fails.
 */
export function judgeCase(scenario: Scenario, record: CaseRecord, strict = false): Judgement {
  const { evidence, ending } = record;
  const { revision, time } = evidence;
  const overStdio = transportOf(scenario) === 'stdio';
  // The runner's own findings cite the case's transport: over stdio its shutdown sequence, never an HTTP section.
  const shutdownRule = overStdio ? stdioShutdown : shutdown;
  // The scenario's judge never reads the machine's load: it is judged on the evidence as the script left it.
  const { machine: load, ...asLeft } = evidence;
  let checks = completedCleanly(judged(scenario, asLeft), ending, revision, time, shutdownRule);
  checks.push(...ending.findings);
  // Lateness with the machine's load at hand (deadlines.ts): what no load explains is the client's at once, and on a
  // rerun promptness is the first run's bound.
  const { firstReactMs } = record;
  checks = judgedAgainstLoad(checks, time, load, firstReactMs === undefined ? undefined : { firstReactMs, atFirst: (first) => scenario.judge({ ...evidence, time: first }) });
  checks = keptFromByClient(checks, record);
  if (record.interrupted !== undefined) checks.unshift(precondition(CLIENT_RUNNING, overStdio ? onStdio(scenario.source.spec, revision) : scenario.source.spec, false, record.interrupted, [], { lasting: true }));
  // Each finding cites its own transport's section: a judge shared with an HTTP scenario (a twin) that cites Streamable
  // HTTP or HTTP+SSE is, in a stdio case, the stdio transport's rule in the same words (spec.ts onStdio).
  if (overStdio) checks = checks.map((c) => ({ ...c, spec: onStdio(c.spec, revision) }));
  checks = cappedAt(checks, scenario.source.spec.level);
  let verdict = verdictOf(checks, strict);
  let reason = reasonOf(checks, verdict);
  const breaches = [...(record.breach !== undefined ? [record.breach] : []), ...ending.breaches];
  if ((verdict === 'inconclusive' || verdict === 'fail') && breaches.length > 0) {
    // The client broke the contract (the suite could not judge the rules, or what it broke first stands): that is the
    // client's failure, and the reason says so first.
    verdict = 'fail';
    reason = `the client broke the adapter contract: ${[...new Set(breaches)].join('; ')}${reason ? `; so: ${reason}` : ''}`;
  } else if (verdict === 'inconclusive' && evidence.clientError !== undefined) {
    reason = `${reason ?? 'not judged'} (the client failed: ${evidence.clientError})`;
  }
  return { checks, verdict, ...(reason !== undefined ? { reason } : {}), moreTimeMayChange: moreTimeMayChange(verdict, checks) };
}

/**
 * A client that failed firmly while the script drove it (an error it raised, not a bound that ran out on a provisional
 * run, not a process that died) never reached what the scenario set out to judge by its own doing: the preconditions
 * left unmet are the client's, so what it broke stands (a failed client-completed, and any other check) instead of
 * "could not judge". An adapter that says its client could not take part (client-running) keeps the case the suite's.
 */
function keptFromByClient(checks: Check[], record: CaseRecord): Check[] {
  const completed = checks.find((c) => c.name === CLIENT_COMPLETED);
  const clientFailed = record.evidence.clientError !== undefined && record.evidence.clientTimedOut !== true && completed?.outcome === 'fail';
  if (!clientFailed || record.interrupted !== undefined) return checks;
  return checks.map((c) =>
    c.precondition && c.outcome !== 'pass' && c.unmetBy === undefined
      ? { ...c, unmetBy: 'client' as const, lasting: true as const, detail: `${c.detail} (the client failed first: ${record.evidence.clientError})` }
      : c,
  );
}

/**
 * A close() or dispose() that hung or broke the contract fails client-completed in every scenario: what a scenario's
 * script catches (a DELETE 405 its close rejects on, say) must never hide a hang.
 */
function completedCleanly(checks: Check[], ending: Ending, revision: Evidence['revision'], time: TimePolicy, shutdownRule: typeof shutdown): Check[] {
  const { problems } = ending;
  if (problems.length === 0) return checks;
  const detail = `close() or dispose() did not end cleanly: ${problems.join('; ')}`;
  const rule = shutdownRule(revision, 'the client ends its connections and releases what it holds when told to (close() and dispose() settle)', 'MUST');
  // A close that only ran out of its bound is a deadline missed (deadlines.ts checkInTime): on a provisional run, time ran out.
  const failed = (spec: Check['spec'], text: string): Check => (ending.onlyHangs ? checkInTime(time, CLIENT_COMPLETED, spec, 'late', text) : check(CLIENT_COMPLETED, spec, false, text));
  const index = checks.findIndex((c) => c.name === CLIENT_COMPLETED);
  if (index === -1) return [failed(rule, detail), ...checks];
  const completed = checks[index]!;
  const merged: Check = completed.outcome === 'fail' ? { ...completed, detail: `${completed.detail}; ${detail}` } : { ...failed(completed.spec, detail), exchanges: completed.exchanges };
  return checks.map((c, i) => (i === index ? merged : c));
}
