// Binds a request handler to 127.0.0.1 on a free port and closes it without leaving sockets open.
import { EventEmitter } from 'node:events';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { Socket } from 'node:net';
import getPort from 'get-port';

export const LOOPBACK = '127.0.0.1';

/** One connection a listener has open, as the server sees it (read-only: for leak reports, never for judging the wire). */
export interface OpenConnection {
  /** HTTP requests it has carried so far: 0 for a socket that never sent one. */
  requests: number;
  /** Requests on it whose response has not ended yet (a stream held open, say). */
  inFlight: number;
}

interface ConnectionTracker {
  readonly sockets: Map<Socket, OpenConnection>;
  /** Emits 'changed' each time one of them closes or a response on one ends. */
  readonly changes: EventEmitter;
}

// Every live listener's connections, by port: what a client under test still holds open is read from the server's side,
// whatever process the client runs in (suites/runner.ts), without the servers having to pass it through their fronts.
const trackers = new Map<number, ConnectionTracker>();

function track(server: Server): ConnectionTracker {
  const tracker: ConnectionTracker = { sockets: new Map(), changes: new EventEmitter() };
  server.on('connection', (socket: Socket) => {
    tracker.sockets.set(socket, { requests: 0, inFlight: 0 });
    socket.once('close', () => {
      tracker.sockets.delete(socket);
      tracker.changes.emit('changed');
    });
  });
  server.on('request', (req, res) => {
    const state = tracker.sockets.get(req.socket);
    if (!state) return;
    state.requests++;
    state.inFlight++;
    res.once('close', () => {
      state.inFlight--;
      tracker.changes.emit('changed');
    });
  });
  return tracker;
}

/** The connections open on the loopback listener behind `url` (a copy), or undefined when no listener of ours is there. */
export function openConnections(url: string): OpenConnection[] | undefined {
  const tracker = trackers.get(Number(new URL(url).port));
  return tracker && [...tracker.sockets.values()].map((state) => ({ ...state }));
}

/**
 * Waits, at most `timeoutMs`, until no connection open on the listener behind `url` is one that `counts` (default: every
 * one); resolves with those still open and counted then (empty when the listener is gone). Event-driven: it looks again
 * each time a connection closes or a response on one ends.
 */
export function connectionsClosed(url: string, timeoutMs: number, counts: (connection: OpenConnection) => boolean = () => true): Promise<OpenConnection[]> {
  const counted = () => (openConnections(url) ?? []).filter(counts);
  const tracker = trackers.get(Number(new URL(url).port));
  if (!tracker || counted().length === 0) return Promise.resolve([]);
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      tracker.changes.off('changed', onChanged);
      resolve(counted());
    };
    const onChanged = () => {
      if (counted().length === 0) done();
    };
    const timer = setTimeout(done, timeoutMs);
    tracker.changes.on('changed', onChanged);
  });
}

export interface Listening {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  port: number;
  server: Server;
  /** Stops accepting, ends every open connection (SSE streams included) and resolves when all are gone. */
  close(): Promise<void>;
}

export async function listenOnLoopback(handler: RequestListener, port = 0): Promise<Listening> {
  const server = createServer(handler);
  const tracker = track(server);
  // Node's default idle keep-alive (5 s), not shorter: with 1 s the `Keep-Alive: timeout=1` hint made undici open a new
  // connection per request, and an SSE response (no hint) left undici holding a socket for 4 s that the server dropped at
  // 2 s, so a request sent in between met ECONNRESET. close() ends every connection, idle or not.
  server.keepAliveTimeout = 5_000;
  for (let attempt = 0; ; attempt++) {
    const chosen = port !== 0 ? port : await getPort({ host: LOOPBACK });
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(chosen, LOOPBACK, () => {
          server.off('error', reject);
          resolve();
        });
      });
      break;
    } catch (error) {
      // get-port's answer can be taken by another process before we bind; try another once or twice.
      if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE' || port !== 0 || attempt >= 3) throw error;
    }
  }
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('server has no TCP address');
  trackers.set(address.port, tracker);
  let closing: Promise<void> | undefined;
  return {
    origin: `http://${LOOPBACK}:${address.port}`,
    port: address.port,
    server,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => {
          trackers.delete(address.port);
          resolve();
        });
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
