// Every stdio personality, driven by the raw client (test-client.ts) against the real program: what it does on the
// wire, and what the record says it did. Orders and counts only: no wall-clock bounds.
import { afterEach, describe, expect, test } from 'vitest';
import { isAlive, startStdioServer, type StdioReferenceServer, type StdioServerOptions } from './harness.ts';
import { PROBE_ANSWER_NOTE, STDERR_FLOOD_BYTES, UTF8_SPLIT_CHARACTER, UTF8_SPLIT_META_KEY } from './personalities.ts';
import { stdoutBytes, type StdioProcess, type StdioRecord } from './record.ts';
import { RawStdioClient, WAIT_MS, type RawMessage } from './test-client.ts';

const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};

const open: { server: StdioReferenceServer; clients: RawStdioClient[] }[] = [];

async function start(options: StdioServerOptions) {
  const server = await startStdioServer(options);
  const entry = { server, clients: [] as RawStdioClient[] };
  open.push(entry);
  const launch = (opts?: ConstructorParameters<typeof RawStdioClient>[1]) => {
    const client = new RawStdioClient(server.target, opts);
    entry.clients.push(client);
    return client;
  };
  return { server, record: server.record, launch };
}

afterEach(async () => {
  for (const { server, clients } of open.splice(0)) {
    await Promise.all(clients.map((c) => c.dispose()));
    await server.close();
    expect(server.survivors()).toEqual([]);
  }
});

const ended = (record: StdioRecord, index = 1) => record.waitFor((r) => r.processes[index - 1]?.channelClosedAt !== undefined, `process ${index} to end`, WAIT_MS);
const p1 = (record: StdioRecord): StdioProcess => record.processes[0]!;
/** The record has caught up with the server's answer to `id` (the client may read stdout before the channel's events arrive). */
const inRecord = (record: StdioRecord, id: string | number) => record.waitFor((r) => r.responseTo(id) !== undefined, `the answer to ${id} in the record`, WAIT_MS);
const labels = (p: StdioProcess) => p.notes.map((n) => n.label);
const writesOf = (p: StdioProcess) => p.stdout.map((c) => Buffer.from(c.data, 'base64'));

