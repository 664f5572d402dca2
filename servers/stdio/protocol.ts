// What the stdio reference server's two halves agree on: the program the client under test launches (main.ts), and the
// harness that started it (harness.ts). The harness tells the program what to be on its command line; the program
// reports what it sees over a side channel, a Unix-domain socket named in its environment, one JSON object per line,
// as it happens; the harness answers on the same socket (the launch number, and commands a scenario gives).
// Node built-ins and types only: the program imports this before anything else, so its start-up stays cheap.
import type { Revision } from '../../protocol/revisions.ts';

/** The environment variable naming the side channel's socket (set in the target's env). */
export const STDIO_CHANNEL_ENV = 'MCP_CONFORMANCE_STDIO_CHANNEL';

export type { StdioTarget } from '../../protocol/stdio.ts';

/** The eras the stdio server speaks: each revision, and `dual` (2026-07-28 and 2025-11-25 on one process). */
export const STDIO_ERAS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28', 'dual'] as const;
export type StdioEra = (typeof STDIO_ERAS)[number];

/** The revisions each era answers. */
export const STDIO_ERA_REVISIONS: Record<StdioEra, readonly Revision[]> = {
  '2024-11-05': ['2024-11-05'],
  '2025-03-26': ['2025-03-26'],
  '2025-06-18': ['2025-06-18'],
  '2025-11-25': ['2025-11-25'],
  '2026-07-28': ['2026-07-28'],
  dual: ['2026-07-28', '2025-11-25'],
};

/** One line per era, for `serve-stdio --help`. */
export const STDIO_ERA_DESCRIPTIONS: Record<StdioEra, string> = {
  '2024-11-05': 'initialize handshake, answered with 2024-11-05 whatever the client offers',
  '2025-03-26': 'initialize handshake pinned to 2025-03-26; JSON-RPC batches accepted, their answers written as one batch',
  '2025-06-18': 'initialize handshake pinned to 2025-06-18 (a batch gets -32600)',
  '2025-11-25': 'initialize handshake pinned to 2025-11-25 (a batch gets -32600)',
  '2026-07-28': 'modern only (the SDK\'s serveStdio, legacy: reject): server/discover, the _meta envelope on every request',
  dual: '2026-07-28 and the 2025-11-25 handshake in one process (serveStdio, legacy: serve): the opening message decides',
};

/**
 * The longest stdin line the program keeps, in bytes (without its newline): the SDK's own stdio read limit
 * (STDIO_DEFAULT_MAX_BUFFER_SIZE, 10 MiB; servers/robustness/stdio-bad-input.test.ts checks they agree). Past it the rest
 * of the line is read and dropped, counted but neither kept nor reported, and the line is answered -32000 (serve.ts):
 * unbounded, one line that never ends would grow the program, the channel's events and the harness's record (the
 * test's own process) until something gave, as an endless line of a line-protocol program once did (V8's string
 * limit, clients/process/adapter.ts MAX_LINE_BYTES).
 */
export const MAX_STDIN_LINE_BYTES = 10 * 1024 * 1024;

/**
 * Milliseconds on the machine's monotonic clock (process.hrtime: CLOCK_MONOTONIC, one clock for all the processes of
 * the machine), with a fraction: both halves run on one machine, so their readings compare. Not the wall clock, which
 * each process reads once, at its start, for performance.timeOrigin: a step of it between two starts (a VM's time sync)
 * set the program and the harness 11 s apart in the middle of a run, and 15 proof cases saw a server killed before its
 * first line was read.
 */
export const machineNow = (): number => Number(process.hrtime.bigint()) / 1e6;

/**
 * machineNow() − performance.now() in this process: both are monotonic, so their distance is constant, and it is read
 * once, on first use, from the tightest of a few paired readings. Read afresh for every event, a preemption between
 * the two reads shifted that one event: a stderr write done just before the first answer was once placed after it.
 */
let machineOffset: number | undefined;
function machineOffsetMs(): number {
  if (machineOffset === undefined) {
    let tightest = Infinity;
    for (let reading = 0; reading < 5; reading++) {
      const before = machineNow();
      const perf = performance.now();
      const after = machineNow();
      if (after - before < tightest) {
        tightest = after - before;
        machineOffset = (before + after) / 2 - perf;
      }
    }
  }
  return machineOffset!;
}

/** A machineNow() reading on this process's performance.now() clock. */
export const fromMachineClock = (machineMs: number): number => machineMs - machineOffsetMs();

/** What launched the process (its role), and what it is made of. */
export type ProcessRole = 'server' | 'wrapper';

/** How the program was told to behave: each personality by name, with its options. See personalities.ts. */
export interface StdioPersonalitySpec {
  name: string;
  /** Only in this launch of the server (1: the first process that reports; the harness counts). Default: every launch. */
  launch?: number;
  /** Milliseconds (slow start, the pause between the pieces of a split write, how long merged-writes holds a message, how long batch-answers holds an answer for the others). */
  ms?: number;
  /** Bytes (the stderr flood's size, a split write's piece). */
  bytes?: number;
  /** The tool whose call it acts on (crash-mid-call, close-stdout-and-exit, batch-answers); default any tools/call (batch-answers: any request). */
  tool?: string;
  /** How many times it acts (probe answers); default every time (corrective: once). batch-answers: how many answers one batch holds. */
  count?: number;
  /** The versions a -32022 answer names. */
  supported?: string[];
}

/**
 * What the program reports, one per line. `at` is machineNow() in the program. Every event of one process arrives in the
 * order it happened, on that process's own connection.
 */
