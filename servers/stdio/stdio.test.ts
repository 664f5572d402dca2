// The stdio reference server, driven by a raw client (test-client.ts: the test's own child process, real pipes, exact
// bytes): every era's handshake, the record (stdin chunks, lines, answers, EOF, signals, exit, SIGKILL inferred,
// launches), the harness's clean-up (nothing left running, no socket file), and the cost of one launch. Bad stdin lines
// (not JSON, not JSON-RPC, blank, not UTF-8, dribbled, too long, a batch where there are none, cut off by EOF) in every
// era: servers/robustness/stdio-bad-input.test.ts; many processes at once: servers/robustness/stdio-load.test.ts.
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { afterAll, afterEach, describe, expect, test } from 'vitest';
import { isAlive, startStdioServer, type StdioReferenceServer, type StdioServerOptions } from './harness.ts';
import { fromMachineClock, machineNow, STDIO_CHANNEL_ENV } from './protocol.ts';
import { stdinBytes, stdoutBytes, type StdioProcess, type StdioRecord } from './record.ts';
import { RawStdioClient, WAIT_MS, type RawMessage } from './test-client.ts';

const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'raw-test-client', version: '1' },
};

const open: { server: StdioReferenceServer; clients: RawStdioClient[] }[] = [];
/** Every channel this file opened, to prove none is left behind. */
const channels: string[] = [];
/** Every process any server of this file reported (pid and start time: a reused pid is not one of them). */
const reported: { pid: number; procStart?: string }[] = [];

async function start(options: StdioServerOptions): Promise<{ server: StdioReferenceServer; launch: (opts?: ConstructorParameters<typeof RawStdioClient>[1]) => RawStdioClient }> {
  const server = await startStdioServer(options);
  const entry = { server, clients: [] as RawStdioClient[] };
  open.push(entry);
  channels.push(server.target.env![STDIO_CHANNEL_ENV]!);
  return {
    server,
    launch: (opts) => {
      const client = new RawStdioClient(server.target, opts);
      entry.clients.push(client);
      return client;
    },
  };
}

afterEach(async () => {
  for (const { server, clients } of open.splice(0)) {
    for (const p of server.record.processes) if (p.pid !== undefined) reported.push({ pid: p.pid, ...(p.procStart !== undefined && { procStart: p.procStart }) });
    await Promise.all(clients.map((c) => c.dispose()));
    await server.close();
  }
});

afterAll(() => {
  // Nothing outlives the tests: no process any server reported, no socket file, no channel directory.
  expect(reported.length).toBeGreaterThan(20);
  expect(reported.filter((p) => isAlive(p.pid, p.procStart))).toEqual([]);
  for (const path of channels) {
    expect(existsSync(path)).toBe(false);
    expect(existsSync(dirname(path))).toBe(false);
  }
});

/** Waits until the process's channel closed (it has ended, one way or another). */
const ended = (record: StdioRecord, index = 1) => record.waitFor((r) => r.processes[index - 1]?.channelClosedAt !== undefined, `process ${index} to end`, WAIT_MS);
const process1 = (record: StdioRecord): StdioProcess => record.processes[0]!;

