// The era of each origin, as the client instance learned it (2026-07-28 basic/versioning.mdx: clients SHOULD cache
// the era per origin and re-probe when the cached assumption fails). Lives as long as the client instance.

export type Era = 'legacy' | 'modern';

export class EraCache {
  private readonly eras = new Map<string, Era>();
  private readonly enabled: boolean;

  /** `enabled: false`: a client that caches nothing (every connect probes). */
  constructor(enabled: boolean) {
    this.enabled = enabled;
  }

  get(url: string): Era | undefined {
    return this.enabled ? this.eras.get(originOf(url)) : undefined;
  }

  remember(url: string, era: Era): void {
    if (this.enabled) this.eras.set(originOf(url), era);
  }

  /** The server contradicted the cached era (or, for a client that forgets on failures, a request failed). */
  forget(url: string): void {
    this.eras.delete(originOf(url));
  }
}

export function originOf(url: string): string {
  return new URL(url).origin;
}
