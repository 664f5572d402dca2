// Starts the plain reference server for a revision (no personality).
import type { ReferenceServer } from './reference-server.ts';
import type { Revision } from './revisions.ts';
import { startReferenceServer } from './server.ts';

/** Revisions whose suites run today: those with a reference server. */
export const SERVED_REVISIONS: readonly Revision[] = ['2025-06-18'];

export function startServer(revision: Revision): Promise<ReferenceServer> {
  return startReferenceServer({ era: revision });
}
