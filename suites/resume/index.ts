import type { Scenario } from '../scenario.ts';
import { affinityFirstRequest } from './affinity-first-request.ts';
import { echoedSessionHeader } from './echoed-session-header.ts';
import { expired400SessionMessage } from './expired-400-session-message.ts';
import { expired404 } from './expired-404.ts';
import { negotiatedVersionAfterExpiry } from './negotiated-version-after-expiry.ts';
import { noRehandshake } from './no-rehandshake.ts';
import { sseCommentsIgnored } from './sse-comments-ignored.ts';
import { sseLastEventId } from './sse-last-event-id.ts';

export const RESUME: readonly Scenario[] = [noRehandshake, expired404, expired400SessionMessage, negotiatedVersionAfterExpiry, sseLastEventId, sseCommentsIgnored, echoedSessionHeader, affinityFirstRequest];
