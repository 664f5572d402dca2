// The stdio plumbing end to end: a stdio scenario is not applicable to an adapter without the transport (and an HTTP
// one to an adapter with stdio only), the smoke scenario passes on the reference client and the official SDK adapters
// (the client launches the suite's stdio server, the record comes back in the HTTP record's shape), the client is
// given its shutdown grace from the time policy, and a process the client leaves running is reported and killed.
import { describe, expect, test } from 'vitest';
import type { ClientAdapter, ConnectOptions, ServerTarget } from '../../clients/adapter.ts';
import { createReferenceClient, referenceClient, REFERENCE_FEATURES, REFERENCE_REVISIONS, withRuleBroken } from '../../clients/reference/index.ts';
import { sdkV1Sse, sdkV1StreamableHttp } from '../../clients/sdk-v1.ts';
import { sdkV2Auto, sdkV2Legacy } from '../../clients/sdk-v2.ts';
import { isAlive } from '../../servers/stdio/harness.ts';
import { explain } from '../evidence.ts';
import { failOnLeakedHandles } from '../leaks.ts';
import { handshakeOrder } from '../negotiation/handshake-order.ts';
import { plannedCases, transportOf, transportOfScenarioId } from '../plan.ts';
import { CLEANUP_CHECKS, notApplicable, runCase, runScenario } from '../runner.ts';
import { defineScenario } from '../scenario.ts';
import { stdioHandshake } from './handshake.ts';
import { STDIO } from './index.ts';
import { SCENARIOS } from '../index.ts';
import { stdioFraming } from './framing.ts';
import { stdioMergedWrites, stdioSplitWrites, stdioUtf8Split } from './reading.ts';
import { stdioCloseStdoutAndExit, stdioCrashMidCall } from './server-exits.ts';
import { BROKEN_ADAPTERS } from '../../clients/index.ts';
import { basePolicy } from '../../config/settings.ts';
import { provisionally, stdioShutdownGraceMs } from '../../config/time.ts';
import { STDERR_FLOOD_BYTES } from '../../servers/stdio/personalities.ts';
import type { Evidence, ScenarioResult } from '../scenario.ts';
import { stdioProcessTree } from './process-tree.ts';
import { sigtermWaitMs, stdioShutdownSequence } from './shutdown-sequence.ts';
import { stdioStderr } from './stderr.ts';

import { eraPerProcess } from './era-per-process.ts';
import { PROBE_FALLBACK } from './probe-fallback.ts';
import { PROBE_MODERN } from './probe-modern.ts';

failOnLeakedHandles();

/** The reference client, recording the target and options each connect is given. */
function recording(): { adapter: ClientAdapter; connects: { target: ServerTarget; options: ConnectOptions }[] } {
  const connects: { target: ServerTarget; options: ConnectOptions }[] = [];
  const adapter: ClientAdapter = {
    ...referenceClient,
    name: 'recording-reference',
    async start() {
      const client = createReferenceClient();
      return {
        connect: (target, options) => {
          connects.push({ target, options });
          return client.connect(target, options);
        },
        dispose: () => client.dispose(),
      };
    },
  };
  return { adapter, connects };
}

