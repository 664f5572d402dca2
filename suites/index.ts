// Every scenario, suite by suite, in catalogue order.
import { AUTHORIZATION } from './authorization/index.ts';
import { CANCELLATION } from './cancellation/index.ts';
import { DISPOSAL } from './disposal/index.ts';
import { JSON_RESPONSES } from './json-responses/index.ts';
import { NEGOTIATION } from './negotiation/index.ts';
import { PAGINATION } from './pagination/cursors.ts';
import { RESUME } from './resume/index.ts';
import { RETRY } from './retry/index.ts';
import type { Scenario } from './scenario.ts';
import { SECURITY } from './security/index.ts';
import { SERVER_REQUESTS } from './server-requests/index.ts';
import { STDIO } from './stdio/index.ts';

export const SUITES = { negotiation: NEGOTIATION, resume: RESUME, retry: RETRY, disposal: DISPOSAL, cancellation: CANCELLATION, security: SECURITY, 'server-requests': SERVER_REQUESTS, 'json-responses': JSON_RESPONSES, stdio: STDIO, authorization: AUTHORIZATION, pagination: PAGINATION } as const;

export const SCENARIOS: readonly Scenario[] = Object.values(SUITES).flat();
