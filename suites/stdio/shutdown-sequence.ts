// The stdio shutdown sequence (Lifecycle › Shutdown › stdio; 2026-07-28 stdio › Shutdown), against a server that only
// dies by SIGKILL: it ignores stdin EOF and SIGTERM (servers/stdio/personalities.ts). The client connects, calls once
// and closes; the server's own record says what reached it and when: its stdin's EOF, each signal, and its death
// (a channel closed without an exit record: SIGKILL). Every server process the client launched is judged — a probe
// sibling it reaps on its own too, since it is as much the client's subprocess as the session's.
//
// The gaps are measured on the server's side. A loaded server reads its EOF and a signal late, possibly in one turn
// of its event loop: a gap shorter than the bound is "time ran out" ('late') until the last run, whose larger bounds
// give a correct client's waits room; a gap that cannot come from load fails at once: one shorter than the wait by more
// than the machine's load explains (a 0 ms gap on a machine that held nothing up), or one at most that long after the
// server's last answer. An order reversed by less than
// the bound is not the record's to tell: stdin-closed-first leaves it to waited-before-sigterm, which fails such a gap.
// The script calls close() once the call is done; a client that failed before that is judged by client-completed, not
// by a shutdown the script never asked for.
// A server that exits on EOF by itself is not judged here: under load it may take longer than the client's grace
// to go, so a signal to it proves nothing, and a signal too soon is what waited-before-sigterm already catches.
import { stdioShutdownGraceMs, type TimePolicy } from '../../config/time.ts';
import { isModern, L_AND_M, type Revision } from '../../protocol/revisions.ts';
import type { StdioProcessState } from '../../servers/stdio/harness.ts';
import { checkIf, clientCompleted, precondition, unexercised } from '../checks.ts';
import { checkInTime, type InTime } from '../deadlines.ts';
import { defineScenario, type Check, type Evidence, type SpecRef } from '../scenario.ts';
import { stdioShutdown } from '../spec.ts';
import { CLOSE_CALLED, closeNotReached, ms, processesGone, processName, serverProcesses } from './processes.ts';
import { serverRecorded, serverRecordedProof } from './support.ts';

const SERVER_HELD_ON = 'server-held-on';

/** The least wait before SIGTERM that is a wait (half the reaction bound: a client waits its grace, twice the bound). */
export const sigtermWaitMs = (time: TimePolicy): number => Math.round(time.ms.react / 2);

/**
 * The least wait before SIGKILL that is a wait: a quarter of the reaction bound. Enough to rule out SIGKILL right on
 * the heels of SIGTERM, and below the fixed waits real clients choose (1 s is common) even at the last run's scale.
 */
export const sigkillWaitMs = (time: TimePolicy): number => Math.round(time.ms.react / 4);

/** What one process shows about a rule, and whether it held ('unclear': the record cannot tell). */
interface Finding {
  held: InTime | 'unclear';
  detail: string;
  /** A late one: how much shorter than a wait its gap was (what a held-up server would have to explain). */
  shortByMs?: number;
}

function combined(findings: readonly Finding[]): InTime | 'unclear' {
  if (findings.some((f) => f.held === false)) return false;
  if (findings.some((f) => f.held === 'late')) return 'late';
  return findings.some((f) => f.held === 'unclear') ? 'unclear' : true;
}

/** How late the rule was: the largest shortfall among the late findings (one no load explains is enough to break it). */
function shortfall(findings: readonly Finding[]): number | undefined {
  const late = findings.filter((f) => f.held === 'late');
  return late.length > 0 && late.every((f) => f.shortByMs !== undefined) ? Math.max(...late.map((f) => f.shortByMs!)) : undefined;
}

/** The findings that decided: the ones that did not hold, else all. */
function described(findings: readonly Finding[]): string {
  const shown = findings.some((f) => f.held !== true) ? findings.filter((f) => f.held !== true) : findings;
  return shown.map((f) => f.detail).join('; ');
}

/** How the process ended, in a few words. */
function ending(p: StdioProcessState): string {
  if (p.exit === undefined) return p.alive ? 'it was still running when the script ended' : 'its end was never recorded';
  if (p.exit.inferred) return 'it was killed (SIGKILL)';
  return p.exit.signal !== null ? `it died of ${p.exit.signal}` : `it exited with code ${p.exit.code}`;
}

