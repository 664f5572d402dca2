// resume/expired-400-session-message: servers built from the TypeScript SDK examples answer an unknown or
// expired session id with `400 -32000 "Bad Request: No valid session ID provided"` instead of the spec's 404
// (revisions.md, tension 5). An interoperable client reads it as a lost session too.
import { S } from '../../protocol/revisions.ts';
import { expiringSessions, type ExpiringSessions } from '../../servers/personalities/expiring-sessions.ts';
import { unknownSession400 } from '../../servers/personalities/unknown-session-400.ts';
import { defineScenario } from '../scenario.ts';
import { sessionManagement } from '../spec.ts';
import { judgeSessionLoss, runSessionLoss, sessionNeverLost } from './support.ts';

const INTEROP =
  'interoperability, not spec text: the SDK examples answer an unknown session 400 -32000 "No valid session ID provided" where the spec says 404; a client SHOULD treat it as the 404';
const RESTART = 'a new session starts with an InitializeRequest without a session ID, and its id goes on every later request';
const TRIGGER = { status: 400, code: -32000, note: 'unknown-session-400' } as const;

export const expired400SessionMessage = defineScenario<{ expiring: ExpiringSessions }>({
  id: 'resume/expired-400-session-message',
  title: 'The SDK-example answer for an unknown session (400 -32000 "…No valid session ID provided") is treated as a lost session too',
  revisions: S,
  requires: [],
  source: { spec: sessionManagement('2025-06-18', INTEROP, 'SHOULD') },
  // Order matters: the session ends first, then the SDK-example answer replaces the era's 404.
  setup: () => {
    const expiring = expiringSessions();
    return { server: { personalities: [expiring, unknownSession400()] }, state: { expiring } };
  },
  run: (context) => runSessionLoss(context, '400'),
  judge(evidence) {
    const { revision } = evidence;
    const interop = sessionManagement(revision, INTEROP, 'SHOULD');
    return judgeSessionLoss(evidence, {
      trigger: TRIGGER,
      answer: '400 -32000 "Bad Request: No valid session ID provided"',
      recover: interop,
      restart: sessionManagement(revision, RESTART, 'MUST'),
      completed: interop,
    });
  },
  doctored: [
    sessionNeverLost(TRIGGER, '400'),
  ],
});
