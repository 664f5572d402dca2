// 2026-07-28 over stdio, a dual-era client against a legacy server: it probes with server/discover first and falls back
// to initialize on whatever legacy answer the probe gets — -32601, -32602, no answer at all, or the server exiting on
// the unknown method (then on a process it launches anew) — within its connect's own timeout, and probes once.
// One scenario per answer: each needs its own server personality, and a stdio case has one server, whose launches a
// client numbers as it likes (the TypeScript SDK probes on a sibling process it launches first). The legacy era is the
// newest one: over stdio the legacy revisions differ in version and batching only, nothing the probe meets.
import type { TimePolicy } from '../../config/time.ts';
import type { Revision } from '../../protocol/revisions.ts';
import type { StdioPersonalityName } from '../../servers/stdio/personalities.ts';
import type { WireExchange } from '../../servers/wire-record.ts';
import { clientCompleted, unexercised } from '../checks.ts';
import { checkInTime } from '../deadlines.ts';
import { defineScenario, type Check, type DoctoredProof, type Evidence, type Scenario } from '../scenario.ts';
import { labels } from '../wire.ts';
import {
  acrossCases,
  caseOutcome,
  type CaseOutcome,
  connectCase,
  describeCase,
  fallbackBroken,
  fallbackLate,
  fallbackOf,
  fallbackUnreached,
  probeFirst,
  processOf,
  ranOutOfTime,
  reasonableProbeWaitMs,
  stdioBackward,
  stdioProbeAnswered,
} from '../negotiation/support.ts';
import { legacyModeNoProbe } from '../negotiation/legacy-mode-no-probe.ts';
import { overStdio, serverRecorded, serverRecordedProof } from './support.ts';

/** The connect's name in `observed` (one connect per case). */
export const PROBE_CASE = 'probe';

/** The legacy revision the fallback scenarios run at. */
export const FALLBACK_REVISIONS: readonly Revision[] = ['2025-11-25'];

interface LegacyAnswer {
  /** The scenario id's tail. */
  name: string;
  personality: StdioPersonalityName;
  /** The answer, for details. */
  what: string;
}

const ANSWERS: readonly LegacyAnswer[] = [
  { name: '32601', personality: 'probe-method-not-found', what: '-32601 Method not found' },
  { name: '32602', personality: 'probe-invalid-params', what: '-32602 Invalid params' },
  { name: 'silence', personality: 'probe-silence', what: 'no answer' },
  { name: 'exit', personality: 'probe-exit', what: 'the server exiting (code 1)' },
];

/**
 * The connect's timeout: silence is judged against the client's start-up (calibrated over stdio: its server's launch
 * and a handshake, with headroom) and a reasonable probe wait, so a client that spends it all on the probe misses it
 * (and each of the case's runs stays short: such a client waits it out three times, ×1, ×2, ×4); the other answers get
 * the client's own operation bound, room for a second launch (a sibling to probe on, or a process launched anew).
 */
const boundOf = (time: TimePolicy, silence: boolean) => (silence ? time.ms.startup + reasonableProbeWaitMs(time) : time.ms.operation);

const fallbackRule = (what: string) =>
  stdioBackward(
    `any other error, or no answer within a reasonable timeout, means a legacy server: fall back to initialize; the fallback MUST NOT be keyed to one error code (here ${what})`,
    'MUST',
  );

/**
 * `falls-back-to-initialize` and `at-most-one-probe` over one connect given `bound` ms, as negotiation/auto-falls-back
 * judges each of its cases: initialize after the probe's legacy answer, and a session that works on the process the
 * handshake ran on.
 */
