// 2026-07-28 over stdio: the era is a property of the server, so a dual-era client determines it once and keeps it for
// the life of the server process (versioning › Backward Compatibility: cache the result for the lifetime of the server
// process). One connect in auto mode, then many calls on it:
// - at 2026-07-28, against the dual-era server (it serves 2026-07-28, and 2025-11-25 to a client that opens with
//   initialize: the opening message decides, for the life of the process): at most one probe per process, no
//   initialize, every call declaring 2026-07-28 — a client that re-decided the era, or opened legacy, would show it;
// - at 2025-11-25, against a legacy server: after the fallback, one handshake per process and no probe after it.
// And the calls share one process (a process per call would make every call a first contact).
import { isModern, MODERN_REVISION, type Revision } from '../../protocol/revisions.ts';
import type { WireExchange } from '../../servers/wire-record.ts';
import { checkIf, clientCompleted, unexercised } from '../checks.ts';
import { checkInTime } from '../deadlines.ts';
import { defineScenario, type Check, type Evidence, type SpecRef } from '../scenario.ts';
import { statelessness, versioning } from '../spec.ts';
import { carrying, labels } from '../wire.ts';
import { earlyFallback, modernConnectMs, operationsDeclaring, processOf } from '../negotiation/support.ts';
import { FALLBACK_REVISIONS } from './probe-fallback.ts';
import { serverRecorded, serverRecordedProof } from './support.ts';

/** When the connect began, on the record's clock (in `observed`). */
const CONNECT_STARTED = 'connect-started';

/** How many tools/call the connect makes between its two tools/list. */
const CALLS = 3;

const BACKWARD = 'backward-compatibility-with-initialization-based-versions';

const cacheRule = (section: string): SpecRef => versioning(BACKWARD, `Backward Compatibility: clients SHOULD cache the era for the lifetime of the server process (stdio) — ${section}`, 'SHOULD');

const oneProcessRule = statelessness('clients SHOULD NOT use a task, thread or conversation as the lifetime of the stdio process (many calls, one process)', 'MAY');

/** The exchanges of each process, by index, in arrival order. */
function byProcess(exchanges: readonly WireExchange[]): Map<number, WireExchange[]> {
  const processes = new Map<number, WireExchange[]>();
  for (const exchange of exchanges) {
    const index = processOf(exchange);
    if (index === undefined) continue;
    processes.set(index, [...(processes.get(index) ?? []), exchange]);
  }
  return processes;
}

/** What the record shows of the connection's calls: the tools/list and tools/call lines, and the processes they went to. */
function callsOf(evidence: Evidence) {
  const { operations, others } = operationsDeclaring(evidence.exchanges, MODERN_REVISION);
  const processes = [...new Set(operations.map(({ exchange }) => processOf(exchange)).filter((index) => index !== undefined))];
  const unreached = operations.length === 0 ? `no call reached the server${evidence.clientError ? ` (${evidence.clientError})` : ''}` : undefined;
  return { operations, others, processes, unreached };
}

/** The process's lines after its first initialize: the legacy era's life on it. */
function afterHandshake(lines: readonly WireExchange[]): WireExchange[] {
  const handshake = carrying(lines, 'initialize')[0];
  return handshake === undefined ? [] : lines.filter((x) => x.seq > handshake.seq);
}

/**
 * At 2026-07-28: no initialize on the calls' processes, and every call declared 2026-07-28. An initialize the server read
 * before it had answered the probe came from a client that had given up on the probe: after a reasonable wait a slow
 * server's doing ('late', for a run with larger bounds), after less a probe timeout too short (earlyFallback).
 */
function keptModern(evidence: Evidence, calls: ReturnType<typeof callsOf>, processes: Map<number, WireExchange[]>): Check {
  const handshakes = calls.processes.flatMap((index) => carrying(processes.get(index) ?? [], 'initialize'));
  const probe = carrying(evidence.exchanges, 'server/discover')[0];
  const since = typeof evidence.observed[CONNECT_STARTED] === 'number' ? (evidence.observed[CONNECT_STARTED] as number) : -Infinity;
  const early = handshakes.map((handshake) => (probe === undefined ? false : earlyFallback(probe, handshake, evidence.time, since)));
  const ok = handshakes.length === 0 && calls.others.length === 0;
  if (calls.unreached !== undefined) return unexercised('era-kept', modernRule, calls.unreached);
  return checkInTime(
    evidence.time,
    'era-kept',
    modernRule,
    ok ? true : handshakes.length > 0 && early.every((e) => e === 'late') ? 'late' : false,
    handshakes.length > 0
      ? `initialize on the calls' process: ${labels(handshakes)}${early.every((e) => e === 'late') ? ' (the client had given up on its probe before the server answered it)' : ''}`
      : calls.others.length > 0
        ? `${labels(calls.others.map((r) => r.exchange))} declared no ${MODERN_REVISION}`
        : `${calls.operations.length} calls declared ${MODERN_REVISION}, no initialize`,
    [...handshakes, ...calls.others.map((r) => r.exchange)],
  );
}

const modernRule = cacheRule('the dual-era server found modern stays so: no initialize on its process, every call declares 2026-07-28 (dual-era client × dual-era server: stays modern)');

