import { STREAMABLE_REVISIONS } from '../../protocol/revisions.ts';
import { check, checkIf, clientCompleted, precondition } from '../checks.ts';
import { defineScenario, type Evidence, type Level } from '../scenario.ts';
import { lifecycle, sessionManagement } from '../spec.ts';
import { after, carrying, labels, seqNow, sessionOf } from '../wire.ts';

const SEED_000 = 'seed 000: a persisted session resumed by a later client instance';

export const keepPersistedSession = defineScenario({
  id: 'disposal/keep-persisted-session',
  title: 'Closing a client told to keep its session for a later resume sends no DELETE, and the session resumes afterwards from a new client instance',
  revisions: STREAMABLE_REVISIONS,
  requires: ['keep-session', 'resume'],
  source: { spec: sessionManagement('2025-06-18', 'a client that still needs its session does not end it', 'MUST'), seed: '000' },
  async run({ connect, bounded, observe, server }) {
    const client = await connect({ keepSessionOnClose: true });
    await bounded(client.listTools(), 'tools/list');
    const { resumeState, sessionId } = await bounded(client.info(), 'info');
    observe('sessionId', sessionId);
    observe('resumeState', resumeState);
    observe('closeFromSeq', seqNow(server.record));
    await bounded(client.close(), 'close, keeping the session');
    // The adapter declares `resume`: a connection without a resume state is its own failure.
    if (resumeState === undefined) throw new Error('the client exported no resume state after connecting');
    observe('resumeFromSeq', seqNow(server.record));
    // A new client instance continues the session; it keeps the session at close too, so any DELETE is wrong.
    const resumed = await connect({ resume: resumeState, keepSessionOnClose: true }, { newClient: true });
    // A tool call, not tools/list: a resumed client may not know the server's capabilities (it saw no InitializeResult).
    await bounded(resumed.callTool('echo', { text: 'on the resumed session' }), 'tools/call echo on the resumed session');
    await bounded(resumed.close(), 'close the resumed connection, keeping the session');
  },
  judge(evidence) {
    const { revision, observed } = evidence;
    const issued = evidence.issuedSessions[0];
    const deletes = evidence.exchanges.filter((exchange) => exchange.method === 'DELETE');
    const resumed = after(evidence.exchanges, observed.resumeFromSeq as number | undefined);
    const initializes = carrying(resumed, 'initialize');
    const wrongId = resumed.filter((exchange) => sessionOf(exchange) !== issued);
    const called = carrying(resumed, 'tools/call');
    const answered = called.filter((exchange) => exchange.status === 200 && exchange.responseMessages.some(({ message }) => message.result !== undefined));
    const keep = (section: string, level: Level) =>
      sessionManagement(revision, `${section} (adapter contract keep-session: close() leaves the session alive for a later resume; ${SEED_000})`, level);
    // What the resume checks need: the client resumed (its error, if it did not, is client-completed's) and sent something.
    const notResumed =
      observed.resumeFromSeq === undefined
        ? 'the client did not get to the resume (client-completed says why)'
        : resumed.length === 0
          ? 'the resumed connection sent nothing'
          : undefined;
    return [
      precondition(
        'close-reached',
        keep('a client that still needs the session does not end it', 'MUST'),
        observed.closeFromSeq !== undefined && issued !== undefined,
        observed.closeFromSeq === undefined
          ? 'the script did not reach close(): the client did not connect, list its tools and report its session'
          : issued === undefined
            ? 'the server issued no session before the client closed'
            : `the client closed, keeping the issued session ${issued}`,
      ),
      clientCompleted(evidence, keep('the client keeps its session, then resumes it', 'MUST')),
      check(
        'no-delete-when-kept',
        keep('a client that still needs the session sends no DELETE', 'MUST'),
        deletes.length === 0,
        deletes.length === 0 ? `no DELETE for the kept session ${issued ?? '(none issued)'}` : `DELETE sent although the session was to be kept: ${labels(deletes)}`,
        deletes,
      ),
      checkIf(
        notResumed,
        'resumed-without-initialize',
        lifecycle(revision, 'initialization', `Initialization: initialization begins a session; a resumed session is already initialized (${SEED_000}; a live session refuses a second initialize)`, 'MUST'),
        () => initializes.length === 0,
        () => (initializes.length === 0 ? 'the resumed connection sent no initialize' : `the resumed connection sent initialize again: ${labels(initializes)}`),
        initializes,
      ),
      checkIf(
        notResumed,
        'resumed-same-session',
        sessionManagement(revision, 'the issued Mcp-Session-Id goes on every subsequent request, the resumed ones included', 'MUST'),
        () => wrongId.length === 0,
        () => (wrongId.length === 0 ? `every request of the resumed connection carried ${issued}` : `requests of the resumed connection without the session id ${issued}: ${labels(wrongId)}`),
        wrongId,
      ),
      checkIf(
        notResumed ?? (called.length === 0 ? 'the resumed connection called no tool' : undefined),
        'resumed-session-works',
        keep('the kept session still serves requests when resumed', 'MUST'),
        () => answered.length === called.length,
        () =>
          answered.length === called.length
            ? `the resumed session answered ${labels(called)}`
            : `the resumed session did not answer ${labels(called.filter((e) => !answered.includes(e)))}`,
        called,
      ),
    ];
  },
  doctored: [
    {
      check: 'close-reached',
      unmet: true,
      how: 'the script stopped before close()',
      doctor: (e: Evidence) => ({ ...e, observed: { ...e.observed, closeFromSeq: undefined, resumeFromSeq: undefined } }),
    },
  ],
});
