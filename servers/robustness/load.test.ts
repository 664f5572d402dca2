// Every era's server under load: SESSIONS clients at once, each making CALLS tools/call echo requests one after the
// other (a session each where the era has them: HTTP+SSE streams, 2025 sessions; 2026-07-28 and stateless clients
// just post; `dual` gets half of each). Through a lean raw undici client, not the SDK, so what is measured is the server.
//
// Each round: every call answered exactly once with its own result; the wire record holds each request exactly once,
// in its own session, and each answer once, with no error; closing the sessions (DELETE, or hanging up the stream)
// leaves no live session. Two identical rounds on one server, the heap read after a full GC: what round 2 adds is the
// wire record's share (it keeps every exchange, by design: bounded per call here), and once the record is emptied
// what is left of round 2 must be next to nothing (the fixtures' run log), so the server itself keeps no per-session
// or per-request state.
import { afterAll, describe, expect, test } from 'vitest';
import { basePolicy, settings } from '../../config/settings.ts';
import { failOnLeakedHandles } from '../../suites/leaks.ts';
import type { Era } from '../era.ts';
import type { ReferenceServer } from '../reference-server.ts';
import { startReferenceServer } from '../server.ts';
import { Opened, within } from '../test-support.ts';
import type { WireExchange, WireRecord } from '../wire-record.ts';
import { ANSWER_WAIT_MS, ENDPOINTS, memoryNow, mib, openChannel, rawClientFor, type Channel, type Endpoint, type Memory } from './support.ts';

// `npm run test:load` (and .ci/run) runs the full load, 200 clients × 50 calls; `npm test` a light round of the same
// checks (20 × 10), so it stays quick and leaves the cores to the timing-sensitive scenario files.
const FULL_LOAD = settings().fullLoad;
const SESSIONS = FULL_LOAD ? 200 : 20;
const CALLS = FULL_LOAD ? 50 : 10;
/** What the wire record may keep per echo call (its exchange: headers, body, messages, SSE events): measured 2.2–2.7 KiB. */
const RECORD_BYTES_PER_CALL_BOUND = 8 * 1024;
/**
 * What a round may leave on the heap once the record is emptied: the fixtures' run log (one entry per call, ~1.5 MiB
 * for 10,000), the ids of issued sessions, and collector noise. A session kept alive would cost far more (an
 * McpServer with every fixture, its transport and event store: ~100 KiB each, 20 MiB for 200).
 */
const ROUND_LEFTOVER_BOUND = 6 * 1024 * 1024;
/** A whole round (open, calls, close) on 2 shared cores: the outer bound of each wait (a safety net; times are printed, never asserted). */
const ROUND_TIMEOUT_MS = 60_000 * basePolicy().scale;

failOnLeakedHandles();

const ERAS_UNDER_LOAD = [...new Set(ENDPOINTS.map((endpoint) => endpoint.era))];

interface RoundResult {
  /** Milliseconds from the first call to the last answer. */
  callsMs: number;
  /** Milliseconds of the whole round: open, calls, close. */
  roundMs: number;
  /** Each call's round trip, milliseconds, sorted. */
  latencies: number[];
  /** TCP connections the clients opened. */
  connections: number;
}

/** The id of one call: unique on the server across rounds, sessions and calls, and telling all three. */
const callId = (round: number, session: number, call: number) => round * 1_000_000 + session * 1_000 + call;

/**
 * One round: SESSIONS channels opened at once (endpoints taken in turn), then each makes CALLS echo calls in
 * sequence, all channels at once; then every channel is closed. Checks each answer on the way.
 */