describe('shutdown', () => {
  test('ignores-stdin-eof: EOF is recorded and ignored; SIGTERM then ends it', async () => {
    const { record, launch } = await start({ era: '2025-11-25', personalities: ['ignores-stdin-eof'] });
    const client = launch();
    await client.initialize('2025-11-25');
    client.closeStdin();
    await record.waitFor((r) => labels(p1(r)).includes('ignored-stdin-eof'), 'EOF ignored', WAIT_MS);
    expect(p1(record).stdinEofAt).toBeDefined();
    expect(p1(record).exit).toBeUndefined();
    client.kill('SIGTERM');
    expect(await client.exited).toEqual({ code: null, signal: 'SIGTERM' });
    await ended(record);
    expect(p1(record).signals.map((s) => s.signal)).toEqual(['SIGTERM']);
    expect(p1(record).signals[0]!.at).toBeGreaterThan(p1(record).stdinEofAt!);
  });

  test('ignores-sigterm: SIGTERM is recorded and ignored (it still answers); SIGKILL is inferred', async () => {
    const { record, launch } = await start({ era: '2025-06-18', personalities: ['ignores-sigterm', 'ignores-stdin-eof'] });
    const client = launch();
    await client.initialize('2025-06-18');
    client.kill('SIGTERM');
    await record.waitFor((r) => labels(p1(r)).includes('ignored-sigterm'), 'SIGTERM ignored', WAIT_MS);
    expect((await client.request('ping')).result).toEqual({});
    client.kill('SIGKILL');
    await ended(record);
    expect(p1(record).signals.map((s) => s.signal)).toEqual(['SIGTERM']);
    expect(p1(record).exit).toMatchObject({ signal: 'SIGKILL', inferred: true });
  });

  test('wrapper: a parent and the real server (its child), one launch; EOF ends both', async () => {
    const { record, server, launch } = await start({ era: '2025-11-25', personalities: ['wrapper'] });
    const client = launch();
    expect((await client.initialize('2025-11-25')).result?.['protocolVersion']).toBe('2025-11-25');
    await record.waitFor((r) => r.processes.length === 2 && r.processes[1]!.role !== 'unknown', 'both processes', WAIT_MS);
    const [wrapper, inner] = record.processes;
    expect(wrapper).toMatchObject({ role: 'wrapper', pid: client.child.pid, launch: 1 });
    expect(inner).toMatchObject({ role: 'server', parent: 1, launch: 1, ppid: client.child.pid });
    expect(wrapper!.children).toEqual([inner!.pid]);
    expect(inner!.personalities).toEqual([]);
    // The server is the one reading stdin; the wrapper never does.
    expect(wrapper!.stdin).toEqual([]);
    expect(record.exchanges.every((e) => e.process === 2)).toBe(true);
    client.closeStdin();
    expect(await client.exited).toEqual({ code: 0, signal: null });
    await ended(record, 1);
    await ended(record, 2);
    expect(inner!.exit).toMatchObject({ code: 0, reason: 'stdin EOF' });
    expect(wrapper!.exit).toMatchObject({ code: 0 });
    expect(server.survivors()).toEqual([]);
  });

  test('wrapper: SIGTERM kills the wrapper alone, the server lives on; close() kills it and says so', async () => {
    const { record, server, launch } = await start({ era: '2025-11-25', personalities: ['wrapper', 'ignores-stdin-eof'] });
    const client = launch();
    await client.initialize('2025-11-25');
    await record.waitFor((r) => r.processes[1]?.pid !== undefined, 'the server', WAIT_MS);
    client.closeStdin();
    await record.waitFor((r) => labels(r.processes[1]!).includes('ignored-stdin-eof'), 'EOF ignored', WAIT_MS);
    client.kill('SIGTERM');
    expect(await client.exited).toEqual({ code: null, signal: 'SIGTERM' });
    await ended(record, 1);
    const [wrapper, inner] = record.processes;
    expect(wrapper!.signals.map((s) => s.signal)).toEqual(['SIGTERM']);
    expect(wrapper!.exit).toMatchObject({ signal: 'SIGTERM' });
    expect(inner!.signals).toEqual([]);
    expect(server.processes()[1]!.alive).toBe(true);
    expect(server.survivors()).toEqual([inner!.pid]);
    await server.close();
    expect(record.cleanup?.killed).toEqual([inner!.pid]);
    expect(inner!.killedByHarness).toBeDefined();
    expect(isAlive(inner!.pid, inner!.procStart)).toBe(false);
  });
});

describe('stderr', () => {
  test('stderr-flood: 1 MiB on stderr before the first answer; a client that does not drain it gets no answer until it does', async () => {
    const { record, launch } = await start({ era: '2025-11-25', personalities: ['stderr-flood'] });
    const client = launch({ stderr: 'hold' });
    client.send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
    // The pipe fills (64 KiB): the flood's first write is out, and it is stuck in a later one.
    await record.waitFor((r) => (r.processes[0]?.stderr.length ?? 0) >= 1, 'the flood to begin', WAIT_MS);
    expect(client.lines).toEqual([]);
    expect(p1(record).stdout).toEqual([]);
    client.drainStderr();
    await client.answerTo(1);
    const p = p1(record);
    const firstAnswer = p.stdout[0]!.at;
    const before = p.stderr.filter((w) => w.doneAt <= firstAnswer).reduce((sum, w) => sum + w.bytes, 0);
    expect(before).toBeGreaterThanOrEqual(STDERR_FLOOD_BYTES);
    expect(STDERR_FLOOD_BYTES).toBeGreaterThanOrEqual(1024 * 1024);
    expect(Buffer.concat(client.stderrChunks).length).toBeGreaterThanOrEqual(STDERR_FLOOD_BYTES);
  });

  test('stderr-chatter: warnings and an error-looking line before the first answer, a line per request; everything still answered', async () => {
    const { record, launch } = await start({ era: '2025-06-18', personalities: ['stderr-chatter'] });
    const client = launch();
    await client.initialize('2025-06-18');
    expect((await client.request('ping')).result).toEqual({});
    await inRecord(record, 2);
    const p = p1(record);
    const beforeAnswer = p.stderr.filter((w) => w.at <= p.stdout[0]!.at).map((w) => w.head).join('');
    expect(beforeAnswer).toMatch(/Warning:/);
    expect(beforeAnswer).toMatch(/Error:/);
    await record.waitFor((r) => p1(r).stderr.some((w) => w.head.includes('debug: line 3: ping')), 'the debug line', WAIT_MS);
  });
});

