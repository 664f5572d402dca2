// The adapter contract: what a client under test offers the suites.
//
// An adapter is thin. It calls the client's public API the way the client's documentation shows and
// adds no lifecycle logic of its own, or the suite would be testing the adapter instead of the client.
// Everything an adapter reports is a claim; the suites judge from what the server received.
import type { Revision } from '../servers/revisions.ts';

/**
 * Capabilities a client may or may not have. A scenario that needs a feature the adapter does not
 * declare is reported "not applicable" with the reason, never passed.
 */
export type Feature =
  /** Legacy Streamable HTTP (2025-03-26 … 2025-11-25). */
  | 'streamable-http'
  /** Cancels an in-flight call when its AbortSignal fires. */
  | 'cancellation';

export interface ClientAdapter {
  /** Stable name, used in test titles, baselines and `--adapter`. */
  readonly name: string;
  /** One line: which client, which version, which mode. */
  readonly description: string;
  /** The revisions the client can speak; scenarios at other revisions are not applicable. */
  readonly revisions: readonly Revision[];
  readonly features: readonly Feature[];
  /** Connects and completes whatever handshake the client performs; resolves when it is usable. */
  connect(url: string, options: ConnectOptions): Promise<ClientConnection>;
}

export interface ConnectOptions {
  /** Upper bound for the connect itself; the runner also enforces it from outside. */
  timeoutMs: number;
}

export interface OperationOptions {
  /** Aborting it must cancel the request (if the adapter declares `cancellation`). */
  signal?: AbortSignal;
  /** Per-request timeout the client itself should apply. */
  timeoutMs?: number;
}

export interface ToolSummary {
  name: string;
}

export interface ToolResult {
  content: unknown[];
  isError?: boolean;
}

export interface ClientConnection {
  /** The protocol revision the client says it negotiated. */
  negotiatedVersion(): string | undefined;
  /** The session id the client says it holds (legacy Streamable HTTP), if any. */
  sessionId(): string | undefined;
  listTools(options?: OperationOptions): Promise<ToolSummary[]>;
  callTool(name: string, args: Record<string, unknown>, options?: OperationOptions): Promise<ToolResult>;
  /** Ends the connection the way the client's documentation says to end it. */
  close(): Promise<void>;
}