async function runRound(server: ReferenceServer, era: Era, round: number): Promise<RoundResult & { channels: Channel[] }> {
  const endpoints = ENDPOINTS.filter((endpoint) => endpoint.era === era);
  const opened = new Opened();
  try {
    const started = performance.now();
    const raws = new Map(endpoints.map((endpoint) => [endpoint.kind, opened.keep(rawClientFor(endpoint.kind))]));
    const endpointOf = (session: number): Endpoint => endpoints[session % endpoints.length]!;
    const channels = await Promise.all(
      Array.from({ length: SESSIONS }, (_, session) =>
        within(openChannel(server, endpointOf(session), raws.get(endpointOf(session).kind)!), `session ${session} to open`, ANSWER_WAIT_MS),
      ),
    );
    const latencies: number[] = [];
    const callsStarted = performance.now();
    await Promise.all(
      channels.map(async (channel, session) => {
        for (let call = 1; call <= CALLS; call++) {
          const id = callId(round, session, call);
          const text = `round ${round} session ${session} call ${call}`;
          const sent = performance.now();
          const answer = await within(channel.echo(id, text), `the answer to call ${id}`, ANSWER_WAIT_MS);
          latencies.push(performance.now() - sent);
          expect(answer, `the answer to call ${id}`).toEqual(expect.objectContaining({ jsonrpc: '2.0', id, result: expect.objectContaining({ content: [{ type: 'text', text }] }) }));
        }
      }),
    );
    const callsMs = performance.now() - callsStarted;
    await Promise.all(channels.map((channel, session) => within(channel.close(), `session ${session} to close`, ANSWER_WAIT_MS)));
    const connections = [...raws.values()].reduce((sum, raw) => sum + raw.connections, 0);
    return { callsMs, roundMs: performance.now() - started, latencies: latencies.sort((a, b) => a - b), connections, channels };
  } finally {
    await opened.closeAll();
  }
}

/** The round's exchanges hold each call's request exactly once, in its own session, and its answer exactly once; no error. */
function expectRecordedOnce(exchanges: WireExchange[], round: number, channels: Channel[]): void {
  const requested = new Map<number, WireExchange[]>();
  const answered = new Map<number, number>();
  const errors: unknown[] = [];
  for (const exchange of exchanges) {
    for (const message of exchange.requestMessages) {
      if (message.method === 'tools/call') requested.set(Number(message.id), [...(requested.get(Number(message.id)) ?? []), exchange]);
    }
    for (const { message } of exchange.responseMessages) {
      if (message.error !== undefined) errors.push(message);
      if (message.method === undefined && typeof message.id === 'number') answered.set(message.id, (answered.get(message.id) ?? 0) + 1);
    }
  }
  expect(errors, 'JSON-RPC errors the server sent').toEqual([]);
  const statuses = new Set(exchanges.map((exchange) => exchange.status));
  expect([...statuses].filter((status) => status !== 200 && status !== 202), 'HTTP statuses other than 200 and 202').toEqual([]);

  expect(requested.size, 'tools/call ids recorded').toBe(channels.length * CALLS);
  const wrong: string[] = [];
  channels.forEach((channel, session) => {
    for (let call = 1; call <= CALLS; call++) {
      const id = callId(round, session, call);
      const carriers = requested.get(id) ?? [];
      if (carriers.length !== 1) wrong.push(`${id}: recorded ${carriers.length} times`);
      else if (channel.sessionId !== undefined && !carriedSession(carriers[0]!, channel.sessionId)) wrong.push(`${id}: not in session ${channel.sessionId}`);
      if (answered.get(id) !== 1) wrong.push(`${id}: answered ${answered.get(id) ?? 0} times`);
    }
  });
  expect(wrong.slice(0, 10), `calls not recorded exactly once in their session (${wrong.length})`).toEqual([]);
}

/** The session an exchange belongs to: its Mcp-Session-Id header, or (HTTP+SSE) the sessionId of the URL it was posted to. */
const carriedSession = (exchange: WireExchange, sessionId: string) =>
  exchange.requestHeaders['mcp-session-id'] === sessionId || new URL(exchange.path, 'http://localhost').searchParams.get('sessionId') === sessionId;