/** Closing stdin came first: the server saw its EOF before any signal. */
function stdinFirst(p: StdioProcessState, wait: number): Finding {
  const name = processName(p);
  const eof = p.stdinEofAt;
  const first = p.signals[0];
  if (eof === undefined) {
    if (first) return { held: false, detail: `${name} got ${first.signal} at ${ms(first.at)} with its stdin never closed` };
    return { held: false, detail: `${name}: its stdin was never closed (${ending(p)})` };
  }
  const early = p.signals.find((s) => s.at < eof);
  if (early === undefined) return { held: true, detail: `${name}: stdin closed at ${ms(eof)}, ${first ? `before ${first.signal} at ${ms(first.at)}` : 'no signal'}` };
  // Closer than a wait, the order is not the record's to tell (a busy server reads both in one turn of its loop, and a
  // client that signals in the same breath as it closes stdin may have either arrive first): waited-before-sigterm
  // judges such a gap, deterministically.
  if (eof - early.at < wait) return { held: 'unclear', detail: `${name} got ${early.signal} ${ms(eof - early.at)} before its stdin closed: too close to tell which the client did first (waited-before-sigterm judges the gap)` };
  return { held: false, detail: `${name} got ${early.signal} at ${ms(early.at)}, ${ms(eof - early.at)} before its stdin closed` };
}

/** SIGTERM came, after a wait since stdin closed. */
function waitedForSigterm(p: StdioProcessState, wait: number): Finding {
  const name = processName(p);
  const eof = p.stdinEofAt;
  const term = p.signals.find((s) => s.signal === 'SIGTERM');
  if (term === undefined) return { held: false, detail: `${name} ignored its stdin closing${eof === undefined ? ' (never closed)' : ''} and got no SIGTERM: ${ending(p)}` };
  if (eof === undefined) return { held: false, detail: `${name} got SIGTERM at ${ms(term.at)} with its stdin never closed` };
  const gap = term.at - eof;
  // A loaded server may see its EOF late, shrinking the gap it records; but the client closed stdin only after it read
  // the last answer the server wrote before it (the script closes once the call is done), so the wait it made is at most
  // from that write, the server's own act, to SIGTERM. When even that is shorter than a wait, no load explains it.
  const lastWrite = p.stdout.filter((chunk) => chunk.at <= eof).at(-1)?.at;
  const atMost = lastWrite === undefined ? Infinity : term.at - lastWrite;
  const held: InTime = gap >= wait ? true : gap > -wait && atMost >= wait ? 'late' : false;
  const bound = atMost < wait && gap > -wait ? `; at most ${ms(atMost)} after its last answer, so no wait at all` : '';
  // Late: the server would have had to be held up for the wait's shortfall (all of it, for a 0 ms gap) to see a waiting
  // client so; more than the machine's load explains is no wait (deadlines.ts judgedAgainstLoad).
  return { held, detail: `${name}: SIGTERM ${gap >= 0 ? `${ms(gap)} after` : `${ms(-gap)} before`} its stdin closed (a wait is at least ${ms(wait)})${bound}`, ...(held === 'late' ? { shortByMs: wait - gap } : {}) };
}

/** SIGKILL (its death, unannounced) came after SIGTERM and a wait. */
function killedAfterSigterm(p: StdioProcessState, wait: number): Finding {
  const name = processName(p);
  const exit = p.exit;
  if (exit === undefined) return { held: false, detail: `${name} never got SIGKILL: ${ending(p)}` };
  if (!exit.inferred) return { held: exit.signal === null, detail: `${name}: ${ending(p)}, not of SIGKILL` };
  const term = p.signals.filter((s) => s.signal === 'SIGTERM' && s.at <= exit.at).at(-1);
  if (term === undefined) return { held: false, detail: `${name} was killed (SIGKILL, seen at ${ms(exit.at)}) without SIGTERM before it` };
  const gap = exit.at - term.at;
  return { held: gap >= wait ? true : 'late', detail: `${name}: SIGKILL ${ms(gap)} after SIGTERM (a wait is at least ${ms(wait)})`, ...(gap < wait ? { shortByMs: wait - gap } : {}) };
}

const spec = (revision: Revision, legacy: string, modern: string) => stdioShutdown(revision, isModern(revision) ? modern : legacy, 'SHOULD');

