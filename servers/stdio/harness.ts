// The harness side of the stdio reference server: the side channel it listens on, the target a client is told to
// launch, the record built from what every launched process reports, and the clean-up that leaves nothing behind.
//
//   const server = await startStdioServer({ era: '2025-11-25', personalities: ['ignores-stdin-eof'] });
//   await client.connect(server.target, …);          // the client launches server.target.command itself
//   … server.record (a StdioRecord: exchanges like the HTTP record's, plus server.record.processes) …
//   await server.close();                             // kills whatever is still alive, and says so in the record
//
// The harness is not the server's parent (the client is), so it cannot wait for it or see a SIGKILL: a process whose
// channel closed without an exit record was killed (record.ts); liveness is `kill(pid, 0)`, with the process's start
// time (Linux /proc) so a reused pid is not taken for it, and a zombie counts as dead. Every process launched with the
// target (the server, a wrapper's child, anything they spawn) carries the channel's path in its environment, so at the
// end the harness also finds, by that, any that never reported. It kills them by pid with SIGKILL: the process group
// is the client's (a client in the test's own process shares the test's), so killing the group is not ours to do.
import { readdirSync, readFileSync, rmSync, mkdtempSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TimePolicy } from '../../config/time.ts';
import { basePolicy } from '../../config/settings.ts';
import type { Revision } from '../../protocol/revisions.ts';
import { FixtureState, type ToolRun } from '../fixture-state.ts';
import { stdioLaunch, type StdioLaunch } from './bundle.ts';
import { checkPersonalities, personalitySpecs, type StdioPersonality } from './personalities.ts';
import { fromMachineClock, programArgs, STDIO_CHANNEL_ENV, STDIO_ERA_REVISIONS, STDIO_ERAS, type ChannelCommand, type ChannelEvent, type StdioEra, type StdioTarget } from './protocol.ts';
import { StdioRecord, type StdioProcess } from './record.ts';

export type { StdioTarget, StdioEra, StdioPersonality };

export interface StdioServerOptions {
  era: StdioEra;
  personalities?: readonly StdioPersonality[];
  /** The case's time policy: bounds the wait for killed processes at close(). Default: the settings' policy. */
  policy?: TimePolicy;
  /** More variables for the target's env (the channel's is always there). */
  env?: Record<string, string>;
}

/** A process of the record as it is now. */
export type StdioProcessState = StdioProcess & { alive: boolean };

export interface StdioReferenceServer {
  /** What the client under test is told to launch. */
  readonly target: StdioTarget;
  readonly era: StdioEra;
  readonly revisions: readonly Revision[];
  /** What every process launched from the target reported (exchanges, and `processes`). */
  readonly record: StdioRecord;
  /** How many times each tool ran and which runs were aborted, over every process. */
  readonly fixtures: FixtureState;
  /** Every process so far, with whether it is alive now. */
  processes(): StdioProcessState[];
  /** The pids of processes launched from the target that are alive now: reported ones, and any carrying the channel in its environment. */
  survivors(): number[];
  /** Sends a command to a process (default: the latest server process still connected); false when none is there. */
  command(command: ChannelCommand, process?: StdioProcess): boolean;
  /** Makes the server write a message of its own on stdout (a ping, a notification, a late answer). */
  send(message: unknown, process?: StdioProcess): boolean;
  /**
   * Waits, at most `ms`, until every process that has ended has its end in the record (its channel closed), and every
   * live one has reported all it read (a sync round trip on its channel: a line whose answer the client already has
   * may not have reached the harness yet, the two travelling on different pipes). A snapshot taken next is whole,
   * however busy the machine. Event-driven; never throws.
   */
  settle(ms: number): Promise<void>;
  /**
   * Waits, at most `ms`, until a server process launched from the target is alive and has said hello (from then on its
   * stdin is read and recorded). A client whose connect needs no round trip on its session's process (2026-07-28 after a
   * probe on a sibling) returns while that process is still starting: a script's timed request must not be charged
   * with the suite's own start-up. Event-driven; never throws.
   */
  serving(ms: number): Promise<void>;
  /**
   * Ends the case: kills (SIGKILL) every process of the target still alive and notes it (record.cleanup, each process's
   * killedByHarness), closes the channel and removes its socket and directory. Safe to call twice.
   */
  close(): Promise<void>;
}

/** The program's command line (bundle.ts: its snapshot, its bundle, or main.ts) for an era and personalities, with the channel named in its environment. */
export function stdioTarget(launch: StdioLaunch, era: StdioEra, personalities: readonly StdioPersonality[], channel: string, env: Record<string, string> = {}): StdioTarget {
  return {
    transport: 'stdio',
    command: process.execPath,
    args: [...launch.execArgv, launch.program, ...programArgs(era, personalitySpecs(personalities))],
    env: { ...env, [STDIO_CHANNEL_ENV]: channel },
  };
}

