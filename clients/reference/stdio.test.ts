// The reference client's stdio transport against a real child process (testdata/stdio-server.ts), observed from the
// server's side: one message per line on stdin, stderr drained and no error, the shutdown sequence in its order
// (stdin closed, then SIGTERM only for a server still running, then SIGKILL), no process of the tree left, cancellation
// by notifications/cancelled and never for initialize, and both eras. Order of events only: no wall-clock assertions.
import { describe, expect, test } from 'vitest';
import { failOnLeakedHandles } from '../../suites/leaks.ts';
import { ConnectionDropped } from './errors.ts';
import { withRuleBroken } from './rules.ts';
import { BOUND_MS, newClient, POLICY, rejection, running, STDIO_CONNECT, stdioServer, eventually, type StdioEvent } from './test-support.ts';

// No pipe, process handle or timer of the transport outlives the tests.
failOnLeakedHandles();

const kinds = (events: readonly StdioEvent[]) => events.filter((e) => e.type !== 'stdin').map((e) => (e.type === 'signal' ? `signal ${e.signal}` : e.type));
const methodsOf = (lines: unknown[]) => lines.map((line) => (typeof line === 'object' && line !== null ? ((line as { method?: string }).method ?? 'response') : `text ${String(line)}`));

describe('the stdio transport', () => {
  test('legacy: initialize, initialized, requests, each message one line of JSON; close ends stdin and the server exits on it, unsignalled', async () => {
    const server = stdioServer();
    const client = newClient();
    const connection = await client.connect(server.target, STDIO_CONNECT);
    expect(await connection.info()).toEqual({ negotiatedVersion: '2025-11-25', era: 'legacy' });
    expect(await connection.listTools()).toEqual([{ name: 'echo' }, { name: 'slow' }]);
    expect(await connection.callTool('echo', { text: 'two\nlines' })).toEqual({ content: [{ type: 'text', text: 'two\nlines' }] });
    await connection.close();
    expect(methodsOf(server.lines())).toEqual(['initialize', 'notifications/initialized', 'tools/list', 'tools/call']);
    expect(server.stdin().endsWith('\n')).toBe(true);
    expect(kinds(server.events()[0]!)).toEqual(['start', 'eof', 'exit']);
    expect(server.pids().filter(running)).toEqual([]);
  });

  test('a pinned legacy revision is offered, and held to', async () => {
    const server = stdioServer();
    const connection = await newClient().connect(server.target, { ...STDIO_CONNECT, negotiation: { pin: '2025-03-26' } });
    expect(await connection.info()).toEqual({ negotiatedVersion: '2025-03-26', era: 'legacy' });
    await connection.close();
    expect((server.lines()[0] as { params: { protocolVersion: string } }).params.protocolVersion).toBe('2025-03-26');
  });

  test('a server that ignores stdin EOF gets SIGTERM after it, never before', async () => {
    const server = stdioServer({ IGNORE_EOF: '1' });
    const connection = await newClient().connect(server.target, STDIO_CONNECT);
    await connection.close();
    expect(kinds(server.events()[0]!)).toEqual(['start', 'eof', 'signal SIGTERM', 'exit']);
  });

  test('a server that ignores SIGTERM too is killed (SIGKILL) after it: close() returns with nothing left running', async () => {
    const server = stdioServer({ IGNORE_EOF: '1', IGNORE_SIGTERM: '1' });
    const connection = await newClient().connect(server.target, STDIO_CONNECT);
    await connection.close();
    // No exit line: a SIGKILL leaves the server no chance to write one.
    expect(kinds(server.events()[0]!)).toEqual(['start', 'eof', 'signal SIGTERM']);
    expect(server.pids().filter(running)).toEqual([]);
  });

  test('a descendant left behind by a server that exited is ended with its process group', async () => {
    const server = stdioServer({ DESCENDANT: '1' });
    const connection = await newClient().connect(server.target, STDIO_CONNECT);
    await connection.close();
    expect(kinds(server.events()[0]!)).toEqual(['start', 'descendant', 'eof', 'exit']);
    expect(server.pids()).toHaveLength(2);
    expect(server.pids().filter(running)).toEqual([]);
  });

  test('a stderr flood (1 MiB before the first answer) is drained and is no error', async () => {
    const server = stdioServer({ STDERR_BYTES: String(1024 * 1024) });
    const connection = await newClient().connect(server.target, STDIO_CONNECT);
    expect(await connection.callTool('echo', { text: 'after the flood' })).toEqual({ content: [{ type: 'text', text: 'after the flood' }] });
    await connection.close();
  });

  test('an aborted call is cancelled by notifications/cancelled naming it, settles at once, and its late answer is ignored', async () => {
    const server = stdioServer();
    const connection = await newClient().connect(server.target, STDIO_CONNECT);
    const controller = new AbortController();
    const call = rejection(connection.callTool('slow', { ms: 4 * POLICY.ms.react }, { signal: controller.signal }));
    await eventually(() => methodsOf(server.lines()).includes('tools/call'), 'the slow call to reach the server');
    controller.abort();
    expect((await call).name).toBe('AbortError');
    await eventually(() => methodsOf(server.lines()).includes('notifications/cancelled'), 'the cancel');
    const [request, cancel] = server.lines().slice(-2) as { id?: number; params: { requestId?: number } }[];
    expect(cancel!.params.requestId).toBe(request!.id);
    expect(await connection.listTools()).toHaveLength(2);
    await connection.close();
  });

  test('a connect that gives up during initialize sends no notifications/cancelled for it', async () => {
    const server = stdioServer({ SILENT_ON: 'initialize' });
    const client = newClient();
    await rejection(client.connect(server.target, { ...STDIO_CONNECT, timeoutMs: POLICY.ms.react }));
    await client.dispose();
    expect(methodsOf(server.lines())).toEqual(['initialize']);
    expect(kinds(server.events()[0]!)).toEqual(['start', 'eof', 'exit']);
  });

  test('a server that exits during a call: the call settles with the reason, the next one at once', async () => {
    const server = stdioServer({ EXIT_ON: 'tools/call' });
    const connection = await newClient().connect(server.target, STDIO_CONNECT);
    const error = await rejection(connection.callTool('echo', { text: 'x' }));
    expect(error).toBeInstanceOf(ConnectionDropped);
    expect(error.message).toMatch(/closed its stdout|exited with code 3/);
    expect(await rejection(connection.listTools())).toBe(error);
    await connection.close();
  });

  test('a server that cannot be started fails the connect, naming it', async () => {
    const client = newClient();
    const error = await rejection(client.connect({ transport: 'stdio', command: '/nonexistent/mcp-server', args: [] }, STDIO_CONNECT));
    expect(error.message).toMatch(/could not be started/);
  });

  test('dispose shuts down every process it started, with the same sequence', async () => {
    const server = stdioServer({ IGNORE_EOF: '1' });
    const client = newClient();
    await client.connect(server.target, STDIO_CONNECT);
    await client.connect(server.target, STDIO_CONNECT);
    await client.dispose();
    expect(server.events().map(kinds)).toEqual([
      ['start', 'eof', 'signal SIGTERM', 'exit'],
      ['start', 'eof', 'signal SIGTERM', 'exit'],
    ]);
  });
});

