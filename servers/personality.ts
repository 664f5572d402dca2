// Server personalities: behaviours real servers and proxies have that break clients, composable with eras.
//
// A personality is an object the caller creates and keeps: its methods are its control surface
// (for example `expiring.expireAfter(3)`), and the server calls `attach` when it starts.
import type { Era, EraBackend } from './era.ts';
import type { FixtureState } from './fixtures.ts';
import type { Middleware } from './http.ts';
import type { WireRecord } from './wire-record.ts';

export interface PersonalityHost {
  readonly era: Era;
  readonly backend: EraBackend;
  readonly record: WireRecord;
  readonly fixtures: FixtureState;
}

/** A server placed in front of the era server (a proxy or a gateway): what clients talk to. */
export interface Front {
  /** The URL clients are given. */
  url: string;
  /** What the front received from clients: this becomes the server's main record. */
  record: WireRecord;
  close(): Promise<void>;
}

export interface FrontDependencies {
  /** The URL of the era server behind the front. */
  backendUrl: string;
  /** The era server's own record: what the front forwarded to it. */
  backendRecord: WireRecord;
  /** False when the server was started with recording off: the front's record should be off too. */
  recording: boolean;
  /** Starts another instance of the same era server (same personalities but fronts), for gateways. */
  startInstance(): Promise<{ url: string; record: WireRecord; close(): Promise<void> }>;
}

export interface Personality {
  /** What kind of personality this is, for error messages (the registry may offer one kind under several names). */
  readonly name: string;
  /** Eras it makes sense with; undefined means all. */
  readonly eras?: readonly Era[];
  /** Starts what the personality itself runs (a decoy listener, say), once per server, before any instance. */
  start?(): Promise<void>;
  /** Called with each era instance when it starts, before it listens. */
  attach?(host: PersonalityHost): void;
  /** Stops what `start` started; called once when the server closes. */
  close?(): Promise<void>;
  /** HTTP-level behaviour, run after recording and the Origin check, before the era handler. */
  readonly middleware?: Middleware;
  /**
   * The OAuth authorization server the personality runs beside the MCP server (servers/authorization/), once started:
   * its record becomes the evidence's authorization lane.
   */
  readonly authorizationServer?: { readonly issuer: string; readonly record: WireRecord };
  /** Puts a proxy or gateway in front of the server. At most one personality per server may have one. */
  front?(dependencies: FrontDependencies): Promise<Front>;
}