describe.concurrent('which adapters a stdio scenario applies to', () => {
  test('one that does not declare stdio is not applicable, with the reason; an HTTP scenario needs http', () => {
    expect(notApplicable(stdioHandshake, sdkV1Sse, '2024-11-05')).toBe('sdk-v1-sse does not declare the stdio transport');
    const stdioOnly: ClientAdapter = { ...referenceClient, name: 'stdio-only', transports: ['stdio'] };
    expect(notApplicable(handshakeOrder, stdioOnly, '2025-11-25')).toBe('stdio-only does not declare the http transport');
    expect(notApplicable(stdioHandshake, stdioOnly, '2025-11-25')).toBeUndefined();
    // Without `transports`, an adapter of contract version 1 speaks HTTP only, and keeps running every HTTP scenario.
    const { transports: _, ...versionOne } = referenceClient;
    expect(notApplicable(handshakeOrder, versionOne, '2025-11-25')).toBeUndefined();
    expect(notApplicable(stdioHandshake, versionOne, '2025-11-25')).toBe('reference does not declare the stdio transport');
  });

  test('every stdio scenario is in the stdio suite and only they are (results tell a cell’s transport by its id)', () => {
    for (const scenario of SCENARIOS) expect(transportOfScenarioId(scenario.id), scenario.id).toBe(transportOf(scenario));
    // A twin runs its HTTP scenario's script and judge: its id stdio/<that one's name> over stdio, json-responses/<that
    // one's name> against the server answering application/json.
    for (const twin of SCENARIOS.filter((s) => s.twinOf !== undefined)) {
      const original = SCENARIOS.find((s) => s.id === twin.twinOf)!;
      expect(twin.id).toBe(`${transportOf(twin) === 'stdio' ? 'stdio' : 'json-responses'}/${original.id.split('/')[1]}`);
      expect(transportOf(original)).toBe('http');
    }
    expect(new Set(SCENARIOS.map((s) => s.id)).size).toBe(SCENARIOS.length);
  });

  test('the plan knows each scenario’s transport', () => {
    expect(transportOf(handshakeOrder)).toBe('http');
    expect(transportOf(stdioHandshake)).toBe('stdio');
    const overStdio = plannedCases([handshakeOrder, ...STDIO], { transport: 'stdio' });
    expect(overStdio.length).toBe(STDIO.reduce((sum, s) => sum + s.revisions.length, 0));
    expect(overStdio.filter((c) => c.scenario === stdioHandshake).map((c) => c.revision)).toEqual([...stdioHandshake.revisions]);
    expect(plannedCases([handshakeOrder, ...STDIO], { transport: 'http' }).every((c) => c.scenario === handshakeOrder)).toBe(true);
  });

  test('an n/a case starts no server', async () => {
    const result = await runScenario(stdioHandshake, sdkV1Sse, '2024-11-05');
    expect(result).toMatchObject({ verdict: 'n/a', reason: 'sdk-v1-sse does not declare the stdio transport', checks: [] });
  });
});

describe.concurrent('the smoke scenario, the handshake over stdio', () => {
  test.each([
    { adapter: referenceClient, revision: '2024-11-05' as const },
    { adapter: referenceClient, revision: '2025-11-25' as const },
    { adapter: sdkV1StreamableHttp, revision: '2025-11-25' as const },
    { adapter: sdkV2Legacy, revision: '2025-06-18' as const },
    { adapter: sdkV2Auto, revision: '2025-11-25' as const },
  ].map((c) => ({ ...c, title: `${c.adapter.name} @ ${c.revision}` })))('passes on $title, judged from the stdio record', async ({ adapter, revision }) => {
    // As the suites run it: calibrated, and run again with larger bounds when time ran out (a loaded machine).
    const result = await runCase(stdioHandshake, adapter, revision, { strict: true });
    expect(result.verdict, explain(result)).toBe('pass');
    const evidence = result.evidence!;
    // The record in the HTTP record's shape: one exchange per stdin line, answers attached to their request's.
    const lines = evidence.exchanges.filter((x) => x.method === 'STDIN');
    expect(lines.map((x) => x.requestMessages[0]?.method).filter((m) => m !== 'server/discover')).toEqual(['initialize', 'notifications/initialized', 'tools/list', 'tools/call']);
    expect(lines.find((x) => x.requestMessages[0]?.method === 'tools/list')!.responseMessages).toHaveLength(1);
    // And what only stdio has: the server the client launched, which saw its stdin end and exited, nothing left.
    const stdio = evidence.stdio!;
    expect(stdio.era).toBe(revision);
    const server = stdio.processes.filter((p) => p.role === 'server').at(-1)!;
    expect(server.stdinEofAt).toBeDefined();
    expect(server.alive).toBe(false);
    expect(stdio.survivors).toEqual([]);
    expect(result.checks.map((c) => c.name)).not.toContain(CLEANUP_CHECKS.processes);
  });

  test('the client is given the stdio target and the shutdown grace of the case’s time policy', async () => {
    const { adapter, connects } = recording();
    const result = await runScenario(stdioHandshake, adapter, '2025-11-25');
    expect(result.verdict, explain(result)).toBe('pass');
    expect(connects).toHaveLength(1);
    const [{ target, options }] = connects as [{ target: ServerTarget; options: ConnectOptions }];
    expect(target).toMatchObject({ transport: 'stdio', command: process.execPath });
    expect(options).toEqual({ timeoutMs: result.evidence!.time.ms.operation, negotiation: 'legacy', shutdownGraceMs: stdioShutdownGraceMs(result.evidence!.time) });
    expect(result.evidence!.stdio!.shutdownGraceMs).toBe(options.shutdownGraceMs);
  });
});

