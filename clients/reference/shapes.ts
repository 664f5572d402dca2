// Correct clients of other shapes: the reference client driven the way real clients are built, the mirror of the
// broken variants. Each shape follows every rule; only when it connects, and how long a session lives, differ:
// - per-operation: every listing or call opens a session of its own and closes it (a service that connects per tool
//   call, as the seed 003 service does; one launch per operation over stdio);
// - lazy: connect() sends nothing, the first operation does the handshake, later ones reuse the session;
// - fresh-after-error: one session, given up after an operation fails; the next operation starts a new one;
// - ref-counted: one session, kept while anyone holds it: close() gives up the user's hold, and a call in flight holds
//   its own, so the session ends when the last call settles (pydantic-ai's MCPToolset);
// - cached-listing: the reference, except that listTools is answered from a cache of the client instance after its first
//   listing of a server (as pydantic-ai's MCPToolset does by default, cache_tools=True): a later listing never reaches
//   the wire, so a scenario whose next request must reach the server calls a tool instead.
// A scenario must pass every shape it applies to with no fail and no warn (suites/shapes.test.ts proves it); where a
// scenario cannot drive a shape (resuming a session a per-operation client never keeps), the shape does not declare
// the feature and the scenario says n/a.
import type { ClientAdapter, ClientConnection, ClientUnderTest, ConnectOptions, ConnectionInfo, Feature, ServerTarget, ToolSummary } from '../adapter.ts';
import { ReferenceClient } from './client.ts';
import { ConnectionDropped, HttpStatusError, SessionExpiredError, SessionLost, StreamCut } from './errors.ts';
import { REFERENCE_REVISIONS } from './protocol.ts';
import { REFERENCE_FEATURES, REFERENCE_TRANSPORTS } from './index.ts';

export type ShapeName = 'per-operation' | 'lazy' | 'fresh-after-error' | 'ref-counted' | 'cached-listing';

/** The features a shape cannot honour: a session that is not kept cannot be resumed, kept or listened on. */
const DROPPED: Record<ShapeName, readonly Feature[]> = {
  'per-operation': ['resume', 'keep-session', 'listen'],
  lazy: [],
  'fresh-after-error': [],
  'ref-counted': [],
  'cached-listing': [],
};

const DESCRIPTIONS: Record<ShapeName, string> = {
  'per-operation': 'reference client shaped as a session per operation: each listing or call connects, runs, closes',
  lazy: 'reference client shaped to connect lazily: connect() sends nothing, the first operation does the handshake',
  'fresh-after-error': 'reference client shaped to start over after an error: a failed operation ends its session, the next one opens a new one',
  'ref-counted': 'reference client shaped as a reference-counted session: close() ends the session at once when no call is in flight, else when the last call settles',
  'cached-listing': 'reference client shaped to cache the tool list: after its first listing of a server, listTools is answered from the cache, never the wire',
};

/**
 * The failures after which a fresh-after-error client starts over: the server lost the session (404), failed (5xx) or
 * dropped the connection. Not a cancel or a timeout of the caller's (the session is fine), not an answer the server
 * gave (a JSON-RPC error), not 401/403 (a new session is no cure for a missing credential).
 */
function sessionFailure(error: unknown): boolean {
  if (error instanceof HttpStatusError) return error.status === 404 || error.status >= 500;
  return error instanceof ConnectionDropped || error instanceof SessionExpiredError || error instanceof SessionLost || error instanceof StreamCut;
}

/** Opens the underlying connection when first needed, and can forget it so the next use opens another. */
class Lazily {
  private opening: Promise<ClientConnection> | undefined;
  private readonly open: () => Promise<ClientConnection>;
  constructor(open: () => Promise<ClientConnection>, first?: ClientConnection) {
    this.open = open;
    if (first !== undefined) this.opening = Promise.resolve(first);
  }

  get(): Promise<ClientConnection> {
    this.opening ??= this.open();
    return this.opening;
  }

  /** The open connection, if one was asked for. */
  current(): Promise<ClientConnection> | undefined {
    return this.opening;
  }

  /** Forgets the connection (closing it quietly): the next `get` opens a fresh one. */
  async drop(): Promise<void> {
    const opening = this.opening;
    this.opening = undefined;
    const connection = await opening?.catch(() => undefined);
    await connection?.close().catch(() => {});
  }
}

function perOperation(client: ReferenceClient, target: ServerTarget, options: ConnectOptions): ClientConnection {
  let last: ConnectionInfo = {};
  const open = new Set<ClientConnection>();
  /** Sessions still being ended (their cancels sent, their DELETE or shutdown under way): close() waits for them. */
  const ending = new Set<Promise<void>>();
  async function once<T>(work: (connection: ClientConnection) => Promise<T>): Promise<T> {
    // One operation's session after another: the next waits until an earlier failed one's session has ended.
    await Promise.all(ending);
    const connection = await client.connect(target, options);
    open.add(connection);
    const end = () => {
      const ended = connection.close().catch(() => {});
      ending.add(ended);
      void ended.finally(() => {
        ending.delete(ended);
        open.delete(connection);
      });
      return ended;
    };
    let result: T;
    try {
      last = await connection.info();
      result = await work(connection);
    } catch (error) {
      // A failed, cancelled or timed-out operation ends its session too (the shape keeps nothing between operations),
      // behind the caller, who gave up on it and is answered at once: ending it may wait on the server (the cancel
      // the close sends first, a DELETE).
      void end();
      throw error;
    }
    await end();
    return result;
  }
  return {
    info: async () => last,
    listTools: (operation) => once((connection) => connection.listTools(operation)),
    callTool: (name, args, operation) => once((connection) => connection.callTool(name, args, operation)),
    close: async () => {
      await Promise.all([...[...open].map((connection) => connection.close().catch(() => {})), ...ending]);
    },
  };
}

