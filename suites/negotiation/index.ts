import type { Scenario } from '../scenario.ts';
import { autoFallsBack } from './auto-falls-back.ts';
import { autoStaysModern } from './auto-stays-modern.ts';
import { capabilitiesRespected } from './capabilities-respected.ts';
import { downgrade } from './downgrade.ts';
import { dualEraPrefersModern } from './dual-era-prefers-modern.ts';
import { eraCached } from './era-cached.ts';
import { errorForm } from './error-form.ts';
import { handshakeOrder } from './handshake-order.ts';
import { legacyModeNoProbe } from './legacy-mode-no-probe.ts';
import { modernEnvelope } from './modern-envelope.ts';
import { noFallbackOnFailure } from './no-fallback-on-failure.ts';
import { unsupportedAnswer } from './unsupported-answer.ts';
import { versionPerRevision } from './version-per-revision.ts';

/** In catalogue order (../shared/docs/scenarios.md). */
export const NEGOTIATION: readonly Scenario[] = [
  handshakeOrder,
  versionPerRevision,
  downgrade,
  unsupportedAnswer,
  errorForm,
  modernEnvelope,
  autoFallsBack,
  autoStaysModern,
  noFallbackOnFailure,
  eraCached,
  legacyModeNoProbe,
  dualEraPrefersModern,
  // Beyond the catalogue: traceability rule A12 (lifecycle › Operation).
  capabilitiesRespected,
];