describe.concurrent('processes the client leaves behind', () => {
  // A client that never escalates to SIGKILL, against a server that ignores stdin EOF and SIGTERM: it is left running.
  const neverKills: ClientAdapter = {
    name: 'never-kills',
    description: 'the reference client without SIGKILL',
    revisions: REFERENCE_REVISIONS,
    features: REFERENCE_FEATURES,
    transports: ['http', 'stdio'],
    start: async () => createReferenceClient({ rules: withRuleBroken('escalateToSigkill') }),
  };
  const stubborn = defineScenario({
    ...stdioHandshake,
    id: 'stdio/test-stubborn-server',
    setup: () => ({ stdio: { personalities: ['ignores-stdin-eof', 'ignores-sigterm'] }, state: undefined }),
  });

  test('are reported (MAY, processes-released) and killed by the runner: none outlives the case', async () => {
    const result = await runCase(stubborn, neverKills, '2025-11-25');
    // The verdict is the judge's (the handshake was fine); the finding informs.
    expect(result.verdict, explain(result)).toBe('pass');
    const finding = result.checks.find((c) => c.name === CLEANUP_CHECKS.processes);
    expect(finding).toMatchObject({ outcome: 'fail', spec: { level: 'MAY' } });
    const stdio = result.evidence!.stdio!;
    expect(stdio.survivors).toHaveLength(1);
    expect(finding!.detail).toContain(`pid ${stdio.survivors[0]}`);
    const server = stdio.processes.find((p) => p.role === 'server')!;
    expect(server.signals.map((s) => s.signal)).toEqual(['SIGTERM']);
    expect(isAlive(server.pid, server.procStart)).toBe(false);
  });

  test('the spec-correct client leaves none: SIGKILL after SIGTERM', async () => {
    const result = await runCase(stubborn, referenceClient, '2025-11-25');
    expect(result.verdict, explain(result)).toBe('pass');
    expect(result.checks.map((c) => c.name)).not.toContain(CLEANUP_CHECKS.processes);
    const server = result.evidence!.stdio!.processes.find((p) => p.role === 'server')!;
    expect(server.signals.map((s) => s.signal)).toEqual(['SIGTERM']);
    expect(server.exit).toMatchObject({ inferred: true, signal: 'SIGKILL' });
    expect(result.evidence!.stdio!.survivors).toEqual([]);
  });
});

// — the rules of stdio itself: the shutdown sequence, the process tree, stderr —

/** The broken variant of the reference client that turns `rule` off. */
const brokenOn = (rule: string): ClientAdapter => BROKEN_ADAPTERS.find((variant) => variant.rule === rule)!;
const failing = (result: ScenarioResult) => result.checks.filter((c) => c.outcome === 'fail').map((c) => c.name);
const serversOf = (result: ScenarioResult) => result.evidence!.stdio!.processes.filter((p) => p.role === 'server');

