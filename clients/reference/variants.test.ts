// The broken variants: each flips exactly one rule, together they break every scenario of the catalogue, and
// the flipped rule shows on the wire (every variant here, against the same servers the reference passes on).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { FEATURES } from '../adapter.ts';
import { authErrors } from '../../servers/personalities/auth-errors.ts';
import { delayed404 } from '../../servers/personalities/delayed-404.ts';
import { delete405 } from '../../servers/personalities/delete-405.ts';
import { DELETE_HELD, DELETE_HOLD_ELAPSED, deleteHangs } from '../../servers/personalities/delete-hangs.ts';
import { dropConnection } from '../../servers/personalities/drop-connection.ts';
import { echoSessionHeaders } from '../../servers/personalities/echo-session-headers.ts';
import { pagedTools } from '../../servers/personalities/paged-tools.ts';
import { endpointOtherOrigin } from '../../servers/personalities/endpoint-other-origin.ts';
import { expiringSessions } from '../../servers/personalities/expiring-sessions.ts';
import { initializeAnswers } from '../../servers/personalities/initialize-answers.ts';
import { noGetStream } from '../../servers/personalities/no-get-stream.ts';
import { refusesReinitialize } from '../../servers/personalities/refuses-reinitialize.ts';
import { serverErrors } from '../../servers/personalities/server-errors.ts';
import { slowResponses } from '../../servers/personalities/slow-responses.ts';
import { sseComments } from '../../servers/personalities/sse-comments.ts';
import { sseRetryInterval } from '../../servers/personalities/sse-retry.ts';
import { toolsOnly } from '../../servers/personalities/tools-only.ts';
import { unknownSession400 } from '../../servers/personalities/unknown-session-400.ts';
import type { ReferenceClient } from './client.ts';
import { AUTHORIZATION_LIFECYCLE_ON_THE_WIRE } from './oauth-lifecycle-test-support.ts';
import { AUTHORIZATION_ON_THE_WIRE } from './oauth-test-support.ts';
import { SCOPE_ON_THE_WIRE } from './scope-test-support.ts';
import { AUTHORIZATION_FAMILIES_ON_THE_WIRE } from './oauth-families-test-support.ts';
import { SCENARIOS } from '../../suites/index.ts';
import { brokenVariants, referenceClient, REFERENCE_FEATURES, RULES, RULES_AWAITING_SCENARIOS, SPEC_RULES, VARIANT_SPECS, withRuleBroken, type RuleName } from './index.ts';
import { BOUND_MS, carrying, CONNECT, errorFor, eventually, header, isMethod, methods, newClient, POLICY, rejection, running, scripted, serve, settled, STDIO_CONNECT, stdioServer } from './test-support.ts';

/** The scenario catalogue (../shared/docs/scenarios.md), as of this writing. */
const CATALOGUE = [
  'negotiation/handshake-order',
  'negotiation/version-per-revision',
  'negotiation/downgrade',
  'negotiation/unsupported-answer',
  'negotiation/error-form',
  'negotiation/modern-envelope',
  'negotiation/auto-falls-back',
  'negotiation/auto-stays-modern',
  'negotiation/no-fallback-on-failure',
  'negotiation/era-cached',
  'negotiation/legacy-mode-no-probe',
  'negotiation/dual-era-prefers-modern',
  'resume/no-rehandshake',
  'resume/expired-404',
  'resume/expired-400-session-message',
  'resume/negotiated-version-after-expiry',
  'resume/sse-last-event-id',
  'resume/echoed-session-header',
  'resume/affinity-first-request',
  'retry/session-reestablished',
  'retry/connection-drop-keeps-session',
  'retry/no-double-execution',
  'retry/modern-only-transport-errors',
  'retry/no-retry-on-auth',
  'retry/bounded-on-5xx',
  'retry/stale-404-after-replacement',
  'retry/http-sse-fallback',
  'disposal/delete-issued-session',
  'disposal/no-delete-unissued',
  'disposal/keep-persisted-session',
  'disposal/in-flight-settled',
  'disposal/idempotent-close',
  'disposal/quiet-after-close',
  'disposal/sse-stream-closed',
  'disposal/close-during-connect',
  'cancellation/legacy-notification',
  'cancellation/never-initialize',
  'cancellation/modern-closes-stream',
  'cancellation/timeout-cancels',
  'cancellation/late-response-ignored',
  'cancellation/progress-resets-timeout',
  'cancellation/concurrent-independent',
  'security/endpoint-origin',
  'security/no-session-leak',
];

