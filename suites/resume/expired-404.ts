// resume/expired-404: a 404 to a request carrying the session id ends that session; the client starts a new one
// with an initialize that carries no session id, adopts the new id, and never sends the dead one again.
import { HEADERS } from '../../protocol/http.ts';
import { S } from '../../protocol/revisions.ts';
import { expiringSessions, type ExpiringSessions } from '../../servers/personalities/expiring-sessions.ts';
import { defineScenario } from '../scenario.ts';
import { newSessionAfter404 } from '../spec.ts';
import { sessionOf, withThrowawaySession } from '../wire.ts';
import { doctorExchanges, judgeSessionLoss, runSessionLoss, sessionLoss, sessionNeverLost, withHeader } from './support.ts';

export const expired404 = defineScenario<{ expiring: ExpiringSessions }>({
  id: 'resume/expired-404',
  title: 'A 404 to a request carrying a session id leads to a new initialize without it; the dead id is never sent again',
  revisions: S,
  requires: [],
  source: { spec: newSessionAfter404('2025-06-18') },
  setup: () => {
    const expiring = expiringSessions();
    return { server: { personalities: [expiring] }, state: { expiring } };
  },
  run: (context) => runSessionLoss(context, '404'),
  judge(evidence) {
    const spec = newSessionAfter404(evidence.revision);
    return judgeSessionLoss(evidence, { trigger: { status: 404 }, answer: '404', recover: spec, restart: spec, completed: spec });
  },
  doctored: [
    sessionNeverLost({ status: 404 }, '404'),
    {
      check: 'dead-id-never-sent-again',
      how: 'a throwaway session opened first (as mcp-remote does), and every request after the new initialize sent with the dead id',
      doctor: (e) => {
        const opened = withThrowawaySession(e);
        const { dead, replacement } = sessionLoss(opened, { status: 404 });
        return doctorExchanges(opened, (x) => replacement !== undefined && x.seq > replacement.seq && sessionOf(x) !== undefined, (x) => withHeader(x, HEADERS.session, dead));
      },
    },
  ],
});
