// What the framing and reading scenarios share: the text they echo (a newline, characters of two and three UTF-8
// bytes), the faults the stdio record notes on a stdin line, and a way to watch an echo call that does not wait the
// whole operation bound for a client whose line the server could not read.
import type { ClientConnection } from '../../clients/adapter.ts';
import type { StdioRecord } from '../../servers/stdio/record.ts';
import type { WireExchange } from '../../servers/wire-record.ts';
import { Watched, type Outcome } from '../outcome.ts';
import type { ScenarioContext } from '../scenario.ts';
import { after, isStdioLine, seqNow } from '../wire.ts';

/**
 * The argument every echo carries: a newline (escaped in JSON, never written raw), characters of two and three UTF-8
 * bytes, and a run of eight three-byte characters (24 bytes) that a write cut every 8 bytes always cuts inside one.
 */
export const ECHO_TEXT = 'line one\nline two ✓ naïve 日本語のテキスト';

/** The faults of a stdin line that make it no single message: not JSON (a pretty-printed message's lines), blank, or cut off at EOF. */
export const FRAMING_FAULTS = ['stdin-not-json', 'stdin-blank-line', 'stdin-unterminated'] as const;

/** Lines the client wrote that are no single JSON-RPC message. */
export function misframed(exchanges: readonly WireExchange[]): WireExchange[] {
  return exchanges.filter((x) => isStdioLine(x) && x.notes.some((note) => (FRAMING_FAULTS as readonly string[]).includes(note)));
}

/** What became of an echo call: its outcome, the text it returned, and whether the server saw its line misframed. */
export interface EchoSeen extends Outcome {
  /** The text of the result's content, when it resolved. */
  text?: string;
  /** A line the client wrote after the call began was no single message: the server could not read the call. */
  misframed?: true;
}

export function isEchoSeen(value: unknown): value is EchoSeen {
  const state = (value as { state?: unknown } | null)?.state;
  return typeof value === 'object' && value !== null && (state === 'resolved' || state === 'rejected' || state === 'pending');
}

/** The text of a tool result's text content. */
export const textOf = (result: { content?: unknown[] }): string =>
  (result.content ?? [])
    .filter((item): item is { type: 'text'; text: string } => (item as { type?: unknown })?.type === 'text' && typeof (item as { text?: unknown }).text === 'string')
    .map((item) => item.text)
    .join('');

/**
 * Calls echo with `text` and waits until the call settles, at most the operation bound; when the server's record shows
 * a misframed line from the client meanwhile, only a reaction time more (an answer to a call the server could not read
 * never comes).
 */
export async function watchEcho(context: Pick<ScenarioContext, 'stdio' | 'time'>, client: ClientConnection, text = ECHO_TEXT): Promise<EchoSeen> {
  const { record } = context.stdio;
  const mark = seqNow(record);
  const since = performance.now();
  let returned: string | undefined;
  const watched = new Watched(
    client.callTool('echo', { text }).then((result) => {
      returned = textOf(result);
      return result;
    }),
  );
  const faulted = await settledOrMisframed(record, watched, mark, context.time.ms.operation);
  if (faulted) await watched.within(context.time.ms.react);
  return { ...watched.since(since), ...(returned !== undefined && { text: returned }), ...(faulted && { misframed: true as const }) };
}

/** Resolves true when a misframed line arrives after `mark` before the call settles, false when it settles (or `ms` pass). */
function settledOrMisframed(record: StdioRecord, watched: Watched, mark: number, ms: number): Promise<boolean> {
  let off = () => {};
  let timer: NodeJS.Timeout | undefined;
  const seen = new Promise<boolean>((resolve) => {
    const look = () => {
      if (misframed(after(record.exchanges, mark)).length > 0) resolve(true);
    };
    off = record.onEvent(look);
    look();
    timer = setTimeout(() => resolve(false), ms);
  });
  return Promise.race([watched.settled.then(() => false), seen]).finally(() => {
    off();
    clearTimeout(timer);
  });
}
