// tools/list answered in pages (server/utilities/pagination): the personality answers every tools/list itself, with
// one tool a page, in one of four ways a server may page legally:
//
// - `plain`: opaque cursors that differ page to page (`c2`, `c3`); the last page has no `nextCursor`.
// - `empty-cursor`: page 1's `nextCursor` is the empty string, a valid cursor (2026-07-28 says so outright; before, the
//   cursor is an opaque token all the same); page 2 is the last.
// - `repeated-cursor`: every page but the last names the same cursor, `more`: the server keeps the position itself (per
//   session, or per server where there are none), and a listing without a cursor starts again at page 1.
// - `per-session`: each session's cursors are its own; a cursor handed out in another session is answered -32602
//   (Invalid params, the page's Error Handling), as a server whose cursors die with their session answers it.
// - `endless`: a broken server whose every page names a next one (`c2`, `c3`, …): a client must end the listing
//   itself, with an error rather than the pages so far presented as the whole list.
//
// Each page served is noted `tools-page <n>/<pages>` (`tools-page invalid-cursor` for a refusal). Answers are
// application/json, which Streamable HTTP allows for any request; 2024-11-05 answers on its SSE stream, so it is not
// among the eras.
import { randomUUID } from 'node:crypto';
import type { Era } from '../era.ts';
import { messagesOf } from '../http.ts';
import type { Personality } from '../personality.ts';
import { sessionIdOf } from './shared.ts';

export type PagingMode = 'plain' | 'empty-cursor' | 'repeated-cursor' | 'per-session' | 'endless';

export const PAGE_NOTE = 'tools-page';
export const INVALID_CURSOR_NOTE = `${PAGE_NOTE} invalid-cursor`;

/** The tool each page lists: one a page, so a page the client dropped is a name missing from its list. */
export const pagedToolName = (page: number) => `paged-tool-${page}`;

export const PAGES: Record<PagingMode, number> = { 'plain': 3, 'empty-cursor': 2, 'repeated-cursor': 3, 'per-session': 2, 'endless': Infinity };

const PAGED_ERAS: readonly Era[] = ['2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28', 'dual', 'stateless'];

export function pagedTools(mode: PagingMode): Personality {
  const pages = PAGES[mode];
  /** repeated-cursor: the page the next `more` asks for, per session (`''` where there are none). */
  const position = new Map<string, number>();
  /** per-session: the cursor handed out for page 2, per session. */
  const cursors = new Map<string, string>();

  /** The page a tools/list asks for, or undefined for a cursor this server never handed out (here). */
  function pageFor(session: string, cursor: unknown): number | undefined {
    if (cursor === undefined) {
      position.set(session, 2);
      return 1;
    }
    if (typeof cursor !== 'string') return undefined;
    switch (mode) {
      case 'plain':
      case 'endless':
        return /^c[1-9][0-9]*$/.test(cursor) && Number(cursor.slice(1)) >= 2 && Number(cursor.slice(1)) <= pages ? Number(cursor.slice(1)) : undefined;
      case 'empty-cursor':
        return cursor === '' ? 2 : undefined;
      case 'repeated-cursor': {
        const page = position.get(session);
        if (cursor !== 'more' || page === undefined || page > pages) return undefined;
        position.set(session, page + 1);
        return page;
      }
      case 'per-session':
        return cursors.get(session) === cursor ? 2 : undefined;
    }
  }

  function nextCursor(session: string, page: number): string | undefined {
    if (page >= pages) return undefined;
    switch (mode) {
      case 'plain':
      case 'endless':
        return `c${page + 1}`;
      case 'empty-cursor':
        return '';
      case 'repeated-cursor':
        return 'more';
      case 'per-session': {
        const cursor = cursors.get(session) ?? randomUUID();
        cursors.set(session, cursor);
        return cursor;
      }
    }
  }

  return {
    name: 'paged-tools',
    eras: PAGED_ERAS,
    async middleware({ req, res, exchange, body, record }, next) {
      const [message, ...others] = messagesOf(body);
      if (req.method !== 'POST' || message?.method !== 'tools/list' || message.id === undefined || others.length > 0) return next();
      const session = sessionIdOf(exchange) ?? '';
      const modern = typeof (message.params as { _meta?: Record<string, unknown> } | undefined)?._meta?.['io.modelcontextprotocol/protocolVersion'] === 'string';
      const cursor = (message.params as { cursor?: unknown } | undefined)?.cursor;
      const page = pageFor(session, cursor);
      res.writeHead(200, { 'content-type': 'application/json' });
      if (page === undefined) {
        record.note(exchange, INVALID_CURSOR_NOTE);
        res.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, error: { code: -32602, message: 'Invalid params: unknown cursor', data: { cursor } } }));
        return;
      }
      record.note(exchange, `${PAGE_NOTE} ${page}/${pages}`);
      const after = nextCursor(session, page);
      const result = {
        // 2026-07-28 list results carry resultType, ttlMs and cacheScope (schema ListToolsResult); ttlMs 0: stale at
        // once (server/utilities/caching), so no page is served from a client's cache.
        ...(modern && { resultType: 'complete', ttlMs: 0, cacheScope: 'private' }),
        tools: [{ name: pagedToolName(page), description: `the tool of page ${page}`, inputSchema: { type: 'object' } }],
        ...(after !== undefined && { nextCursor: after }),
      };
      res.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }));
    },
  };
}
