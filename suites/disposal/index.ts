import type { Scenario } from '../scenario.ts';
import { closeDuringConnect } from './close-during-connect.ts';
import { closeWithHungDelete } from './close-with-hung-delete.ts';
import { deleteIssuedSession } from './delete-issued-session.ts';
import { idempotentClose } from './idempotent-close.ts';
import { inFlightSettled } from './in-flight-settled.ts';
import { keepPersistedSession } from './keep-persisted-session.ts';
import { noDeleteUnissued } from './no-delete-unissued.ts';
import { quietAfterClose } from './quiet-after-close.ts';
import { sseStreamClosed } from './sse-stream-closed.ts';

/** In catalogue order (../shared/docs/scenarios.md › disposal). */
export const DISPOSAL: readonly Scenario[] = [
  deleteIssuedSession,
  noDeleteUnissued,
  keepPersistedSession,
  inFlightSettled,
  idempotentClose,
  quietAfterClose,
  sseStreamClosed,
  closeDuringConnect,
  // Beyond the catalogue: traceability rule L3 (a shutdown timeout).
  closeWithHungDelete,
];
