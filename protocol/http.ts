// The HTTP words of the protocol: header names as Node delivers them (lower case), and the `_meta` keys of 2026-07-28.
export const HEADERS = {
  /** A legacy Streamable HTTP session id (2025-03-26 …), or a client-minted affinity key (2026-07-28 routing convention). */
  session: 'mcp-session-id',
  /** The negotiated revision on every request after initialize (2025-06-18 …), and on every 2026-07-28 request. */
  version: 'mcp-protocol-version',
  /** Resuming an SSE stream after the last event seen. */
  lastEventId: 'last-event-id',
  /** 2026-07-28: the request's method, and for tools/call its tool name. */
  method: 'mcp-method',
  name: 'mcp-name',
} as const;

/** 2026-07-28 `_meta` keys every request carries. */
export const META = {
  version: 'io.modelcontextprotocol/protocolVersion',
  capabilities: 'io.modelcontextprotocol/clientCapabilities',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
} as const;