/** Every session the round opened has been issued, and none is live any more (for HTTP+SSE, once its stream is seen to end). */
async function expectSessionsReleased(server: ReferenceServer, channels: Channel[]): Promise<void> {
  const opened = channels.flatMap((channel) => (channel.sessionId === undefined ? [] : [channel.sessionId]));
  if (server.era === '2024-11-05') {
    // The transport forgets an HTTP+SSE session in the same 'close' event that ends its stream's exchange in the
    // record, just after the record's own listener: by the time this wait's continuation runs, both have.
    const streams = new Set(opened);
    const ended = (record: WireRecord) => record.exchanges.filter((e) => e.endedBy !== undefined && streams.has(sessionOfStream(e) ?? '')).length;
    await server.record.waitFor((record) => ended(record) === streams.size, 'every HTTP+SSE stream of the round to end', ROUND_TIMEOUT_MS);
  }
  expect(server.issuedSessions(), 'sessions issued').toEqual(expect.arrayContaining(opened));
  expect(server.liveSessions(), 'sessions still live after every client closed its own').toEqual([]);
}

/** The session id an HTTP+SSE stream announced in its `endpoint` event. */
const sessionOfStream = (exchange: WireExchange) => {
  const endpoint = exchange.sseEvents.find((event) => event.event === 'endpoint');
  return endpoint && new URL(endpoint.data, 'http://localhost').searchParams.get('sessionId');
};

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;

/** One line per era, printed once all have run: what the report quotes. */
const summary: string[] = [];
afterAll(() => {
  if (summary.length > 0) console.log(`\nload: ${SESSIONS} clients × ${CALLS} echo calls per round\n${summary.join('\n')}`);
});

describe.each(ERAS_UNDER_LOAD)('%s under load', (era) => {
  test(`${SESSIONS} clients × ${CALLS} calls, twice: every call answered and recorded once, sessions released, heap bounded`, { timeout: 3 * ROUND_TIMEOUT_MS }, async () => {
    const opened = new Opened();
    try {
      const server = opened.keep(await startReferenceServer({ era }));
      /** Heap after each round, then after each round once the record is emptied. */
      const full: Memory[] = [];
      const emptied: Memory[] = [];
      const start = memoryNow();
      const rounds: RoundResult[] = [];
      for (const round of [1, 2]) {
        const result = await runRound(server, era, round);
        rounds.push(result);
        expectRecordedOnce(server.record.exchanges, round, result.channels);
        await expectSessionsReleased(server, result.channels);
        expect(server.fixtures.runsOf('echo'), 'echo runs so far').toBe(round * SESSIONS * CALLS);
        full.push(memoryNow());
        // Emptied here, as only a test may, so the next reading shows what the rest of the server kept.
        server.record.exchanges.length = 0;
        emptied.push(memoryNow());
      }
      const [afterFirstEmptied, afterSecondEmptied] = emptied as [Memory, Memory];
      const [, afterSecond] = full as [Memory, Memory];
      const calls = SESSIONS * CALLS;
      const recordPerCall = (afterSecond.heapUsed - afterSecondEmptied.heapUsed) / calls;
      const leftover = afterSecondEmptied.heapUsed - afterFirstEmptied.heapUsed;

      const [first, second] = rounds as [RoundResult, RoundResult];
      const describeRound = (result: RoundResult) =>
        `${Math.round(calls / (result.callsMs / 1000))} calls/s, p50 ${percentile(result.latencies, 50).toFixed(1)} ms, p99 ${percentile(result.latencies, 99).toFixed(1)} ms, ` +
        `round ${(result.roundMs / 1000).toFixed(1)} s, ${result.connections} connections`;
      summary.push(
        `${era.padEnd(10)} round 1: ${describeRound(first)} · round 2: ${describeRound(second)}` +
          ` · heap ${mib(start.heapUsed)} → ${mib(full[0]!.heapUsed)} → ${mib(afterSecond.heapUsed)} (record emptied: ${mib(afterFirstEmptied.heapUsed)}, ${mib(afterSecondEmptied.heapUsed)})` +
          ` · rss ${mib(start.rss)} → ${mib(full[0]!.rss)} → ${mib(afterSecond.rss)} · record ${kib(recordPerCall)}/call · round 2 left ${mib(leftover)}`,
      );

      expect(recordPerCall, `heap the record keeps per call (${kib(recordPerCall)})`).toBeLessThan(RECORD_BYTES_PER_CALL_BOUND);
      expect(leftover, `heap round 2 left once the record is emptied (${mib(leftover)})`).toBeLessThan(ROUND_LEFTOVER_BOUND);
    } finally {
      await opened.closeAll();
    }
  });
});
