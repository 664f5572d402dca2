import type { Scenario } from '../scenario.ts';
import { handshakeOrder } from './handshake-order.ts';
import { versionPerRevision } from './version-per-revision.ts';

export const NEGOTIATION: readonly Scenario[] = [handshakeOrder, versionPerRevision];
