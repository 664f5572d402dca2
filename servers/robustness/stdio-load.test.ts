// Every stdio era's server program under load: PROCESSES processes launched at once (real child processes of the
// test, real pipes: servers/stdio/test-client.ts), each making CALLS echo calls one after the other, and one more
// process given PIPELINED calls in a single write, all in flight at once (`dual`: its processes open on either leg in
// turn). Each round: every call answered exactly once, with its own text, on its own process's stdout; the record holds
// each request exactly once, in its own process, with the text sent (multi-byte characters too: the side channel
// must not cut one), and each answer once, with no error; every process exits 0 at EOF by itself; and nothing is left:
// no process the record knows of, nothing the harness had to kill, no channel socket, no handle of this process.
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { settings } from '../../config/settings.ts';
import { failOnLeakedHandles } from '../../suites/leaks.ts';
import { isAlive, startStdioServer } from '../stdio/harness.ts';
import { STDIO_CHANNEL_ENV, STDIO_ERAS, type StdioEra } from '../stdio/protocol.ts';
import type { StdioExchange, StdioProcess } from '../stdio/record.ts';
import { RawStdioClient } from '../stdio/test-client.ts';
import { Opened, within } from '../test-support.ts';
import { ANSWER_WAIT_MS, echoAnswer, openStdio, STDIO_ENDPOINTS, stdioEcho, type StdioEndpoint } from './support.ts';

// `npm run test:load` runs the full load (50 processes × 50 calls, 1,000 pipelined); `npm test` a light round of the
// same checks, a few seconds in all: a launch is a Node process loading the SDK (~0.4 s of CPU).
const FULL_LOAD = settings().fullLoad;
const PROCESSES = FULL_LOAD ? 50 : 4;
const CALLS = FULL_LOAD ? 50 : 20;
const PIPELINED = FULL_LOAD ? 1_000 : 100;

failOnLeakedHandles();

/** The id of a call: unique on the server across processes (so "in its own process" means something), telling both. */
const callId = (process: number, call: number) => (process + 1) * 10_000 + call;
/** Its text: multi-byte characters, so a character cut between two reads of the side channel would show. */
const callText = (process: number, call: number) => `process ${process} call ${call}: ✓ naïve 日本語`;

