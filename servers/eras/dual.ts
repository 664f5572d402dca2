// 2026-07-28 and sessionful 2025-11-25 on one URL, wired as the SDK documents for keeping a sessionful
// deployment next to a strict modern endpoint: the SDK's own `isLegacyRequest` decides each request, legacy
// traffic (initialize, envelope-less POSTs, GET and DELETE) goes to the sessionful 2025-11-25 backend, everything
// else to the modern-only backend, which owns the answers to malformed modern requests.
import { toWebRequest } from '@modelcontextprotocol/node';
import { isLegacyRequest } from '@modelcontextprotocol/server';
import type { EraBackend, EraFactory } from '../era.ts';
import type { HttpContext } from '../http.ts';
import { MODERN_REVISION, modernEra } from './modern.ts';
import { MCP_PATH, streamableHttpEra } from './streamable-http.ts';

export const DUAL_LEGACY_REVISION = '2025-11-25';

export function dualEra(): EraFactory {
  return async (dependencies) => {
    const modern = await modernEra()(dependencies);
    let legacy: EraBackend;
    try {
      legacy = await streamableHttpEra(DUAL_LEGACY_REVISION)(dependencies);
    } catch (error) {
      await modern.close();
      throw error;
    }

    const backend: EraBackend = {
      entryPath: MCP_PATH,
      revisions: [MODERN_REVISION, DUAL_LEGACY_REVISION],
      async handle(context: HttpContext) {
        const { req, body } = context;
        // The body is already parsed: the predicate classifies from it and reads nothing.
        const toLegacy = await isLegacyRequest(await toWebRequest(req, body), body);
        await (toLegacy ? legacy : modern).handle(context);
      },
      // Sessions exist only on the legacy side.
      issuedSessions: () => legacy.issuedSessions(),
      liveSessions: () => legacy.liveSessions(),
      expireSession: (sessionId) => legacy.expireSession(sessionId),
      async close() {
        await Promise.all([modern.close(), legacy.close()]);
      },
    };
    return backend;
  };
}
