// Every personality by name, for `serve --personality` and for scenarios: one line each.
import type { Personality } from '../personality.ts';
import { delete405 } from './delete-405.ts';
import { endpointOtherOrigin } from './endpoint-other-origin.ts';

export interface PersonalityEntry {
  description: string;
  /** A personality with its defaults. */
  create(): Personality;
}

export const PERSONALITIES: Record<string, PersonalityEntry> = {
  'delete-405': { description: 'answers DELETE with 405 Method Not Allowed', create: delete405 },
  'endpoint-other-origin': {
    description: 'HTTP+SSE: the endpoint event names another origin (http://127.0.0.2:9), where nothing listens',
    create: () => endpointOtherOrigin(),
  },
};