interface RoundTimes {
  /** From the launches to every process open (handshake or discovery answered), ms. */
  openMs: number;
  /** From the first call to the last answer of the sequential processes, ms. */
  callsMs: number;
  /** Each sequential call's round trip, ms, sorted. */
  latencies: number[];
  /** From the pipelined write to its last answer, ms. */
  pipelinedMs: number;
  /** From the launches to every process's channel closed after EOF, ms. */
  roundMs: number;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
const summary: string[] = [];
afterAll(() => {
  if (summary.length > 0) console.log(`\nstdio load: ${PROCESSES} processes × ${CALLS} echo calls in sequence, and one with ${PIPELINED} pipelined, per era\n${summary.join('\n')}`);
});

/** The calls each process made: its index (in launch order here), and the ids with their texts. */
type Plan = Map<number, { endpoint: StdioEndpoint; calls: Map<number, string> }>;

/** The record holds each call once, in its own process and with its text; each answered once there; no error anywhere. */
function expectRecordedOnce(byProcess: Map<StdioProcess, StdioExchange[]>, owners: Map<number, StdioProcess>, plan: Plan): void {
  const wrong: string[] = [];
  const errors: unknown[] = [];
  const requested = new Map<number, { process: StdioProcess; text: unknown }[]>();
  const answered = new Map<number, StdioProcess[]>();
  for (const [process, exchanges] of byProcess) {
    for (const exchange of exchanges) {
      for (const message of exchange.requestMessages) {
        if (message.method !== 'tools/call') continue;
        const text = (message.params as { arguments?: { text?: unknown } } | undefined)?.arguments?.text;
        requested.set(Number(message.id), [...(requested.get(Number(message.id)) ?? []), { process, text }]);
      }
      for (const { message } of exchange.responseMessages) {
        if (message.error !== undefined) errors.push(message);
        if (message.method === undefined && typeof message.id === 'number' && message.id >= callId(0, 0)) answered.set(message.id, [...(answered.get(message.id) ?? []), process]);
      }
    }
  }
  expect(errors, 'JSON-RPC errors the servers wrote').toEqual([]);
  for (const [index, { calls }] of plan) {
    const own = owners.get(index);
    for (const [id, text] of calls) {
      const carriers = requested.get(id) ?? [];
      if (carriers.length !== 1) wrong.push(`${id}: recorded ${carriers.length} times`);
      else if (carriers[0]!.process !== own) wrong.push(`${id}: recorded in process ${carriers[0]!.process.index}, not ${own?.index}`);
      else if (carriers[0]!.text !== text) wrong.push(`${id}: recorded with the text ${JSON.stringify(carriers[0]!.text)}, not ${JSON.stringify(text)}`);
      const answers = answered.get(id) ?? [];
      if (answers.length !== 1 || answers[0] !== own) wrong.push(`${id}: answered ${answers.length} times${answers.length > 0 ? ` in processes ${answers.map((p) => p.index).join(', ')}` : ''}`);
    }
  }
  expect(requested.size, 'tools/call ids recorded').toBe([...plan.values()].reduce((sum, { calls }) => sum + calls.size, 0));
  expect(wrong.slice(0, 10), `calls not recorded and answered exactly once in their own process (${wrong.length})`).toEqual([]);
}

describe.each(STDIO_ERAS)('%s under load', (era: StdioEra) => {
  const endpoints = STDIO_ENDPOINTS.filter((endpoint) => endpoint.era === era);

  test(`${PROCESSES} processes × ${CALLS} calls, and one with ${PIPELINED} in flight: each answered and recorded once in its own process; every process exits 0 at EOF; nothing left`, async () => {
    const opened = new Opened();
    let server: Awaited<ReturnType<typeof startStdioServer>> | undefined;
    try {
      server = opened.keep(await startStdioServer({ era }));
      const { record } = server;
      const began = performance.now();
      // All launched at once; the last one gets the pipelined calls.
      const clients = Array.from({ length: PROCESSES + 1 }, () => {
        const client = new RawStdioClient(server!.target);
        opened.defer(() => client.dispose());
        return client;
      });
      const plan: Plan = new Map(
        clients.map((_, index) => [
          index,
          {
            endpoint: endpoints[index % endpoints.length]!,
            calls: new Map(Array.from({ length: index < PROCESSES ? CALLS : PIPELINED }, (_, call) => [callId(index, call + 1), callText(index, call + 1)])),
          },
        ]),
      );
      await Promise.all(clients.map((client, index) => within(openStdio(client, plan.get(index)!.endpoint, ANSWER_WAIT_MS), `process ${index} to open`, ANSWER_WAIT_MS)));
      const openMs = performance.now() - began;
      const opening = clients.map((client) => client.lines.length);

      const latencies: number[] = [];
      const callsStarted = performance.now();
      let pipelinedMs = 0;
      await Promise.all(
        clients.map(async (client, index) => {
          const { endpoint, calls } = plan.get(index)!;
          if (index < PROCESSES) {
            for (const [id, text] of calls) {
              const sent = performance.now();
              client.send(stdioEcho(endpoint, id, text));
              expect(await client.answerTo(id, ANSWER_WAIT_MS), `the answer to call ${id}`).toEqual(echoAnswer(id, text));
              latencies.push(performance.now() - sent);
            }
            return;
          }
          const sent = performance.now();
          client.write([...calls].map(([id, text]) => `${JSON.stringify(stdioEcho(endpoint, id, text))}\n`).join(''));
          await client.linesFrom(opening[index]!, calls.size, `the ${calls.size} pipelined answers`, ANSWER_WAIT_MS);
          pipelinedMs = performance.now() - sent;
        }),
      );
      const callsMs = performance.now() - callsStarted;

      // Each process's stdout after its opening: exactly one answer per call, its own (the pipelined ones in any order).
      clients.forEach((client, index) => {
        const { calls } = plan.get(index)!;
        const answers = client.lines.slice(opening[index]) as { id?: number }[];
        const expected = [...calls].map(([id, text]) => echoAnswer(id, text));
        if (index < PROCESSES) expect(answers, `the stdout of process ${index}`).toEqual(expected);
        else expect([...answers].sort((a, b) => a.id! - b.id!), `the stdout of the pipelined process`).toEqual(expected);
      });

      // EOF: each exits 0 by itself, and its channel closes (then its record is whole).
      for (const client of clients) client.closeStdin();
      const exits = await Promise.all(clients.map((client, index) => within(client.exited, `process ${index} to exit after EOF`, ANSWER_WAIT_MS)));
      expect(exits, 'how the processes ended').toEqual(clients.map(() => ({ code: 0, signal: null })));
      await record.waitFor((r) => r.processes.length === clients.length && r.processes.every((p) => p.channelClosedAt !== undefined), 'every process’s channel to close', ANSWER_WAIT_MS);
      const roundMs = performance.now() - began;

      const owners = new Map(clients.map((client, index) => [index, record.processes.find((p) => p.pid === client.child.pid)!]));
      expect([...owners.values()].every((p) => p !== undefined), 'every launched process in the record').toBe(true);
      for (const p of record.processes) expect(p.exit, `the exit of process ${p.index}`).toEqual({ at: expect.any(Number), code: 0, signal: null, reason: 'stdin EOF' });
      const byProcess = new Map(record.processes.map((p) => [p, [] as StdioExchange[]]));
      for (const exchange of record.exchanges) byProcess.get(record.processes[exchange.process - 1]!)!.push(exchange);
      expectRecordedOnce(byProcess, owners, plan);
      expect(server.fixtures.runsOf('echo'), 'echo runs').toBe(PROCESSES * CALLS + PIPELINED);
      expect(server.survivors(), 'processes of the target still alive after EOF').toEqual([]);

      const times: RoundTimes = { openMs, callsMs, latencies: latencies.sort((a, b) => a - b), pipelinedMs, roundMs };
      summary.push(
        `${era.padEnd(10)} open ${clients.length} processes ${(times.openMs / 1000).toFixed(1)} s · sequential ${Math.round((PROCESSES * CALLS) / (times.callsMs / 1000))} calls/s, ` +
          `p50 ${percentile(times.latencies, 50).toFixed(1)} ms, p99 ${percentile(times.latencies, 99).toFixed(1)} ms · ${PIPELINED} pipelined in ${Math.round(times.pipelinedMs)} ms · round ${(times.roundMs / 1000).toFixed(1)} s`,
      );
    } finally {
      await opened.closeAll();
    }
    // The harness had nothing to kill, and left no socket; no process the record knows of lives on.
    expect(server!.record.cleanup?.killed, 'processes the harness had to kill').toEqual([]);
    const channel = server!.target.env![STDIO_CHANNEL_ENV]!;
    expect(existsSync(channel) || existsSync(dirname(channel)), 'the channel socket or its directory still there').toBe(false);
    expect(server!.record.processes.filter((p) => isAlive(p.pid, p.procStart)).map((p) => p.pid), 'processes alive after the round').toEqual([]);
  });
});