describe('eras', () => {
  for (const era of ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'] as const) {
    test(`${era}: initialize is answered with ${era} whatever the client offers; a tool call; EOF ends it with 0; the record holds every byte`, async () => {
      const { server, launch } = await start({ era });
      const client = launch();
      const init = await client.initialize('2099-01-01');
      expect(init.result?.['protocolVersion']).toBe(era);
      const echo = await client.request('tools/call', { name: 'echo', arguments: { text: 'héllo' } });
      expect(echo.result?.['content']).toEqual([{ type: 'text', text: 'héllo' }]);
      client.closeStdin();
      expect(await client.exited).toEqual({ code: 0, signal: null });
      const { record } = server;
      await ended(record);
      const p = process1(record);
      expect(p).toMatchObject({ role: 'server', era, launch: 1, pid: client.child.pid, exit: { code: 0, signal: null, reason: 'stdin EOF' } });
      expect(p.exit?.inferred).toBeUndefined();
      // Every byte the client wrote, in the chunks it arrived in; every byte the client read.
      expect(stdinBytes(p).toString('utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l).method)).toEqual(['initialize', 'notifications/initialized', 'tools/call']);
      expect(stdoutBytes(p).equals(Buffer.concat(client.stdoutChunks))).toBe(true);
      expect(p.stdinEofAt).toBeGreaterThan(p.stdin.at(-1)!.at - 1);
      expect(p.exit!.at).toBeGreaterThanOrEqual(p.stdinEofAt!);
      // One line, one exchange; each answer on the exchange of its request.
      expect(record.exchanges.map((e) => [e.method, e.line, e.requestMessages.map((m) => m.method)])).toEqual([
        ['STDIN', 1, ['initialize']],
        ['STDIN', 2, ['notifications/initialized']],
        ['STDIN', 3, ['tools/call']],
      ]);
      expect(record.requests('tools/call')).toHaveLength(1);
      expect(record.notifications('notifications/initialized')).toHaveLength(1);
      expect(record.responseTo(1)?.message.result?.['protocolVersion']).toBe(era);
      expect(record.exchanges[2]!.responseMessages.map((m) => m.message.id)).toEqual([2]);
      expect(record.exchanges.every((e) => e.endedBy === 'server' && e.endedAt! >= e.startedAt)).toBe(true);
      expect(server.fixtures.runs).toMatchObject([{ tool: 'echo', requestId: 2 }]);
      expect(server.fixtures.runs[0]!.finishedAt).toBeDefined();
    });
  }

  test('2025-11-25: notifications/cancelled aborts the running tool (fixtures) and the request is never answered; progress belongs to its call', async () => {
    const { server, launch } = await start({ era: '2025-11-25' });
    const client = launch();
    await client.initialize('2025-11-25');
    client.send({ id: 'slow', method: 'tools/call', params: { name: 'slow', arguments: { ms: 60_000 } } });
    await server.fixtures.waitForRun((run) => run.requestId === 'slow', 'the slow run', WAIT_MS);
    client.send({ method: 'notifications/cancelled', params: { requestId: 'slow', reason: 'test' } });
    const run = await server.fixtures.waitForRun((r) => r.requestId === 'slow' && r.abortedAt !== undefined, 'the abort', WAIT_MS);
    expect(run.tool).toBe('slow');
    const progress = await client.request('tools/call', { name: 'progress', arguments: { steps: 2 }, _meta: { progressToken: 7 } });
    expect(progress.result?.['content']).toEqual([{ type: 'text', text: 'completed 2/2' }]);
    await server.record.waitFor((r) => r.responseTo(progress.id!) !== undefined, 'the progress answer in the record', WAIT_MS);
    expect(client.lines.some((l) => (l as RawMessage).id === 'slow')).toBe(false);
    expect(server.record.responseTo('slow')).toBeUndefined();
    expect(server.record.notifications('notifications/cancelled')[0]!.message.params).toMatchObject({ requestId: 'slow' });
    const call = server.record.requests('tools/call').find((r) => r.message.id === progress.id)!.exchange;
    expect(call.responseMessages.map((m) => m.message.method ?? m.message.id)).toEqual(['notifications/progress', 'notifications/progress', progress.id]);
  });

  test('2025-03-26: a batch is one exchange; the answers to its requests come back as one batch', async () => {
    const { server, launch } = await start({ era: '2025-03-26' });
    const client = launch();
    await client.initialize('2025-03-26');
    client.write(
      `${JSON.stringify([
        { jsonrpc: '2.0', id: 'a', method: 'tools/call', params: { name: 'echo', arguments: { text: 'a' } } },
        { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'x', progress: 1 } },
        { jsonrpc: '2.0', id: 'b', method: 'tools/call', params: { name: 'echo', arguments: { text: 'b' } } },
      ])}\n`,
    );
    const batch = (await client.waitForLine(Array.isArray, 'a batch answer')) as RawMessage[];
    expect(batch.map((m) => m.id).sort()).toEqual(['a', 'b']);
    const exchange = server.record.exchanges.find((e) => e.notes.includes('stdin-batch'))!;
    await server.record.waitFor(() => exchange.endedAt !== undefined, 'the batch exchange to end', WAIT_MS);
    expect(exchange.requestMessages.map((m) => m.id ?? m.method)).toEqual(['a', 'notifications/progress', 'b']);
    expect(exchange.responseMessages.map((m) => m.message.id).sort()).toEqual(['a', 'b']);
  });

  test('2026-07-28: server/discover; a tool call with the envelope; initialize is refused', async () => {
    const { server, launch } = await start({ era: '2026-07-28' });
    const client = launch();
    const discover = await client.request('server/discover', { _meta: MODERN_META });
    expect(discover.result?.['supportedVersions']).toEqual(['2026-07-28']);
    const echo = await client.request('tools/call', { name: 'echo', arguments: { text: 'x' }, _meta: MODERN_META });
    expect(echo.result?.['content']).toEqual([{ type: 'text', text: 'x' }]);
    const init = await client.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } });
    expect(init.error).toBeDefined();
    await server.record.waitFor((r) => r.responseTo(3) !== undefined, 'the answer in the record', WAIT_MS);
    expect(server.record.requests('server/discover')).toHaveLength(1);
    expect(server.fixtures.runsOf('echo')).toBe(1);
  });

  test('dual: the opening message decides, for the life of the process', async () => {
    const { server, launch } = await start({ era: 'dual' });
    const modern = launch();
    expect((await modern.request('server/discover', { _meta: MODERN_META })).result?.['supportedVersions']).toEqual(['2026-07-28']);
    const legacy = launch();
    expect((await legacy.initialize('2025-11-25')).result?.['protocolVersion']).toBe('2025-11-25');
    await server.record.waitFor((r) => r.notifications('notifications/initialized').length === 1, 'initialized', WAIT_MS);
    expect(server.record.processes.map((p) => p.launch)).toEqual([1, 2]);
    expect(server.record.launches()).toBe(2);
    expect(server.record.exchangesOf(server.record.processes[1]!).map((e) => e.requestMessages[0]?.method)).toEqual(['initialize', 'notifications/initialized']);
  });
});

