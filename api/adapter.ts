// The adapter contract (the package's `./adapter` entry): what a client under test offers the suite
// (clients/adapter.ts, clients/WRITING-AN-ADAPTER.md), and processAdapter for a client in another process that speaks
// the line protocol (docs/line-protocol.md). An adapter module needs nothing else from the package.
export type {
  AuthorizationOptions,
  ClientAdapter,
  ClientConnection,
  ClientHandlers,
  ClientUnderTest,
  ConnectionInfo,
  ConnectOptions,
  Feature,
  Negotiation,
  OperationOptions,
  ResumeState,
  ServerTarget,
  StdioTarget,
  ToolResult,
  ToolSummary,
  Transport,
  Wraps,
} from '../clients/adapter.ts';
export { ADAPTER_CONTRACT_VERSION, FEATURES, HANDLER_FEATURES, TRANSPORTS, featureFor, isStdioTarget, stateless, transportsOf } from '../clients/adapter.ts';
export { ClientProcessError, LINE_PROTOCOL_VERSION, processAdapter, type ProcessAdapter, type ProcessAdapterConfig } from '../clients/process/adapter.ts';
export type { Revision } from '../protocol/revisions.ts';
