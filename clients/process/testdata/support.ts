// What the process adapter's tests share: where the programs are, and whether a process group still has a live member.
// Only tests import this module.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { basePolicy } from '../../../config/settings.ts';
import { SCENARIOS } from '../../../suites/index.ts';
import type { Scenario } from '../../../suites/scenario.ts';

export const ROOT = join(import.meta.dirname, '..', '..', '..');
export const NODE_DRIVER = join(ROOT, 'clients', 'drivers', 'node', 'driver.ts');
export const PYTHON_DRIVER = join(ROOT, 'clients', 'drivers', 'python', 'driver.py');
export const MISBEHAVING = join(import.meta.dirname, 'misbehaving.ts');
export const MORTAL = join(import.meta.dirname, 'mortal.ts');
export const CLI = join(ROOT, 'scripts', 'cli.ts');

/**
 * The scenarios every legacy client here must pass (the drivers included): the suites grow, and a later scenario may
 * need a feature a driver lacks, or be one a wrapped client fails by baseline.
 */
export const BASIC_SCENARIO_IDS = ['negotiation/handshake-order', 'negotiation/version-per-revision', 'disposal/delete-issued-session'];
export const BASIC_SCENARIOS: readonly Scenario[] = BASIC_SCENARIO_IDS.map((id) => {
  const found = SCENARIOS.find((scenario) => scenario.id === id);
  if (!found) throw new Error(`scenario ${id} is gone: update BASIC_SCENARIO_IDS`);
  return found;
});

/**
 * Whether python3 (3.8 or later) is here to run the Python driver. The README promises `npm test` on a machine with
 * nothing but Node.js and npm, so the tests that need Python are skipped, by name, where it is missing.
 */
export const NO_PYTHON = spawnSync('python3', ['-c', 'import sys; sys.exit(0 if sys.version_info >= (3, 8) else 1)'], { stdio: 'ignore' }).status !== 0;

/** The program for `--adapter-command` and processAdapter: the harness's own Node (24, which strips types). */
export const NODE = process.execPath;

/** process.kill(-pgid, 0): false once it throws ESRCH, i.e. no process (not even a zombie) is left in the group. */
export function groupExists(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw error;
  }
}

/**
 * The members of a process group that are still running (not zombies), from /proc. A killed grandchild whose
 * parent is gone is reparented to PID 1, and on a machine whose PID 1 does not reap orphans (this one's does not)
 * it stays a zombie: dead, but enough for kill(-pgid, 0) to succeed. So for groups with grandchildren, and for
 * programs whose parent exited, "nothing left running" is checked here.
 */
export function runningMembers(pgid: number): number[] {
  const running: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    // pid (comm) state ppid pgrp ...; comm may hold spaces and parentheses, so parse after the last ')'.
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(pgrp) === pgid && state !== 'Z' && state !== 'X') running.push(Number(entry));
  }
  return running;
}

/**
 * Polls (bounded) until `condition` holds; for state outside this process, which sends no events. The default bound
 * is the policy's bound on one operation (config/settings.ts): what a process is given to do one thing.
 */
export async function eventually(condition: () => boolean, what: string, timeoutMs = basePolicy().ms.operation): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