test('a program time is placed on the harness clock by one constant offset: two events keep their order and distance', () => {
  // Read afresh for each event, a preemption between the offset's two readings moved single events by milliseconds.
  const first = machineNow();
  const later = first + 0.01;
  for (let i = 0; i < 1000; i++) {
    // Within a double's precision at the machine clock's magnitude (hours of uptime in ms); a re-read offset moved it by µs at least.
    expect(fromMachineClock(later) - fromMachineClock(first)).toBeCloseTo(0.01, 6);
  }
});

describe('framing, as the server read it', () => {
  test('a long line of multi-byte characters reaches the record whole (the side channel cuts no character)', async () => {
    const { server, launch } = await start({ era: '2025-11-25' });
    const client = launch();
    await client.initialize('2025-11-25');
    // Its events are far longer than one read of the channel: the reads end inside characters of three bytes.
    const text = '日本語✓'.repeat(100_000);
    const echo = await client.request('tools/call', { name: 'echo', arguments: { text } });
    expect((echo.result?.['content'] as { text: string }[])[0]!.text === text, 'the echo came back whole').toBe(true);
    await server.record.waitFor((r) => r.responseTo(2) !== undefined, 'the answer in the record', WAIT_MS);
    const call = server.record.requests('tools/call')[0]!;
    expect((call.message.params as { arguments: { text: string } }).arguments.text === text, 'the recorded argument is the text sent').toBe(true);
    expect(call.exchange.requestBody === JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { text } } }), 'the recorded line').toBe(true);
  });

  test('a tool argument with a newline is escaped in its line: one line, one exchange', async () => {
    const { server, launch } = await start({ era: '2025-06-18' });
    const client = launch();
    await client.initialize('2025-06-18');
    const echo = await client.request('tools/call', { name: 'echo', arguments: { text: 'two\nlines' } });
    expect(echo.result?.['content']).toEqual([{ type: 'text', text: 'two\nlines' }]);
    await server.record.waitFor((r) => r.responseTo(2) !== undefined, 'the answer in the record', WAIT_MS);
    expect(server.record.requests('tools/call')[0]!.message.params).toMatchObject({ arguments: { text: 'two\nlines' } });
  });
});

