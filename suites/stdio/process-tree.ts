// The process tree behind a stdio command: hosts launch most local servers through a launcher (npx, uvx, a shell
// script) that starts the real server as its own child and does not pass signals on. Killing only the process it
// spawned, a client leaves the real server running: the leaking servers of ../shared/docs/stdio-notes.md (Claude Code
// in mcp-searxng#60 and google-docs-mcp#112). Here the launcher is the `wrapper` personality (it dies of a signal,
// never forwarding it), in front of a server that ignores stdin EOF, so only a signal ends it: after close() no
// process of the tree may be left.
import { stdioShutdownGraceMs } from '../../config/time.ts';
import { L_AND_M } from '../../protocol/revisions.ts';
import { checkIf, clientCompleted, precondition } from '../checks.ts';
import { defineScenario, type Check, type Evidence } from '../scenario.ts';
import { stdioShutdown } from '../spec.ts';
import { CLOSE_CALLED, closeNotReached, processesGone, processName } from './processes.ts';
import { serverRecorded, serverRecordedProof } from './support.ts';

const REAL_SERVER_LAUNCHED = 'real-server-launched';

const rule = (evidence: Evidence, section: string) =>
  stdioShutdown(evidence.revision, `${section} (a launcher in front of the server, as npx is: ../shared/docs/stdio-notes.md)`, 'SHOULD');

export const stdioProcessTree = defineScenario({
  id: 'stdio/process-tree',
  title: 'the shutdown ends the whole process tree: a launcher (npx-like, signals not forwarded) in front of a server that ignores stdin EOF leaves nothing running',
  revisions: L_AND_M,
  requires: [],
  transport: 'stdio',
  source: { spec: stdioShutdown('2025-11-25', 'the shutdown terminates the server, whatever launched it', 'SHOULD'), seed: '../shared/docs/stdio-notes.md (npx/uvx wrappers left running by real hosts)' },
  setup: () => ({ stdio: { personalities: ['wrapper', 'ignores-stdin-eof'] }, state: undefined }),
  async run({ connect, bounded, observe, stdio, time }) {
    const client = await connect();
    await bounded(client.callTool('echo', { text: 'hello' }), 'tools/call echo');
    observe(CLOSE_CALLED, stdio.record.now());
    await bounded(client.close(), 'close', time.ms.operation + 2 * stdioShutdownGraceMs(time));
    await processesGone(stdio, time.ms.react);
  },
  judge(evidence: Evidence): Check[] {
    const processes = evidence.stdio?.processes ?? [];
    const wrappers = processes.filter((p) => p.role === 'wrapper');
    const orphans = wrappers.filter((w) => !processes.some((p) => p.role === 'server' && p.parent === w.index));
    // The tree is there only if each launcher's server said hello; a client that failed launching anything is judged.
    const launched = wrappers.length > 0 && orphans.length === 0;
    const met = launched || (processes.length === 0 && evidence.clientError !== undefined);
    const alive = processes.filter((p) => p.alive);
    const survivors = evidence.stdio?.survivors ?? [];
    const left = [...alive.map(processName), ...survivors.filter((pid) => !alive.some((p) => p.pid === pid)).map((pid) => `pid ${pid} (unreported)`)];
    // The npx habit: what is left is the servers whose launchers the signals killed.
    const orphaned = alive.filter((p) => p.role === 'server' && processes.some((w) => w.index === p.parent && !w.alive));
    const why = orphaned.length > 0 && orphaned.length === left.length ? ' — the launcher died, the server it started did not' : '';
    return [
      serverRecorded(evidence),
      precondition(
        REAL_SERVER_LAUNCHED,
        rule(evidence, 'the server is terminated'),
        met,
        launched
          ? `${wrappers.length === 1 ? 'the wrapper' : `each of ${wrappers.length} wrappers`} launched the real server, which reported`
          : wrappers.length === 0
            ? 'the client completed, but no wrapper reported: the suite could not see the tree'
            : `${orphans.map(processName).join(', ')} reported no server of its own: the tree was never whole`,
      ),
      clientCompleted(evidence, rule(evidence, 'the client connects, calls and closes: close() returns')),
      checkIf(
        closeNotReached(evidence) ?? (launched ? undefined : 'no wrapper with its server was launched: there was no tree to end'),
        'no-descendant-survives',
        rule(evidence, 'the shutdown terminates the server and every process it started: none is left running'),
        () => left.length === 0,
        () =>
          left.length === 0
            ? `no process of the tree was running when the script ended (${processes.map(processName).join(', ')})`
            : `still running when the script ended: ${left.join(', ')}${why}`,
      ),
    ];
  },
  doctored: [
    {
      check: REAL_SERVER_LAUNCHED,
      unmet: true,
      how: 'the wrapper’s server never reported (only the wrapper is in the record)',
      doctor: (e) => ({ ...e, stdio: { ...e.stdio!, processes: e.stdio!.processes.filter((p) => p.role !== 'server') } }),
    },
    serverRecordedProof,
  ],
});
