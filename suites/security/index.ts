import type { Scenario } from '../scenario.ts';

export const SECURITY: readonly Scenario[] = [];
