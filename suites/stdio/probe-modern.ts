// 2026-07-28 over stdio, a dual-era client against a modern server whose probe answer is not a plain DiscoverResult:
// - -32022 naming 2026-07-28, a version the client speaks: it retries with it and stays modern, no initialize;
// - -32022 naming only 2099-01-01: the server is modern but shares no version with the client, which surfaces an
//   error and never initializes;
// - a slow start (the copilot-cli race, github/copilot-cli#4525: a probe timeout shorter than the server's start-up
//   sent initialize to a modern server): against a 2026-07-28 server the client waits the start out and stays modern;
//   against a legacy one it falls back on the era's late -32601.
// One scenario per answer, each with its own server (see probe-fallback.ts).
import type { TimePolicy } from '../../config/time.ts';
import { isModern, M, MODERN_REVISION } from '../../protocol/revisions.ts';
import { PROBE_ANSWER_NOTE } from '../../servers/stdio/protocol.ts';
import type { WireExchange } from '../../servers/wire-record.ts';
import { clientCompleted, unexercised } from '../checks.ts';
import { checkInTime, type InTime } from '../deadlines.ts';
import { defineScenario, type Check, type Evidence, type Scenario, type SpecRef } from '../scenario.ts';
import { versioning } from '../spec.ts';
import { carrying, labels, noted, requests, servedResult } from '../wire.ts';
import {
  answerAt,
  caseOutcome,
  connectCase,
  describeCase,
  earlyFallback,
  modernConnectMs,
  operationsDeclaring,
  probeFirst,
  processOf,
  ranOutOfTime,
  reasonableProbeWaitMs,
  retriesMutualVersion,
  stdioBackward,
} from '../negotiation/support.ts';
import { FALLBACK_REVISIONS, fallbackChecks, PROBE_CASE } from './probe-fallback.ts';
import { serverRecorded, serverRecordedProof } from './support.ts';

const noFallbackRule: SpecRef = stdioBackward('a recognized modern error such as UnsupportedProtocolVersionError means a modern server: use a version it lists; do not fall back to initialize', 'SHOULD');

/** The initialize lines after the probe the modern error answered (one before any probe is probe-first's failure). */
const initializesAfter = (evidence: Evidence, refused: WireExchange | undefined) => (refused ? carrying(evidence.exchanges, 'initialize').filter((x) => x.seq > refused.seq) : []);

/**
 * The probe the server refused with its modern error, and whether the client saw the refusal: an initialize the server
 * read before it wrote the refusal means the client had given up on the probe first (earlyFallback), so it never met
 * the modern error this scenario is about.
 */
function refusalOf(evidence: Evidence): { refused?: WireExchange; early: (InTime | undefined)[]; unseen?: string } {
  const refused = noted(evidence.exchanges, PROBE_ANSWER_NOTE)[0];
  if (refused === undefined) return { early: [] };
  // Without the connect's start (never on a record the script wrote), nothing bounds the wait from above: 'late' at most.
  const since = caseOutcome(evidence, PROBE_CASE, evidence.exchanges)?.startedAt ?? -Infinity;
  const early = initializesAfter(evidence, refused).map((x) => earlyFallback(refused, x, evidence.time, since));
  const unseen = early.length > 0 && early.every((e) => e !== undefined) ? 'the client gave up on the probe before the server refused it, and fell back (no-fallback-on-modern-error)' : undefined;
  return { refused, early, ...(unseen !== undefined ? { unseen } : {}) };
}

/**
 * `no-fallback-on-modern-error`: the probe was refused with a modern error, and no initialize followed it. One that
 * came before the refusal was no reaction to it: after a reasonable wait a slow server's doing ('late'), after less a
 * probe timeout too short (earlyFallback).
 */