describe('framing of what the server writes', () => {
  test('split-writes: every message in 16 pieces, each of 8 bytes but the last, which carries the rest', async () => {
    const { record, launch } = await start({ era: '2025-11-25', personalities: ['split-writes'] });
    const client = launch();
    const init = await client.initialize('2025-11-25');
    expect(init.result?.['protocolVersion']).toBe('2025-11-25');
    await inRecord(record, 1);
    const writes = writesOf(p1(record));
    const answer = `${JSON.stringify(record.responseTo(1)!.message)}\n`;
    expect(Buffer.byteLength(answer)).toBeGreaterThan(16 * 8);
    expect(writes.length).toBe(16);
    expect(writes.slice(0, -1).every((w) => w.length === 8)).toBe(true);
    expect(stdoutBytes(p1(record)).toString('utf8')).toBe(answer);
  });

  test('merged-writes: a call with progress is one write of several messages', async () => {
    const { record, launch } = await start({ era: '2025-06-18', personalities: ['merged-writes'] });
    const client = launch();
    await client.initialize('2025-06-18');
    const answer = await client.request('tools/call', { name: 'progress', arguments: { steps: 3 }, _meta: { progressToken: 'p' } });
    expect(answer.result?.['content']).toEqual([{ type: 'text', text: 'completed 3/3' }]);
    const lastWrite = writesOf(p1(record)).at(-1)!.toString('utf8');
    const lines = lastWrite.split('\n').filter(Boolean).map((l) => JSON.parse(l) as RawMessage);
    expect(lines.length).toBeGreaterThan(1);
    expect(lines.at(-1)!.id).toBe(answer.id);
    // Notifications about the call are on its exchange, like progress on an HTTP call's stream.
    await inRecord(record, answer.id!);
    const call = record.requests('tools/call')[0]!.exchange;
    expect(call.responseMessages.map((m) => m.message.method ?? 'answer')).toEqual(['notifications/progress', 'notifications/progress', 'notifications/progress', 'answer']);
  });

  test('utf8-split: every answer carries a multi-byte character and is written in two writes cut inside it', async () => {
    const { record, launch } = await start({ era: '2025-11-25', personalities: ['utf8-split'] });
    const client = launch();
    const init = await client.initialize('2025-11-25');
    expect((init.result?.['_meta'] as Record<string, unknown>)[UTF8_SPLIT_META_KEY]).toBe(UTF8_SPLIT_CHARACTER);
    await inRecord(record, 1);
    const [first, second] = writesOf(p1(record));
    // The first write ends with the lead byte of a multi-byte character; the second starts with its continuation.
    expect(first!.at(-1)!).toBeGreaterThanOrEqual(0xc0);
    expect(second![0]! & 0xc0).toBe(0x80);
    expect(Buffer.concat([first!, second!]).toString('utf8')).toContain(UTF8_SPLIT_CHARACTER);
  });

  test('batch-answers (2025-03-26): every answer is a batch', async () => {
    const { launch } = await start({ era: '2025-03-26', personalities: ['batch-answers'] });
    const client = launch();
    client.send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
    const batch = (await client.waitForLine(Array.isArray, 'a batch')) as RawMessage[];
    expect(batch).toHaveLength(1);
    expect(batch[0]!.result?.['protocolVersion']).toBe('2025-03-26');
  });

  test('batch-answers with tool and count: the answers to calls of that tool held until count are due, then one batch; the others alone', async () => {
    const { record, launch } = await start({ era: '2025-03-26', personalities: [{ name: 'batch-answers', tool: 'echo', count: 2, ms: WAIT_MS }] });
    const client = launch();
    const init = await client.initialize('2025-03-26');
    expect(init.result?.['protocolVersion']).toBe('2025-03-26');
    client.send({ id: 'a', method: 'tools/call', params: { name: 'echo', arguments: { text: 'first' } } });
    // Held: the first echo's answer waits for the second; a tools/list meanwhile is answered alone, as a message.
    expect((await client.request('tools/list')).result?.['tools']).toBeDefined();
    expect(client.lines.some(Array.isArray)).toBe(false);
    client.send({ id: 'b', method: 'tools/call', params: { name: 'echo', arguments: { text: 'second' } } });
    const batch = (await client.waitForLine(Array.isArray, 'a batch')) as RawMessage[];
    expect(batch.map((m) => m.id)).toEqual(['a', 'b']);
    expect(batch.map((m) => (m.result?.['content'] as { text: string }[])[0]!.text)).toEqual(['first', 'second']);
    // Each answer is recorded on its own line's exchange.
    await inRecord(record, 'b');
    expect(record.responseTo('a')).toBeDefined();
    const lines = stdoutBytes(p1(record)).toString('utf8').trimEnd().split('\n');
    expect(lines.filter((line) => line.startsWith('['))).toHaveLength(1);
  });

  test('batch-answers does not apply to other eras', async () => {
    await expect(startStdioServer({ era: '2025-06-18', personalities: ['batch-answers'] })).rejects.toThrow(/only 2025-03-26/);
  });
});