describe('the variant list', () => {
  test('the reference adapter declares every revision and feature; each variant the same, with exactly one rule off', async () => {
    expect(referenceClient.revisions).toEqual(['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28']);
    expect([...referenceClient.features].sort()).toEqual(Object.keys(FEATURES).sort());
    for (const variant of brokenVariants) {
      expect(variant.features).toEqual(REFERENCE_FEATURES);
      expect(variant.transports).toEqual(['http', 'stdio']);
      expect(variant.revisions).toEqual(referenceClient.revisions);
      const client = (await variant.start(variant.name)) as ReferenceClient;
      const off = Object.entries(client.rules).filter(([, on]) => !on).map(([name]) => name);
      expect(off, variant.name).toEqual([variant.rule]);
      await client.dispose();
    }
    const reference = (await referenceClient.start('reference')) as ReferenceClient;
    expect(reference.rules).toEqual(SPEC_RULES);
    await reference.dispose();
  });

  test('one variant per rule (but the rules whose scenarios are still to come), unique names, the three original names kept', () => {
    expect([...VARIANT_SPECS.map((v) => v.rule), ...RULES_AWAITING_SCENARIOS].sort()).toEqual((Object.keys(RULES) as RuleName[]).sort());
    expect(new Set(brokenVariants.map((v) => v.name)).size).toBe(brokenVariants.length);
    for (const name of ['broken-skips-initialized', 'broken-omits-version-header', 'broken-never-deletes']) expect(brokenVariants.map((v) => v.name)).toContain(name);
    for (const variant of brokenVariants) {
      expect(variant.name).toMatch(/^broken-[a-z0-9-]+$/);
      expect(variant.description).not.toContain('\n');
      expect(variant.breaks.length).toBeGreaterThan(0);
    }
  });

  test('together they break every scenario of the catalogue, and name no other', () => {
    const documented = join(import.meta.dirname, '..', '..', '..', 'shared', 'docs', 'scenarios.md');
    const catalogue = existsSync(documented) ? [...readFileSync(documented, 'utf8').matchAll(/^\| `([a-z-]+\/[a-z0-9-]+)` \|/gm)].map((m) => m[1]!) : CATALOGUE;
    expect(catalogue).toEqual(expect.arrayContaining(CATALOGUE));
    const broken = new Set(brokenVariants.flatMap((v) => v.breaks));
    expect(catalogue.filter((id) => !broken.has(id))).toEqual([]);
    // Beyond the catalogue, only scenarios the suites have (the stdio ones, newer than the catalogue).
    expect([...broken].filter((id) => !catalogue.includes(id) && !SCENARIOS.some((scenario) => scenario.id === id))).toEqual([]);
  });
});

/** A client with one rule off (what the variant's start() returns). */
function broken(rule: RuleName): ReferenceClient {
  return newClient({ rules: withRuleBroken(rule) });
}

const AUTO = { ...CONNECT, negotiation: 'auto' as const };
const PIN = { ...CONNECT, negotiation: { pin: '2026-07-28' as const } };