export const stdioShutdownSequence = defineScenario({
  id: 'stdio/shutdown-sequence',
  title: 'the stdio shutdown sequence against a server that ignores stdin EOF and SIGTERM: stdin closed first, SIGTERM after a wait, SIGKILL after another, nothing left running',
  revisions: L_AND_M,
  requires: [],
  transport: 'stdio',
  source: { spec: stdioShutdown('2025-11-25', 'close stdin, wait, SIGTERM, wait, SIGKILL', 'SHOULD') },
  setup: () => ({ stdio: { personalities: ['ignores-stdin-eof', 'ignores-sigterm'] }, state: undefined }),
  async run({ connect, bounded, observe, stdio, time }) {
    const client = await connect();
    await bounded(client.callTool('echo', { text: 'hello' }), 'tools/call echo');
    observe(CLOSE_CALLED, stdio.record.now());
    // Its grace twice over (after stdin, after SIGTERM), on top of the operation bound: a client's own fixed waits
    // (the SDK's 2 s + 2 s) fit.
    await bounded(client.close(), 'close', time.ms.operation + 2 * stdioShutdownGraceMs(time));
    await processesGone(stdio, time.ms.react);
  },
  judge(evidence: Evidence): Check[] {
    const { revision, time } = evidence;
    const servers = serverProcesses(evidence);
    // A client that failed before close() shut nothing down at the script's request (client-completed judges it).
    const none = closeNotReached(evidence) ?? (servers.length === 0 ? 'the client launched no server process: there was no shutdown to judge' : undefined);
    /** A rule judged over every server process: each must hold; one too close to call under load makes it 'late'. */
    const rule = (name: string, ruleSpec: SpecRef, finding: (p: StdioProcessState) => Finding) => {
      if (none !== undefined) return unexercised(name, ruleSpec, none);
      const findings = servers.map(finding);
      const held = combined(findings);
      return held === 'unclear' ? unexercised(name, ruleSpec, described(findings)) : checkInTime(time, name, ruleSpec, held, described(findings), [], shortfall(findings));
    };
    const byItself = servers.filter((p) => p.exit !== undefined && !p.exit.inferred && p.exit.signal === null);
    const alive = (evidence.stdio?.processes ?? []).filter((p) => p.alive);
    const survivors = evidence.stdio?.survivors ?? [];
    const left = [...alive.map(processName), ...survivors.filter((pid) => !alive.some((p) => p.pid === pid)).map((pid) => `pid ${pid}`)];
    return [
      serverRecorded(evidence),
      // The server only ends by SIGKILL (or a signal it does not ignore): one that exited by itself broke the setup.
      precondition(
        SERVER_HELD_ON,
        spec(revision, 'waiting for the server to exit, then SIGTERM, then SIGKILL', 'waiting for the server to exit, then forced termination'),
        byItself.length === 0,
        byItself.length === 0
          ? 'the server ignored stdin EOF and SIGTERM, as its personality says: only the client could end it'
          : `${byItself.map((p) => `${processName(p)} exited by itself (${p.exit!.reason})`).join('; ')}: the suite's server did not hold on`,
      ),
      clientCompleted(evidence, spec(revision, 'the client connects, calls and closes: close() returns', 'the client connects, calls and closes: close() returns')),
      rule(
        'stdin-closed-first',
        spec(revision, 'first, closing the input stream to the child process (the server), before any signal', 'closing the input stream to the child process (the server) first, before any forced termination'),
        (p) => stdinFirst(p, sigtermWaitMs(time)),
      ),
      rule(
        'waited-before-sigterm',
        spec(
          revision,
          'waiting for the server to exit, or sending SIGTERM if the server does not exit within a reasonable time',
          'waiting for the server to exit; if it does not exit within a reasonable time, forcibly terminating it (SIGTERM first on POSIX)',
        ),
        (p) => waitedForSigterm(p, sigtermWaitMs(time)),
      ),
      rule(
        'sigkill-after-sigterm',
        spec(
          revision,
          'sending SIGKILL if the server does not exit within a reasonable time after SIGTERM',
          'forced termination escalates from SIGTERM to SIGKILL when the server does not exit within a reasonable time',
        ),
        (p) => killedAfterSigterm(p, sigkillWaitMs(time)),
      ),
      checkIf(
        none,
        'server-gone',
        spec(revision, 'the shutdown ends the server: no process of it is left running', 'the shutdown ends the server: no process of it is left running'),
        () => left.length === 0,
        () =>
          left.length === 0
            ? `no process of the server was running when the script ended (${servers.map((p) => `${processName(p)}: ${ending(p)}`).join('; ')})`
            : `still running when the script ended: ${left.join(', ')}`,
      ),
    ];
  },
  doctored: [
    {
      check: 'waited-before-sigterm',
      how: 'SIGTERM moved to 1 ms after stdin closed (judged as a last run judges: no more time to give)',
      doctor: (e) => ({
        ...e,
        stdio: {
          ...e.stdio!,
          processes: e.stdio!.processes.map((p) => (p.stdinEofAt === undefined ? p : { ...p, signals: p.signals.map((s) => (s.signal === 'SIGTERM' ? { ...s, at: p.stdinEofAt! + 1 } : s)) })),
        },
      }),
    },
    {
      check: SERVER_HELD_ON,
      unmet: true,
      how: 'the server exited by itself with code 1 (an uncaught exception)',
      doctor: (e) => ({
        ...e,
        stdio: { ...e.stdio!, processes: e.stdio!.processes.map((p) => ({ ...p, exit: { at: p.exit?.at ?? 0, code: 1, signal: null, reason: 'uncaught exception: doctored' } })) },
      }),
    },
    serverRecordedProof,
  ],
});
