// The lifecycle around authorization (issue 29): the server is a protected resource with a real authorization server
// (servers/authorization/), and the client is driven headlessly (ConnectOptions.authorization, the feature oauth).
import type { Scenario } from '../scenario.ts';
import { firstAuthorizationScenario } from './first-authorization.ts';
import { noAuthorizationLoop } from './no-authorization-loop.ts';
import { oneRenewalInFlight } from './one-renewal-in-flight.ts';
import { preRegistered } from './pre-registered.ts';
import { probeChallengeNotLegacy } from './probe-challenge-not-legacy.ts';
import { scopeFromChallenge, scopeFromMetadata, scopeOmitted } from './scope-selection.ts';
import { tokenExpiryKeepsSession } from './token-expiry-keeps-session.ts';
import { tokenOnlyWhereItBelongs } from './token-only-where-it-belongs.ts';

export const AUTHORIZATION: readonly Scenario[] = [tokenExpiryKeepsSession, oneRenewalInFlight, noAuthorizationLoop, tokenOnlyWhereItBelongs, probeChallengeNotLegacy, scopeFromChallenge, scopeFromMetadata, scopeOmitted, firstAuthorizationScenario, preRegistered];
