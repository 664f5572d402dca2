// An era backend: the innermost handler of a reference server, serving one protocol era.
import type { FixtureState } from './fixtures.ts';
import type { HttpContext } from './http.ts';
import type { Revision } from './revisions.ts';
import type { WireRecord } from './wire-record.ts';

/**
 * The eras a reference server can serve: each revision, plus `dual` (2026-07-28 and sessionful
 * 2025-11-25 on one URL) and `stateless` (legacy Streamable HTTP that issues no session id).
 */
export const ERAS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28', 'dual', 'stateless'] as const;
export type Era = (typeof ERAS)[number];

export interface EraDependencies {
  fixtures: FixtureState;
  record: WireRecord;
}

export interface EraBackend {
  /** The path a client is given (`/mcp`, or `/sse` for HTTP+SSE). */
  readonly entryPath: string;
  /** The revisions this backend answers. */
  readonly revisions: readonly Revision[];
  handle(context: HttpContext): Promise<void>;
  /** Session ids issued, in order, including ended ones (empty where the era has no sessions). */
  issuedSessions(): string[];
  liveSessions(): string[];
  /** Ends one session (or every live one); later requests with its id get the era's unknown-session answer. */
  expireSession(sessionId?: string): Promise<void>;
  close(): Promise<void>;
}

export type EraFactory = (dependencies: EraDependencies) => Promise<EraBackend>;
