// Starts the reference server for a revision.
import type { ReferenceServer } from './reference-server.ts';
import type { Revision } from './revisions.ts';
import { startStreamableHttpServer } from './streamable-http.ts';

/** Revisions that have a reference server so far. */
export const SERVED_REVISIONS: readonly Revision[] = ['2025-06-18'];

export async function startServer(revision: Revision): Promise<ReferenceServer> {
  switch (revision) {
    case '2025-06-18':
      return startStreamableHttpServer({ revision });
    default:
      throw new Error(`no reference server for revision ${revision} yet`);
  }
}