/** Each variant's flipped rule, shown on the wire (the reference's behaviour for the same steps is in the other test files). */
const ON_THE_WIRE: Record<RuleName, () => Promise<void>> = {
  async sendInitializedNotification() {
    const server = await serve('2025-11-25');
    await (await broken('sendInitializedNotification').connect(server.url, CONNECT)).listTools();
    expect(methods(server.record)).toEqual(['POST initialize', 'POST tools/list']);
  },
  async sendProtocolVersionHeader() {
    const server = await serve('2025-06-18');
    await (await broken('sendProtocolVersionHeader').connect(server.url, CONNECT)).close();
    expect(server.record.exchanges.map((e) => header(e, 'mcp-protocol-version'))).toEqual([undefined, undefined, undefined]);
  },
  async reportAnsweredVersion() {
    const server = await serve('2025-06-18');
    const connection = await broken('reportAnsweredVersion').connect(server.url, CONNECT);
    await connection.listTools();
    expect((await connection.info()).negotiatedVersion).toBe('2025-11-25');
    expect(header(server.record.exchanges.at(-1), 'mcp-protocol-version')).toBe('2025-06-18');
  },
  async followReinitializedVersion() {
    const server = await serve('2025-11-25');
    const connection = await broken('followReinitializedVersion').connect(server.url, { ...CONNECT, resume: { protocolVersion: '2025-06-18', sessionId: 'gone' } });
    await connection.listTools();
    expect((await connection.info()).negotiatedVersion).toBe('2025-06-18');
    expect(header(server.record.exchanges.at(-1), 'mcp-protocol-version')).toBe('2025-11-25');
  },
  async validateInitializeAnswer() {
    // 1999-01-01 adopted: the client goes on (the made-up session then fails its notification).
    const unsupported = await serve('2025-11-25', [initializeAnswers()]);
    await rejection(broken('validateInitializeAnswer').connect(unsupported.url, CONNECT));
    expect(methods(unsupported.record)).toEqual(['POST initialize', 'POST notifications/initialized']);
    const errorForm = await serve('2025-06-18', [initializeAnswers({ error: {} })]);
    const started = performance.now();
    await rejection(broken('validateInitializeAnswer').connect(errorForm.url, { timeoutMs: 150 }));
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
    expect(methods(errorForm.record)).toEqual(['POST initialize']);
  },
  async onlyNegotiatedCapabilities() {
    // A server advertising logging gets nothing more; one that does not gets logging/setLevel all the same (-32601, ignored).
    const full = await serve('2025-11-25');
    await (await broken('onlyNegotiatedCapabilities').connect(full.url, CONNECT)).close();
    expect(methods(full.record)).toEqual(['POST initialize', 'POST notifications/initialized', 'DELETE']);
    const server = await serve('2025-11-25', [toolsOnly()]);
    const connection = await broken('onlyNegotiatedCapabilities').connect(server.url, CONNECT);
    await connection.listTools();
    expect(methods(server.record)).toEqual(['POST initialize', 'POST notifications/initialized', 'POST logging/setLevel', 'POST tools/list']);
    await connection.close();
  },
  async legacyModeNeverProbes() {
    const server = await serve('2025-11-25');
    await broken('legacyModeNeverProbes').connect(server.url, CONNECT);
    expect(methods(server.record)).toEqual(['POST server/discover', 'POST initialize', 'POST notifications/initialized']);
  },
  async autoProbesFirst() {
    const server = await serve('dual');
    const connection = await broken('autoProbesFirst').connect(server.url, AUTO);
    expect((await connection.info()).era).toBe('legacy');
    expect(methods(server.record)).toEqual(['POST initialize', 'POST notifications/initialized']);
  },
  async fallBackOnAnyLegacyAnswer() {
    const server = await serve('2025-11-25');
    await rejection(broken('fallBackOnAnyLegacyAnswer').connect(server.url, AUTO));
    expect(methods(server.record)).toEqual(['POST server/discover']);
  },
  async honourModernErrors() {
    const server = await serve('dual', [scripted(isMethod('server/discover'), 400, errorFor(-32020, 'Header mismatch'))]);
    await broken('honourModernErrors').connect(server.url, AUTO);
    expect(methods(server.record)).toEqual(['POST server/discover', 'POST initialize', 'POST notifications/initialized']);
  },
  async surfaceProbeFailures() {
    const server = await serve('2025-11-25', [serverErrors({ status: 503, count: 1 })]);
    await broken('surfaceProbeFailures').connect(server.url, AUTO);
    expect(methods(server.record)).toEqual(['POST server/discover', 'POST initialize', 'POST notifications/initialized']);
  },
  async cacheEraPerOrigin() {
    const server = await serve('2026-07-28');
    const client = broken('cacheEraPerOrigin');
    await client.connect(server.url, AUTO);
    await client.connect(server.url, AUTO);
    expect(methods(server.record)).toEqual(['POST server/discover', 'POST server/discover']);
  },
  async keepEraOnFailure() {
    const errors = serverErrors();
    const server = await serve('2026-07-28', [errors]);
    const client = broken('keepEraOnFailure');
    const first = await client.connect(server.url, AUTO);
    errors.failNext(1, { method: 'tools/list' });
    await rejection(first.listTools());
    await client.connect(server.url, AUTO);
    expect(methods(server.record)).toEqual(['POST server/discover', 'POST tools/list', 'POST server/discover']);
  },
  async sessionIdOnlyFromInitialize() {
    const proxy = echoSessionHeaders();
    const server = await serve('2025-11-25', [proxy]);
    const connection = await broken('sessionIdOnlyFromInitialize').connect(server.url, CONNECT);
    proxy.injectOnNextResponse('injected', { method: 'tools/list' });
    await connection.listTools();
    await connection.close();
    expect(server.record.exchanges.at(-1)!.method).toBe('DELETE');
    expect(header(server.record.exchanges.at(-1), 'mcp-session-id')).toBe('injected');
  },
  async scopeSessionsToConnection() {
    const a = await serve('2025-11-25');
    const b = await serve('2025-11-25');
    const client = broken('scopeSessionsToConnection');
    await (await client.connect(a.url, CONNECT)).close();
    await client.connect(b.url, CONNECT);
    expect(header(b.record.exchanges[0], 'mcp-session-id')).toBe(a.issuedSessions()[0]);
  },
  async resumeAsStored() {
    const server = await serve('2025-11-25', [refusesReinitialize()]);
    const first = await newClient().connect(server.url, { ...CONNECT, keepSessionOnClose: true });
    const state = (await first.info()).resumeState!;
    await first.close();
    await rejection(broken('resumeAsStored').connect(server.url, { ...CONNECT, resume: state }));
    expect(server.record.exchanges.at(-1)!.notes).toContain('refused-reinitialize');
  },
  async recoverSessionLoss() {
    const expiring = expiringSessions();
    const server = await serve('2025-11-25', [expiring]);
    const connection = await broken('recoverSessionLoss').connect(server.url, CONNECT);
    await expiring.expireNow();
    await rejection(connection.listTools());
    await rejection(connection.listTools());
    expect(carrying(server.record, 'initialize')).toHaveLength(1);
    expect(carrying(server.record, 'tools/list').map((e) => header(e, 'mcp-session-id'))).toEqual([server.issuedSessions()[0], server.issuedSessions()[0]]);
  },
  async reinitializeWithoutSessionId() {
    const expiring = expiringSessions();
    const server = await serve('2025-11-25', [expiring]);
    const connection = await broken('reinitializeWithoutSessionId').connect(server.url, CONNECT);
    await expiring.expireNow();
    await rejection(connection.listTools());
    expect(header(carrying(server.record, 'initialize')[1], 'mcp-session-id')).toBe(server.issuedSessions()[0]);
  },
  async treatSdk400AsSessionLoss() {
    const expiring = expiringSessions();
    const server = await serve('2025-11-25', [expiring, unknownSession400()]);
    const connection = await broken('treatSdk400AsSessionLoss').connect(server.url, CONNECT);
    await expiring.expireNow();
    await rejection(connection.listTools());
    expect(carrying(server.record, 'initialize')).toHaveLength(1);
  },
  async ignoreStaleSessionLoss() {
    const expiring = expiringSessions();
    const delayed = delayed404();
    const server = await serve('2025-11-25', [expiring, delayed]);
    const connection = await broken('ignoreStaleSessionLoss').connect(server.url, CONNECT);
    await expiring.expireNow();
    const first = connection.listTools();
    const second = connection.listTools();
    await server.record.waitFor(() => delayed.heldCount() === 2, 'both requests to be held', BOUND_MS);
    delayed.releaseDelayed(1);
    await first;
    delayed.releaseDelayed(1);
    await second;
    expect(carrying(server.record, 'initialize')).toHaveLength(3);
  },
  async dropKeepsSession() {
    const server = await serve('2025-11-25', [dropConnection({ method: 'tools/list', when: 'before', count: 1 })]);
    await (await broken('dropKeepsSession').connect(server.url, CONNECT)).listTools();
    expect(carrying(server.record, 'initialize')).toHaveLength(2);
  },
  async retryOnlyIdempotent() {
    const server = await serve('2025-11-25', [dropConnection({ method: 'tools/call', when: 'after', count: 1 })]);
    await (await broken('retryOnlyIdempotent').connect(server.url, CONNECT)).callTool('count', {});
    expect(server.fixtures.runsOf('count')).toBe(2);
  },
  async respectSseRetry() {
    // An interval no loaded machine takes to reconnect: a GET before it is one that did not wait.
    const retryMs = BOUND_MS;
    const server = await serve('2025-11-25', [sseRetryInterval(retryMs)]);
    await (await broken('respectSseRetry').connect(server.url, CONNECT)).callTool('close_stream', {});
    const post = carrying(server.record, 'tools/call')[0]!;
    const get = server.record.exchanges.find((e) => e.method === 'GET')!;
    expect(get.startedAt - post.endedAt!).toBeLessThan(retryMs);
  },
  async resumeWithLastEventId() {
    const server = await serve('2025-11-25');
    await (await broken('resumeWithLastEventId').connect(server.url, CONNECT)).callTool('close_stream', {}).catch(() => undefined);
    expect(carrying(server.record, 'tools/call')).toHaveLength(2);
    expect(server.fixtures.runsOf('close_stream')).toBe(2);
    expect(server.record.exchanges.some((e) => e.method === 'GET')).toBe(false);
  },
  async ignoreSseComments() {
    // The comment before the initialize answer's first event: the stream is aborted and the connect fails with it.
    const server = await serve('2025-11-25', [sseComments()]);
    expect((await rejection(broken('ignoreSseComments').connect(server.url, CONNECT))).message).toContain('comment line');
    await settled(server.record);
    expect(methods(server.record)).toEqual(['POST initialize']);
  },
  async noRetryOnHttpErrors() {
    const server = await serve('2025-11-25', [authErrors({ status: 401 })]);
    await rejection(broken('noRetryOnHttpErrors').connect(server.url, CONNECT));
    // The initialize itself is not retried (it is not idempotent); a request after connect is.
    const errors = serverErrors();
    const other = await serve('2025-11-25', [errors]);
    const connection = await broken('noRetryOnHttpErrors').connect(other.url, CONNECT);
    errors.failNext(10, { method: 'tools/list' });
    await rejection(connection.listTools());
    expect(carrying(other.record, 'tools/list')).toHaveLength(4);
  },
  async modernEnvelopeComplete() {
    const server = await serve('2026-07-28');
    await (await broken('modernEnvelopeComplete').connect(server.url, PIN)).listTools();
    for (const exchange of server.record.exchanges) expect(exchange.requestMessages[0]!.params!['_meta']).not.toHaveProperty(['io.modelcontextprotocol/clientInfo']);
  },
  async followNextCursor() {
    const server = await serve('2025-11-25', [pagedTools('plain')]);
    expect(await (await broken('followNextCursor').connect(server.url, CONNECT)).listTools()).toEqual([{ name: 'paged-tool-1' }]);
  },
  async cursorPresenceOnly() {
    const server = await serve('2026-07-28', [pagedTools('empty-cursor')]);
    expect(await (await broken('cursorPresenceOnly').connect(server.url, PIN)).listTools()).toEqual([{ name: 'paged-tool-1' }]);
  },
  async followRepeatedCursors() {
    const server = await serve('2025-11-25', [pagedTools('repeated-cursor')]);
    expect(await (await broken('followRepeatedCursors').connect(server.url, CONNECT)).listTools()).toEqual([{ name: 'paged-tool-1' }, { name: 'paged-tool-2' }]);
  },
  async pageBoundIsAnError() {
    const server = await serve('2025-11-25', [pagedTools('endless')]);
    expect(await (await broken('pageBoundIsAnError').connect(server.url, CONNECT)).listTools()).toHaveLength(50);
  },
  async affinityKeyFromFirstRequest() {
    const server = await serve('2026-07-28');
    await (await broken('affinityKeyFromFirstRequest').connect(server.url, { ...AUTO, affinityKey: 'k' })).listTools();
    expect(server.record.exchanges.map((e) => header(e, 'mcp-session-id'))).toEqual([undefined, 'k']);
  },
  async modernRetryOnlyDrops() {
    const server = await serve('2026-07-28', [scripted(isMethod('tools/list'), 200, errorFor(-32603, 'Internal error'))]);
    await (await broken('modernRetryOnlyDrops').connect(server.url, PIN)).listTools();
    expect(carrying(server.record, 'tools/list')).toHaveLength(2);
  },
  async freshIdOnReissue() {
    const server = await serve('2026-07-28', [dropConnection({ method: 'tools/list', when: 'before', count: 1 })]);
    await (await broken('freshIdOnReissue').connect(server.url, PIN)).listTools();
    expect(carrying(server.record, 'tools/list').map((e) => e.requestMessages[0]!.id)).toEqual([2, 2]);
  },
  async deleteSessionOnClose() {
    const server = await serve('2025-11-25');
    await (await broken('deleteSessionOnClose').connect(server.url, CONNECT)).close();
    expect(methods(server.record)).toEqual(['POST initialize', 'POST notifications/initialized']);
  },
  async keepSessionWhenAsked() {
    const server = await serve('2025-11-25');
    await (await broken('keepSessionWhenAsked').connect(server.url, { ...CONNECT, keepSessionOnClose: true })).close();
    expect(methods(server.record).at(-1)).toBe('DELETE');
  },
  async deleteOnlyIssuedSessions() {
    const server = await serve('2026-07-28');
    await (await broken('deleteOnlyIssuedSessions').connect(server.url, { ...PIN, affinityKey: 'k' })).close();
    expect(methods(server.record)).toEqual(['POST server/discover', 'DELETE']);
    expect(header(server.record.exchanges[1], 'mcp-session-id')).toBe('k');
  },
  async tolerateDelete405() {
    const server = await serve('2025-11-25', [delete405()]);
    await rejection((await broken('tolerateDelete405').connect(server.url, CONNECT)).close());
  },
  async boundDeleteOnClose() {
    // Connected with a short timeout of its own, the server holding the DELETE four times as long.
    const server = await serve('2025-11-25', [deleteHangs({ holdMs: 4 * POLICY.ms.react })]);
    await (await broken('boundDeleteOnClose').connect(server.url, { timeoutMs: POLICY.ms.react })).close();
    // close() waited past its timeout, until the server answered the DELETE when its hold ran out.
    const deleted = server.record.exchanges.at(-1)!;
    expect([deleted.method, deleted.notes, deleted.endedBy, deleted.status]).toEqual(['DELETE', [DELETE_HELD, DELETE_HOLD_ELAPSED], 'server', 200]);
  },
  async closeOnce() {
    const server = await serve('2025-11-25', [delete405()]);
    const connection = await broken('closeOnce').connect(server.url, CONNECT);
    await connection.close();
    await connection.close();
    expect(methods(server.record).filter((m) => m === 'DELETE')).toHaveLength(2);
  },
  async closeTearsDown() {
    const server = await serve('2024-11-05');
    const connection = await broken('closeTearsDown').connect(server.url, CONNECT);
    let settledCall = false;
    const call = connection.callTool('slow', { ms: 10_000 }).finally(() => (settledCall = true));
    void call.catch(() => undefined);
    await server.fixtures.waitForRun((r) => r.tool === 'slow', 'the slow tool to start', BOUND_MS);
    await connection.close();
    await expect(server.record.waitFor((r) => r.exchanges[1]!.endedBy !== undefined, 'the GET stream to end', POLICY.ms.quiet)).rejects.toThrow('timed out');
    expect(settledCall).toBe(false);
  },
  async abortConnectOnGiveUp() {
    const server = await serve('2025-11-25', [slowResponses({ method: 'initialize', ms: 100, count: 1 })]);
    await rejection(broken('abortConnectOnGiveUp').connect(server.url, { timeoutMs: 30 }));
    await server.record.waitFor((r) => carrying(r, 'notifications/initialized').length === 1, 'the late notifications/initialized', BOUND_MS);
  },
  async cancelOnTheWire() {
    const legacy = await serve('2025-11-25');
    const controller = new AbortController();
    const call = rejection((await broken('cancelOnTheWire').connect(legacy.url, CONNECT)).callTool('slow', { ms: 10_000 }, { signal: controller.signal }));
    await legacy.fixtures.waitForRun((r) => r.tool === 'slow', 'the slow tool to start', BOUND_MS);
    controller.abort();
    await call;
    await settled(legacy.record);
    expect(carrying(legacy.record, 'notifications/cancelled')).toEqual([]);
    const modern = await serve('2026-07-28');
    const modernController = new AbortController();
    const modernCall = rejection((await broken('cancelOnTheWire').connect(modern.url, PIN)).callTool('slow', { ms: 10_000 }, { signal: modernController.signal }));
    await modern.fixtures.waitForRun((r) => r.tool === 'slow', 'the slow tool to start', BOUND_MS);
    modernController.abort();
    await modernCall;
    await modern.record.waitFor((r) => carrying(r, 'notifications/cancelled').length === 1, 'the notification', BOUND_MS);
    expect(carrying(modern.record, 'tools/call')[0]!.endedBy).toBeUndefined();
  },
  async neverCancelInitialize() {
    const server = await serve('2025-11-25', [slowResponses({ method: 'initialize', ms: 5_000 })]);
    await rejection(broken('neverCancelInitialize').connect(server.url, { timeoutMs: 80 }));
    await server.record.waitFor((r) => carrying(r, 'notifications/cancelled').length === 1, 'a cancel for initialize', BOUND_MS);
    expect(carrying(server.record, 'notifications/cancelled')[0]!.requestMessages[0]!.params).toMatchObject({ requestId: 1 });
  },
  async settleOnCancel() {
    const server = await serve('2025-11-25');
    const connection = await broken('settleOnCancel').connect(server.url, CONNECT);
    const controller = new AbortController();
    let settledCall = false;
    const call = connection.callTool('slow', { ms: 10_000 }, { signal: controller.signal }).finally(() => (settledCall = true));
    void call.catch(() => undefined);
    await server.fixtures.waitForRun((r) => r.tool === 'slow', 'the slow tool to start', BOUND_MS);
    controller.abort();
    await server.record.waitFor((r) => carrying(r, 'notifications/cancelled').length === 1, 'the notification', BOUND_MS);
    await server.fixtures.waitForRun((r) => r.abortedAt !== undefined, 'the handler to abort', BOUND_MS);
    expect(settledCall).toBe(false);
    await connection.close();
    await rejection(call);
  },
  async cancelOnlyTheAbortedCall() {
    const server = await serve('2025-11-25');
    const connection = await broken('cancelOnlyTheAbortedCall').connect(server.url, CONNECT);
    const controller = new AbortController();
    const other = rejection(connection.callTool('slow', { ms: 10_000 }));
    const aborted = rejection(connection.callTool('slow', { ms: 10_000 }, { signal: controller.signal }));
    await server.record.waitFor(() => server.fixtures.runsOf('slow') === 2, 'two slow runs', BOUND_MS);
    controller.abort();
    await Promise.all([other, aborted]);
    await server.record.waitFor((r) => carrying(r, 'notifications/cancelled').length === 2, 'two cancels', BOUND_MS);
  },
  async enforceMaximumTimeout() {
    const server = await serve('2025-11-25');
    const connection = await broken('enforceMaximumTimeout').connect(server.url, CONNECT);
    // Progress 5 times as often as the timeout, for twice as long as it: progress keeps restarting the clock (a step
    // may be late by 4 intervals on a loaded machine), and the call outlives its timeout.
    const timeoutMs = POLICY.ms.react;
    const intervalMs = Math.round(timeoutMs / 5);
    expect(await connection.callTool('progress', { steps: 10, intervalMs }, { timeoutMs })).toMatchObject({ content: [{ text: 'completed 10/10' }] });
  },
  async applyRequestTimeout() {
    // The server holds the call far past its timeout: the broken client is still waiting when the timeout has long passed.
    const server = await serve('2025-11-25', [slowResponses({ method: 'tools/call', ms: 10_000, count: 1 })]);
    const connection = await broken('applyRequestTimeout').connect(server.url, CONNECT);
    const timeoutMs = POLICY.ms.react;
    let settled = false;
    void connection.callTool('echo', { text: 'hello' }, { timeoutMs }).then(
      () => (settled = true),
      () => (settled = true),
    );
    await new Promise((resolve) => setTimeout(resolve, 3 * timeoutMs));
    expect(settled).toBe(false);
    await connection.close();
  },
  async fallbackOnlyOn400404405() {
    const server = await serve('2025-11-25', [authErrors({ status: 401 })]);
    await rejection(broken('fallbackOnlyOn400404405').connect(server.url, CONNECT));
    expect(methods(server.record)).toEqual(['POST initialize', 'GET']);
  },
  async fallbackOnlyBeforeInitialize() {
    const server = await serve('2025-11-25', [delete405()]);
    await (await broken('fallbackOnlyBeforeInitialize').connect(server.url, CONNECT)).close();
    await settled(server.record);
    expect(methods(server.record)).toEqual(['POST initialize', 'POST notifications/initialized', 'DELETE', 'GET']);
  },
  async oneLinePerMessage() {
    const server = stdioServer();
    const connection = await broken('oneLinePerMessage').connect(server.target, STDIO_CONNECT);
    // The newline inside the argument written raw: the call spreads over two lines, neither of them a message, and is
    // never answered (close() settles it).
    const call = rejection(connection.callTool('echo', { text: 'line one\nline two' }));
    await connection.close();
    await call;
    const lines = server.lines();
    const cut = lines.findIndex((line) => typeof line === 'string' && line.endsWith('"text":"line one'));
    expect(lines.slice(cut, cut + 2)).toEqual([expect.stringMatching(/"method":"tools\/call"/), 'line two"}}}']);
  },
  async acceptBatches() {
    const server = stdioServer({ BATCH_ANSWERS: '1' });
    const connection = await broken('acceptBatches').connect(server.target, { ...STDIO_CONNECT, negotiation: { pin: '2025-03-26' } });
    // The call's answer comes as a batch of one: the line is dropped, the call times out, and the client reads on.
    expect((await rejection(connection.callTool('echo', { text: 'batched' }, { timeoutMs: POLICY.ms.react }))).name).toBe('TimeoutError');
    expect(await connection.listTools()).toEqual([{ name: 'echo' }, { name: 'slow' }]);
    await connection.close();
  },
  async drainStderr() {
    const server = stdioServer({ STDERR_BYTES: String(1024 * 1024) });
    const client = broken('drainStderr');
    // The server blocks on its full stderr pipe before it answers initialize: the connect runs out of time.
    expect((await rejection(client.connect(server.target, { ...STDIO_CONNECT, timeoutMs: 2 * POLICY.ms.react }))).name).toBe('TimeoutError');
    await client.dispose();
  },
  async stderrNotAnError() {
    const server = stdioServer({ STDERR_BYTES: '1024' });
    expect((await rejection(broken('stderrNotAnError').connect(server.target, STDIO_CONNECT))).message).toMatch(/reported an error on stderr/);
  },
  async closeStdinFirst() {
    const server = stdioServer();
    await (await broken('closeStdinFirst').connect(server.target, STDIO_CONNECT)).close();
    expect(server.events()[0]!.filter((e) => e.type !== 'stdin')[1]).toMatchObject({ type: 'signal', signal: 'SIGTERM' });
  },
  async escalateToSigkill() {
    const server = stdioServer({ IGNORE_EOF: '1', IGNORE_SIGTERM: '1' });
    await (await broken('escalateToSigkill').connect(server.target, STDIO_CONNECT)).close();
    expect(server.pids().filter(running)).toHaveLength(1);
  },
  async killProcessTree() {
    const server = stdioServer({ DESCENDANT: '1' });
    await (await broken('killProcessTree').connect(server.target, STDIO_CONNECT)).close();
    // The server exited on EOF; the descendant it started is still running.
    const descendant = server.events()[0]!.find((e) => e.type === 'descendant')!;
    expect(running((descendant as { pid: number }).pid)).toBe(true);
  },
  async settleOnServerExit() {
    const server = stdioServer({ EXIT_ON: 'tools/call' });
    const connection = await broken('settleOnServerExit').connect(server.target, STDIO_CONNECT);
    let settled = false;
    const call = rejection(connection.callTool('echo', { text: 'a' })).finally(() => (settled = true));
    // The server exits on the call; a reaction time later the call is still waiting for the answer that cannot come.
    for (const deadline = performance.now() + BOUND_MS; !server.events()[0]?.some((e) => e.type === 'exit') && performance.now() < deadline; ) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await new Promise((resolve) => setTimeout(resolve, POLICY.ms.react));
    expect(settled).toBe(false);
    await connection.close();
    expect((await call).message).toMatch(/closed while the call was in flight/);
  },
  async restartAfterCrash() {
    const server = stdioServer({ MODERN: '1', EXIT_ON: 'tools/call' });
    const connection = await broken('restartAfterCrash').connect(server.target, { ...STDIO_CONNECT, negotiation: { pin: '2026-07-28' } });
    // The server crashes (exit 3) on the call; the next call is refused, with no fresh process launched for it.
    await rejection(connection.callTool('echo', { text: 'a' }));
    await rejection(connection.callTool('echo', { text: 'b' }));
    await connection.close();
    expect(server.events()).toHaveLength(1);
  },
  async answerPing() {
    const server = await serve('2025-11-25');
    const connection = await broken('answerPing').connect(server.url, CONNECT);
    // The tool pings the client once and answers with what came back: the refusal.
    expect(JSON.stringify(await connection.callTool('ping_client', { times: 1, timeoutMs: BOUND_MS }))).toContain('Method not found');
    await connection.close();
  },
  async answerServerRequests() {
    const server = await serve('2025-11-25');
    const connection = await broken('answerServerRequests').connect(server.url, CONNECT);
    // The tool asks for the client's roots and waits a moment: nothing comes back, where the reference refuses.
    expect(JSON.stringify(await connection.callTool('ask_client', { method: 'roots/list', timeoutMs: 200 }))).toMatch(/timed out|timeout/i);
    await connection.close();
  },
  async listenAcceptsEventStream() {
    const server = await serve('2025-11-25');
    const connection = await broken('listenAcceptsEventStream').connect(server.url, { ...CONNECT, listen: true });
    await server.record.waitFor((r) => r.exchanges.some((x) => x.method === 'GET' && x.status !== undefined), 'the GET answered', BOUND_MS);
    const get = server.record.exchanges.find((x) => x.method === 'GET')!;
    expect([header(get, 'accept'), get.status]).toEqual(['application/json', 406]);
    await connection.close();
  },
  async answerOnTheGetStream() {
    const server = await serve('2025-11-25');
    const connection = await broken('answerOnTheGetStream').connect(server.url, { ...CONNECT, listen: true });
    await server.record.waitFor((r) => r.exchanges.some((x) => x.method === 'GET' && x.status === 200), 'the GET stream', BOUND_MS);
    await connection.callTool('ask_client_later', { method: 'ping', timeoutMs: BOUND_MS });
    const pinged = (r: typeof server.record) => r.exchanges.some((x) => x.method === 'GET' && x.responseMessages.some(({ message }) => message.method === 'ping'));
    await server.record.waitFor(pinged, 'the ping on the GET stream', BOUND_MS);
    // The ping came on the stream it listens to; no reply to it went out (the reference's POST follows at once).
    await connection.listTools();
    expect(server.record.exchanges.filter((x) => x.requestMessages.some((m) => m.method === undefined)).map((x) => x.seq)).toEqual([]);
    await connection.close();
  },
  async getStream405IsNoStream() {
    const server = await serve('2025-11-25', [noGetStream()]);
    const connection = await broken('getStream405IsNoStream').connect(server.url, { ...CONNECT, listen: true });
    await server.record.waitFor((r) => r.exchanges.some((x) => x.method === 'GET' && x.status === 405), 'the GET answered 405', BOUND_MS);
    // The client learns the 405 a moment after the server sent it: from then on every request fails.
    await expect.poll(() => connection.listTools().then(() => 'served', (error: Error) => error.message), { timeout: BOUND_MS }).toContain('405');
    await connection.close();
  },
  async neverAnswerNotifications() {
    const server = await serve('2025-11-25');
    const connection = await broken('neverAnswerNotifications').connect(server.url, CONNECT);
    await connection.callTool('notify_client', {});
    // Each of the five notifications answered with an error of id null, each a POST of its own.
    await server.record.waitFor((r) => r.exchanges.filter((x) => x.requestMessages.some((m) => m.id === null && m.error !== undefined)).length === 5, 'the five answers', BOUND_MS);
    await connection.close();
  },
  async declareHandledCapabilities() {
    const server = await serve('2025-11-25');
    const roots = [{ uri: 'file:///x', name: 'x' }];
    const connection = await broken('declareHandledCapabilities').connect(server.url, { ...CONNECT, handlers: { roots } });
    // Its roots answer the request, but initialize declared no roots capability.
    expect(JSON.stringify(await connection.callTool('ask_client', { method: 'roots/list', timeoutMs: BOUND_MS }))).toContain('file:///x');
    expect(carrying(server.record, 'initialize')[0]!.requestMessages[0]!.params!['capabilities']).toEqual({});
    await connection.close();
  },
  async refuseUndeclaredElicitationMode() {
    const server = await serve('2025-11-25');
    const connection = await broken('refuseUndeclaredElicitationMode').connect(server.url, { ...CONNECT, handlers: { elicitation: { action: 'accept', content: { name: 'x' } } } });
    // The URL mode request is accepted with the form's content, though initialize declared elicitation: {}.
    expect(JSON.stringify(await connection.callTool('ask_client', { method: 'elicitation/create', mode: 'url', timeoutMs: BOUND_MS }))).toContain('accept');
    expect(carrying(server.record, 'initialize')[0]!.requestMessages[0]!.params!['capabilities']).toEqual({ elicitation: {} });
    await connection.close();
  },
  async answerInputRequired() {
    const server = await serve('2026-07-28');
    const connection = await broken('answerInputRequired').connect(server.url, { ...PIN, handlers: { roots: [{ uri: 'file:///x', name: 'x' }] } });
    // The InputRequiredResult surfaces as an error: no retry.
    await rejection(connection.callTool('input_client', { method: 'roots/list' }));
    expect(carrying(server.record, 'tools/call')).toHaveLength(1);
    await connection.close();
  },
  async echoRequestState() {
    const server = await serve('2026-07-28');
    const connection = await broken('echoRequestState').connect(server.url, { ...PIN, handlers: { roots: [{ uri: 'file:///x', name: 'x' }] } });
    // The retry carries the input but not the state: the server asks for the first input again, round after round.
    await rejection(connection.callTool('input_client', { method: 'roots/list' }));
    const calls = carrying(server.record, 'tools/call').map((x) => x.requestMessages[0]!.params!);
    expect(calls.length).toBeGreaterThan(2);
    expect(calls[1]!['inputResponses']).toEqual({ first: { roots: [{ uri: 'file:///x', name: 'x' }] } });
    expect(calls.some((params) => 'requestState' in params)).toBe(false);
    await connection.close();
  },
  async requestStateOfTheLastRound() {
    const server = await serve('2026-07-28');
    const connection = await broken('requestStateOfTheLastRound').connect(server.url, { ...PIN, handlers: { roots: [{ uri: 'file:///x', name: 'x' }] } });
    await connection.callTool('input_client', { method: 'roots/list' });
    // The second round's result had no requestState: the third request carries the first round's all the same.
    const calls = carrying(server.record, 'tools/call').map((x) => x.requestMessages[0]!.params!);
    expect(calls).toHaveLength(3);
    expect(calls[2]!['requestState']).toBe(calls[1]!['requestState']);
    await connection.close();
  },
  async stayClosed() {
    const server = stdioServer();
    const connection = await broken('stayClosed').connect(server.target, STDIO_CONNECT);
    await connection.close();
    // The exit close() caused, taken for a crash: a second process is launched and opened with initialize.
    await eventually(() => server.lines(1).some(isMethod('initialize')), 'a second process opened after close()');
    expect(server.events()).toHaveLength(2);
  },
  async checkEndpointOrigin() {
    const other = endpointOtherOrigin();
    const server = await serve('2024-11-05', [other]);
    const client = broken('checkEndpointOrigin');
    const connecting = rejection(client.connect(server.url, CONNECT));
    // Its initialize reaches the other origin (no answer comes back on the stream); then the client is let go.
    await other.decoyRecord.waitFor((r) => carrying(r, 'initialize').length > 0, 'the initialize at the other origin', BOUND_MS);
    await client.dispose();
    await connecting;
    expect(carrying(other.decoyRecord, 'initialize')).toHaveLength(1);
  },
  async continueIdsOnResume() {
    const server = await serve('2025-11-25', [refusesReinitialize()]);
    const first = await newClient().connect(server.url, { ...CONNECT, keepSessionOnClose: true });
    await first.listTools();
    const state = (await first.info()).resumeState!;
    await first.close();
    await (await broken('continueIdsOnResume').connect(server.url, { ...CONNECT, resume: state })).listTools();
    // The resumed connection's tools/list carries the id the first connection's initialize had, in the same session.
    const ids = carrying(server.record, 'tools/list').map((e) => e.requestMessages.find((m) => m.method === 'tools/list')!.id);
    expect(ids).toEqual([2, 1]);
    expect(carrying(server.record, 'initialize')[0]!.requestMessages[0]!.id).toBe(1);
  },
  async noFallbackOnServerErrors() {
    const server = await serve('2025-11-25', [serverErrors({ status: 503, method: 'initialize' })]);
    await rejection(broken('noFallbackOnServerErrors').connect(server.url, CONNECT));
    expect(methods(server.record)).toEqual(['POST initialize', 'GET']);
  },
  async boundSessionRecovery() {
    const expiring = expiringSessions();
    const server = await serve('2025-11-25', [expiring]);
    const connection = await broken('boundSessionRecovery').connect(server.url, CONNECT);
    // Every session ends at its first request: the call goes on starting sessions until its own timeout stops it.
    expiring.afterRequests(0);
    await rejection(connection.listTools({ timeoutMs: POLICY.ms.react }));
    expect(carrying(server.record, 'initialize').length).toBeGreaterThan(3);
    await connection.close();
  },
  async noFallbackAfterAnsweredInitialize() {
    const server = await serve('2025-11-25', [initializeAnswers({ revision: '1999-01-01' }), delete405()]);
    await rejection(broken('noFallbackAfterAnsweredInitialize').connect(server.url, CONNECT));
    expect(methods(server.record)).toEqual(['POST initialize', 'DELETE', 'GET']);
  },
  async connectGivesUpAtOnce() {
    const server = stdioServer({ IGNORE_EOF: '1', SILENT_ON: 'initialize' });
    let settled = false;
    const connecting = rejection(broken('connectGivesUpAtOnce').connect(server.target, { ...STDIO_CONNECT, timeoutMs: POLICY.ms.react })).finally(() => {
      settled = true;
    });
    // At its timeout it closed the server's stdin; the server ignores EOF, and the connect waits on it, unsignalled,
    // well past the grace after which the reference's shutdown sends SIGTERM.
    await eventually(() => server.events()[0]?.some((e) => e.type === 'eof') ?? false, 'the server’s stdin closed at the timeout');
    await new Promise((resolve) => setTimeout(resolve, 2 * STDIO_CONNECT.shutdownGraceMs!));
    expect(settled).toBe(false);
    expect(server.events()[0]!.some((e) => e.type === 'signal')).toBe(false);
    process.kill(server.pids()[0]!, 'SIGKILL');
    await connecting;
  },
  ...AUTHORIZATION_ON_THE_WIRE,
  ...SCOPE_ON_THE_WIRE,
  ...AUTHORIZATION_LIFECYCLE_ON_THE_WIRE,
  ...AUTHORIZATION_FAMILIES_ON_THE_WIRE,
};

describe('each flipped rule shows on the wire', () => {
  test.each(VARIANT_SPECS.map((spec) => ({ ...spec, title: `${spec.name} (${spec.rule} off)` })))('$title', async ({ rule }) => {
    await ON_THE_WIRE[rule]();
  });
  // Rules whose broken variants wait for the scenarios that fail them: flipped, they show on the wire already.
  test.each(RULES_AWAITING_SCENARIOS.map((rule) => ({ rule, title: `${rule} off (no variant yet)` })))('$title', async ({ rule }) => {
    await ON_THE_WIRE[rule]();
  });
});
