// An era backend: the innermost handler of a reference server, serving one protocol era.
import type { FixtureState } from './fixtures.ts';
import type { HttpContext } from './http.ts';
import type { Revision } from '../protocol/revisions.ts';
import type { WireRecord } from './wire-record.ts';

/**
 * The eras a reference server can serve: each revision, plus `dual` (2026-07-28 and sessionful
 * 2025-11-25 on one URL) and `stateless` (legacy Streamable HTTP that issues no session id).
 */
export const ERAS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28', 'dual', 'stateless'] as const;
export type Era = (typeof ERAS)[number];

/** One line per era, for `serve --help`. */
export const ERA_DESCRIPTIONS: Record<Era, string> = {
  '2024-11-05': 'HTTP+SSE: GET /sse stream with an endpoint event, POST /messages',
  '2025-03-26': 'Streamable HTTP with sessions, pinned to 2025-03-26',
  '2025-06-18': 'Streamable HTTP with sessions, pinned to 2025-06-18 (MCP-Protocol-Version header)',
  '2025-11-25': 'Streamable HTTP with sessions, pinned to 2025-11-25: event store, priming event, retry, resumable streams',
  '2026-07-28': 'modern only: server/discover, _meta envelope, header validation, no sessions, 405 on GET and DELETE',
  dual: '2026-07-28 and sessionful 2025-11-25 on one URL',
  stateless: 'legacy Streamable HTTP (2025-03-26 … 2025-11-25, the revision the client asks for) that issues no session id',
};

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
  /**
   * Sessions (or requests, where there are none) from now on are served by a server that advertises and serves tools
   * only (fixtures.ts `toolsOnly`; personality tools-only). Absent where the era offers no such server.
   */
  serveToolsOnly?(): void;
  close(): Promise<void>;
}

export type EraFactory = (dependencies: EraDependencies) => Promise<EraBackend>;
