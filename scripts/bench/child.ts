// Child processes for the bench sections that time whole programs (the official harness, vitest, the matrix):
// each in its own process group, bounded, its output kept for the error message, and the whole group killed on a
// timeout or when the bench is interrupted, so nothing it started (servers, workers, clients) outlives it.
import { spawn } from 'node:child_process';
import { dirname } from 'node:path';
import { stripVTControlCharacters } from 'node:util';

export const ROOT = dirname(dirname(import.meta.dirname));

export interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** stdout and stderr as they came, colours stripped (a child of vitest inherits FORCE_COLOR). */
  output: string;
  /** Wall time from spawn to the close of its output. */
  ms: number;
  /** Epoch times (ms, as `now()`) of the spawn and of the arrival of each piece of output, to time the program's phases by what it prints. */
  startedAt: number;
  chunks: { at: number; text: string }[];
}

/** The wall clock in epoch milliseconds at sub-millisecond resolution, comparable across processes on one machine. */
export const now = () => performance.timeOrigin + performance.now();

const KILL_GRACE_MS = 2_000;
const running = new Set<number>();

function killGroup(pid: number, signal: NodeJS.Signals) {
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

/** Ends every process group still running (the bench was interrupted). */
export function killRunning(): void {
  for (const pid of running) killGroup(pid, 'SIGKILL');
}

/**
 * The environment for a child: this one without vitest's worker variables (a child vitest must not think it is a
 * worker) and with this Node first on PATH (the system node is older than what the repository runs on).
 */
export function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('VITEST')));
  return { ...env, PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`, ...extra };
}

/** Runs a program to its end; rejects (after killing its group) when it outlives `timeoutMs`. */
export function runTimed(command: string, args: readonly string[], options: { timeoutMs: number; env?: NodeJS.ProcessEnv; cwd?: string }): Promise<Finished> {
  const startedAt = now();
  const child = spawn(command, args, { cwd: options.cwd ?? ROOT, env: options.env ?? childEnv(), detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const chunks: Finished['chunks'] = [];
  const collect = (chunk: Buffer) => {
    const text = chunk.toString('utf8');
    chunks.push({ at: now(), text });
    output += text;
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const pid = child.pid;
  if (pid !== undefined) running.add(pid);
  let timedOut = false;
  let escalation: NodeJS.Timeout | undefined;
  const timer = setTimeout(() => {
    timedOut = true;
    killGroup(pid!, 'SIGTERM');
    escalation = setTimeout(() => killGroup(pid!, 'SIGKILL'), KILL_GRACE_MS);
  }, options.timeoutMs);
  const what = [command, ...args].join(' ');
  return new Promise((resolve, reject) => {
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(new Error(`${what}: ${error.message}`));
    });
    child.on('close', (code, signal) => {
      const ms = now() - startedAt;
      clearTimeout(timer);
      clearTimeout(escalation);
      if (pid !== undefined) running.delete(pid);
      if (timedOut) reject(new Error(`${what} did not finish within ${options.timeoutMs} ms; last output:\n${output.slice(-2_000)}`));
      else resolve({ code, signal, output: stripVTControlCharacters(output), ms, startedAt, chunks });
    });
  });
}

/** The last lines of a program's output, for an error message. */
export const tail = (output: string, lines = 30) => output.trimEnd().split('\n').slice(-lines).join('\n');
