// The program's end of the side channel: events go out as JSON lines, in order, queued until the socket is connected;
// commands come back. Without a channel (no socket named, or none listening: a human ran the program by hand) events
// go nowhere and the program serves all the same.
import { createConnection, type Socket } from 'node:net';
import { machineNow, type ChannelCommand, type ChannelEvent } from './protocol.ts';

/** The longest the program waits for its last events to reach the harness before it exits anyway. */
const FLUSH_BOUND_MS = 2_000;

export class ProgramChannel {
  private socket: Socket | undefined;
  private connected = false;
  private readonly queue: string[] = [];
  private readonly handlers: ((command: ChannelCommand) => void)[] = [];
  private pending = '';
  /** Resolves with the launch number once the harness answered hello (undefined without a channel). */
  readonly welcome: Promise<number | undefined>;
  private settleWelcome!: (launch: number | undefined) => void;

  constructor(path: string | undefined) {
    this.welcome = new Promise((resolve) => (this.settleWelcome = resolve));
    if (path === undefined || path === '') {
      this.settleWelcome(undefined);
      return;
    }
    const socket = createConnection(path);
    this.socket = socket;
    socket.setNoDelay?.(true);
    socket.on('connect', () => {
      this.connected = true;
      const lines = this.queue.splice(0);
      if (lines.length > 0) socket.write(lines.join(''));
    });
    // Decoded by the socket: a character cut between two reads arrives whole.
    socket.setEncoding('utf8');
    socket.on('data', (text: string) => this.receive(text));
    // No harness (gone, or never there): serve without reporting.
    const lost = (error?: NodeJS.ErrnoException) => {
      const wasConnected = this.connected;
      this.connected = false;
      this.socket = undefined;
      this.queue.length = 0;
      this.settleWelcome(undefined);
      // It was there and went (its end of the socket closes with it, however it ended), or it is gone already: the
      // socket's file is left but nobody listens (a harness that was killed), or the file was removed (one closed).
      if (wasConnected || error?.code === 'ECONNREFUSED' || error?.code === 'ENOENT') this.harnessGone();
    };
    socket.on('error', lost);
    socket.on('close', () => lost());
  }

  private readonly goneHandlers: (() => void)[] = [];
  private gone = false;

  /** Calls `handler` once the harness that named this channel is gone (never for a program run without one). */
  onHarnessGone(handler: () => void): void {
    this.goneHandlers.push(handler);
    if (this.gone) handler();
  }

  private harnessGone(): void {
    if (this.gone) return;
    this.gone = true;
    for (const handler of this.goneHandlers) handler();
  }

  /** Whether events reach a harness (or may still: the socket is connecting). */
  get open(): boolean {
    return this.socket !== undefined;
  }

  report(event: ChannelEvent): void {
    if (!this.socket) return;
    const line = `${JSON.stringify(event)}\n`;
    if (this.connected) this.socket.write(line);
    else this.queue.push(line);
  }

  onCommand(handler: (command: ChannelCommand) => void): void {
    this.handlers.push(handler);
  }

  /** Resolves when every event so far has been handed to the kernel (bounded: an unread socket does not hold the exit). */
  flush(): Promise<void> {
    const socket = this.socket;
    if (!socket) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, FLUSH_BOUND_MS);
      const done = () => {
        clearTimeout(timer);
        resolve();
      };
      if (!this.connected) {
        socket.once('connect', () => socket.write('', done));
        socket.once('close', done);
      } else {
        socket.write('', done);
      }
    });
  }

  /** Stops listening for commands and lets the socket go (the process may end naturally after this). */
  close(): void {
    this.socket?.end();
    this.socket?.unref();
  }

  private receive(text: string): void {
    this.pending += text;
    let newline: number;
    while ((newline = this.pending.indexOf('\n')) !== -1) {
      const line = this.pending.slice(0, newline);
      this.pending = this.pending.slice(newline + 1);
      if (line.trim() === '') continue;
      let command: ChannelCommand;
      try {
        command = JSON.parse(line) as ChannelCommand;
      } catch {
        continue;
      }
      if (command.t === 'welcome') this.settleWelcome(command.launch);
      // Answered here, whatever the process is doing: a stdin chunk is reported as it is read, so before this.
      if (command.t === 'sync') this.report({ t: 'synced', at: machineNow(), id: command.id });
      for (const handler of this.handlers) handler(command);
    }
  }
}