describe.concurrent('stdio/shutdown-sequence: stdin closed, a wait, SIGTERM, a wait, SIGKILL', () => {
  test.each([
    { adapter: referenceClient, revision: '2025-11-25' as const },
    { adapter: referenceClient, revision: '2026-07-28' as const },
    { adapter: sdkV1StreamableHttp, revision: '2025-11-25' as const },
    { adapter: sdkV2Legacy, revision: '2025-06-18' as const },
  ].map((c) => ({ ...c, title: `${c.adapter.name} @ ${c.revision}` })))('passes on $title: the server saw each step in order, and nothing is left', async ({ adapter, revision }) => {
    const result = await runCase(stdioShutdownSequence, adapter, revision, { strict: true });
    expect(result.verdict, explain(result)).toBe('pass');
    const [server, ...others] = serversOf(result);
    expect(others).toEqual([]);
    expect(server!.signals.map((s) => s.signal)).toEqual(['SIGTERM']);
    expect(server!.stdinEofAt).toBeLessThan(server!.signals[0]!.at);
    expect(server!.exit).toMatchObject({ inferred: true, signal: 'SIGKILL' });
    expect(result.evidence!.stdio!.survivors).toEqual([]);
  });

  test('a client that signals before it closes stdin fails stdin-closed-first and waited-before-sigterm at once (no rerun needed)', async () => {
    const result = await runScenario(stdioShutdownSequence, brokenOn('closeStdinFirst'), '2025-11-25', { strict: true, time: provisionally(basePolicy(), true) });
    expect(failing(result)).toEqual(['stdin-closed-first', 'waited-before-sigterm']);
    const [server] = serversOf(result);
    expect(server!.signals[0]!.at).toBeLessThan(server!.stdinEofAt!);
  });

  test('a client that stops at SIGTERM fails sigkill-after-sigterm and server-gone: the server was still running', async () => {
    const result = await runScenario(stdioShutdownSequence, brokenOn('escalateToSigkill'), '2025-11-25', { strict: true });
    expect(failing(result)).toEqual(['sigkill-after-sigterm', 'server-gone', CLEANUP_CHECKS.processes]);
    const [server] = serversOf(result);
    expect(result.evidence!.stdio!.survivors).toEqual([server!.pid]);
  });

  test('sdk-v2-auto reaps its probe sibling with SIGTERM in the same breath as closing its stdin: waited-before-sigterm fails (baselined), the session process passes', async () => {
    // runCase: a loaded run's late signal is "time ran out" and runs again, as the matrix judges it.
    const result = await runCase(stdioShutdownSequence, sdkV2Auto, '2025-11-25');
    expect(failing(result)).toEqual(['waited-before-sigterm']);
    const [sibling, session] = serversOf(result);
    expect([sibling!.launch, session!.launch]).toEqual([1, 2]);
    // The sibling: EOF and SIGTERM close together (in either order), then SIGKILL; the session: the full sequence, its
    // SIGTERM a whole wait after EOF. Compared with each other, not with a clock: a loaded server reads both late.
    const siblingGap = Math.abs(sibling!.signals[0]!.at - sibling!.stdinEofAt!);
    const sessionGap = session!.signals[0]!.at - session!.stdinEofAt!;
    expect(siblingGap).toBeLessThan(sessionGap);
    expect(sessionGap).toBeGreaterThanOrEqual(sigtermWaitMs(result.evidence!.time) / 2);
    for (const server of [sibling!, session!]) expect(server.exit).toMatchObject({ inferred: true, signal: 'SIGKILL' });
  });

  test('a SIGTERM 1 ms after stdin closed is "time ran out" on a provisional run and a fail on the last', () => {
    const time = provisionally(basePolicy(), true);
    const server = { index: 1, launch: 1, role: 'server', pid: 4242, personalities: [], argv: [], connectedAt: 0, stdin: [], stdout: [], stderr: [], signals: [{ at: 1001, signal: 'SIGTERM' }], stdinEofAt: 1000, children: [], notes: [], stdoutErrors: [], exit: { at: 2500, code: null, signal: 'SIGKILL', reason: 'inferred', inferred: true as const }, alive: false } as const;
    const evidence = { revision: '2025-11-25', time, exchanges: [], otherServers: [], issuedSessions: [], toolRuns: [], observed: { closeCalledAt: 900 }, stdio: { era: '2025-11-25', personalities: [], shutdownGraceMs: stdioShutdownGraceMs(time), processes: [server], survivors: [] } } as unknown as Evidence;
    const waited = (e: Evidence) => stdioShutdownSequence.judge(e).find((c) => c.name === 'waited-before-sigterm')!;
    expect(waited(evidence).outcome).toBe('inconclusive');
    expect(waited({ ...evidence, time: provisionally(time, false) })).toMatchObject({ outcome: 'fail', detail: expect.stringContaining('SIGTERM 1 ms after its stdin closed') });
  });
});