function noFallbackCheck(evidence: Evidence, what: string): Check {
  const { refused, early } = refusalOf(evidence);
  const outcome = caseOutcome(evidence, PROBE_CASE, evidence.exchanges);
  if (refused === undefined) return unexercised('no-fallback-on-modern-error', noFallbackRule, `${what}: the server never gave its modern error (${labels(evidence.exchanges)}; ${describeCase(outcome)})`);
  const initializes = initializesAfter(evidence, refused);
  const held: InTime = early.includes(undefined) ? false : early.includes(false) ? false : early.length > 0 ? 'late' : true;
  return checkInTime(
    evidence.time,
    'no-fallback-on-modern-error',
    noFallbackRule,
    held,
    initializes.length === 0
      ? `${what}: no initialize followed (${describeCase(outcome)})`
      : early.includes(undefined)
        ? `${what}: the client fell back: ${labels(initializes)}`
        : `the client gave up on the probe before the server wrote ${what}${answerAt(refused) !== undefined ? ` (${Math.round(answerAt(refused)! - refused.startedAt)} ms after it read the probe)` : ''}, and fell back: ${labels(initializes)}, read ${Math.round(initializes[0]!.startedAt - (caseOutcome(evidence, PROBE_CASE, evidence.exchanges)?.startedAt ?? 0))} ms into the connect`,
    [refused, ...initializes],
  );
}

const surfaceRule = versioning('protocol-version-negotiation', 'Protocol Version Negotiation: with no mutually supported version, the client SHOULD surface an error to the user', 'SHOULD');

const MUTUAL = `-32022 naming ${MODERN_REVISION}`;
const NO_MUTUAL = '-32022 naming only 2099-01-01';

const initializeInsertedAfterProbe = (e: Evidence): Evidence => {
  const probe = e.exchanges.find((x) => x.requestMessages.some((m) => m.method === 'server/discover'))!;
  const initialize = { ...probe, seq: probe.seq + 0.5, notes: [], responseMessages: [], requestMessages: [{ jsonrpc: '2.0' as const, id: 99, method: 'initialize', params: {} }] };
  return { ...e, exchanges: [...e.exchanges, initialize].sort((a, b) => a.seq - b.seq) };
};

export const probeMutualVersion = defineScenario<undefined>({
  id: 'stdio/probe-mutual-version',
  title: `Auto mode over stdio, the probe refused with ${MUTUAL}: the client retries with it and stays modern, no initialize`,
  revisions: M,
  requires: ['mode-auto'],
  transport: 'stdio',
  source: { spec: noFallbackRule },
  setup: () => ({ stdio: { personalities: ['probe-corrective-version'] }, state: undefined }),
  async run(context) {
    await connectCase(context, PROBE_CASE, { negotiation: 'auto', timeoutMs: modernConnectMs(context.time) }, {}, context.stdio.record);
  },
  judge(evidence) {
    const { refused, unseen } = refusalOf(evidence);
    const outcome = caseOutcome(evidence, PROBE_CASE, evidence.exchanges);
    return [
      serverRecorded(evidence),
      clientCompleted(evidence, noFallbackRule),
      probeFirst(evidence),
      noFallbackCheck(evidence, MUTUAL),
      // A refusal the client never waited for was never there for it to retry after.
      retriesMutualVersion(MUTUAL, evidence.exchanges, unseen === undefined ? refused : undefined, initializesAfter(evidence, refused), outcome, unseen),
    ];
  },
  doctored: [serverRecordedProof],
});