export type ChannelEvent =
  | {
      t: 'hello';
      at: number;
      pid: number;
      ppid: number;
      role: ProcessRole;
      era: StdioEra;
      personalities: StdioPersonalitySpec[];
      argv: string[];
      /** Linux: the process's start time in clock ticks (/proc/self/stat), so a reused pid is never taken for it. */
      procStart?: string;
    }
  /**
   * A chunk read from stdin, exactly as read (base64); or, `dropped`, that many bytes of it belonging to a line longer
   * than MAX_STDIN_LINE_BYTES, from the read that crossed the limit on: not kept (`data` empty). A chunk is reported,
   * in order, as one or more of these.
   */
  | { t: 'stdin'; at: number; data: string; dropped?: number }
  | { t: 'stdin-eof'; at: number }
  /**
   * One line of stdin (without its `\n`), numbered from 1: its text (`utf8` false when the bytes were not valid UTF-8),
   * its messages (a batch flattened), or why it is not JSON-RPC. `unterminated`: the bytes before EOF with no newline.
   * `tooLong`: the line's length in bytes, past MAX_STDIN_LINE_BYTES (its text is then empty: none of it is kept).
   */
  | { t: 'line'; at: number; line: number; text: string; utf8: boolean; messages: unknown[]; batch?: boolean; error?: string; unterminated?: boolean; tooLong?: number }
  /** A message the server wrote, when its last byte went out; `line`: the stdin line it answers or belongs to. */
  | { t: 'sent'; at: number; message: unknown; line?: number }
  /** One write to stdout, exactly as written (base64). */
  | { t: 'stdout'; at: number; data: string }
  | { t: 'stdout-error'; at: number; error: string }
  /** One write to stderr: when it began and finished (a full pipe blocks it), its size, its first bytes. */
  | { t: 'stderr'; at: number; doneAt: number; bytes: number; head: string }
  | { t: 'signal'; at: number; signal: string }
  /** A child this process spawned. */
  | { t: 'child'; at: number; pid: number }
  /** A fixture tool started for a request; then, if its abort signal fired, `aborted`. */
  | { t: 'run'; at: number; tool: string; requestId: string | number }
  | { t: 'aborted'; at: number; tool: string; requestId: string | number }
  /** A personality's label on the exchange of a stdin line (or on the process, without one). */
  | { t: 'note'; at: number; label: string; line?: number }
  /** The process is about to end: with this code, or by this signal (re-raised after it was recorded). */
  | { t: 'exit'; at: number; code: number | null; signal: string | null; reason: string }
  /** The answer to `sync`: every event the process reported before it (every stdin byte it read) is on the channel ahead of this. */
  | { t: 'synced'; at: number; id: number };

/** What the harness sends the program. */
export type ChannelCommand =
  /** The answer to hello: which launch of this server the process is (from 1). */
  | { t: 'welcome'; launch: number }
  /** Write this message to stdout, as the server writes its own (server-initiated: a ping, a notification, a late answer). */
  | { t: 'send'; message: unknown }
  /** Write these bytes (base64) to stdout as they are: framing a scenario needs exactly. */
  | { t: 'write'; data: string }
  /** Write this text to stderr. */
  | { t: 'stderr'; text: string }
  /** End the server: close stdout first when asked (the server-initiated shutdown), then exit with `code` (default 0). */
  | { t: 'exit'; code?: number; closeStdout?: boolean }
  /** Answer `synced` with this id at once (the channel is one ordered stream: what was reported before arrives before it). */
  | { t: 'sync'; id: number };

/** The note on a stdin line a probe personality answered (as the HTTP probe answers note their exchange). */
export const PROBE_ANSWER_NOTE = 'probe-answer';

/** The arguments after the script: `--era <era>` and one `--personality <name>[:<json options>]` per personality. */
export function programArgs(era: StdioEra, personalities: readonly StdioPersonalitySpec[]): string[] {
  const args = ['--era', era];
  for (const { name, ...options } of personalities) {
    args.push('--personality', Object.keys(options).length === 0 ? name : `${name}:${JSON.stringify(options)}`);
  }
  return args;
}

/** One `--personality` value: `<name>` or `<name>:<json options>`; throws when the options are not a JSON object. */
export function parsePersonalityArg(value: string): StdioPersonalitySpec {
  const colon = value.indexOf(':');
  if (colon === -1) return { name: value };
  const options: unknown = JSON.parse(value.slice(colon + 1));
  if (typeof options !== 'object' || options === null || Array.isArray(options)) throw new Error('the options after the colon must be a JSON object');
  return { ...(options as Omit<StdioPersonalitySpec, 'name'>), name: value.slice(0, colon) };
}

/** What programArgs wrote, read back; throws on anything else. */
export function parseProgramArgs(args: readonly string[]): { era: StdioEra; personalities: StdioPersonalitySpec[]; channel?: string } {
  let era: StdioEra | undefined;
  let channel: string | undefined;
  const personalities: StdioPersonalitySpec[] = [];
  for (let i = 0; i < args.length; i++) {
    const flag = args[i];
    const value = args[i + 1];
    if (value === undefined) throw new Error(`${flag} needs a value`);
    i++;
    if (flag === '--era') {
      if (!(STDIO_ERAS as readonly string[]).includes(value)) throw new Error(`unknown era "${value}"; eras: ${STDIO_ERAS.join(', ')}`);
      era = value as StdioEra;
    } else if (flag === '--personality') {
      personalities.push(parsePersonalityArg(value));
    } else if (flag === '--channel') {
      channel = value;
    } else {
      throw new Error(`unknown argument "${flag}"`);
    }
  }
  if (era === undefined) throw new Error('--era <era> is required');
  return { era, personalities, ...(channel !== undefined && { channel }) };
}
