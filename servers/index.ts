// Starts the plain reference server for a revision (no personality).
import type { ReferenceServer } from './reference-server.ts';
import type { Revision } from './revisions.ts';
import { startReferenceServer } from './server.ts';

export function startServer(revision: Revision): Promise<ReferenceServer> {
  return startReferenceServer({ era: revision });
}
