// A raw stdio client for the stdio server's own tests: it launches the target as a client would (its own child, real
// pipes), writes exactly the bytes a test gives it, and reads stdout line by line. No SDK: the tests must control the
// framing, and see every byte the server wrote.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { basePolicy } from '../../config/settings.ts';
import type { StdioTarget } from './protocol.ts';

/**
 * How long any wait of these tests may take before it fails naming what it waited for: a safety net, never what a test
 * measures, and large (a launch is a Node process loading the SDK, slow beside a CPU hog).
 */
export const WAIT_MS = 4 * basePolicy().ms.operation;

export type RawMessage = { jsonrpc?: string; id?: string | number | null; method?: string; params?: Record<string, unknown>; result?: Record<string, unknown>; error?: { code: number; message: string; data?: unknown } };

export class RawStdioClient {
  readonly child: ChildProcess;
  /** Every stdout line, parsed (a line that is not JSON is kept as its text). */
  readonly lines: unknown[] = [];
  readonly stdoutChunks: Buffer[] = [];
  readonly stderrChunks: Buffer[] = [];
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private pending = Buffer.alloc(0);
  private readonly waiters: (() => void)[] = [];
  private nextId = 1;

  constructor(target: StdioTarget, options: { stderr?: 'pipe' | 'ignore' | 'hold' } = {}) {
    const stderr = options.stderr ?? 'pipe';
    this.child = spawn(target.command, target.args, {
      env: { ...process.env, ...target.env },
      ...(target.cwd !== undefined && { cwd: target.cwd }),
      stdio: ['pipe', 'pipe', stderr === 'ignore' ? 'ignore' : 'pipe'],
    });
    this.exited = once(this.child, 'exit').then(([code, signal]) => ({ code: code as number | null, signal: signal as NodeJS.Signals | null }));
    this.child.stdin!.on('error', () => {});
    this.child.stdout!.on('data', (chunk: Buffer) => {
      this.stdoutChunks.push(chunk);
      this.pending = Buffer.concat([this.pending, chunk]);
      let newline: number;
      while ((newline = this.pending.indexOf(0x0a)) !== -1) {
        const text = this.pending.subarray(0, newline).toString('utf8');
        this.pending = this.pending.subarray(newline + 1);
        try {
          this.lines.push(JSON.parse(text));
        } catch {
          this.lines.push(text);
        }
      }
      this.wake();
    });
    // 'hold': stderr is a pipe nobody reads until drainStderr() (a client that forgot to).
    if (stderr === 'pipe') this.child.stderr!.on('data', (chunk: Buffer) => this.stderrChunks.push(chunk));
  }

  /** Starts reading a held stderr. */
  drainStderr(): void {
    this.child.stderr!.on('data', (chunk: Buffer) => this.stderrChunks.push(chunk));
  }

  write(data: string | Buffer): void {
    this.child.stdin!.write(data);
  }

  /** Writes one message as one line. */
  send(message: RawMessage): void {
    this.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
  }

  /** Sends a request and resolves with its answer. */
  async request(method: string, params: Record<string, unknown> = {}, timeoutMs?: number): Promise<RawMessage> {
    const id = this.nextId++;
    this.send({ id, method, params });
    return this.answerTo(id, timeoutMs);
  }

  answerTo(id: string | number, timeoutMs?: number): Promise<RawMessage> {
    return this.waitForLine((line) => isObject(line) && line['id'] === id && !('method' in line), `the answer to ${id}`, timeoutMs) as Promise<RawMessage>;
  }

  /** The legacy handshake: initialize (offering `revision`) and notifications/initialized. */
  async initialize(revision: string): Promise<RawMessage> {
    const answer = await this.request('initialize', { protocolVersion: revision, capabilities: {}, clientInfo: { name: 'raw-test-client', version: '1' } });
    this.send({ method: 'notifications/initialized' });
    return answer;
  }

  /** The first stdout line (already read or to come) that `predicate` holds for. */
  waitForLine(predicate: (line: unknown) => boolean, what: string, timeoutMs = WAIT_MS): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const found = this.lines.find(predicate);
        if (found === undefined) return false;
        clearTimeout(timer);
        resolve(found);
        return true;
      };
      const timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}; stdout so far: ${JSON.stringify(this.lines)}`)), timeoutMs);
      if (check()) return;
      const waiter = () => {
        if (!check()) this.waiters.push(waiter);
      };
      this.waiters.push(waiter);
    });
  }

  /** The stdout lines from index `from` on, once there are at least `count` of them. */
  async linesFrom(from: number, count: number, what: string, timeoutMs = WAIT_MS): Promise<unknown[]> {
    await this.waitForLine(() => this.lines.length >= from + count, what, timeoutMs);
    return this.lines.slice(from);
  }

  closeStdin(): void {
    this.child.stdin!.end();
  }

  kill(signal: NodeJS.Signals): void {
    this.child.kill(signal);
  }

  /** Ends the child for a test's clean-up, whatever state it is in. */
  async dispose(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
    await this.exited;
  }

  stderrText(): string {
    return Buffer.concat(this.stderrChunks).toString('utf8');
  }

  private wake(): void {
    const waiters = this.waiters.splice(0);
    for (const waiter of waiters) waiter();
  }
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
