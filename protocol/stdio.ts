// The stdio target: what a client is told to launch when its server is a local program (the adapter contract's
// `connect(target)`, and what the suite's stdio reference server hands out). On the ground floor, so the servers that
// make one and the clients that launch one share one definition.

/**
 * A server the client launches itself (the stdio transport): the command, as a host's configuration names a local MCP
 * server. The client spawns `command` with `args` (no shell), writes JSON-RPC messages to its stdin, one per line, and
 * reads its answers from its stdout.
 */
export interface StdioTarget {
  transport: 'stdio';
  /** The program to run: an absolute path, or a name looked up on PATH. */
  command: string;
  args: string[];
  /**
   * Variables the server must find in its environment, on top of whatever the client passes its servers by default
   * (the suite's reference server needs nothing else: these carry its side channel to the harness).
   */
  env?: Record<string, string>;
  /** The server's working directory; absent: the client's own default. */
  cwd?: string;
}
