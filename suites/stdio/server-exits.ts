// A server that goes away in the middle of a call: it crashes (a stack trace on stderr, exit 1), or it ends the
// conversation itself by closing its stdout and exiting (the server-initiated shutdown the spec allows). The call in
// flight can never be answered: the client settles it promptly, with an error; the next call does not hang (it is
// refused at once, or served by a fresh process); close() still returns.
//
// What the spec says, per revision. 2024-11-05 … 2025-11-25 say nothing of a crash: a request that can never be answered
// is what request timeouts exist to end ("to prevent hung connections", SHOULD), and "the server MAY initiate shutdown
// by closing its output stream to the client and exiting" (Lifecycle › Shutdown › stdio) ends what was in flight with
// it. 2026-07-28: "If the server process exits unexpectedly, the client SHOULD restart it … any in-flight requests are
// simply lost" (stdio › Unexpected Termination) — a crash is unexpected, a closed stdout and exit 0 is the server's
// own shutdown, so the restart is judged (SHOULD) for the crash only. Every level is SHOULD: no revision says MUST.
import { isModern, L_AND_M, type Revision } from '../../protocol/revisions.ts';
import type { StdioProcessState } from '../../servers/stdio/harness.ts';
import { clientCompleted, precondition, unexercised } from '../checks.ts';
import { describeOutcome, holdsWithin, inFlightMs, isOutcome, Watched, type Outcome } from '../outcome.ts';
import { checkInTime, rejectedInTime, type InTime } from '../deadlines.ts';
import { defineScenario, type Evidence, type Scenario } from '../scenario.ts';
import { stdio, stdioShutdown, timeouts } from '../spec.ts';
import { callsTool, isStdioLine } from '../wire.ts';
import { serverRecorded, serverRecordedProof } from './support.ts';

type Exit = 'crash-mid-call' | 'close-stdout-and-exit';

const WENT_DOWN = 'server-went-down';
/** The text of the call after the exit. */
const NEXT_TEXT = 'after the server went down';

/** The rule for a call the server can no longer answer, at the revision and for the way it went. */
function theRule(revision: Revision, exit: Exit, section: string) {
  if (exit === 'crash-mid-call') {
    return isModern(revision)
      ? stdio(revision, `Unexpected Termination: in-flight requests are lost; ${section}`, 'SHOULD', 'unexpected-termination')
      : timeouts(revision, `timeouts prevent hung connections: a request to a server that has exited can never be answered; ${section}`, 'SHOULD');
  }
  return isModern(revision)
    ? stdio(revision, `Shutdown: the server MAY initiate shutdown by closing its output stream and exiting; ${section}`, 'SHOULD', 'shutdown')
    : stdioShutdown(revision, `the server MAY initiate shutdown by closing its output stream and exiting; ${section}`, 'SHOULD');
}

/** The server process that went down as the personality says (a client in auto mode may have probed on a sibling before). */
const downed = (evidence: Pick<Evidence, 'stdio'>, exit: Exit): StdioProcessState | undefined =>
  evidence.stdio?.processes.find((p) => p.role === 'server' && p.exit?.reason === exit);

/** Server processes of a later launch than the one that went down: the client started the server again. */
function relaunched(evidence: Pick<Evidence, 'stdio'>, exit: Exit): StdioProcessState[] {
  const down = downed(evidence, exit);
  return down === undefined ? [] : (evidence.stdio?.processes ?? []).filter((p) => p.role === 'server' && p.launch > down.launch);
}

/** The client launched the server again before the call in flight settled (or while it was still pending). */
function relaunchedBeforeSettling(evidence: Pick<Evidence, 'stdio'>, exit: Exit, call: Outcome): boolean {
  const exitAt = downed(evidence, exit)?.exit?.at;
  if (exitAt === undefined) return false;
  return relaunched(evidence, exit).some((p) => call.state === 'pending' || p.connectedAt - exitAt <= call.afterMs);
}

/** The echo after the exit was answered on stdout by a process of a later launch. */
function answeredByFreshProcess(evidence: Pick<Evidence, 'exchanges' | 'stdio'>, exit: Exit): boolean {
  const fresh = new Set(relaunched(evidence, exit).map((p) => p.index));
  return evidence.exchanges.some(
    (x) => isStdioLine(x) && fresh.has((x as { process?: number }).process ?? -1) && callsTool(x, 'echo') && x.responseMessages.some(({ message }) => message.result !== undefined),
  );
}

