import type { Scenario } from '../scenario.ts';
import { endpointOrigin } from './endpoint-origin.ts';
import { noSessionLeak } from './no-session-leak.ts';

export const SECURITY: readonly Scenario[] = [endpointOrigin, noSessionLeak];