export function fallbackChecks(evidence: Evidence, what: string, bound: number, silence = false): Check[] {
  const exchanges = evidence.exchanges;
  const outcome = caseOutcome(evidence, PROBE_CASE, evidence.exchanges);
  const fallback = fallbackOf(exchanges);
  const [probe] = fallback.probes;
  const handshake = fallback.initializes[0]?.exchange;
  const unreached = fallbackUnreached(fallback, exchanges, outcome, bound, stdioProbeAnswered) ?? (probe && !fallback.working ? stillUnderWay(evidence, probe, outcome, bound, silence) : undefined);
  const where = (exchange: typeof probe) => (exchange && processOf(exchange) !== undefined ? ` (process ${processOf(exchange)})` : '');
  const late = unreached === undefined ? fallbackLate(fallback, outcome, bound) : undefined;
  const broken = late === undefined ? fallbackBroken(fallback, outcome) : undefined;
  return [
    acrossCases(
      'falls-back-to-initialize',
      fallbackRule(what),
      [
        {
          what: `${what} to the probe${where(probe)}`,
          ...(unreached !== undefined ? { unreached } : {}),
          ...(late !== undefined ? { late } : {}),
          ...(broken !== undefined ? { broken } : {}),
          exchanges: [probe, handshake].filter((x) => x !== undefined),
        },
      ],
      `after ${what} to the probe${where(probe)}, initialize${where(handshake)} and a working session (${describeCase(outcome)})`,
      evidence.time,
    ),
    acrossCases(
      'at-most-one-probe',
      stdioBackward('the era is a property of the server, determined once: one probe per connect', 'SHOULD'),
      [{ what, ...(probe === undefined ? { unreached: unreached ?? 'no probe reached the server' } : {}), ...(fallback.probes.length > 1 ? { broken: labels(fallback.probes) } : {}), exchanges: fallback.probes }],
      'one server/discover in the connect',
    ),
  ];
}

/**
 * Why a case that did not fall back says nothing about the fallback, over stdio: after a silent probe its connect ran out
 * of time first (when the fallback comes is falls-back-in-time's to judge); or the server, slow to start, read the probe
 * (and died of it) only after a reasonable probe wait, when the client may already have taken it for silence and sent
 * its handshake to the process the probe then killed (more time, not a verdict). A connect that ran out of time before
 * any initialize otherwise is a missed deadline (fallbackLate), and a client told of the exit in time did not fall back.
 */
function stillUnderWay(evidence: Evidence, probe: WireExchange, outcome: CaseOutcome | undefined, bound: number, silence: boolean): string | undefined {
  const processes = evidence.stdio?.processes ?? [];
  const probed = processes.find((p) => p.index === processOf(probe));
  const readAfter = outcome === undefined ? undefined : probe.startedAt - outcome.startedAt;
  if (probed?.exit?.reason === 'probe-exit' && readAfter !== undefined && readAfter >= reasonableProbeWaitMs(evidence.time)) {
    return `the server, slow to start, read the probe only ${Math.round(readAfter)} ms into the connect and exited: the client may have taken it for silence by then (${describeCase(outcome)})`;
  }
  if (silence && ranOutOfTime(outcome, bound)) return `the connect's ${bound} ms ran out before any fallback (falls-back-in-time judges when it comes): ${describeCase(outcome)}`;
  return undefined;
}

/**
 * `falls-back-in-time` (silence): the initialize arrives within the connect's own timeout, counted from the connect's
 * start. A client whose probe waits out the whole connect timeout (or longer) has nothing left for the handshake.
 * Arriving later may be the machine's doing on a provisional run ('late': the case runs again with larger bounds).
 */