export const probeNoMutualVersion = defineScenario<undefined>({
  id: 'stdio/probe-no-mutual-version',
  title: `Auto mode over stdio, the probe refused with ${NO_MUTUAL}: the client surfaces an error at once and never initializes`,
  revisions: M,
  requires: ['mode-auto'],
  transport: 'stdio',
  source: { spec: noFallbackRule },
  setup: () => ({ stdio: { personalities: ['probe-unsupported-version'] }, state: undefined }),
  async run(context) {
    // A client that waits on the refusal instead of surfacing it runs into this timeout.
    await connectCase(context, PROBE_CASE, { negotiation: 'auto', timeoutMs: modernConnectMs(context.time) }, {}, context.stdio.record);
  },
  judge(evidence) {
    const refused = noted(evidence.exchanges, PROBE_ANSWER_NOTE)[0];
    const outcome = caseOutcome(evidence, PROBE_CASE, evidence.exchanges);
    const bound = modernConnectMs(evidence.time);
    return [
      serverRecorded(evidence),
      clientCompleted(evidence, noFallbackRule),
      probeFirst(evidence),
      noFallbackCheck(evidence, NO_MUTUAL),
      // Rejected in time: surfaced. Rejected at its timeout (or never settled): it waited instead, unless the machine was slow ('late').
      refused === undefined || outcome === undefined
        ? unexercised('error-surfaced', surfaceRule, 'the server never gave its modern error')
        : checkInTime(
            evidence.time,
            'error-surfaced',
            surfaceRule,
            outcome.connect.state === 'resolved' ? false : ranOutOfTime(outcome, bound) ? 'late' : true,
            `after ${NO_MUTUAL}: ${describeCase(outcome)} (its timeout: ${bound} ms)`,
            [refused],
          ),
    ];
  },
  doctored: [
    {
      check: 'error-surfaced',
      how: 'the connect reported as connected',
      doctor: (e) => {
        const outcome = caseOutcome(e, PROBE_CASE, e.exchanges)!;
        return { ...e, observed: { ...e.observed, [`case:${PROBE_CASE}`]: { ...outcome, connect: { state: 'resolved', afterMs: outcome.connect.afterMs } } } };
      },
    },
    serverRecordedProof,
  ],
});

/**
 * How long the slow server handles nothing after it started: the wait this suite holds reasonable for a probe (two
 * reaction bounds), well past a plain start of the program (half a second or so on a loaded two-core machine).
 */
const slowStartMs = (time: TimePolicy) => reasonableProbeWaitMs(time);

/** The first probe, and when the process it went to started (its hello, from which its slow start counts). */
function slowStartOf(evidence: Evidence): { probe: WireExchange; started: number } | string {
  const probe = carrying(evidence.exchanges, 'server/discover')[0];
  if (probe === undefined) return `no probe reached the server (${describeCase(caseOutcome(evidence, PROBE_CASE, evidence.exchanges))})`;
  const process = evidence.stdio?.processes.find((p) => p.index === processOf(probe));
  const started = process?.startedAt ?? process?.connectedAt;
  if (started === undefined) return 'the process the probe went to never reported its start';
  return { probe, started };
}

/** Why the probe met no slow start, or undefined when it did: it reached the server before the slow start was over. */
function probeDuringSlowStart(evidence: Evidence): string | undefined {
  const found = slowStartOf(evidence);
  if (typeof found === 'string') return found;
  const { probe, started } = found;
  return probe.startedAt < started + slowStartMs(evidence.time)
    ? undefined
    : `the probe arrived ${Math.round(probe.startedAt - started)} ms after the process started, when its slow start (${slowStartMs(evidence.time)} ms) was over`;
}

const waitRule = stdioBackward('only an error that is not a modern one, or no answer within a reasonable timeout, means a legacy server: a modern server that starts slowly is answered, not fallen back from', 'SHOULD');

/**
 * 2026-07-28: the slow server's DiscoverResult is waited for; no initialize, and the operations are modern. A client
 * that gave up on the probe while the server was slower than scripted (its answer later than the slow start and a
 * reaction, or never) may have met a loaded machine rather than a short timeout: 'late', and the case runs again with
 * larger bounds (the slow start grows with them, and so does the room the connect's timeout leaves).
 */
