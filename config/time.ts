// Time is a policy, not a constant: every bound the suite waits and every hold its servers keep derives from these few
// named bases, scaled together by one factor (MCP_CONFORMANCE_TIME_SCALE, and a larger one for a case run again because
// it was inconclusive), and the start-up base is measured per client (calibration, suites/calibration.ts) so a client
// that takes 2 s to start is judged on its behaviour, not on its start-up. A correct client on a quiet machine reacts
// in a few milliseconds; the bases leave room for a loaded two-core CI runner.

/** The bases, in milliseconds at scale 1. */
export const TIME_BASES = {
  /** How soon a client must react to what it was told: settle a cancelled call, send a cancel, close a stream. */
  react: 500,
  /** A quiet window: nothing may arrive from the client in it (the timed wait is the check itself). */
  quiet: 200,
  /** The bound on one client operation (start, connect, call, close, dispose) from outside. */
  operation: 5_000,
  /** What a client needs to start and connect to a plain server; raised per client by calibration. */
  startup: 1_000,
  /**
   * A line-protocol program's hello after spawn: its runtime and its client's imports. A Python SDK with a large
   * dependency tree (openai-agents) takes 5 s on a quiet 2-core machine and over 20 s beside the matrix and a test run.
   */
  hello: 30_000,
  /** How long a client's connections may take to close after dispose (the FIN crossing loopback). */
  drain: 100,
} as const;
export type TimeBase = keyof typeof TIME_BASES;

/** The bounds one case runs with: plain data, so the evidence carries them and a judge reads the same numbers. */
export interface TimePolicy {
  /** The factor every base was multiplied by. */
  scale: number;
  /** What calibration measured for this client (start + connect + list + close, the slower of two runs), if it ran. */
  calibratedStartupMs?: number;
  /** Each base, scaled (and `startup` raised to fit the calibration), whole milliseconds. */
  ms: Record<TimeBase, number>;
  /**
   * This run may be followed by another with larger bounds (runCase's earlier attempts): a deadline missed may be the
   * machine's doing, so it is "time ran out" (inconclusive, and the case runs again), judged firmly only on the last run.
   */
  provisional?: true;
}

/**
 * How long the runner waits for close() on a connection given a timeout of its own (ConnectOptions.timeoutMs): the
 * session DELETE it sends is given up at that timeout, or, by a client that waits for the answer instead, taken when a
 * server that held it two reaction times past that timeout answers (disposal/close-with-hung-delete); never less than
 * for any operation. A line-protocol program's close deadline follows it (clients/process/adapter.ts).
 */
export function closeBoundMs(time: TimePolicy, clientTimeoutMs: number): number {
  return Math.max(time.ms.operation, clientTimeoutMs + 4 * time.ms.react);
}

/**
 * How long a stdio client is told to wait at each step of its shutdown (ConnectOptions.shutdownGraceMs): after closing
 * the server's stdin, and after SIGTERM. Two reaction times: a server that exits on EOF has done so long before.
 */
export function stdioShutdownGraceMs(time: TimePolicy): number {
  return 2 * time.ms.react;
}

/**
 * The bound on one close(): an operation's, and over stdio two graces more, for a shutdown that waits after closing
 * stdin and after SIGTERM (a client with fixed graces of its own, as the official SDKs' 2 s, fits at scale 1).
 */
export function stdioCloseBoundMs(time: TimePolicy, overStdio: boolean): number {
  return time.ms.operation + (overStdio ? 2 * stdioShutdownGraceMs(time) : 0);
}

/** How much larger than its measured start-up a client's start-up bound is: room for a slower moment under load. */
export const STARTUP_HEADROOM = 2;

/** The policy for a scale, optionally with a client's measured start-up and explicit overrides of single bases. */
export function timePolicy(options: { scale?: number; calibratedStartupMs?: number; overrides?: Partial<Record<TimeBase, number>> } = {}): TimePolicy {
  const scale = options.scale ?? 1;
  if (!(scale > 0) || !Number.isFinite(scale)) throw new RangeError(`a time scale must be a positive number, not ${scale}`);
  const ms = Object.fromEntries(Object.entries(TIME_BASES).map(([base, value]) => [base, Math.round(value * scale)])) as Record<TimeBase, number>;
  if (options.calibratedStartupMs !== undefined) ms.startup = Math.max(ms.startup, Math.round(options.calibratedStartupMs * STARTUP_HEADROOM * scale));
  // A client that needs long to connect needs as long for any operation that connects.
  ms.operation = Math.max(ms.operation, ms.startup + ms.react);
  for (const [base, value] of Object.entries(options.overrides ?? {})) if (value !== undefined) ms[base as TimeBase] = Math.round(value * scale);
  return { scale, ...(options.calibratedStartupMs !== undefined ? { calibratedStartupMs: options.calibratedStartupMs } : {}), ms };
}

/** The same policy with every bound `factor` times larger (a case run again because it was inconclusive). */
export function scaledBy(policy: TimePolicy, factor: number): TimePolicy {
  return { ...policy, scale: policy.scale * factor, ms: Object.fromEntries(Object.entries(policy.ms).map(([base, value]) => [base, Math.round(value * factor)])) as Record<TimeBase, number> };
}

/** The policy of a run that another with larger bounds may follow (provisional), or of the last one (firm). */
export function provisionally(policy: TimePolicy, provisional: boolean): TimePolicy {
  const { provisional: _, ...firm } = policy;
  return provisional ? { ...firm, provisional: true } : firm;
}

/**
 * How much earlier than the suite's clock a client's own timer may fire: Node's timers run on a loop clock kept in
 * whole milliseconds (up to 1 ms early by performance.now()), and other runtimes round too. A client that gives up
 * this close to its timeout gave up at it.
 */
export const CLOCK_SLACK_MS = 5;

/**
 * When the machine was quiet while a case ran, so a client's lateness was its own: at least this share of every CPU's
 * time idle, and this process's event loop never held up longer than this share of the react bound (suites/outcome.ts
 * `watchMachine`). A busy machine (a CPU hog, a loaded runner) leaves no CPU idle; a quiet one running the suite leaves
 * most of it. Kept strict: a quiet machine misread as busy costs a verdict (inconclusive), the other way a false fail.
 */
export const QUIET_MACHINE = { idleShare: 0.4, stallShareOfReact: 0.1 } as const;

/** How many times a case inconclusive for lack of time runs in all, each time with bounds twice as large. */
export const MAX_ATTEMPTS = 3;
export const ATTEMPT_GROWTH = 2;

/**
 * How soon every process the suite started has ended after the harness that started it died, however it died (a
 * SIGKILL too): each learns it at once from the kernel, as the harness's end of what links them closes with it (a
 * stdio server's side channel, a line-protocol program's stdin, a test worker's IPC channel, vitest's watchdog's), and only
 * has to exit; what a loaded machine may take to schedule that is the room of one operation.
 */
export const orphanBoundMs = (time: TimePolicy): number => time.ms.operation;
