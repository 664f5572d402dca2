// The processes of a stdio case as the shutdown and stderr scenarios judge them: the real servers the client launched
// (not a wrapper in front of one), how a detail names one, and the moment a script gives the processes the client shut
// down to be gone before the evidence is taken.
import type { StdioProcessState, StdioReferenceServer } from '../../servers/stdio/harness.ts';
import type { Evidence } from '../scenario.ts';

/** The real servers the client launched (a wrapper's child among them, not the wrapper), in the order they reported. */
export function serverProcesses(evidence: Evidence): readonly StdioProcessState[] {
  return (evidence.stdio?.processes ?? []).filter((p) => p.role === 'server');
}

/** A process as a detail names it. */
export function processName(p: StdioProcessState): string {
  return `${p.role === 'wrapper' ? 'the wrapper' : p.parent !== undefined ? 'the wrapper’s server' : 'the server'} (process ${p.index}, pid ${p.pid ?? '?'}, launch ${p.launch})`;
}

/** What the script observes when it calls close(): the shutdown under test is the one close() starts. */
export const CLOSE_CALLED = 'closeCalledAt';

/** Why the shutdown was never exercised (the client failed before the script called close()), or undefined. */
export function closeNotReached(evidence: Evidence): string | undefined {
  return typeof evidence.observed[CLOSE_CALLED] === 'number' ? undefined : `the script never called close(): the client failed before (${evidence.clientError ?? 'no error recorded'})`;
}

/** Milliseconds, rounded, for a detail. */
export const ms = (value: number): string => `${Math.round(value)} ms`;

/**
 * After the client's close() returned: at most `bound` ms for every process it killed to be gone (the kernel tears a
 * killed process down a moment after the signal, and a client may return right after sending SIGKILL). Event-driven:
 * a dead process's channel closes, which changes the record. Never throws.
 */
export async function processesGone(stdio: StdioReferenceServer, bound: number): Promise<void> {
  await stdio.record.waitFor(() => stdio.processes().every((p) => !p.alive), 'the processes the client shut down to be gone', bound).catch(() => {});
}