function kept(client: ReferenceClient, target: ServerTarget, options: ConnectOptions, startOverAfterError: boolean, first?: ClientConnection): ClientConnection {
  const session = new Lazily(() => client.connect(target, options), first);
  let closed = false;
  async function use<T>(work: (connection: ClientConnection) => Promise<T>): Promise<T> {
    if (closed) throw new Error('the connection is closed');
    const connection = await session.get();
    try {
      return await work(connection);
    } catch (error) {
      if (startOverAfterError && sessionFailure(error)) await session.drop();
      throw error;
    }
  }
  return {
    info: async () => {
      const current = session.current();
      return current === undefined ? {} : (await current.catch(() => undefined))?.info() ?? {};
    },
    listTools: (operation) => use((connection) => connection.listTools(operation)),
    callTool: (name, args, operation) => use((connection) => connection.callTool(name, args, operation)),
    close: async () => {
      closed = true;
      const current = session.current();
      if (current === undefined) return;
      const connection = await current.catch(() => undefined);
      await connection?.close();
    },
  };
}

/**
 * A session held by the user (from connect to close) and by each call in flight: close() only gives up the user's
 * hold and resolves at once; the session ends (the reference's own close: DELETE, stream hung up, stdin closed) when
 * the last hold goes. pydantic-ai's MCPToolset: `__aexit__` decrements a running count, the session closes at zero, and
 * a call made while entered enters the toolset itself.
 */
function refCounted(connection: ClientConnection): ClientConnection {
  let holds = 1; // the user's, from connect
  let released = false;
  let ended: Promise<void> | undefined;
  const end = (): Promise<void> => (ended ??= connection.close());
  const release = (): Promise<void> => (--holds === 0 ? end() : Promise.resolve());
  async function held<T>(work: () => Promise<T>): Promise<T> {
    if (released) throw new Error('the connection is closed');
    holds++;
    try {
      return await work();
    } finally {
      // The last call out ends the session behind it; its own caller already has the call's outcome.
      void release().catch(() => {});
    }
  }
  return {
    info: () => connection.info(),
    listTools: (operation) => held(() => connection.listTools(operation)),
    callTool: (name, args, operation) => held(() => connection.callTool(name, args, operation)),
    close: async () => {
      // A second close gives up no second hold: it waits for what the first did.
      if (released) return holds === 0 ? end() : undefined;
      released = true;
      await release();
    },
  };
}

/**
 * The tool lists of one client instance, per server: the first listing of a server that succeeds is kept, and every
 * later listing of it (on any connection of the instance) is answered from it. Only a result is kept: a failed listing
 * leaves the next one to the wire. pydantic-ai also forgets its cache on notifications/tools/list_changed; no scenario
 * lists again after one, and the reference exposes no hook for it.
 */
class ToolListCache {
  private readonly lists = new Map<string, Promise<ToolSummary[]>>();

  /** The connection with its listTools answered from the cache of `target`'s tools, once a listing of it succeeded. */
  wrap(target: ServerTarget, connection: ClientConnection): ClientConnection {
    const key = JSON.stringify(target);
    return {
      info: () => connection.info(),
      listTools: (operation) => {
        const cached = this.lists.get(key);
        if (cached !== undefined) return cached.then((tools) => tools.map((tool) => ({ ...tool })));
        const listing = connection.listTools(operation);
        // Kept from its start, so listings made together share the first; forgotten if it fails.
        this.lists.set(key, listing);
        listing.catch(() => {
          if (this.lists.get(key) === listing) this.lists.delete(key);
        });
        return listing;
      },
      callTool: (name, args, operation) => connection.callTool(name, args, operation),
      close: () => connection.close(),
    };
  }
}

/** The reference client (every rule on) in one shape. */
export function shapedReference(shape: ShapeName): ClientAdapter {
  return {
    name: `shape-${shape}`,
    description: DESCRIPTIONS[shape],
    revisions: REFERENCE_REVISIONS,
    features: REFERENCE_FEATURES.filter((feature) => !DROPPED[shape].includes(feature)),
    transports: REFERENCE_TRANSPORTS,
    start: async (): Promise<ClientUnderTest> => {
      const client = new ReferenceClient();
      const toolLists = new ToolListCache();
      return {
        async connect(target, options) {
          if (shape === 'cached-listing') return toolLists.wrap(target, await client.connect(target, options));
          if (shape === 'per-operation') return perOperation(client, target, options);
          if (shape === 'lazy') return kept(client, target, options, false);
          // ref-counted connects at once (entering the toolset opens its session), as the reference does.
          if (shape === 'ref-counted') return refCounted(await client.connect(target, options));
          // fresh-after-error connects at once, as the reference does, and starts over lazily after an error.
          return kept(client, target, options, true, await client.connect(target, options));
        },
        dispose: () => client.dispose(),
      };
    },
  };
}

export const SHAPES: readonly ShapeName[] = ['per-operation', 'lazy', 'fresh-after-error', 'ref-counted', 'cached-listing'];
export const shapedReferences: readonly ClientAdapter[] = SHAPES.map(shapedReference);
