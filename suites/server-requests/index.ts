import type { Scenario } from '../scenario.ts';
import { pingAnswered } from './ping-answered.ts';

/** The server speaks first (issue 14): requests and notifications the server sends the client. */
export const SERVER_REQUESTS: readonly Scenario[] = [pingAnswered];
