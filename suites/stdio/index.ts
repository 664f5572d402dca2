import type { Scenario } from '../scenario.ts';
import { stdioHandshake } from './handshake.ts';

/** The stdio transport's scenarios (issue 13): the smoke scenario for now. */
export const STDIO: readonly Scenario[] = [stdioHandshake];
