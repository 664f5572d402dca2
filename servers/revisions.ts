// The protocol revisions in use, and how they group into eras.
export const REVISIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28'] as const;
export type Revision = (typeof REVISIONS)[number];

/** Legacy revisions served over Streamable HTTP with sessions. */
export const STREAMABLE_REVISIONS = ['2025-03-26', '2025-06-18', '2025-11-25'] as const satisfies readonly Revision[];
export type StreamableRevision = (typeof STREAMABLE_REVISIONS)[number];

/** From 2025-06-18 on, every request after `initialize` carries `MCP-Protocol-Version`. */
export function requiresProtocolVersionHeader(revision: Revision): boolean {
  return revision >= '2025-06-18';
}

/** The public URL of a spec page, for scenario metadata: `specUrl('2025-06-18', 'basic/lifecycle', 'initialization')`. */
export function specUrl(revision: Revision, page: string, anchor?: string): string {
  return `https://modelcontextprotocol.io/specification/${revision}/${page}${anchor ? `#${anchor}` : ''}`;
}

/** Revisions with the `initialize` handshake. */
export const LEGACY_REVISIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'] as const satisfies readonly Revision[];