function serverExitScenario(exit: Exit, title: string): Scenario {
  return defineScenario({
    id: `stdio/${exit}`,
    title,
    revisions: L_AND_M,
    requires: [],
    transport: 'stdio',
    source: { spec: theRule('2026-07-28', exit, 'the client settles what was in flight') },
    // It goes down on the slow tool only: the next call (echo) is served by a server the client starts again.
    setup: () => ({ stdio: { personalities: [{ name: exit, tool: 'slow' }] }, state: undefined }),
    async run({ connect, bounded, observe, stdio: server, time }) {
      const client = await connect();
      const since = performance.now();
      const call = new Watched(client.callTool('slow', { ms: inFlightMs(time) }));
      // The server goes down as the slow tool starts; its exit reaches the record a moment later, maybe after the client
      // saw its stdout end and settled the call. A call that settles with no exit to come: a reaction time, not the bound.
      const wentDown = (record: typeof server.record) => record.servers().find((p) => p.exit?.reason === exit);
      const down = (record: typeof server.record) => wentDown(record) !== undefined;
      await Promise.race([
        holdsWithin(server.record, down, 'the server to go down', time.ms.operation),
        call.settled.then(() => holdsWithin(server.record, down, 'the server to go down', time.ms.react)),
      ]);
      const exited = wentDown(server.record)?.exit;
      if (exited === undefined) {
        observe('call', call.since(since));
        return;
      }
      // The exit's moment on this process's clock: the call has a reaction time from then to settle.
      const exitedAt = exited.at + (performance.now() - server.record.now());
      await call.within(Math.max(0, exitedAt + time.ms.react - performance.now()));
      // A client that starts the server again before it settles the call (to retry it there: Mastra) waits for a
      // launch, which costs a start-up on this machine: it has that too (the judge's bound, relaunchedBeforeSettling).
      const downLaunch = wentDown(server.record)!.launch;
      if (server.record.servers().some((p) => p.launch > downLaunch)) await call.within(Math.max(0, exitedAt + time.ms.startup + time.ms.react - performance.now()));
      observe('call', call.since(exitedAt));
      // The next call: refused at once, or answered by a fresh process (a launch costs a start-up).
      const nextSince = performance.now();
      const next = new Watched(client.callTool('echo', { text: NEXT_TEXT }));
      await next.within(time.ms.startup + time.ms.react);
      observe('next', next.since(nextSince));
      await bounded(client.close(), 'close');
    },
    judge(evidence) {
      const { revision, time } = evidence;
      const server = downed(evidence, exit);
      const wentDown = server !== undefined;
      const reachedTool = evidence.toolRuns.some((run) => run.tool === 'slow');
      const call = isOutcome(evidence.observed['call']) ? (evidence.observed['call'] as Outcome) : undefined;
      const next = isOutcome(evidence.observed['next']) ? (evidence.observed['next'] as Outcome) : undefined;
      // A client that started the server again before settling the call had a launch to wait for: a start-up more.
      const retried = call !== undefined && relaunchedBeforeSettling(evidence, exit, call);
      const promptly = retried ? time.ms.startup + time.ms.react : time.ms.react;
      const fresh = relaunched(evidence, exit);
      const byFresh = answeredByFreshProcess(evidence, exit);
      const notDown = wentDown ? undefined : 'the server never went down in the middle of the call';

      const nextHeld: InTime = next === undefined ? false : next.state === 'rejected' ? true : next.state === 'resolved' ? byFresh : 'late';
      const checks = [
        serverRecorded(evidence),
        // A call that never reached the tool is the client's doing (judged below); a tool that ran without the server going down is the suite's.
        precondition(
          WENT_DOWN,
          theRule(revision, exit, 'the server went down in the middle of a call'),
          wentDown || !reachedTool,
          wentDown
            ? `the server went down (${server!.exit!.reason}, ${server!.exit!.code !== null ? `exit ${server!.exit!.code}` : server!.exit!.signal}) with the slow call running`
            : 'the slow tool ran, but no server process went down on it',
        ),
        clientCompleted(evidence, stdioShutdown(revision, 'the client closes a connection whose server has gone', 'SHOULD')),
        notDown !== undefined || call === undefined
          ? unexercised('pending-call-settled', theRule(revision, exit, 'the call in flight settles at once'), notDown ?? 'the script never saw the call in flight')
          : checkInTime(
              time,
              'pending-call-settled',
              theRule(revision, exit, 'the call in flight can never be answered: it settles (rejects) at once'),
              rejectedInTime(call, promptly),
              `${describeOutcome(call, 'the call in flight')} (from the server’s exit); expected a rejection within ${promptly} ms${retried ? ' (a start-up and a reaction: the client launched the server again before settling it)' : ''}`,
            ),
        next === undefined
          ? unexercised('next-call-settles', theRule(revision, exit, 'the next call does not hang'), notDown ?? 'the script never got to a call after the exit')
          : checkInTime(
              time,
              'next-call-settles',
              theRule(revision, exit, 'a call after the server went down does not hang: it is refused at once, or answered by a fresh process'),
              nextHeld,
              next.state === 'resolved' && !byFresh
                ? 'the call after the exit resolved, but no fresh server process answered it'
                : `${describeOutcome(next, 'the call after the exit')}${fresh.length > 0 ? ` (the client launched the server again: ${fresh.length} process${fresh.length > 1 ? 'es' : ''})` : ''}`,
            ),
      ];
      if (exit === 'crash-mid-call' && isModern(revision)) {
        const restarted: InTime = fresh.length > 0 || (next?.state === 'pending' ? 'late' : false);
        // The call in flight still unsettled when the next went out: the client had not seen the server go down (a
        // starved client reads the end late), so the next call went to the dead process and was lost with it.
        const unseen = call?.state === 'pending' && fresh.length === 0;
        checks.push(
          next === undefined || unseen
            ? unexercised(
                'restarted',
                stdio(revision, 'Unexpected Termination: the client SHOULD restart the server', 'SHOULD', 'unexpected-termination'),
                notDown ?? (next === undefined ? 'the script never got to a call after the exit' : 'the client had not settled the call in flight when the next call went out: it had not yet seen the server go down'),
              )
            : checkInTime(
                time,
                'restarted',
                stdio(revision, 'Unexpected Termination: if the server process exits unexpectedly, the client SHOULD restart it', 'SHOULD', 'unexpected-termination'),
                restarted,
                fresh.length > 0 ? `the client launched the server again${byFresh ? ', and the fresh process answered the next call' : ''}` : `the client never launched the server again (${describeOutcome(next, 'the call after the crash')})`,
              ),
        );
      }
      return checks;
    },
    doctored: [
      {
        check: 'pending-call-settled',
        how: 'the call in flight still pending a reaction time after the exit',
        doctor: (e) => ({ ...e, observed: { ...e.observed, call: { state: 'pending', afterMs: e.time.ms.react } satisfies Outcome } }),
      },
      {
        check: 'pending-call-settled',
        how: 'the call in flight rejected only after a start-up and a reaction (the most a client that launched the server again has)',
        doctor: (e) => ({ ...e, observed: { ...e.observed, call: { state: 'rejected', afterMs: e.time.ms.startup + e.time.ms.react + 1, detail: 'Error: connection closed' } satisfies Outcome } }),
      },
      {
        check: 'next-call-settles',
        how: 'the call after the exit still pending when the script gave up on it',
        doctor: (e) => ({ ...e, observed: { ...e.observed, next: { state: 'pending', afterMs: e.time.ms.startup + e.time.ms.react } satisfies Outcome } }),
      },
      {
        check: 'next-call-settles',
        how: 'the call after the exit resolved, with no fresh process to answer it',
        doctor: (e) => ({
          ...e,
          observed: { ...e.observed, next: { state: 'resolved', afterMs: 1, detail: `result "${NEXT_TEXT}"` } satisfies Outcome },
          stdio: { ...e.stdio!, processes: e.stdio!.processes.filter((p) => !relaunched(e, exit).includes(p)) },
        }),
      },
      {
        check: WENT_DOWN,
        unmet: true,
        how: 'the server that went down recorded as still running after the slow tool started',
        doctor: (e) => ({ ...e, stdio: { ...e.stdio!, processes: e.stdio!.processes.map((p) => (p.exit?.reason === exit ? { ...p, exit: undefined } : p)) } }),
      },
      serverRecordedProof,
    ],
  });
}

export const stdioCrashMidCall = serverExitScenario(
  'crash-mid-call',
  'The server crashes in the middle of a call: the call settles promptly with an error, the next call does not hang (2026-07-28: the client restarts the server), and close() returns',
);
export const stdioCloseStdoutAndExit = serverExitScenario(
  'close-stdout-and-exit',
  'The server closes its stdout and exits in the middle of a call (a server-initiated shutdown): the call settles promptly with an error, the next call does not hang, and close() returns',
);
