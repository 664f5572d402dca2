// Bounded waiting: every wait the client does can be cut short, and no timer outlives its purpose.

/** Rejects with the first aborted signal's reason. */
function abortedReason(signals: readonly AbortSignal[]): unknown {
  return signals.find((signal) => signal.aborted)?.reason;
}

/**
 * Waits `ms` (the one sleep the spec demands: an SSE `retry` interval before reconnecting). Rejects with the
 * reason of the first signal that aborts; the timer is cleared either way.
 */
export function delay(ms: number, signals: readonly AbortSignal[]): Promise<void> {
  if (signals.some((signal) => signal.aborted)) return Promise.reject(abortedReason(signals));
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      cleanup();
      reject(abortedReason(signals));
    };
    const timer = setTimeout(() => {
      cleanup();
      resolve();
    }, ms);
    const cleanup = () => {
      clearTimeout(timer);
      for (const signal of signals) signal.removeEventListener('abort', onAbort);
    };
    for (const signal of signals) signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** `promise`, or the reason of the first signal that aborts before it settles. */
export function raceSignals<T>(promise: Promise<T>, signals: readonly AbortSignal[]): Promise<T> {
  if (signals.some((signal) => signal.aborted)) {
    void promise.catch(() => {});
    return Promise.reject(abortedReason(signals));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      cleanup();
      void promise.catch(() => {});
      reject(abortedReason(signals));
    };
    const cleanup = () => {
      for (const signal of signals) signal.removeEventListener('abort', onAbort);
    };
    for (const signal of signals) signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        cleanup();
        resolve(value);
      },
      (error: unknown) => {
        cleanup();
        reject(error);
      },
    );
  });
}

/** Resolves never; rejects when a signal aborts. */
export function untilAborted(signals: readonly AbortSignal[]): Promise<never> {
  return raceSignals(new Promise<never>(() => {}), signals);
}

/** A controller aborted with `reason()` after `ms` unless cleared first; `restart()` starts the clock again. */
export class Deadline {
  readonly controller = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  private readonly ms: number;
  private readonly reason: () => unknown;

  constructor(ms: number, reason: () => unknown) {
    this.ms = ms;
    this.reason = reason;
    this.start();
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  restart(): void {
    if (this.controller.signal.aborted) return;
    this.clear();
    this.start();
  }

  clear(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private start(): void {
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.controller.abort(this.reason());
    }, this.ms);
  }
}

/** A signal aborted when any of `signals` aborts (with its reason); `dispose()` detaches the listeners. */
export function linkSignals(signals: readonly AbortSignal[]): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const already = signals.find((signal) => signal.aborted);
  if (already) {
    controller.abort(already.reason);
    return { signal: controller.signal, dispose: () => {} };
  }
  const listeners = signals.map((signal) => {
    const onAbort = () => controller.abort(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    return () => signal.removeEventListener('abort', onAbort);
  });
  return {
    signal: controller.signal,
    dispose: () => {
      for (const off of listeners) off();
    },
  };
}
