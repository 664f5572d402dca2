// Hostile stdio clients, as test fixtures: a lean client that launches the server itself (servers/stdio/test-client.ts:
// its own child, real pipes) and speaks the handshake, tools/list and tools/call at HOSTILE_REVISION, with one habit
// the stdio transport invites and no HTTP client can have. They prove the suite stays in charge of a stdio case
// whatever the client does to the process it launched (clients/hostile/hostile.test.ts, "over stdio").
import { once } from 'node:events';
import { isStdioTarget, type ClientAdapter, type ClientConnection, type ClientUnderTest } from '../adapter.ts';
import { RawStdioClient, type RawMessage } from '../../servers/stdio/test-client.ts';
import { HOSTILE_REVISION } from './adapters.ts';

export const STDIO_HABITS = {
  'never-reads-stdout': 'after the handshake it stops reading the server’s stdout, and sends requests whose answers fill the pipe',
  'floods-stdin': 'from the handshake until close() it writes lines of garbage to the server’s stdin as fast as the pipe takes them',
  'leaves-server-running': 'close() and dispose() end nothing: as a client process that exits, it leaves the server running, its stdin open',
} as const;
export type StdioHabit = keyof typeof STDIO_HABITS;

/** How many tools/list requests the never-reading client sends at once: their answers are many times what a pipe holds (64 KiB). */
export const UNREAD_REQUESTS = 200;
/** One line of the flood, 1 KiB: no JSON. */
export const FLOOD_LINE = `${'garbage '.repeat(127)}garbage\n`;
/** The flood's writes: whole lines, so a request written between two stays a line of its own. */
const FLOOD_BLOCK = FLOOD_LINE.repeat(64);

const never = <T>(): Promise<T> => new Promise<T>(() => {});

/**
 * Writes the flood until `stopped()`, each block once the pipe took the last; resolves the first time the pipe is full
 * (it goes on). A request then waits behind a full pipe, and a pipe's worth (64 KiB) more at most, wherever the flood
 * began: how many lines it waits behind is the pipe's size, not the machine's speed (a fixed number of bytes
 * flooded first made it wait for the server to read them all, which a loaded machine took longer than the call's bound).
 */
function flood(raw: RawStdioClient, stopped: () => boolean): Promise<void> {
  const stdin = raw.child.stdin!;
  const gone = new Promise<void>((resolve) => stdin.once('close', () => resolve()));
  return new Promise<void>((full) => {
    void (async () => {
      while (!stopped() && stdin.writable) {
        if (stdin.write(FLOOD_BLOCK)) continue;
        full();
        await Promise.race([once(stdin, 'drain'), gone]);
      }
      full();
    })();
  });
}

function hostileStdioClient(habit: StdioHabit, launched: RawStdioClient[]): ClientUnderTest {
  let raw: RawStdioClient | undefined;
  let stopFlood = false;
  /** Resolves once the flood has filled the pipe: every request waits for it. */
  let flooded: Promise<void> = Promise.resolve();
  let nextId = 1_000;
  /** Its own bound on an answer: the connect's (the runner bounds every operation from outside as well). */
  let answerMs = 0;

  const request = async (method: string, params: Record<string, unknown>): Promise<RawMessage> => {
    await flooded;
    const id = nextId++;
    raw!.send({ id, method, params });
    const answer = await raw!.answerTo(id, answerMs);
    if (answer.error) throw new Error(`${method}: ${answer.error.message}`);
    return answer;
  };

  const connection = (negotiatedVersion: string): ClientConnection => ({
    info: async () => ({ negotiatedVersion, era: 'legacy' }),
    async listTools() {
      if (habit === 'never-reads-stdout') {
        // Answers it will never read, far more than the pipe holds: the server's writes block once it is full.
        for (let i = 0; i < UNREAD_REQUESTS; i++) raw!.send({ id: nextId++, method: 'tools/list', params: {} });
        return never();
      }
      const answer = await request('tools/list', {});
      return ((answer.result?.['tools'] ?? []) as { name: string }[]).map(({ name }) => ({ name }));
    },
    async callTool(name, args) {
      const answer = await request('tools/call', { name, arguments: args });
      return answer.result as { content: unknown[] };
    },
    async close() {
      stopFlood = true;
      if (habit === 'leaves-server-running') return;
      // Well-behaved otherwise: stdin closed, and the server left to exit (dispose kills what has not).
      raw!.closeStdin();
    },
  });

  return {
    async connect(target, options) {
      if (!isStdioTarget(target)) throw new TypeError('a stdio-only client was given a URL');
      raw = new RawStdioClient(target);
      launched.push(raw);
      answerMs = options.timeoutMs;
      const init = await raw.request('initialize', { protocolVersion: HOSTILE_REVISION, capabilities: {}, clientInfo: { name: `hostile-stdio-${habit}`, version: '0' } }, options.timeoutMs);
      if (init.error) throw new Error(`initialize: ${init.error.message}`);
      raw.send({ method: 'notifications/initialized' });
      // Paused, the stream reads no more once its buffer is full: the pipe behind it fills, and then the server's writes wait.
      if (habit === 'never-reads-stdout') raw.child.stdout!.pause();
      if (habit === 'floods-stdin') flooded = flood(raw, () => stopFlood);
      return connection(String(init.result?.['protocolVersion']));
    },
    async dispose() {
      if (!raw) return;
      if (habit === 'leaves-server-running') {
        // As if its process had exited, except that its ends of the pipes stay open: the server goes on. Unref'd, they
        // keep nothing of the suite alive; the runner finds the server and kills it, and they close with it.
        raw.child.unref();
        for (const stream of [raw.child.stdin, raw.child.stdout, raw.child.stderr]) (stream as { unref?: () => void } | null)?.unref?.();
        return;
      }
      await raw.dispose();
    },
  };
}

/** The processes the hostile stdio adapter's clients launched, so a test can say what became of them. */
export interface HostileStdioAdapter extends ClientAdapter {
  readonly launched: RawStdioClient[];
}

/** A hostile stdio client at HOSTILE_REVISION, with one habit. */
export function hostileStdioAdapter(habit: StdioHabit): HostileStdioAdapter {
  const launched: RawStdioClient[] = [];
  return {
    name: `hostile-stdio-${habit}`,
    description: `a hostile test client over stdio: ${STDIO_HABITS[habit]}`,
    revisions: [HOSTILE_REVISION],
    transports: ['stdio'],
    // The legacy handshake at the revision the server is pinned to: nothing else.
    features: ['mode-legacy'],
    launched,
    start: async () => hostileStdioClient(habit, launched),
  };
}
