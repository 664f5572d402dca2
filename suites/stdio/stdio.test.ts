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
import { plannedCases, transportOf } from '../plan.ts';
import { CLEANUP_CHECKS, notApplicable, runCase, runScenario } from '../runner.ts';
import { defineScenario, stdioShutdownGraceMs } from '../scenario.ts';
import { stdioHandshake } from './handshake.ts';
import { STDIO } from './index.ts';
import { stdioFraming } from './framing.ts';
import { stdioMergedWrites, stdioSplitWrites, stdioUtf8Split } from './reading.ts';
import { stdioCloseStdoutAndExit, stdioCrashMidCall } from './server-exits.ts';
import { BROKEN_ADAPTERS } from '../../clients/index.ts';
import type { ScenarioResult } from '../scenario.ts';

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

describe('which adapters a stdio scenario applies to', () => {
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

  test('the plan knows each scenario’s transport', () => {
    expect(transportOf(handshakeOrder)).toBe('http');
    expect(transportOf(stdioHandshake)).toBe('stdio');
    expect(plannedCases([handshakeOrder, ...STDIO], { transport: 'stdio' }).map((c) => c.scenario.id)).toEqual(stdioHandshake.revisions.map(() => 'stdio/handshake'));
    expect(plannedCases([handshakeOrder, ...STDIO], { transport: 'http' }).every((c) => c.scenario === handshakeOrder)).toBe(true);
  });

  test('an n/a case starts no server', async () => {
    const result = await runScenario(stdioHandshake, sdkV1Sse, '2024-11-05');
    expect(result).toMatchObject({ verdict: 'n/a', reason: 'sdk-v1-sse does not declare the stdio transport', checks: [] });
  });
});

describe('the smoke scenario, the handshake over stdio', () => {
  test.each([
    { adapter: referenceClient, revision: '2024-11-05' as const },
    { adapter: referenceClient, revision: '2025-11-25' as const },
    { adapter: sdkV1StreamableHttp, revision: '2025-11-25' as const },
    { adapter: sdkV2Legacy, revision: '2025-06-18' as const },
    { adapter: sdkV2Auto, revision: '2025-11-25' as const },
  ].map((c) => ({ ...c, title: `${c.adapter.name} @ ${c.revision}` })))('passes on $title, judged from the stdio record', async ({ adapter, revision }) => {
    const result = await runScenario(stdioHandshake, adapter, revision, { strict: true });
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

describe('processes the client leaves behind', () => {
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
    const result = await runScenario(stubborn, neverKills, '2025-11-25');
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
    const result = await runScenario(stubborn, referenceClient, '2025-11-25');
    expect(result.verdict, explain(result)).toBe('pass');
    expect(result.checks.map((c) => c.name)).not.toContain(CLEANUP_CHECKS.processes);
    const server = result.evidence!.stdio!.processes.find((p) => p.role === 'server')!;
    expect(server.signals.map((s) => s.signal)).toEqual(['SIGTERM']);
    expect(server.exit).toMatchObject({ inferred: true, signal: 'SIGKILL' });
    expect(result.evidence!.stdio!.survivors).toEqual([]);
  });
});

// One case at a time: each launches processes, and several at once on a loaded machine push a 2026-07-28 server's start
// past the probe's timeout.
describe('stdio/framing, reading and a server that goes away mid-call', () => {
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
