// The protocol revisions in use, how they group into eras, and what each demands that code branches on.
// The ground floor: every wing (servers, clients, suites, scripts) speaks these words; this imports nothing.
export const REVISIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28'] as const;
export type Revision = (typeof REVISIONS)[number];

/** The stateless revision: `server/discover`, the `_meta` envelope on every request, no sessions. */
export const MODERN_REVISION = '2026-07-28' as const satisfies Revision;

/** Revisions with the `initialize` handshake (L). */
export const LEGACY_REVISIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'] as const satisfies readonly Revision[];

/** Legacy revisions served over Streamable HTTP with sessions (S). */
export const STREAMABLE_REVISIONS = ['2025-03-26', '2025-06-18', '2025-11-25'] as const satisfies readonly Revision[];
export type StreamableRevision = (typeof STREAMABLE_REVISIONS)[number];

/** The named groups scenarios run at: L, S, M and their unions (README's scenario table uses the same letters). */
export const L = LEGACY_REVISIONS;
export const S = STREAMABLE_REVISIONS;
export const M = [MODERN_REVISION] as const satisfies readonly Revision[];
export const L_AND_M = [...LEGACY_REVISIONS, MODERN_REVISION] as const satisfies readonly Revision[];
export const S_AND_M = [...STREAMABLE_REVISIONS, MODERN_REVISION] as const satisfies readonly Revision[];

/** 2026-07-28: no handshake, no session; every request stands alone. */
export const isModern = (revision: Revision): boolean => revision === MODERN_REVISION;
/** 2024-11-05: HTTP+SSE (a GET stream and an endpoint to POST to). */
export const isHttpSse = (revision: Revision): boolean => revision === '2024-11-05';
/** 2025-03-26 … 2025-11-25: Streamable HTTP with sessions. */
export const isStreamable = (revision: Revision): revision is StreamableRevision => (STREAMABLE_REVISIONS as readonly Revision[]).includes(revision);

/** From 2025-06-18 on, every request after `initialize` carries `MCP-Protocol-Version`. */
export function requiresProtocolVersionHeader(revision: Revision): boolean {
  return revision >= '2025-06-18';
}

/** The public URL of a spec page, for citations: `specUrl('2025-06-18', 'basic/lifecycle', 'initialization')`. */
export function specUrl(revision: Revision, page: string, anchor?: string): string {
  // An index page is served at its folder: basic/index.mdx is …/basic.
  return `https://modelcontextprotocol.io/specification/${revision}/${page.replace(/\/index$/, '')}${anchor ? `#${anchor}` : ''}`;
}