/** Whether the pid is this process (same start time, when known) and alive (a zombie is not). */
export function isAlive(pid: number | undefined, procStart?: string): boolean {
  if (pid === undefined) return false;
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const stat = procStat(pid);
  if (stat === undefined) return true;
  if (stat.state === 'Z' || stat.state === 'X') return false;
  return procStart === undefined || stat.start === procStart;
}

function procStat(pid: number): { state: string; start: string | undefined } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0] ?? '', start: fields[19] };
  } catch {
    return undefined;
  }
}

/** Linux: the pids of live processes whose environment holds `entry` (NAME=value). Elsewhere, none. */
function processesWithEnv(entry: string): number[] {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return [];
  }
  const needle = Buffer.from(`${entry}\0`);
  const found: number[] = [];
  const mine = ancestry();
  for (const name of pids) {
    const pid = Number(name);
    if (mine.has(pid)) continue;
    try {
      const environ = readFileSync(`/proc/${name}/environ`);
      if ((environ.indexOf(needle) === 0 || environ.indexOf(Buffer.concat([Buffer.from([0]), needle])) !== -1) && isAlive(pid)) found.push(pid);
    } catch {
      // gone, or not ours to read
    }
  }
  return found;
}

/** This process and its ancestors: never killed, whatever their environment says. */
function ancestry(): Set<number> {
  const pids = new Set([process.pid, process.ppid]);
  let pid = process.ppid;
  for (let depth = 0; depth < 64 && pid > 1; depth++) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      pid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      pids.add(pid);
    } catch {
      break;
    }
  }
  return pids;
}

/**
 * The channel directories of servers not closed yet: removed when this process exits whatever way it can still act
 * (a test runner's worker ending without close(), process.exit); only a SIGKILL leaves one behind.
 */
const openDirs = new Set<string>();
let exitHookInstalled = false;
function removeAtExit(dir: string): void {
  openDirs.add(dir);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const open of openDirs) rmSync(open, { recursive: true, force: true });
  });
}

const idKey = (process: StdioProcess, id: unknown) => `${process.index}:${JSON.stringify(id)}`;

