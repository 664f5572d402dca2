// The two line-protocol drivers on their own terms: over stdio the whole shutdown reaches a stubborn server (stdin
// closed, SIGTERM, SIGKILL, nothing left), cancellation reaches the server as notifications/cancelled,
// they exit when their stdin ends, they answer an unknown op with an error, the Python client reads JSON and SSE
// answers and sends the right headers, and the Node driver keeps a noisy client's output off the protocol stream.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, test } from 'vitest';
import { startReferenceServer } from '../../servers/server.ts';
import { explain } from '../../suites/evidence.ts';
import { runScenario } from '../../suites/runner.ts';
import { defineScenario } from '../../suites/scenario.ts';
import { stdioHandshake } from '../../suites/stdio/handshake.ts';
import { basePolicy } from '../../config/settings.ts';
import { processAdapter, programOperationMs, type ProcessAdapter } from '../process/adapter.ts';
import { BASIC_SCENARIOS, groupExists, NO_PYTHON, NODE, NODE_DRIVER, PYTHON_DRIVER } from '../process/testdata/support.ts';

const DRIVERS = [
  { driver: 'node', command: NODE, args: [NODE_DRIVER], skip: false },
  { driver: 'python', command: 'python3', args: [PYTHON_DRIVER], skip: NO_PYTHON },
];

/** Every bound here from the time policy (config/settings.ts): the drivers get the deadlines a run gives them. */
const time = basePolicy();

const adapters: ProcessAdapter[] = [];
async function start(command: string, args: string[]): Promise<ProcessAdapter> {
  const adapter = await processAdapter({ command, args });
  adapters.push(adapter);
  return adapter;
}
afterEach(async () => {
  await Promise.all(adapters.splice(0).map((adapter) => adapter.shutdown()));
});

