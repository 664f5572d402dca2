import type { Scenario } from '../scenario.ts';
import { getStream405, getStreamRequests } from './get-stream.ts';
import { elicitationUrlUndeclared } from './elicitation-mode.ts';
import { HANDLER_SCENARIOS } from './handler-answered.ts';
import { INPUT_REQUIRED_SCENARIOS } from './input-required.ts';
import { notificationsInterleaved } from './notifications-interleaved.ts';
import { pingAnswered } from './ping-answered.ts';
import { requestsAnswered } from './requests-answered.ts';
import { serverCancels } from './server-cancels.ts';

/** The server speaks first (issue 14): requests and notifications the server sends the client (stdio/ping-while-idle is the stdio suite's). */
export const SERVER_REQUESTS: readonly Scenario[] = [pingAnswered, requestsAnswered, ...HANDLER_SCENARIOS, elicitationUrlUndeclared, notificationsInterleaved, serverCancels, ...INPUT_REQUIRED_SCENARIOS, getStreamRequests, getStream405];
