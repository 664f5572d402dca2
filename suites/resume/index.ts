import type { Scenario } from '../scenario.ts';

export const RESUME: readonly Scenario[] = [];