function inTimeCheck(evidence: Evidence): Check {
  const outcome = caseOutcome(evidence, PROBE_CASE, evidence.exchanges);
  const bound = boundOf(evidence.time, true);
  const fallback = fallbackOf(evidence.exchanges);
  const [probe] = fallback.probes;
  const initialize = fallback.initializes[0]?.exchange;
  const spec = stdioBackward("no answer within a reasonable timeout means a legacy server: the client falls back within its connect's own timeout", 'SHOULD');
  if (probe === undefined || !stdioProbeAnswered(probe) || outcome === undefined) return unexercised('falls-back-in-time', spec, probe === undefined ? 'no probe reached the server' : 'the probe was not met with silence as scripted');
  const deadline = outcome.startedAt + bound;
  if (initialize === undefined && !ranOutOfTime(outcome, bound)) {
    return unexercised('falls-back-in-time', spec, `the client never fell back (falls-back-to-initialize): ${describeCase(outcome)}`);
  }
  const held = initialize !== undefined && initialize.startedAt <= deadline ? true : 'late';
  const into = (at: number) => `${Math.round(at - outcome.startedAt)} ms into the connect`;
  return checkInTime(
    evidence.time,
    'falls-back-in-time',
    spec,
    held,
    initialize === undefined
      ? `no initialize within the connect's ${bound} ms after the unanswered probe (${describeCase(outcome)})`
      : `initialize arrived ${Math.round(initialize.startedAt - probe.startedAt)} ms after the unanswered probe, ${into(initialize.startedAt)} (its timeout: ${bound} ms)`,
    [probe, ...(initialize ? [initialize] : [])],
  );
}

/** The proofs every fallback scenario carries: checks no broken variant reaches there, failed on a doctored record. */
const fallbackProofs: readonly DoctoredProof[] = [
  {
    check: 'falls-back-to-initialize',
    how: 'every initialize line removed (and the probe read at once: a loaded run\'s slow read would leave the case under way)',
    doctor: (e) => {
      const startedAt = caseOutcome(e, PROBE_CASE, e.exchanges)?.startedAt ?? 0;
      const probe = e.exchanges.find((x) => x.requestMessages.some((m) => m.method === 'server/discover'));
      return {
        ...e,
        exchanges: e.exchanges.filter((x) => !x.requestMessages.some((m) => m.method === 'initialize')).map((x) => (x === probe ? { ...x, startedAt } : x)),
      };
    },
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
];

function fallbackScenario({ name, personality, what }: LegacyAnswer): Scenario {
  const silence = personality === 'probe-silence';
  return defineScenario<undefined>({
    id: `stdio/probe-fallback-${name}`,
    title: `Auto mode over stdio, a legacy server answering the probe with ${what}: server/discover first, then initialize${personality === 'probe-exit' ? ' on a process launched anew' : ''} and a working session, one probe${silence ? ', within the connect’s timeout' : ''}`,
    revisions: FALLBACK_REVISIONS,
    requires: ['mode-auto'],
    transport: 'stdio',
    source: { spec: fallbackRule(what) },
    setup: () => ({ stdio: { personalities: [personality] }, state: undefined }),
    async run(context) {
      await connectCase(context, PROBE_CASE, { negotiation: 'auto', timeoutMs: boundOf(context.time, silence) }, {}, context.stdio.record);
    },
    judge(evidence) {
      return [serverRecorded(evidence), clientCompleted(evidence, fallbackRule(what)), probeFirst(evidence), ...fallbackChecks(evidence, what, boundOf(evidence.time, silence), silence), ...(silence ? [inTimeCheck(evidence)] : [])];
    },
    doctored: [
      ...fallbackProofs,
      ...(silence
        ? [
            {
              check: 'falls-back-in-time',
              how: "the initialize line arriving past the connect's timeout",
              doctor: (e: Evidence) => {
                const late = caseOutcome(e, PROBE_CASE, e.exchanges)!.startedAt + boundOf(e.time, true) + 1;
                return { ...e, exchanges: e.exchanges.map((x) => (x.requestMessages.some((m) => m.method === 'initialize') ? { ...x, startedAt: late } : x)) };
              },
            },
          ]
        : []),
    ],
  });
}

/**
 * The other side of probe-first: in legacy mode the client never probes, over stdio as over HTTP (the same script and
 * judge), at the fallback scenarios' revision.
 */
export const legacyModeNoProbeOverStdio = overStdio(legacyModeNoProbe, { revisions: FALLBACK_REVISIONS });

/** stdio/probe-fallback-32601, -32602, -silence, -exit, and legacy mode's no probe. */
export const PROBE_FALLBACK: readonly Scenario[] = [...ANSWERS.map(fallbackScenario), legacyModeNoProbeOverStdio];