describe('dying in the middle of a call', () => {
  test('crash-mid-call: the tool starts, the answer never comes, a stack trace and exit 1', async () => {
    const { record, server, launch } = await start({ era: '2025-11-25', personalities: ['crash-mid-call'] });
    const client = launch();
    await client.initialize('2025-11-25');
    client.send({ id: 5, method: 'tools/call', params: { name: 'echo', arguments: { text: 'never answered' } } });
    expect(await client.exited).toEqual({ code: 1, signal: null });
    await ended(record);
    expect(server.fixtures.runs).toMatchObject([{ tool: 'echo', requestId: 5 }]);
    expect(record.responseTo(5)).toBeUndefined();
    expect(client.lines.some((l) => (l as RawMessage).id === 5)).toBe(false);
    expect(p1(record).exit).toMatchObject({ code: 1, reason: 'crash-mid-call' });
    expect(client.stderrText()).toMatch(/Error: reference-stdio: crash-mid-call/);
  });

  test('close-stdout-and-exit (option tool): another tool is answered; on that one stdout closes, then exit 0', async () => {
    const { record, launch } = await start({ era: '2025-06-18', personalities: [{ name: 'close-stdout-and-exit', tool: 'slow' }] });
    const client = launch();
    await client.initialize('2025-06-18');
    expect((await client.request('tools/call', { name: 'echo', arguments: { text: 'a' } })).result).toBeDefined();
    await inRecord(record, 2);
    const stdoutEnded = new Promise((resolve) => client.child.stdout!.once('end', resolve));
    client.send({ id: 'slow', method: 'tools/call', params: { name: 'slow', arguments: { ms: 60_000 } } });
    await stdoutEnded;
    expect(await client.exited).toEqual({ code: 0, signal: null });
    await ended(record);
    const labelsAt = p1(record).notes;
    expect(labelsAt.map((n) => n.label)).toEqual(['close-stdout-and-exit', 'stdout-closed']);
    expect(p1(record).exit!.at).toBeGreaterThanOrEqual(labelsAt[1]!.at);
  });
});

