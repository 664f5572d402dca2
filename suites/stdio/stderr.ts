// The server's stderr (Transports › stdio): the server MAY write to it for logging, the client MAY capture, forward or
// ignore it, and (2025-11-25 on) SHOULD NOT take what it says for an error. The server here does both things real
// servers do (servers/stdio/personalities.ts): at start-up it writes warnings and an "Error:"-looking line
// (stderr-chatter), and before its first answer it writes 1 MiB (stderr-flood), each write pending until the client
// has read enough of the pipe (the answer waits for the flood). The client connects and calls. A client that never
// reads the pipe (ignoring stderr by not reading it is not ignoring it) leaves the server stalled before it can answer;
// one that reads the log as a failure gives up on a server that is fine.
import type { TimePolicy } from '../../config/time.ts';
import { L_AND_M, type Revision } from '../../protocol/revisions.ts';
import type { StdioProcessState } from '../../servers/stdio/harness.ts';
import { STDERR_FLOOD_BYTES } from '../../servers/stdio/personalities.ts';
import { clientCompleted, precondition, unexercised } from '../checks.ts';
import { checkInTime, type InTime } from '../deadlines.ts';
import { defineScenario, type Check, type Evidence } from '../scenario.ts';
import { stdio } from '../spec.ts';
import { ms, processName, serverProcesses } from './processes.ts';
import { serverRecorded, serverRecordedProof } from './support.ts';

const STDERR_WRITTEN = 'stderr-written';
/** When the script ended (record time): how long a flood still blocked then had been blocked. */
const SCRIPT_ENDED = 'scriptEndedAt';

/** How the flood's writes begin (servers/stdio/io.ts, flood()): every block starts with its line. */
const FLOOD_HEAD = 'stderr-flood:';
/** How the chatter's error-looking line begins (servers/stdio/serve.ts, CHATTER). */
const ERROR_HEAD = 'Error:';

/** The SHOULD NOT exists from 2025-11-25 on; before, stderr is "for logging purposes", which clients MAY capture, forward or ignore. */
function notAnErrorRule(revision: Revision) {
  return revision === '2025-11-25' || revision === '2026-07-28'
    ? stdio(revision, 'the client MAY capture, forward, or ignore the server’s stderr output and SHOULD NOT assume stderr output indicates error conditions', 'SHOULD')
    : stdio(revision, 'the server MAY write UTF-8 strings to stderr for logging purposes; clients MAY capture, forward, or ignore this logging (a log line is no error)', 'MAY');
}

/**
 * One process's flood: whole; cut short (the client shut the server down while a write was pending, too soon after the
 * last one went through to say the pipe was not being read); or blocked (a write pending for longer than a reaction
 * time while the server lived on): held false or 'late' by how long.
 */
interface Flood {
  process: StdioProcessState;
  state: 'whole' | 'cut' | 'blocked';
  held: InTime;
  detail: string;
}

function floodOf(p: StdioProcessState, endedAt: number | undefined, time: TimePolicy): Flood | undefined {
  const writes = p.stderr.filter((w) => w.head.startsWith(FLOOD_HEAD));
  if (writes.length === 0) return undefined;
  const bytes = writes.reduce((sum, w) => sum + w.bytes, 0);
  const lastDoneAt = Math.max(...writes.map((w) => w.doneAt));
  const name = processName(p);
  if (bytes >= STDERR_FLOOD_BYTES) return { process: p, state: 'whole', held: true, detail: `${name} wrote its ${bytes} bytes, the last write done at ${ms(lastDoneAt)}` };
  // Its next write was pending from the last one's end until the server read its EOF or ended (the client shutting it
  // down), or else until the script ended.
  const ends = [p.stdinEofAt, p.exit?.at].filter((at) => at !== undefined);
  const until = ends.length > 0 ? Math.min(...ends) : endedAt;
  const pending = until === undefined ? 0 : until - lastDoneAt;
  const written = `${name} wrote ${bytes} of its ${STDERR_FLOOD_BYTES} bytes`;
  // A client that reads the pipe frees a pending write at once: shut down that soon after, the flood was cut short.
  if (pending < time.ms.react) return { process: p, state: 'cut', held: true, detail: `${written}, then was shut down ${ms(pending)} after its last write went through: cut short, not blocked` };
  return {
    process: p,
    state: 'blocked',
    // Stalled for half an operation bound, the pipe was not being read; between a reaction time and that, a loaded
    // client may have been slow to read: the larger bounds of the next run decide.
    held: pending >= time.ms.operation / 2 ? false : 'late',
    detail: `${written}: its next write was pending for ${ms(pending)} from ${ms(lastDoneAt)}${ends.length > 0 ? ' until the client shut it down' : ', until the script ended'} — the pipe not read — and it never answered`,
  };
}

/** The earliest answer the server wrote (a result or an error to a request of the client's). */
function firstAnswerAt(evidence: Evidence): number | undefined {
  const times = evidence.exchanges.flatMap((x) => x.responseMessages.filter(({ message }) => message.method === undefined && message.id !== undefined).map(({ at }) => at));
  return times.length > 0 ? Math.min(...times) : undefined;
}