describe('signals, the exit, and what the harness infers', () => {
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
    test(`${signal} is recorded, then the server dies of it`, async () => {
      const { server, launch } = await start({ era: '2025-11-25' });
      const client = launch();
      await client.initialize('2025-11-25');
      client.kill(signal);
      expect(await client.exited).toEqual({ code: null, signal });
      await ended(server.record);
      const p = process1(server.record);
      expect(p.signals.map((s) => s.signal)).toEqual([signal]);
      expect(p.exit).toMatchObject({ code: null, signal });
      expect(p.exit!.inferred).toBeUndefined();
      expect(p.stdinEofAt).toBeUndefined();
    });
  }

  test('SIGKILL: the channel drops without an exit record, so the harness infers it', async () => {
    const { server, launch } = await start({ era: '2025-11-25' });
    const client = launch();
    await client.initialize('2025-11-25');
    client.kill('SIGKILL');
    await client.exited;
    await ended(server.record);
    expect(process1(server.record).exit).toMatchObject({ signal: 'SIGKILL', code: null, inferred: true });
    expect(server.processes()[0]!.alive).toBe(false);
  });

  test('close() kills what is still alive, says so, and leaves no socket', async () => {
    const { server, launch } = await start({ era: '2025-11-25', personalities: ['ignores-stdin-eof'] });
    const client = launch();
    await client.initialize('2025-11-25');
    client.closeStdin();
    await server.record.waitFor((r) => process1(r).notes.some((n) => n.label === 'ignored-stdin-eof'), 'EOF ignored', WAIT_MS);
    expect(server.processes()[0]!.alive).toBe(true);
    expect(server.survivors()).toEqual([client.child.pid]);
    await server.close();
    expect(server.record.cleanup?.killed).toEqual([client.child.pid]);
    expect(process1(server.record).killedByHarness).toBeDefined();
    expect(process1(server.record).exit).toMatchObject({ inferred: true, signal: 'SIGKILL' });
    expect(await client.exited).toEqual({ code: null, signal: 'SIGKILL' });
    expect(existsSync(server.target.env![STDIO_CHANNEL_ENV]!)).toBe(false);
    expect(server.survivors()).toEqual([]);
  });

  test('each launch is a process of its own; a personality may be bound to one launch', async () => {
    const { server, launch } = await start({ era: '2025-11-25', personalities: [{ name: 'probe-exit', launch: 1 }] });
    const first = launch();
    first.send({ id: 1, method: 'server/discover', params: { _meta: MODERN_META } });
    expect(await first.exited).toEqual({ code: 1, signal: null });
    const second = launch();
    second.send({ id: 1, method: 'server/discover', params: { _meta: MODERN_META } });
    expect((await second.answerTo(1)).error?.code).toBe(-32601);
    const [p1, p2] = server.record.processes;
    expect([p1!.launch, p2!.launch]).toEqual([1, 2]);
    expect(p1!.exit).toMatchObject({ code: 1, reason: 'probe-exit' });
    expect(server.record.exchangesOf(p1!)[0]!.notes).toContain('probe-answer');
    expect(server.record.exchangesOf(p2!)[0]!.notes).not.toContain('probe-answer');
  });

  test('the harness commands a server: a message of its own on an exchange of its own, then closing stdout and exiting', async () => {
    const { server, launch } = await start({ era: '2025-11-25' });
    const client = launch();
    await client.initialize('2025-11-25');
    expect(server.send({ jsonrpc: '2.0', id: 'server-ping', method: 'ping' })).toBe(true);
    await client.waitForLine((l) => (l as RawMessage).id === 'server-ping', 'the server ping');
    await server.record.waitFor((r) => r.exchanges.some((e) => e.method === 'STDOUT'), 'the ping in the record', WAIT_MS);
    const own = server.record.exchanges.find((e) => e.method === 'STDOUT')!;
    expect(own.responseMessages[0]!.message).toMatchObject({ id: 'server-ping', method: 'ping' });
    expect(own.requestMessages).toEqual([]);
    client.send({ id: 'server-ping', result: {} });
    await server.record.waitFor((r) => r.exchanges.some((e) => e.requestMessages[0]?.id === 'server-ping' && e.requestMessages[0].result !== undefined), 'the answer', WAIT_MS);
    const stdoutEnded = new Promise((resolve) => client.child.stdout!.once('end', resolve));
    server.command({ t: 'exit', closeStdout: true, code: 3 });
    await stdoutEnded;
    expect(await client.exited).toEqual({ code: 3, signal: null });
    await ended(server.record);
    expect(process1(server.record).notes.map((n) => n.label)).toContain('stdout-closed');
  });
});

test('the cost of one launch (spawn to the initialize answer), measured', async () => {
  const { server, launch } = await start({ era: '2025-11-25' });
  const costs: number[] = [];
  for (let i = 0; i < 3; i++) {
    const began = performance.now();
    const client = launch();
    await client.initialize('2025-11-25');
    costs.push(performance.now() - began);
    client.closeStdin();
    await client.exited;
  }
  console.log(`stdio launch to initialize answer: ${costs.map((c) => Math.round(c)).join(', ')} ms (median ${Math.round([...costs].sort((a, b) => a - b)[1]!)} ms)`);
  await server.record.waitFor((r) => r.processes.length === 3 && r.processes.every((p) => p.channelClosedAt !== undefined), 'three processes to end', WAIT_MS);
  expect(server.record.processes.map((p) => [p.launch, p.exit?.code])).toEqual([
    [1, 0],
    [2, 0],
    [3, 0],
  ]);
});
