// Makes client environments (environments.ts): each in turn, skipped when its tool is missing or it is made already
// from the same inputs, its steps' output kept and shown only when a step fails, timed. Never throws for an
// environment: a failure is its outcome, and the others go on.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { environmentDir, inputsHash, isReady, stampFile, type ClientEnvironment } from './environments.ts';

export interface SetupOutcome {
  name: string;
  state: 'ready' | 'made' | 'skipped' | 'failed';
  /** Why it was skipped or failed (the tool missing, the step that failed and its last output lines). */
  reason?: string;
  ms: number;
}

/** How many trailing output lines of a failed step are shown. */
const SHOWN_LINES = 15;

const hasTool = (tool: string): boolean => spawnSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' }).status === 0;

function runStep(step: { command: string; args: string[]; cwd?: string; env?: Record<string, string> }): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(step.command, step.args, { cwd: step.cwd, env: { ...process.env, ...step.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', (error) => resolve({ code: -1, output: `${output}${error.message}\n` }));
    child.on('close', (code) => resolve({ code, output }));
  });
}

export async function setUp(environment: ClientEnvironment, options: { force?: boolean; log?: (line: string) => void } = {}): Promise<SetupOutcome> {
  const log = options.log ?? (() => {});
  const started = performance.now();
  const ms = () => Math.round(performance.now() - started);
  if (!options.force && isReady(environment)) return { name: environment.name, state: 'ready', ms: ms() };
  if (!hasTool(environment.tool)) return { name: environment.name, state: 'skipped', reason: `${environment.tool} is not on PATH`, ms: ms() };
  const dir = environmentDir(environment);
  // Made from scratch: nothing of an earlier, different build is kept.
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  environment.prepare?.(dir);
  for (const step of environment.steps(dir)) {
    log(`  ${step.command.split('/').at(-1)} ${step.args.join(' ')}`);
    const { code, output } = await runStep(step);
    if (code !== 0) {
      const tail = output.trimEnd().split('\n').slice(-SHOWN_LINES).join('\n    ');
      return { name: environment.name, state: 'failed', reason: `${step.command} ${step.args.join(' ')} exited with ${code}${tail ? `:\n    ${tail}` : ''}`, ms: ms() };
    }
  }
  writeFileSync(stampFile(environment), `${inputsHash(environment)}\n`);
  return { name: environment.name, state: 'made', ms: ms() };
}