/** The driver as a bare child process: its stdout lines one by one, each bounded by the hello's bound (the first one is the hello). */
function raw(command: string, args: string[]) {
  const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'], detached: true });
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const next = async (): Promise<Record<string, unknown>> => {
    const read = await Promise.race([lines.next(), new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no line within ${time.ms.hello} ms`)), time.ms.hello).unref())]);
    return JSON.parse(read.value as string);
  };
  const send = (message: unknown) => child.stdin!.write(`${JSON.stringify(message)}\n`);
  const kill = () => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // gone
    }
  };
  return { child, next, send, kill };
}

// The Node driver wraps the reference client here: its graces are the ones the harness gives (shutdownGraceMs). The
// SDK's own are 2 s + 2 s, which with a server ignoring EOF and SIGTERM is the whole of a program's 4 s deadline on close.
const STDIO_DRIVERS = DRIVERS.map((d) => (d.driver === 'node' ? { ...d, args: [...d.args, '--adapter', 'reference'] } : d));

describe.each(STDIO_DRIVERS)('the $driver driver over stdio', ({ command, args, skip }) => {
  // A server that ignores stdin EOF and SIGTERM: the driver's client must go through the whole shutdown, and the
  // server must be gone when close() returns.
  const stubborn = defineScenario({
    ...stdioHandshake,
    id: 'stdio/test-stubborn-server',
    setup: () => ({ stdio: { personalities: ['ignores-stdin-eof', 'ignores-sigterm'] }, state: undefined }),
  });

  test.skipIf(skip)('close() closes the server’s stdin, then SIGTERM, then SIGKILL: no process of it is left', async () => {
    const adapter = await start(command, args);
    expect(adapter.transports).toEqual(['http', 'stdio']);
    const result = await runScenario(stubborn, adapter, '2025-11-25');
    expect(result.verdict, explain(result)).toBe('pass');
    const server = result.evidence!.stdio!.processes.find((p) => p.role === 'server')!;
    expect(server.stdinEofAt).toBeDefined();
    expect(server.signals.map((s) => s.signal)).toEqual(['SIGTERM']);
    expect(server.signals[0]!.at).toBeGreaterThanOrEqual(server.stdinEofAt!);
    expect(server.exit).toMatchObject({ inferred: true, signal: 'SIGKILL' });
    expect(result.evidence!.stdio!.survivors).toEqual([]);
  });
});

describe.each(DRIVERS)('the $driver driver', ({ command, args, skip }) => {
  test.skipIf(skip)('a cancel reaches the server as notifications/cancelled for the call, whose handler is aborted', async () => {
    const adapter = await start(command, args);
    expect(adapter.features).toContain('cancellation');
    const server = await startReferenceServer({ era: '2025-11-25' });
    try {
      const client = await adapter.start('cancel');
      const connection = await client.connect(server.url, { timeoutMs: time.ms.operation });
      const abort = new AbortController();
      const call = connection.callTool('slow', { ms: 6 * time.ms.operation }, { signal: abort.signal });
      const run = await server.fixtures.waitForRun((r) => r.tool === 'slow', 'the slow call to start');
      const begun = performance.now();
      abort.abort();
      const error = await call.then(
        () => undefined,
        (e: Error) => e,
      );
      expect(error, 'the cancelled call rejects').toBeInstanceOf(Error);
      expect(error!.constructor.name).not.toBe('ClientProcessError');
      // Settled on the cancel: sooner than the deadline that would have ended it otherwise.
      expect(performance.now() - begun).toBeLessThan(programOperationMs(time));
      await server.fixtures.waitForRun((r) => r === run && r.abortedAt !== undefined, 'the slow handler to be aborted');
      const cancelled = server.record.notifications('notifications/cancelled').map(({ message }) => message.params?.requestId);
      expect(cancelled).toEqual([run.requestId]);
      // The connection is still usable after a cancel.
      expect((await connection.callTool('echo', { text: 'still here' })).content).toEqual([{ type: 'text', text: 'still here' }]);
      await connection.close();
      await client.dispose();
    } finally {
      await server.close();
    }
  });

  test.skipIf(skip)('exits when its stdin ends, and answers an unknown op with an error', async () => {
    const driver = raw(command, args);
    try {
      expect(await driver.next()).toMatchObject({ protocol: 1 });
      driver.send({ id: 1, case: 'x', op: 'teleport' });
      expect(await driver.next()).toMatchObject({ id: 1, error: { code: 'unknown-op' } });
      driver.send({ id: 2, case: 'x', op: 'dispose' });
      expect(await driver.next()).toMatchObject({ id: 2, error: { code: 'unknown-case' } });
      const exited = once(driver.child, 'exit');
      driver.child.stdin!.end();
      const [code] = (await Promise.race([exited, new Promise((_, reject) => setTimeout(() => reject(new Error(`no exit within ${time.ms.operation} ms`)), time.ms.operation).unref())])) as [number];
      expect(code).toBe(0);
      expect(groupExists(driver.child.pid!)).toBe(false);
    } finally {
      driver.kill();
    }
  });
});

describe.skipIf(NO_PYTHON)('the python driver', () => {
  /** A minimal MCP endpoint answering JSON (and SSE for tools/call), recording what it received. */
  async function fakeServer(answerVersion: string) {
    const received: { method: string; headers: IncomingHttpHeaders; body: { method?: string; id?: number } | undefined }[] = [];
    const server = createServer((req, res) => {
      let text = '';
      req.on('data', (chunk) => (text += chunk));
      req.on('end', () => {
        const body = text ? JSON.parse(text) : undefined;
        received.push({ method: req.method!, headers: req.headers, body });
        if (req.method === 'DELETE') return void res.writeHead(200).end();
        if (body.id === undefined) return void res.writeHead(202).end();
        const answer = (result: unknown) => ({ jsonrpc: '2.0', id: body.id, result });
        if (body.method === 'initialize') {
          res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'session-1' });
          return void res.end(JSON.stringify(answer({ protocolVersion: answerVersion, capabilities: {}, serverInfo: { name: 'fake', version: '0' } })));
        }
        if (body.method === 'tools/list') {
          res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
          return void res.end(JSON.stringify(answer({ tools: [{ name: 'echo' }, { name: 'other' }] })));
        }
        // tools/call: an SSE stream with a comment, a priming event, a notification, an event of another type,
        // and the answer split over two data lines, with CRLF line ends in part.
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(': a comment\n\nid: 1\ndata:\n\n');
        res.write(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: {} })}\n\n`);
        res.write(`event: other\ndata: ${JSON.stringify(answer({ content: [{ type: 'text', text: 'wrong event' }] }))}\n\n`);
        const [head, tail] = [`{"jsonrpc":"2.0",`, `"id":${body.id},"result":{"content":[{"type":"text","text":"from sse"}]}}`];
        res.end(`data: ${head}\r\ndata: ${tail}\r\n\r\n`);
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
    return { url, received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
  }

  test('reads JSON and SSE answers, sends the session id and MCP-Protocol-Version, and DELETEs on close', async () => {
    const adapter = await start('python3', [PYTHON_DRIVER]);
    const server = await fakeServer('2025-06-18');
    try {
      const client = await adapter.start('json');
      const connection = await client.connect(server.url, { timeoutMs: time.ms.operation, negotiation: 'legacy' });
      expect(await connection.info()).toEqual({
        negotiatedVersion: '2025-06-18',
        era: 'legacy',
        sessionId: 'session-1',
        resumeState: { protocolVersion: '2025-06-18', sessionId: 'session-1' },
      });
      expect(await connection.listTools()).toEqual([{ name: 'echo' }, { name: 'other' }]);
      expect(await connection.callTool('echo', { text: 'x' })).toEqual({ content: [{ type: 'text', text: 'from sse' }] });
      await connection.close();
      await client.dispose();
      expect(server.received.map((r) => `${r.method} ${r.body?.method ?? ''}`.trim())).toEqual([
        'POST initialize',
        'POST notifications/initialized',
        'POST tools/list',
        'POST tools/call',
        'DELETE',
      ]);
      const [initialize, ...later] = server.received;
      expect(initialize!.headers['mcp-session-id']).toBeUndefined();
      expect(initialize!.headers.accept).toBe('application/json, text/event-stream');
      expect(initialize!.body).toMatchObject({ params: { protocolVersion: '2025-11-25' } });
      for (const request of later) expect([request.headers['mcp-session-id'], request.headers['mcp-protocol-version']]).toEqual(['session-1', '2025-06-18']);
    } finally {
      await server.close();
    }
  });

  test('refuses a revision it does not speak, and sends no MCP-Protocol-Version to a 2025-03-26 server', async () => {
    const adapter = await start('python3', [PYTHON_DRIVER]);
    const old = await fakeServer('2025-03-26');
    const unknown = await fakeServer('1999-01-01');
    try {
      const client = await adapter.start('versions');
      const connection = await client.connect(old.url, { timeoutMs: time.ms.operation });
      await connection.close();
      expect(old.received.map((r) => r.headers['mcp-protocol-version'])).toEqual([undefined, undefined, undefined]);
      const refused = await client.connect(unknown.url, { timeoutMs: time.ms.operation }).catch((error: Error) => error);
      expect(refused).toBeInstanceOf(Error);
      expect(`${(refused as Error).constructor.name}: ${(refused as Error).message}`).toBe("ClientError: server answered unsupported protocol version '1999-01-01'");
      await client.dispose();
    } finally {
      await Promise.all([old.close(), unknown.close()]);
    }
  });
});

describe('the node driver', () => {
  test('wraps an adapter module; what the client prints goes to stderr, not into the protocol', async () => {
    const adapter = await start(NODE, [NODE_DRIVER, '--adapter', join(import.meta.dirname, 'node', 'testdata', 'noisy-adapter.ts'), '--name', 'noisy']);
    expect(adapter.name).toBe('noisy');
    const result = await runScenario(BASIC_SCENARIOS[0]!, adapter, '2025-06-18');
    expect(result.verdict).toBe('pass');
    expect(adapter.failure).toBeUndefined();
  });

  test('refuses an adapter it cannot load, before its hello', async () => {
    await expect(processAdapter({ command: NODE, args: [NODE_DRIVER, '--adapter', 'nope'] })).rejects.toThrow(
      `exited with code 2 before its hello; last stderr lines: node driver: no built-in adapter named "nope"; see \`mcp-client-conformance adapters\``,
    );
  });
});

describe.skipIf(NO_PYTHON)('the Python runtime (runtime.py, shared by the SDK glues)', () => {
  const STUCK = join(import.meta.dirname, 'python', 'testdata', 'stuck_glue.py');

  test('an operation its client never settles is answered "hung" before the deadline: left unsettled, and the program serves on', async () => {
    const lines: string[] = [];
    const adapter = await processAdapter({ command: 'python3', args: [STUCK], operationTimeoutMs: time.ms.react, trace: (direction, line) => direction === 'in' && lines.push(line) });
    adapters.push(adapter);
    const client = await adapter.start('stuck');
    const connection = await client.connect('http://127.0.0.1:9/mcp', { timeoutMs: time.ms.react });
    const stuck = connection.callTool('never', {});
    // The program's "hung" comes before the info asked after it: the call is left unsettled, the program alive.
    await adapter.start('beside');
    await expect.poll(() => lines.some((line) => line.includes('"code":"hung"')), { timeout: time.ms.operation }).toBe(true);
    expect(await Promise.race([stuck.then(() => 'settled', () => 'settled'), connection.info().then(() => 'served')])).toBe('served');
    expect(await connection.callTool('echo', { text: 'still here' })).toEqual({ content: [{ type: 'text', text: 'still here' }] });
    expect(adapter.failure).toBeUndefined();
    expect(adapter.restarts).toBe(0);
  });

  test('a glue and its library may print (print(), file descriptor 1, a child process): the runtime keeps the real stdout for the protocol, so nothing else reaches it', async () => {
    const lines: string[] = [];
    const adapter = await processAdapter({ command: 'python3', args: [join(import.meta.dirname, 'python', 'testdata', 'printing_glue.py')], trace: (direction, line) => direction === 'in' && lines.push(line) });
    adapters.push(adapter);
    const client = await adapter.start('printing');
    const connection = await client.connect('http://127.0.0.1:9/mcp', { timeoutMs: time.ms.react });
    expect(await connection.info()).toEqual({ era: 'legacy' });
    expect(await connection.listTools()).toEqual([{ name: 'echo' }]);
    expect(await connection.callTool('echo', { text: 'through it all' })).toEqual({ content: [{ type: 'text', text: 'through it all' }] });
    await connection.close();
    expect(adapter.failure).toBeUndefined();
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.filter((line) => line.includes('noise:'))).toEqual([]);
    for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow();
  });

  test('a cancelled operation is answered "aborted"', async () => {
    const adapter = await start('python3', [STUCK]);
    const client = await adapter.start('cancel');
    const connection = await client.connect('http://127.0.0.1:9/mcp', { timeoutMs: time.ms.react });
    const controller = new AbortController();
    const call = connection.callTool('never', {}, { signal: controller.signal });
    controller.abort();
    const error = await call.catch((rejection: Error & { code?: unknown }) => rejection);
    expect([error.constructor.name, (error as { code?: unknown }).code, (error as Error).message]).toEqual(['CancelledError', 'aborted', 'the request was cancelled']);
  });
});
