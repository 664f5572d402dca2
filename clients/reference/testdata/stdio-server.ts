// A small stdio MCP server for the reference client's own stdio tests, launched by the client as its server command.
// It writes what it sees to a file of its own in the directory STDIO_TEST_EVENTS_DIR, one JSON line per event, synchronously (so a signal
// handler's line is there before the process goes): its start, every stdin chunk (base64), stdin EOF, each signal, its
// exit, a descendant it started. What it cannot write (a SIGKILL) the test infers from the pid. Only tests use it.
//
// Env: STDIO_TEST_EVENTS_DIR, STDIO_TEST_IGNORE_EOF=1, STDIO_TEST_IGNORE_SIGTERM=1, STDIO_TEST_STDERR_BYTES=<n>
// (written before the initialize answer: a client that does not drain stderr never gets it), STDIO_TEST_DESCENDANT=1
// (starts a sleeping child in its process group that holds none of its pipes), STDIO_TEST_MODERN=1 (answers
// server/discover as a 2026-07-28 server; else -32601, as a legacy one), STDIO_TEST_EXIT_ON=<method> (exits with code 3
// when that request arrives), STDIO_TEST_SILENT_ON=<method> (never answers it), STDIO_TEST_BATCH_ANSWERS=1 (writes every
// answer to a tools/call as a JSON-RPC batch of one: an array).
import { spawn } from 'node:child_process';
import { appendFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';

const env = process.env;
const started = performance.now();
// One file per process, named so the files sort in launch order.
const file = env.STDIO_TEST_EVENTS_DIR ? join(env.STDIO_TEST_EVENTS_DIR, `${Math.round(performance.timeOrigin * 1000)}-${process.pid}.jsonl`) : undefined;
const record = (event: Record<string, unknown>) => {
  if (file) appendFileSync(file, `${JSON.stringify({ ...event, at: performance.now() - started })}\n`);
};
record({ type: 'start', pid: process.pid });

for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
  process.on(signal, () => {
    record({ type: 'signal', signal });
    if (!(signal === 'SIGTERM' && env.STDIO_TEST_IGNORE_SIGTERM === '1')) process.exit(0);
  });
}
process.on('exit', (code) => record({ type: 'exit', code }));

if (env.STDIO_TEST_DESCENDANT === '1') {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 60_000)'], { stdio: 'ignore' });
  record({ type: 'descendant', pid: child.pid });
  child.unref();
}

const LEGACY = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'];
const TOOLS = [
  { name: 'echo', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } },
  { name: 'slow', inputSchema: { type: 'object', properties: { ms: { type: 'number' } } } },
];
const slow = new Map<unknown, NodeJS.Timeout>();
const write = (message: unknown): void => {
  process.stdout.write(`${JSON.stringify(message)}\n`);
};

function answer(message: { id?: unknown; method?: string; params?: Record<string, unknown> }): void {
  const { id, method, params = {} } = message;
  if (method === env.STDIO_TEST_EXIT_ON) process.exit(3);
  if (method === env.STDIO_TEST_SILENT_ON) return;
  if (method === 'notifications/cancelled') {
    const timer = slow.get(params['requestId']);
    clearTimeout(timer);
    slow.delete(params['requestId']);
    return;
  }
  if (id === undefined) return;
  const batched = method === 'tools/call' && env.STDIO_TEST_BATCH_ANSWERS === '1';
  const result = (value: unknown) => write(batched ? [{ jsonrpc: '2.0', id, result: value }] : { jsonrpc: '2.0', id, result: value });
  const error = (code: number, text: string) => write({ jsonrpc: '2.0', id, error: { code, message: text } });
  switch (method) {
    case 'initialize': {
      const offered = String(params['protocolVersion']);
      const stderrBytes = Number(env.STDIO_TEST_STDERR_BYTES ?? 0);
      // writeSync on the pipe blocks while the client does not read (process.stderr.write would buffer in memory).
      const line = Buffer.from(`${'w'.repeat(1023)}\n`);
      for (let written = 0; written < stderrBytes; written += line.length) writeBlocking(2, line);
      return result({ protocolVersion: LEGACY.includes(offered) ? offered : '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'stdio-test-server', version: '0' } });
    }
    case 'server/discover':
      if (env.STDIO_TEST_MODERN === '1') return result({ supportedVersions: ['2026-07-28'], capabilities: { tools: {} }, resultType: 'complete', _meta: { serverInfo: { name: 'stdio-test-server', version: '0' } } });
      return error(-32601, 'Method not found');
    case 'ping':
      return result({});
    case 'tools/list':
      return result({ tools: TOOLS });
    case 'tools/call': {
      const args = (params['arguments'] ?? {}) as Record<string, unknown>;
      if (params['name'] === 'echo') return result({ content: [{ type: 'text', text: String(args['text'] ?? '') }] });
      if (params['name'] === 'slow') {
        slow.set(id, setTimeout(() => (slow.delete(id), result({ content: [{ type: 'text', text: 'done' }] })), Number(args['ms'] ?? 0)));
        return;
      }
      return error(-32602, `no tool ${String(params['name'])}`);
    }
    default:
      return error(-32601, 'Method not found');
  }
}

/** writeSync, waiting out EAGAIN (a non-blocking descriptor) as a blocking one would. */
function writeBlocking(fd: number, bytes: Buffer): void {
  for (let offset = 0; offset < bytes.length; ) {
    try {
      offset += writeSync(fd, bytes, offset);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
    }
  }
}

let pending = '';
process.stdin.on('data', (chunk: Buffer) => {
  record({ type: 'stdin', bytes: chunk.toString('base64') });
  pending += chunk.toString('utf8');
  for (let end = pending.indexOf('\n'); end !== -1; end = pending.indexOf('\n')) {
    const line = pending.slice(0, end);
    pending = pending.slice(end + 1);
    if (line.trim() === '') continue;
    try {
      answer(JSON.parse(line));
    } catch {
      record({ type: 'unparsable', line });
    }
  }
});
process.stdin.on('end', () => {
  record({ type: 'eof' });
  if (env.STDIO_TEST_IGNORE_EOF === '1') setInterval(() => {}, 60_000);
  else process.exit(0);
});
