// What the security scenarios share: spec references.
import { specUrl, type Revision } from '../../protocol/revisions.ts';
import type { Level, SpecRef } from '../scenario.ts';

/** A section of the (single-page) transports spec of a legacy revision. */
export function transports(revision: Revision, anchor: string, section: string, level: Level): SpecRef {
  return { url: specUrl(revision, 'basic/transports', anchor), section: `Transports › ${section}`, level };
}