describe('the rules every transport shares hold over stdio too (a variant breaking one breaks it here)', () => {
  test('neverCancelInitialize off: a connect giving up during initialize cancels it', async () => {
    const server = stdioServer({ SILENT_ON: 'initialize' });
    const client = newClient({ rules: withRuleBroken('neverCancelInitialize') });
    await rejection(client.connect(server.target, { ...STDIO_CONNECT, timeoutMs: POLICY.ms.react }));
    await client.dispose();
    expect(methodsOf(server.lines())).toEqual(['initialize', 'notifications/cancelled']);
  });

  test('cancelOnTheWire off: an aborted call settles, and nothing tells the server', async () => {
    const server = stdioServer();
    const connection = await newClient({ rules: withRuleBroken('cancelOnTheWire') }).connect(server.target, STDIO_CONNECT);
    const controller = new AbortController();
    const call = rejection(connection.callTool('slow', { ms: 4 * POLICY.ms.react }, { signal: controller.signal }));
    await eventually(() => methodsOf(server.lines()).includes('tools/call'), 'the slow call to reach the server');
    controller.abort();
    await call;
    await connection.close();
    expect(methodsOf(server.lines())).toEqual(['initialize', 'notifications/initialized', 'tools/call']);
  });

  test('a batch line from the server (an array) is read member by member: the answer in it reaches its call', async () => {
    const server = stdioServer({ BATCH_ANSWERS: '1' });
    const connection = await newClient().connect(server.target, { ...STDIO_CONNECT, negotiation: { pin: '2025-03-26' } });
    expect(await connection.callTool('echo', { text: 'batched' })).toEqual({ content: [{ type: 'text', text: 'batched' }] });
    await connection.close();
    expect(methodsOf(server.lines())).toEqual(['initialize', 'notifications/initialized', 'tools/call']);
  });

  test('sendInitializedNotification off: no notifications/initialized', async () => {
    const server = stdioServer();
    await (await newClient({ rules: withRuleBroken('sendInitializedNotification') }).connect(server.target, STDIO_CONNECT)).close();
    expect(methodsOf(server.lines())).toEqual(['initialize']);
  });
});

