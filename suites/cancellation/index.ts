import type { Scenario } from '../scenario.ts';

export const CANCELLATION: readonly Scenario[] = [];
