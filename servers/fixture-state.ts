// What a reference server's tools observed (each run, which saw its abort signal fire), and the small pieces the
// fixture tools of fixtures.ts and conformance-fixtures.ts both use. Its own module so neither imports the other.
import { EventEmitter } from 'node:events';
import type { ServerContext } from '@modelcontextprotocol/server';

export interface ToolRun {
  tool: string;
  /** The JSON-RPC id of the request that ran it. */
  requestId: string | number;
  /** Set when the handler's abort signal fired. */
  abortedAt?: number;
  finishedAt?: number;
}

/** What the fixture tools observed, shared by every session of one server. */
export class FixtureState {
  readonly runs: ToolRun[] = [];
  private readonly events = new EventEmitter();
  /**
   * Waits, bounded, until every run the server started is recorded here. In-process (HTTP) they are at once; the stdio
   * harness sets its own: there the runs travel on the side channel, apart from the answers a client reads on stdout.
   */
  catchUp: () => Promise<void> = async () => {};

  /** Records that a tool handler started for a request; emits 'run'. */
  start(tool: string, requestId: string | number): ToolRun {
    const run: ToolRun = { tool, requestId };
    this.runs.push(run);
    this.events.emit('run', run);
    return run;
  }

  /** Records that a run's handler saw its abort signal fire (sets `abortedAt`); emits 'aborted'. */
  markAborted(run: ToolRun): void {
    run.abortedAt = performance.now();
    this.events.emit('aborted', run);
  }

  runsOf(tool: string): number {
    return this.runs.filter((run) => run.tool === tool).length;
  }

  aborted(): ToolRun[] {
    return this.runs.filter((run) => run.abortedAt !== undefined);
  }

  /** Calls `listener` with each run when it starts ('run') or is aborted ('aborted'); returns the unsubscribe function. */
  on(event: 'run' | 'aborted', listener: (run: ToolRun) => void): () => void {
    this.events.on(event, listener);
    return () => this.events.off(event, listener);
  }

  /**
   * Resolves with the first run (already recorded or still to come) for which `predicate` holds; rejects after
   * `timeoutMs` with `what` in the message. Event-driven, not polling: it re-checks whenever a run starts or is aborted.
   */
  waitForRun(predicate: (run: ToolRun) => boolean, what: string, timeoutMs = 5_000): Promise<ToolRun> {
    const found = this.runs.find(predicate);
    if (found) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const onChange = (run: ToolRun) => {
        if (!predicate(run)) return;
        cleanup();
        resolve(run);
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`));
      }, timeoutMs);
      const unsubscribe = [this.on('run', onChange), this.on('aborted', onChange)];
      const cleanup = () => {
        clearTimeout(timer);
        for (const off of unsubscribe) off();
      };
    });
  }
}

/**
 * Closes the SSE stream carrying the current request, after its priming event (the SDK offers this only on
 * 2025-11-25 sessionful transports with an event store). False when the transport cannot.
 */
export function closeOwnStream(ctx: ServerContext): boolean {
  const closeSSE = ctx.http?.closeSSE;
  if (!closeSSE) return false;
  closeSSE();
  return true;
}

/** The answer of a stream-closing tool where there is no stream it may close. */
export function notClosable() {
  return {
    isError: true,
    content: [{ type: 'text' as const, text: 'this transport cannot close the stream (needs 2025-11-25 Streamable HTTP with an event store)' }],
  };
}

/** Waits `ms`; resolves false at once if `signal` aborts first (true when the time ran out). */
export function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(false);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