export const stdioStderr = defineScenario({
  id: 'stdio/stderr',
  title: 'the server’s stderr: 1 MiB written before its first answer is drained, and an "Error:" line at start-up is no error',
  revisions: L_AND_M,
  requires: [],
  transport: 'stdio',
  source: { spec: stdio('2025-11-25', 'the client MAY capture, forward, or ignore the server’s stderr and SHOULD NOT assume stderr output indicates error conditions', 'SHOULD') },
  setup: () => ({ stdio: { personalities: ['stderr-chatter', 'stderr-flood'] }, state: undefined }),
  async run({ connect, bounded, observe, stdio: server, time }) {
    try {
      const client = await connect();
      await bounded(client.callTool('echo', { text: 'hello' }), 'tools/call echo');
      await bounded(client.close(), 'close');
    } finally {
      observe(SCRIPT_ENDED, server.record.now());
      // The program reports a write once it is out: a client that fails on the first line it reads may fail before the
      // record has it. The stimulus is given its moment to arrive (bounded; at once when it is there).
      await server.record.waitFor((record) => record.processes.some((p) => p.stderr.some((w) => w.head.startsWith(ERROR_HEAD))), 'the server’s "Error:" line in the record', time.ms.react).catch(() => {});
    }
  },
  judge(evidence: Evidence): Check[] {
    const { revision, time } = evidence;
    const servers = serverProcesses(evidence);
    const ended = evidence.observed[SCRIPT_ENDED];
    const endedAt = typeof ended === 'number' ? ended : undefined;
    const floods = servers.map((p) => floodOf(p, endedAt, time)).filter((f) => f !== undefined);
    const blocked = floods.filter((f) => f.state === 'blocked');
    const whole = floods.filter((f) => f.state === 'whole');
    const errorLines = servers.flatMap((p) => p.stderr.filter((w) => w.head.startsWith(ERROR_HEAD)).map((w) => ({ process: p, write: w })));
    const errorLine = errorLines.sort((a, b) => a.write.doneAt - b.write.doneAt)[0];
    const answeredAt = firstAnswerAt(evidence);
    // A process that connected but never said hello is a record not caught up, not a client that launched nothing.
    const written = errorLine !== undefined || ((evidence.stdio?.processes ?? []).length === 0 && evidence.clientError !== undefined);

    const notAnError = (): Check => {
      const spec = notAnErrorRule(revision);
      const name = 'stderr-not-an-error';
      if (errorLine === undefined) return unexercised(name, spec, 'the server wrote no "Error:" line to stderr');
      const line = `the server wrote ${JSON.stringify(errorLine.write.head.trim())} to stderr at ${ms(errorLine.write.at)}`;
      if (evidence.clientError === undefined) return checkInTime(time, name, spec, true, `${line}; the client connected and called all the same`);
      // Failed after the answer: taking the line for an error — unless the connect only ran out of time (a slow machine).
      if (answeredAt !== undefined) return checkInTime(time, name, spec, evidence.clientTimedOut ? 'late' : false, `${line} and answered at ${ms(answeredAt)}, yet the client failed: ${evidence.clientError}`);
      if (blocked.length > 0) return unexercised(name, spec, `${line}, then never answered: it was blocked on its stderr flood (stderr-drained)`);
      return checkInTime(time, name, spec, evidence.clientTimedOut ? 'late' : false, `${line}, was not blocked, and the client gave up before any answer: ${evidence.clientError}`);
    };

    const drained = stdio(revision, 'the client MAY capture, forward, or ignore the server’s stderr: whichever it does, a server that logs 1 MiB before it answers is never blocked', 'MUST');
    return [
      serverRecorded(evidence),
      precondition(
        STDERR_WRITTEN,
        notAnErrorRule(revision),
        written,
        errorLine !== undefined
          ? `${processName(errorLine.process)} wrote its start-up chatter, an "Error:" line among it, to stderr`
          : written
            ? 'the client failed without launching a server that got as far as writing to stderr'
            : 'no server process wrote its start-up chatter to stderr: the personality never acted',
      ),
      clientCompleted(evidence, stdio(revision, 'the server MAY write to stderr: the client connects, calls and closes whatever it writes there', 'MUST')),
      blocked.length === 0 && whole.length === 0
        ? unexercised(
            'stderr-drained',
            drained,
            floods.length === 0
              ? 'no server process began its flood (it comes before the first answer, and the server never got to answer)'
              : `the flood was never through: ${floods.map((f) => f.detail).join('; ')}`,
          )
        : checkInTime(
            time,
            'stderr-drained',
            drained,
            blocked.some((f) => f.held === false) ? false : blocked.length > 0 ? 'late' : true,
            `${(blocked.length > 0 ? blocked : whole).map((f) => f.detail).join('; ')}${blocked.length === 0 && answeredAt !== undefined ? `; the first answer followed at ${ms(answeredAt)}` : ''}`,
          ),
      notAnError(),
    ];
  },
  doctored: [
    {
      check: STDERR_WRITTEN,
      unmet: true,
      how: 'no stderr write in the record (a server that never wrote its chatter)',
      doctor: (e) => ({ ...e, stdio: { ...e.stdio!, processes: e.stdio!.processes.map((p) => ({ ...p, stderr: [] })) } }),
    },
    serverRecordedProof,
  ],
});