describe.concurrent('stdio/process-tree: a launcher that does not forward signals, in front of a server that ignores stdin EOF', () => {
  test('the reference client ends the whole tree (its own process group)', async () => {
    const result = await runCase(stdioProcessTree, referenceClient, '2025-11-25', { strict: true });
    expect(result.verdict, explain(result)).toBe('pass');
    const processes = result.evidence!.stdio!.processes;
    expect(processes.map((p) => p.role)).toEqual(['wrapper', 'server']);
    expect(processes[1]!.parent).toBe(processes[0]!.index);
    expect(processes.every((p) => !p.alive)).toBe(true);
  });

  test.each([
    { adapter: brokenOn('killProcessTree'), revision: '2025-11-25' as const },
    { adapter: sdkV1StreamableHttp, revision: '2025-11-25' as const },
  ].map((c) => ({ ...c, title: c.adapter.name })))('$title signals the launcher only: the launcher dies, its server lives on (no-descendant-survives)', async ({ adapter, revision }) => {
    const result = await runScenario(stdioProcessTree, adapter, revision, { strict: true });
    expect(failing(result)).toEqual(['no-descendant-survives', CLEANUP_CHECKS.processes]);
    const [wrapper, server] = result.evidence!.stdio!.processes;
    expect(wrapper).toMatchObject({ role: 'wrapper', alive: false, exit: { signal: 'SIGTERM' } });
    expect(server).toMatchObject({ role: 'server', alive: true });
    expect(result.checks.find((c) => c.name === 'no-descendant-survives')!.detail).toContain(`pid ${server!.pid}`);
    // The runner killed it at the end of the case.
    expect(isAlive(server!.pid, server!.procStart)).toBe(false);
  });
});

describe.concurrent('stdio/stderr: a 1 MiB flood before the first answer, and an "Error:" line at start-up', () => {
  test.each([
    { adapter: referenceClient, revision: '2024-11-05' as const },
    { adapter: referenceClient, revision: '2026-07-28' as const },
    { adapter: sdkV2Legacy, revision: '2025-11-25' as const },
  ].map((c) => ({ ...c, title: `${c.adapter.name} @ ${c.revision}` })))('passes on $title: the flood was written whole, then the answer', async ({ adapter, revision }) => {
    const result = await runCase(stdioStderr, adapter, revision, { strict: true });
    expect(result.verdict, explain(result)).toBe('pass');
    const [server] = serversOf(result);
    const flood = server!.stderr.filter((w) => w.head.startsWith('stderr-flood:'));
    expect(flood.reduce((sum, w) => sum + w.bytes, 0)).toBeGreaterThanOrEqual(STDERR_FLOOD_BYTES);
    const errorLine = server!.stderr.find((w) => w.head.startsWith('Error:'))!;
    const firstAnswer = Math.min(...result.evidence!.exchanges.flatMap((x) => x.responseMessages.map((m) => m.at)));
    expect(errorLine.doneAt).toBeLessThan(firstAnswer);
    expect(Math.max(...flood.map((w) => w.doneAt))).toBeLessThanOrEqual(firstAnswer);
  });

  test('a client that never reads the pipe fails stderr-drained at once, even on a provisional run: the flood stayed blocked', async () => {
    const result = await runScenario(stdioStderr, brokenOn('drainStderr'), '2025-11-25', { strict: true, time: provisionally(basePolicy(), true) });
    expect(result.verdict, explain(result)).toBe('fail');
    expect(failing(result)).toContain('stderr-drained');
    expect(result.checks.find((c) => c.name === 'stderr-not-an-error')!.outcome).toBe('inconclusive');
    const [server] = serversOf(result);
    expect(server!.stderr.filter((w) => w.head.startsWith('stderr-flood:')).reduce((sum, w) => sum + w.bytes, 0)).toBeLessThan(STDERR_FLOOD_BYTES);
  });

  test('a client that takes stderr output for an error fails stderr-not-an-error (SHOULD NOT from 2025-11-25; before, the connect failing warns, at the scenario’s level)', async () => {
    const modern = await runScenario(stdioStderr, brokenOn('stderrNotAnError'), '2025-11-25', { strict: true });
    expect(failing(modern)).toEqual(expect.arrayContaining(['client-completed', 'stderr-not-an-error']));
    expect(modern.checks.find((c) => c.name === 'stderr-not-an-error')!.spec.level).toBe('SHOULD');
    const early = await runScenario(stdioStderr, brokenOn('stderrNotAnError'), '2024-11-05');
    // A SHOULD scenario caps client-completed at SHOULD: a warn, a fail when strict.
    expect(early.verdict, explain(early)).toBe('warn');
    expect(early.checks.find((c) => c.name === 'stderr-not-an-error')).toMatchObject({ outcome: 'fail', spec: { level: 'MAY' } });
  });
});

