import type { Scenario } from '../scenario.ts';
import { boundedOn5xx } from './bounded-on-5xx.ts';
import { connectionDropKeepsSession } from './connection-drop-keeps-session.ts';
import { httpSseFallback } from './http-sse-fallback.ts';
import { modernOnlyTransportErrors } from './modern-only-transport-errors.ts';
import { noDoubleExecution } from './no-double-execution.ts';
import { noFallbackAfterUnsupportedAnswer } from './no-fallback-after-unsupported-answer.ts';
import { noFallbackOn5xx } from './no-fallback-on-5xx.ts';
import { noRetryOnAuth } from './no-retry-on-auth.ts';
import { replacementSessionLost } from './replacement-session-lost.ts';
import { sessionReestablished } from './session-reestablished.ts';
import { stale404AfterReplacement } from './stale-404-after-replacement.ts';

export const RETRY: readonly Scenario[] = [
  sessionReestablished,
  connectionDropKeepsSession,
  noDoubleExecution,
  modernOnlyTransportErrors,
  noRetryOnAuth,
  boundedOn5xx,
  stale404AfterReplacement,
  httpSseFallback,
  noFallbackOn5xx,
  replacementSessionLost,
  noFallbackAfterUnsupportedAnswer,
];