describe('probe answers', () => {
  const discover = (client: RawStdioClient, id: number | string = 'probe') => {
    client.send({ id, method: 'server/discover', params: { _meta: MODERN_META } });
    return client.answerTo(id);
  };

  test('a legacy era answers server/discover itself (-32601), then serves initialize', async () => {
    const { record, launch } = await start({ era: '2025-11-25' });
    const client = launch();
    expect((await discover(client)).error?.code).toBe(-32601);
    expect((await client.initialize('2025-11-25')).result?.['protocolVersion']).toBe('2025-11-25');
    await inRecord(record, 1);
    expect(record.exchanges[0]!.notes).not.toContain(PROBE_ANSWER_NOTE);
  });

  for (const [name, code] of [
    ['probe-method-not-found', -32601],
    ['probe-invalid-params', -32602],
  ] as const) {
    test(`${name}: ${code}, noted; initialize still served`, async () => {
      const { record, launch } = await start({ era: 'dual', personalities: [name] });
      const client = launch();
      expect((await discover(client)).error?.code).toBe(code);
      expect((await client.initialize('2025-11-25')).result?.['protocolVersion']).toBe('2025-11-25');
      await inRecord(record, 1);
      expect(record.exchanges[0]!.notes).toEqual([PROBE_ANSWER_NOTE, name]);
    });
  }

  test('probe-silence: no answer to server/discover; the next request is served', async () => {
    const { record, launch } = await start({ era: '2025-11-25', personalities: ['probe-silence'] });
    const client = launch();
    client.send({ id: 'probe', method: 'server/discover', params: { _meta: MODERN_META } });
    expect((await client.initialize('2025-11-25')).result?.['protocolVersion']).toBe('2025-11-25');
    expect(client.lines.some((l) => (l as RawMessage).id === 'probe')).toBe(false);
    await inRecord(record, 1);
    expect(record.exchanges[0]!.notes).toContain(PROBE_ANSWER_NOTE);
    expect(record.exchanges[0]!.responseMessages).toEqual([]);
    expect(record.exchanges[0]!.endedAt).toBeUndefined();
  });

  test('probe-exit: server/discover makes it exit 1', async () => {
    const { record, launch } = await start({ era: '2025-11-25', personalities: ['probe-exit'] });
    const client = launch();
    client.send({ id: 1, method: 'server/discover', params: { _meta: MODERN_META } });
    expect(await client.exited).toEqual({ code: 1, signal: null });
    await ended(record);
    expect(p1(record).exit).toMatchObject({ code: 1, reason: 'probe-exit' });
  });

  test('probe-slow-start: stdin is recorded as it arrives, nothing is answered before the start is over', async () => {
    const ms = 300;
    const { record, launch } = await start({ era: '2026-07-28', personalities: [{ name: 'probe-slow-start', ms }] });
    const client = launch();
    expect((await discover(client)).result?.['supportedVersions']).toEqual(['2026-07-28']);
    await inRecord(record, 'probe');
    const p = p1(record);
    // The server's own clock: its first answer is at least `ms` after it started.
    expect(p.stdout[0]!.at - p.startedAt!).toBeGreaterThanOrEqual(ms);
    expect(p.stdin[0]!.at).toBeLessThan(p.stdout[0]!.at);
  });

  test('probe-corrective-version: the first probe gets -32022 naming 2026-07-28, the next a DiscoverResult', async () => {
    const { record, launch } = await start({ era: '2026-07-28', personalities: ['probe-corrective-version'] });
    const client = launch();
    const first = await discover(client, 1);
    expect(first.error).toMatchObject({ code: -32022, data: { supported: ['2026-07-28'], requested: '2026-07-28' } });
    expect((await discover(client, 2)).result?.['supportedVersions']).toEqual(['2026-07-28']);
    await inRecord(record, 2);
    expect(record.exchanges.map((e) => e.notes.includes(PROBE_ANSWER_NOTE))).toEqual([true, false]);
  });

  test('probe-unsupported-version: -32022 naming only 2099-01-01, every time', async () => {
    const { launch } = await start({ era: 'dual', personalities: ['probe-unsupported-version'] });
    const client = launch();
    expect((await discover(client, 1)).error).toMatchObject({ code: -32022, data: { supported: ['2099-01-01'] } });
    expect((await discover(client, 2)).error?.code).toBe(-32022);
  });
});

describe('capabilities', () => {
  test.each(['2024-11-05', '2025-06-18', '2025-11-25'] as const)('tools-only (%s): initialize advertises tools alone and its line is noted; prompts/list and logging/setLevel get -32601', async (era) => {
    const { record, launch } = await start({ era, personalities: ['tools-only'] });
    const client = launch();
    const init = await client.initialize(era);
    expect(init.result?.['capabilities']).toEqual({ tools: { listChanged: true } });
    expect((await client.request('tools/call', { name: 'echo', arguments: { text: 'hi' } })).result).toMatchObject({ content: [{ type: 'text', text: 'hi' }] });
    expect((await client.request('prompts/list')).error?.code).toBe(-32601);
    expect((await client.request('logging/setLevel', { level: 'info' })).error?.code).toBe(-32601);
    await inRecord(record, init.id!);
    const initLine = record.exchanges.find((x) => x.requestMessages.some((m) => m.method === 'initialize'))!;
    expect(initLine.notes).toEqual(['tools-only']);
    expect(record.exchanges.filter((x) => x.notes.includes('tools-only'))).toEqual([initLine]);
  });

  test('tools-only does not apply to 2026-07-28, and takes no launch option', async () => {
    await expect(startStdioServer({ era: '2026-07-28', personalities: ['tools-only'] })).rejects.toThrow('stdio personality tools-only does not apply to era 2026-07-28');
    await expect(startStdioServer({ era: '2025-11-25', personalities: [{ name: 'tools-only', launch: 1 }] })).rejects.toThrow('tools-only is every launch');
  });
});
