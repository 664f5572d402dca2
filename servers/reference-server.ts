// The control surface every reference server offers the suites.
import type { Era } from './era.ts';
import type { FixtureState } from './fixtures.ts';
import type { Revision } from '../protocol/revisions.ts';
import type { WireRecord } from './wire-record.ts';

export interface ReferenceServer {
  /** The URL a client under test is given. */
  readonly url: string;
  readonly era: Era;
  /** The revisions the server answers. */
  readonly revisions: readonly Revision[];
  /** Every HTTP exchange clients sent, as the client-facing server (or front) received it. */
  readonly record: WireRecord;
  /** How many times each tool ran and which handlers were aborted. */
  readonly fixtures: FixtureState;
  /** Session ids the server issued, in order (including expired and deleted ones). */
  issuedSessions(): string[];
  /** Session ids still accepted. */
  liveSessions(): string[];
  /** Ends one session (or every live one) so later requests with its id get the era's unknown-session answer. */
  expireSession(sessionId?: string): Promise<void>;
  /** Stops the server (and any front) and ends every open connection; safe to call twice. */
  close(): Promise<void>;
}
