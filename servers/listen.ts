// Binds a request handler to 127.0.0.1 on a free port and closes it without leaving sockets open.
import { createServer, type RequestListener, type Server } from 'node:http';
import getPort from 'get-port';

export const LOOPBACK = '127.0.0.1';

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
  // Streams held open by clients (SSE) must not keep the process alive once the test is over.
  server.keepAliveTimeout = 1_000;
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
  let closing: Promise<void> | undefined;
  return {
    origin: `http://${LOOPBACK}:${address.port}`,
    port: address.port,
    server,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