describe.concurrent('the era probe over stdio: probe first, the fallback, no fallback on a modern error, the era per process', () => {
  const byId = (id: string) => [...PROBE_FALLBACK, ...PROBE_MODERN, eraPerProcess].find((s) => s.id === id)!;
  /** What each process of the record read, line by line (methods; `response` for an answer the client wrote). */
  const linesByProcess = (evidence: Evidence) =>
    evidence.stdio!.processes.filter((p) => p.role === 'server').map((p) => evidence.exchanges.filter((x) => (x as { process?: number }).process === p.index && x.method === 'STDIN').map((x) => x.requestMessages[0]?.method ?? 'response'));

  test.each(
    [...PROBE_FALLBACK, ...PROBE_MODERN, eraPerProcess].flatMap((scenario) => scenario.revisions.map((revision) => ({ scenario, revision, title: `${scenario.id} @ ${revision}` }))),
  )('$title passes on the reference client', async ({ scenario, revision }) => {
    const result = await runCase(scenario, referenceClient, revision, { strict: true });
    expect(result.verdict, explain(result)).toBe('pass');
    // Nothing left once the client was disposed (a failed connect's process may still be shutting down when the script ends).
    expect(result.checks.map((c) => c.name)).not.toContain(CLEANUP_CHECKS.processes);
  });

  test('a server that exits on the probe: the reference client initializes on a process it launches anew', async () => {
    const result = await runCase(byId('stdio/probe-fallback-exit'), referenceClient, '2025-11-25', { strict: true });
    expect(result.verdict, explain(result)).toBe('pass');
    const [first, second] = result.evidence!.stdio!.processes.filter((p) => p.role === 'server');
    expect(first!.exit).toMatchObject({ code: 1, reason: 'probe-exit' });
    expect(second!.launch).toBeGreaterThan(first!.launch);
    expect(linesByProcess(result.evidence!).slice(0, 2)).toEqual([['server/discover'], ['initialize', 'notifications/initialized', 'tools/list']]);
  });

  test('a silent probe: the reference client falls back on the same process, whose late answer never comes', async () => {
    const result = await runCase(byId('stdio/probe-fallback-silence'), referenceClient, '2025-11-25', { strict: true });
    expect(result.verdict, explain(result)).toBe('pass');
    expect(linesByProcess(result.evidence!)).toEqual([['server/discover', 'initialize', 'notifications/initialized', 'tools/list']]);
    expect(result.checks.find((c) => c.name === 'falls-back-in-time')?.outcome).toBe('pass');
  });

  test('the SDK v2 auto mode probes on a sibling process and opens its session on another, in either era', async () => {
    const legacy = await runCase(byId('stdio/probe-fallback-32601'), sdkV2Auto, '2025-11-25', { strict: true });
    expect(legacy.verdict, explain(legacy)).toBe('pass');
    expect(linesByProcess(legacy.evidence!)).toEqual([['server/discover'], ['initialize', 'notifications/initialized', 'tools/list']]);
    const modern = await runCase(eraPerProcess, sdkV2Auto, '2026-07-28', { strict: true });
    expect(modern.verdict, explain(modern)).toBe('pass');
    expect(linesByProcess(modern.evidence!)).toEqual([['server/discover'], ['tools/list', 'tools/call', 'tools/call', 'tools/call', 'tools/list']]);
  });
});