export async function startStdioServer(options: StdioServerOptions): Promise<StdioReferenceServer> {
  const { era } = options;
  if (!(STDIO_ERAS as readonly string[]).includes(era)) throw new Error(`unknown stdio era "${era}"; eras: ${STDIO_ERAS.join(', ')}`);
  const policy = options.policy ?? basePolicy();
  const launch = await stdioLaunch();
  // A slow start without its own length lasts the policy's reaction bound.
  const personalities = checkPersonalities(era, personalitySpecs(options.personalities ?? [])).map((p) =>
    p.name === 'probe-slow-start' && p.ms === undefined ? { ...p, ms: policy.ms.react } : p,
  ) as StdioPersonality[];

  const dir = mkdtempSync(join(tmpdir(), 'mcp-stdio-'));
  removeAtExit(dir);
  const path = join(dir, 'channel.sock');
  const record = new StdioRecord();
  const fixtures = new FixtureState();
  const runs = new Map<string, ToolRun>();
  const sockets = new Map<StdioProcess, Socket>();
  /** The sync round trips in flight (`settle`), by id. */
  const pendingSyncs = new Map<number, () => void>();
  let syncs = 0;
  /** Each live process answers `sync` after everything it reported before: then the record has every stdin byte it read. */
  const sync = (ms: number) =>
    Promise.all(
      [...sockets]
        .filter(([entry]) => entry.pid !== undefined && isAlive(entry.pid, entry.procStart))
        .map(
          ([, socket]) =>
            new Promise<void>((resolve) => {
              const id = ++syncs;
              const done = () => {
                clearTimeout(timer);
                pendingSyncs.delete(id);
                resolve();
              };
              const timer = setTimeout(done, ms);
              pendingSyncs.set(id, done);
              socket.write(`${JSON.stringify({ t: 'sync', id } satisfies ChannelCommand)}\n`);
            }),
        ),
    ).then(() => {});

  const onEvent = (entry: StdioProcess, socket: Socket, event: ChannelEvent) => {
    record.ingest(entry, event);
    switch (event.t) {
      case 'hello':
        socket.write(`${JSON.stringify({ t: 'welcome', launch: entry.launch } satisfies ChannelCommand)}\n`);
        break;
      case 'run':
        runs.set(idKey(entry, event.requestId), fixtures.start(event.tool, event.requestId));
        break;
      case 'aborted': {
        const run = runs.get(idKey(entry, event.requestId));
        if (run) {
          fixtures.markAborted(run);
          run.abortedAt = fromMachineClock(event.at);
        }
        break;
      }
      case 'synced':
        pendingSyncs.get(event.id)?.();
        break;
      case 'sent':
        for (const message of Array.isArray(event.message) ? event.message : [event.message]) {
          const m = message as { id?: unknown; method?: unknown };
          const run = m.method === undefined && m.id !== undefined ? runs.get(idKey(entry, m.id)) : undefined;
          if (run && run.finishedAt === undefined) run.finishedAt = fromMachineClock(event.at);
        }
        break;
    }
  };

  const channel: Server = createServer((socket) => {
    const entry = record.connected();
    sockets.set(entry, socket);
    // Decoded by the socket, so a character cut between two reads arrives whole; a line's pieces are joined once it
    // ends, so a long one (a 10 MiB stdin line's event) costs its length, not its length times its reads.
    socket.setEncoding('utf8');
    let pending: string[] = [];
    socket.on('data', (text: string) => {
      let from = 0;
      let newline: number;
      while ((newline = text.indexOf('\n', from)) !== -1) {
        pending.push(text.slice(from, newline));
        const line = pending.join('');
        pending = [];
        from = newline + 1;
        if (line.trim() === '') continue;
        let event: ChannelEvent;
        try {
          event = JSON.parse(line) as ChannelEvent;
        } catch {
          continue;
        }
        onEvent(entry, socket, event);
      }
      if (from < text.length) pending.push(text.slice(from));
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      sockets.delete(entry);
      record.disconnected(entry);
    });
  });
  await new Promise<void>((resolve, reject) => {
    channel.once('error', reject);
    channel.listen(path, () => {
      channel.off('error', reject);
      resolve();
    });
  }).catch((error: unknown) => {
    rmSync(dir, { recursive: true, force: true });
    openDirs.delete(dir);
    throw error;
  });

  const target = stdioTarget(launch, era, personalities, path, options.env);
  const envEntry = `${STDIO_CHANNEL_ENV}=${path}`;
  const alive = (p: StdioProcess) => p.exit === undefined && isAlive(p.pid, p.procStart);
  const survivors = () => [...new Set([...record.processes.filter(alive).map((p) => p.pid!), ...processesWithEnv(envEntry)])];

  const command = (cmd: ChannelCommand, process?: StdioProcess) => {
    const to = process ?? [...sockets.keys()].filter((p) => p.role === 'server').at(-1);
    const socket = to && sockets.get(to);
    if (!socket) return false;
    socket.write(`${JSON.stringify(cmd)}\n`);
    return true;
  };

  let closed: Promise<void> | undefined;
  const settle = (ms: number) =>
    Promise.all([
      record.waitFor(() => [...sockets.keys()].every((p) => p.pid === undefined || isAlive(p.pid, p.procStart)), 'the channels of ended processes to close', ms).catch(() => {}),
      sync(ms),
    ]).then(() => {});
  fixtures.catchUp = () => settle(policy.ms.operation);

  const close = async () => {
    const stopped = new Promise<void>((resolve) => channel.close(() => resolve()));
    const killed = survivors();
    const at = record.now();
    for (const pid of killed) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // it went by itself meanwhile
      }
      const entry = record.processes.find((p) => p.pid === pid && p.exit === undefined);
      if (entry) entry.killedByHarness = { at };
    }
    record.cleanup = { at, killed };
    // The kernel closes a dead process's channel: wait for that, then for any unreported one to be gone; bounded.
    const deadline = performance.now() + policy.ms.operation;
    await record.waitFor(() => sockets.size === 0, 'every process of the target to close its channel', policy.ms.operation).catch(() => {});
    while (killed.some((pid) => isAlive(pid)) && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
    for (const socket of sockets.values()) socket.destroy();
    await stopped;
    rmSync(dir, { recursive: true, force: true });
    openDirs.delete(dir);
  };

  return {
    target,
    era,
    revisions: STDIO_ERA_REVISIONS[era],
    record,
    fixtures,
    processes: () => record.processes.map((p) => ({ ...p, alive: alive(p) })),
    survivors,
    command,
    send: (message, process) => command({ t: 'send', message }, process),
    settle,
    serving: (ms) =>
      record.waitFor(() => record.processes.some((p) => p.role === 'server' && alive(p)), 'a live server process', ms).then(
        () => {},
        () => {},
      ),
    close() {
      closed ??= close();
      return closed;
    },
  };
}
