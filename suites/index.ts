// Every scenario, in catalogue order.
import { deleteIssuedSession } from './disposal/delete-issued-session.ts';
import { handshakeOrder } from './negotiation/handshake-order.ts';
import { versionPerRevision } from './negotiation/version-per-revision.ts';
import type { Scenario } from './scenario.ts';

export const SCENARIOS: readonly Scenario[] = [handshakeOrder, versionPerRevision, deleteIssuedSession];