/** At a legacy revision: one initialize per calls' process, before its calls, and no server/discover after it. */
function keptLegacy(calls: ReturnType<typeof callsOf>, processes: Map<number, WireExchange[]>): Check {
  const problems: string[] = [];
  const shown: WireExchange[] = [];
  for (const index of calls.processes) {
    const lines = processes.get(index) ?? [];
    const handshakes = carrying(lines, 'initialize');
    const firstCall = calls.operations.find(({ exchange }) => processOf(exchange) === index)!.exchange;
    const reprobes = carrying(afterHandshake(lines), 'server/discover');
    if (handshakes.length !== 1) problems.push(`process ${index}: ${handshakes.length} initialize (${labels(handshakes)})`);
    else if (handshakes[0]!.seq > firstCall.seq) problems.push(`process ${index}: ${labels([firstCall])} before its initialize`);
    if (reprobes.length > 0) problems.push(`process ${index}: server/discover after the handshake (${labels(reprobes)})`);
    shown.push(...handshakes, ...reprobes);
  }
  return checkIf(
    calls.unreached,
    'era-kept',
    cacheRule('after the fallback, one handshake per process and no probe after it'),
    () => problems.length === 0,
    () => (problems.length === 0 ? `one initialize before the ${calls.operations.length} calls, no probe after it` : problems.join('; ')),
    shown,
  );
}

export const eraPerProcess = defineScenario<undefined>({
  id: 'stdio/era-per-process',
  title: 'Auto mode over stdio, many calls on one connection: one probe at most per process, the era it found kept for the life of the process (no initialize on a modern one, no probe after a legacy handshake), the calls on one process',
  revisions: [...FALLBACK_REVISIONS, MODERN_REVISION] as readonly Revision[],
  requires: ['mode-auto'],
  transport: 'stdio',
  source: { spec: cacheRule('the era is a property of the server') },
  setup: (revision) => ({ stdio: isModern(revision) ? { era: 'dual' } : {}, state: undefined }),
  async run({ connect, bounded, observe, stdio, time }) {
    observe(CONNECT_STARTED, stdio.record.now());
    const client = await connect({ negotiation: 'auto', timeoutMs: modernConnectMs(time) });
    await bounded(client.listTools(), 'tools/list');
    for (let call = 1; call <= CALLS; call++) await bounded(client.callTool('echo', { text: `call ${call}` }), `tools/call echo (${call})`);
    await bounded(client.listTools(), 'tools/list (again)');
    await bounded(client.close(), 'close');
  },
  judge(evidence) {
    const calls = callsOf(evidence);
    const processes = byProcess(evidence.exchanges);
    const probes = [...processes].map(([index, lines]) => ({ index, probes: carrying(lines, 'server/discover') }));
    const reprobed = probes.filter((p) => p.probes.length > 1);
    return [
      serverRecorded(evidence),
      clientCompleted(evidence, cacheRule('the era is a property of the server')),
      checkIf(
        calls.unreached,
        'one-probe-per-process',
        cacheRule('at most one server/discover per process, however many calls it carries'),
        () => reprobed.length === 0,
        () =>
          reprobed.length === 0
            ? `${probes.map((p) => `process ${p.index}: ${p.probes.length} probe${p.probes.length === 1 ? '' : 's'}`).join(', ')}; ${calls.operations.length} calls`
            : reprobed.map((p) => `process ${p.index} probed ${p.probes.length} times (${labels(p.probes)})`).join('; '),
        reprobed.flatMap((p) => p.probes),
      ),
      isModern(evidence.revision) ? keptModern(evidence, calls, processes) : keptLegacy(calls, processes),
      // Informational (MAY): a process per call is no task or conversation lifetime the spec names, but the era learned
      // on a process is then never used again.
      checkIf(
        calls.unreached,
        'calls-on-one-process',
        oneProcessRule,
        () => calls.processes.length === 1,
        () => (calls.processes.length === 1 ? `the ${calls.operations.length} calls went to process ${calls.processes[0]}` : `the calls went to processes ${calls.processes.join(', ')}`),
        calls.operations.map((r) => r.exchange),
      ),
    ];
  },
  doctored: [
    {
      check: 'one-probe-per-process',
      how: 'a server/discover line on the calls’ process between two calls',
      doctor: (e) => insertBetweenCalls(e, 'server/discover'),
    },
    {
      check: 'era-kept',
      how: 'a second initialize line on the calls’ process between two calls',
      doctor: (e) => insertBetweenCalls(e, 'initialize'),
    },
    {
      check: 'calls-on-one-process',
      how: 'the last call on a process of its own',
      doctor: (e) => {
        const last = [...e.exchanges].reverse().find((x) => x.requestMessages.some((m) => m.method === 'tools/list'))!;
        return { ...e, exchanges: e.exchanges.map((x) => (x === last ? { ...x, process: 99 } : x)) };
      },
    },
    serverRecordedProof,
  ],
});

/** The record with a line of `method` on the process of the first tools/call, just after it (a request of its own). */
function insertBetweenCalls(evidence: Evidence, method: string): Evidence {
  const call = evidence.exchanges.find((x) => x.requestMessages.some((m) => m.method === 'tools/call'))!;
  const line = { ...call, seq: call.seq + 0.5, notes: [], responseMessages: [], requestMessages: [{ jsonrpc: '2.0' as const, id: 98, method, params: {} }] };
  return { ...evidence, exchanges: [...evidence.exchanges, line].sort((a, b) => a.seq - b.seq) };
}
