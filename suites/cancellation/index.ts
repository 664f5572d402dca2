import type { Scenario } from '../scenario.ts';
import { concurrentIndependent } from './concurrent-independent.ts';
import { lateResponseIgnored } from './late-response-ignored.ts';
import { legacyNotification } from './legacy-notification.ts';
import { modernClosesStream } from './modern-closes-stream.ts';
import { neverInitialize } from './never-initialize.ts';
import { progressResetsTimeout } from './progress-resets-timeout.ts';
import { silentServer } from './silent-server.ts';
import { timeoutCancels } from './timeout-cancels.ts';

/** In catalogue order (../shared/docs/scenarios.md › cancellation). */
export const CANCELLATION: readonly Scenario[] = [
  legacyNotification,
  neverInitialize,
  modernClosesStream,
  timeoutCancels,
  silentServer,
  lateResponseIgnored,
  progressResetsTimeout,
  concurrentIndependent,
];
