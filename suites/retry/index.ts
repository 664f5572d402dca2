import type { Scenario } from '../scenario.ts';

export const RETRY: readonly Scenario[] = [];
