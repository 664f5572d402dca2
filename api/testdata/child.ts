// A child process of a test, as a user runs it: its exit code and output once it has exited (no clock bounds it; the
// test's own timeout is the safety net, and every client operation in it is bounded by the time policy).
import { spawn } from 'node:child_process';
import { once } from 'node:events';

export async function runChild(args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: process.env });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const [code] = (await once(child, 'close')) as [number];
  return { code, stdout, stderr };
}
