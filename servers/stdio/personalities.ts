// stdio personalities: behaviours real stdio servers (and the launchers in front of them) have that break clients.
// A personality is plain data (a name and a few options, StdioPersonalitySpec), because it acts inside the program the
// client launches, not in the harness: the harness passes it on the command line and the program (serve.ts, main.ts)
// behaves accordingly. They compose: a wrapper around a server that ignores stdin EOF, a stderr flood with split writes.
import { PROBE_ANSWER_NOTE, type StdioEra, type StdioPersonalitySpec } from './protocol.ts';

export { PROBE_ANSWER_NOTE };

export interface StdioPersonalityEntry {
  description: string;
  /** Eras it makes sense with; undefined means all. */
  eras?: readonly StdioEra[];
}

/** 1 MiB and a line: "at least 1 MiB before the first answer". */
export const STDERR_FLOOD_BYTES = 1024 * 1024 + 64;

/** The character utf8-split makes sure every answer carries (three bytes in UTF-8), and cuts across two writes. */
export const UTF8_SPLIT_CHARACTER = '✓';
/** Where utf8-split puts it: a `_meta` key of the result (every revision allows `_meta` on every result). */
export const UTF8_SPLIT_META_KEY = 'mcp-client-conformance/utf8';

/** The ids of ping-at-initialize's pings (strings: no client request id is one of them). */
export const EARLY_PINGS = ['early-ping-before-result', 'early-ping-after-result'] as const;

export const STDIO_PERSONALITIES = {
  'ignores-stdin-eof': { description: 'keeps running when stdin reaches EOF (the client must go on to SIGTERM)' },
  'ignores-sigterm': { description: 'records SIGTERM and keeps running (the client must go on to SIGKILL)' },
  wrapper: {
    description:
      'an npx-like parent that spawns the real server (the other personalities go to it) with inherited stdio and does not forward signals: killed, it leaves the server running',
  },
  'stderr-flood': { description: 'writes 1 MiB to stderr before its first answer (blocking, as a full pipe blocks, until the client drains it); option bytes' },
  'stderr-chatter': { description: 'writes warnings, a banner and an "Error:"-looking line to stderr at start-up, and a debug line per request' },
  'split-writes': { description: 'writes every message in pieces of a few bytes, one write each with a pause between, at most 16 pieces (the rest of a longer message in the last) (options bytes, ms)' },
  'merged-writes': { description: 'holds messages until an answer is due and writes them, and answers due together, in one write' },
  'utf8-split': {
    description: `every answer carries "${UTF8_SPLIT_CHARACTER}" (in its result's _meta) and every message is written in two writes cut inside a multi-byte character`,
  },
  'answers-after-cancel': {
    description: 'holds each notifications/cancelled until it has answered the request it names, then handles it: the cancelled call completes and its answer arrives after the cancel (the race of cancellation › Timing Considerations)',
  },
  'ping-at-initialize': {
    description: `pings the client around the handshake: "${EARLY_PINGS[0]}" before it answers initialize (the client waits for its result), "${EARLY_PINGS[1]}" right after the result, before notifications/initialized can have arrived`,
  },
  'crash-mid-call': { description: 'on a tools/call (option tool), once the tool has started: a stack trace on stderr and exit 1, never answering' },
  'close-stdout-and-exit': { description: 'on a tools/call (option tool), once the tool has started: closes stdout, then exits 0 (a server-initiated shutdown)' },
  'batch-answers': {
    description:
      '2025-03-26: every answer (option tool: only those to calls of that tool) is written as a JSON-RPC batch (an array), with the notifications queued before it; the answers due together share one batch, or (option count) the answers are held until that many are due, at most ms (default 250) after the first',
    eras: ['2025-03-26'],
  },
  'probe-method-not-found': { description: 'answers server/discover with -32601 Method not found, as many legacy servers do' },
  'probe-invalid-params': { description: 'answers server/discover with -32602 Invalid params, as some legacy servers do' },
  'probe-silence': { description: 'never answers server/discover (the client must fall back within a bound)' },
  'probe-exit': { description: 'exits (code 1, a line on stderr) when server/discover arrives, as a legacy server that dies on an unknown method' },
  'probe-slow-start': { description: 'reads and records stdin from the start but handles nothing until ms after it started (its hello) (default: the time policy\'s react bound; 1 s when run by hand): a slow start' },
  'probe-corrective-version': {
    description: 'answers the first server/discover with -32022 naming 2026-07-28 (a mutual version), then lets the era answer',
    eras: ['2026-07-28', 'dual'],
  },
  'probe-unsupported-version': { description: 'answers server/discover with -32022 naming only 2099-01-01 (modern, no mutual version)' },
  'tools-only': {
    description: 'advertises only the tools capability in its InitializeResult and serves nothing else (resources, prompts, logging, completion: -32601); notes the initialize line',
    eras: ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'],
  },
} as const satisfies Record<string, StdioPersonalityEntry>;

export type StdioPersonalityName = keyof typeof STDIO_PERSONALITIES;

/** A personality as startStdioServer takes it: a name, or a name with options. */
export type StdioPersonality = StdioPersonalityName | (StdioPersonalitySpec & { name: StdioPersonalityName });

/** The spec of each personality given by name or with options. */
export function personalitySpecs(personalities: readonly StdioPersonality[]): StdioPersonalitySpec[] {
  return personalities.map((p) => (typeof p === 'string' ? { name: p } : { ...p }));
}

/** Throws when a personality is unknown or does not apply to the era; returns the specs. */
export function checkPersonalities(era: StdioEra, personalities: readonly StdioPersonalitySpec[]): StdioPersonalitySpec[] {
  for (const { name } of personalities) {
    const entry = (STDIO_PERSONALITIES as Record<string, StdioPersonalityEntry>)[name];
    if (!entry) throw new Error(`unknown stdio personality "${name}"; personalities: ${Object.keys(STDIO_PERSONALITIES).join(', ')}`);
    if (entry.eras && !entry.eras.includes(era)) throw new Error(`stdio personality ${name} does not apply to era ${era} (only ${entry.eras.join(', ')})`);
  }
  const wrappers = personalities.filter((p) => p.name === 'wrapper');
  if (wrappers.length > 1) throw new Error('only one wrapper per server');
  // The program decides it is a wrapper before the harness can tell it which launch it is.
  if (wrappers.some((w) => w.launch !== undefined)) throw new Error('a wrapper is every launch\'s (it takes no launch option)');
  // The era's server is built while the program waits to hear which launch it is: so is its shape.
  if (personalities.some((p) => p.name === 'tools-only' && p.launch !== undefined)) throw new Error('tools-only is every launch\'s (it takes no launch option)');
  return [...personalities];
}

/** The spec named `name` among these, if any (the first: a name is not repeated in practice). */
export function find(personalities: readonly StdioPersonalitySpec[], name: StdioPersonalityName): StdioPersonalitySpec | undefined {
  return personalities.find((p) => p.name === name);
}