describe('2026-07-28 over stdio', () => {
  test('pinned: server/discover first, then requests with the _meta envelope and no initialize', async () => {
    const server = stdioServer({ MODERN: '1' });
    const connection = await newClient().connect(server.target, { ...STDIO_CONNECT, negotiation: { pin: '2026-07-28' } });
    expect(await connection.info()).toEqual({ negotiatedVersion: '2026-07-28', era: 'modern' });
    await connection.listTools();
    await connection.close();
    const lines = server.lines() as { method: string; params: { _meta: Record<string, unknown> } }[];
    expect(methodsOf(lines)).toEqual(['server/discover', 'tools/list']);
    for (const line of lines) expect(line.params._meta['io.modelcontextprotocol/protocolVersion']).toBe('2026-07-28');
  });

  test('auto: a legacy answer (-32601) to the probe falls back to initialize on the same process', async () => {
    const server = stdioServer();
    const connection = await newClient().connect(server.target, { ...STDIO_CONNECT, negotiation: 'auto' });
    expect((await connection.info()).era).toBe('legacy');
    await connection.close();
    expect(methodsOf(server.lines())).toEqual(['server/discover', 'initialize', 'notifications/initialized']);
  });

  test('auto: silence falls back too (after half the connect timeout); the late answer would be ignored', async () => {
    const server = stdioServer({ SILENT_ON: 'server/discover' });
    const connection = await newClient().connect(server.target, { ...STDIO_CONNECT, negotiation: 'auto' });
    expect((await connection.info()).era).toBe('legacy');
    await connection.close();
    expect(methodsOf(server.lines())).toEqual(['server/discover', 'initialize', 'notifications/initialized']);
  });

  test('auto: a server that exits on the probe is launched again for the handshake', async () => {
    const server = stdioServer({ EXIT_ON: 'server/discover' });
    // The probe's silence is counted from the write: time enough for the server to start and read it, even when slow.
    const connection = await newClient().connect(server.target, { ...STDIO_CONNECT, timeoutMs: 4 * BOUND_MS, negotiation: 'auto' });
    expect((await connection.info()).era).toBe('legacy');
    await connection.close();
    // The second process is told the same: it exits on a probe, but gets none.
    expect(methodsOf(server.lines(0))).toEqual(['server/discover']);
    expect(methodsOf(server.lines(1))).toEqual(['initialize', 'notifications/initialized']);
  });

  test('pinned to 2026-07-28, a legacy server is an error that says so', async () => {
    const server = stdioServer();
    const error = await rejection(newClient().connect(server.target, { ...STDIO_CONNECT, negotiation: { pin: '2026-07-28' } }));
    expect(error.message).toMatch(/legacy server/);
  });
});
