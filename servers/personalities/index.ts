// Every personality by name, for `serve --personality` and for scenarios: one line each.
import type { Personality } from '../personality.ts';
import { delete405 } from './delete-405.ts';

export interface PersonalityEntry {
  description: string;
  /** A personality with its defaults. */
  create(): Personality;
}

export const PERSONALITIES: Record<string, PersonalityEntry> = {
  'delete-405': { description: 'answers DELETE with 405 Method Not Allowed', create: delete405 },
};