function waitsOutSlowStart(evidence: Evidence): Check {
  const found = slowStartOf(evidence);
  const reached = probeDuringSlowStart(evidence);
  if (reached !== undefined || typeof found === 'string') return unexercised('waits-out-slow-start', waitRule, reached ?? String(found));
  const initializes = carrying(evidence.exchanges, 'initialize');
  const { operations, others } = operationsDeclaring(evidence.exchanges, MODERN_REVISION);
  const listed = servedResult(evidence.exchanges, 'tools/list');
  const outcome = caseOutcome(evidence, PROBE_CASE, evidence.exchanges);
  const answeredAt = answerAt(found.probe);
  const onSchedule = answeredAt !== undefined && answeredAt <= found.started + slowStartMs(evidence.time) + evidence.time.ms.react;
  const ok = initializes.length === 0 && listed && others.length === 0;
  const answered = answeredAt === undefined ? 'the probe was never answered' : `the probe was answered ${Math.round(answeredAt - found.started)} ms after the process started`;
  return checkInTime(
    evidence.time,
    'waits-out-slow-start',
    waitRule,
    ok ? true : others.length === 0 && !onSchedule ? 'late' : false,
    ok
      ? `${answered}, and waited for; ${operations.length} operations declared ${MODERN_REVISION} (${describeCase(outcome)})`
      : initializes.length > 0
        ? `the client took the slow start for a legacy server: ${labels(initializes)}; ${answered} (${describeCase(outcome)})`
        : others.length > 0
          ? `${labels(others.map((r) => r.exchange))} declared no ${MODERN_REVISION}`
          : `no modern session: ${requests(evidence.exchanges, 'tools/list').length === 0 ? 'no tools/list reached the server' : 'tools/list was not answered with a result'}; ${answered} (${describeCase(outcome)})`,
    [found.probe, ...initializes],
  );
}

export const probeSlowStart = defineScenario<undefined>({
  id: 'stdio/probe-slow-start',
  title: 'Auto mode over stdio against a server that starts slowly: a modern one is waited for (no initialize), a legacy one is fallen back from on its late -32601',
  revisions: [...FALLBACK_REVISIONS, ...M],
  requires: ['mode-auto'],
  transport: 'stdio',
  source: { spec: waitRule },
  setup: (_revision, time) => ({ stdio: { personalities: [{ name: 'probe-slow-start', ms: slowStartMs(time) }] }, state: undefined }),
  async run(context) {
    // Room for any reasonable probe timeout to outlast the start.
    await connectCase(context, PROBE_CASE, { negotiation: 'auto', timeoutMs: modernConnectMs(context.time) }, {}, context.stdio.record);
  },
  judge(evidence) {
    const modern = isModern(evidence.revision);
    const reached = probeDuringSlowStart(evidence);
    // A legacy server's late -32601 is fallen back from as any legacy answer is; a probe written after the start was over
    // met no slow start, so what held there says nothing about one (a fallback that broke is broken all the same).
    const legacy = modern ? [] : fallbackChecks(evidence, "the era's own -32601, late", modernConnectMs(evidence.time)).map((c) => (reached !== undefined && c.outcome === 'pass' ? { ...c, outcome: 'inconclusive' as const, detail: reached } : c));
    return [serverRecorded(evidence), clientCompleted(evidence, waitRule), probeFirst(evidence), ...(modern ? [waitsOutSlowStart(evidence)] : legacy)];
  },
  doctored: [
    { check: 'waits-out-slow-start', how: 'an initialize line after the probe', doctor: initializeInsertedAfterProbe },
    {
      check: 'falls-back-to-initialize',
      how: 'every initialize line removed',
      doctor: (e) => ({ ...e, exchanges: e.exchanges.filter((x) => !x.requestMessages.some((m) => m.method === 'initialize')) }),
    },
    {
      check: 'at-most-one-probe',
      how: 'the probe line written twice',
      doctor: (e) => {
        const probe = e.exchanges.find((x) => x.requestMessages.some((m) => m.method === 'server/discover'))!;
        return { ...e, exchanges: [probe, { ...probe, seq: probe.seq + 0.5 }, ...e.exchanges.filter((x) => x !== probe)] };
      },
    },
    serverRecordedProof,
  ],
});

/** stdio/probe-mutual-version, -no-mutual-version, -slow-start. */
export const PROBE_MODERN: readonly Scenario[] = [probeMutualVersion, probeNoMutualVersion, probeSlowStart];