// One case at a time: each launches processes, and several at once on a loaded machine push a 2026-07-28 server's start
// past the probe's timeout.
describe.concurrent('stdio/framing, reading and a server that goes away mid-call', () => {
  const variant = (name: string): ClientAdapter => BROKEN_ADAPTERS.find((v) => v.name === name)!;
  const failed = (result: ScenarioResult) => result.checks.filter((c) => c.outcome === 'fail').map((c) => c.name);
  const launches = (result: ScenarioResult) => result.evidence!.stdio!.processes.filter((p) => p.role === 'server').map((p) => p.launch);

  test.each([
    { scenario: stdioFraming, revision: '2025-11-25' as const },
    { scenario: stdioFraming, revision: '2026-07-28' as const },
    { scenario: stdioSplitWrites, revision: '2026-07-28' as const },
    { scenario: stdioMergedWrites, revision: '2024-11-05' as const },
    { scenario: stdioUtf8Split, revision: '2025-06-18' as const },
    { scenario: stdioCloseStdoutAndExit, revision: '2025-11-25' as const },
  ].map((c) => ({ ...c, title: `${c.scenario.id} @ ${c.revision}` })))('the reference client passes $title, every check judged', async ({ scenario, revision }) => {
    const result = await runCase(scenario, referenceClient, revision, { strict: true });
    expect(result.verdict, explain(result)).toBe('pass');
    expect(result.checks.filter((c) => c.outcome !== 'pass')).toEqual([]);
  });

  test('a client that writes a string’s newline raw fails framing: the server read two lines that are no message, and the tool never ran', async () => {
    const result = await runCase(stdioFraming, variant('broken-raw-newlines'), '2025-11-25', { strict: true });
    // Its lines that are no message are no schema's messages either.
    expect(failed(result).sort()).toEqual(['argument-intact', 'messages-match-schema', 'one-message-per-line']);
    expect(result.evidence!.exchanges.filter((x) => x.notes.includes('stdin-not-json')).map((x) => x.requestBody)).toEqual([
      expect.stringMatching(/"text":"line one$/),
      expect.stringMatching(/^line two ✓/),
    ]);
    expect(result.evidence!.toolRuns).toEqual([]);
  });

  test('a crash at 2026-07-28: the reference client restarts the server, and the fresh process answers the next call', async () => {
    const result = await runCase(stdioCrashMidCall, referenceClient, '2026-07-28', { strict: true });
    expect(result.verdict, explain(result)).toBe('pass');
    expect(launches(result)).toEqual([1, 2]);
    expect(result.evidence!.stdio!.processes[0]!.exit).toMatchObject({ code: 1, reason: 'crash-mid-call' });
    expect(result.evidence!.observed['next']).toMatchObject({ state: 'resolved' });
  });

  test('without the restart, the next call is refused at once (next-call-settles holds) and restarted fails', async () => {
    const result = await runCase(stdioCrashMidCall, variant('broken-no-restart-after-crash'), '2026-07-28', { strict: true });
    expect(failed(result)).toEqual(['restarted']);
    expect(launches(result)).toEqual([1]);
    expect(result.evidence!.observed['next']).toMatchObject({ state: 'rejected' });
  });

  test('a client whose calls go on waiting when the server exits: time ran out on the earlier runs, and pending-call-settled fails on the last', async () => {
    const result = await runCase(stdioCloseStdoutAndExit, variant('broken-leaves-calls-pending-on-exit'), '2025-11-25', { strict: true });
    expect(failed(result)).toEqual(['pending-call-settled']);
    expect(result.attempts?.map((a) => a.verdict)).toEqual(['inconclusive', 'inconclusive']);
    expect(result.checks.find((c) => c.name === 'next-call-settles')!.outcome).toBe('pass');
  });
});
