// The lifecycle around authorization (issue 29): the server is a protected resource with a real authorization server
// (servers/authorization/), and the client is driven headlessly (ConnectOptions.authorization, the feature oauth).
import type { Scenario } from '../scenario.ts';
import { firstAuthorizationScenario } from './first-authorization.ts';
import { closeWithExpiredToken } from './close-with-expired-token.ts';
import { expiryOnListeningStream } from './expiry-on-listening-stream.ts';
import { expiryOnResumedGet } from './expiry-on-resumed-get.ts';
import { noAuthorizationLoop } from './no-authorization-loop.ts';
import { noTokenAcrossRedirect } from './no-token-across-redirect.ts';
import { oneRenewalInFlight } from './one-renewal-in-flight.ts';
import { preRegistered } from './pre-registered.ts';
import { probeChallengeNotLegacy } from './probe-challenge-not-legacy.ts';
import { issRequiredWhenAdvertised, metadataIssuerChecked } from './issuer.ts';
import { resourceAsPublished, resourceMismatchRefused } from './resource.ts';
import { stepUp, stepUpRetryLimit } from './step-up.ts';
import { tokenEndpointAuthAsRegistered } from './token-endpoint-auth.ts';
import { scopeFromChallenge, scopeFromMetadata, scopeOmitted } from './scope-selection.ts';
import { tokenExpiryKeepsSession } from './token-expiry-keeps-session.ts';
import { tokenOnlyWhereItBelongs } from './token-only-where-it-belongs.ts';

/** The official suite's families as scenarios (step-up, resource, issuer checks, token endpoint authentication). */
const AUTHORIZATION_FAMILIES: readonly Scenario[] = [stepUp, stepUpRetryLimit, resourceAsPublished, resourceMismatchRefused, metadataIssuerChecked, issRequiredWhenAdvertised, tokenEndpointAuthAsRegistered];

export const AUTHORIZATION: readonly Scenario[] = [
  tokenExpiryKeepsSession,
  oneRenewalInFlight,
  noAuthorizationLoop,
  tokenOnlyWhereItBelongs,
  probeChallengeNotLegacy,
  // The first authorization's steps (auth-map): scope selection, discovery, registration, PKCE, resource.
  scopeFromChallenge,
  scopeFromMetadata,
  scopeOmitted,
  firstAuthorizationScenario,
  preRegistered,
  // The lifecycle beyond a POST (auth-life): the GET streams, the close, another origin.
  expiryOnListeningStream,
  expiryOnResumedGet,
  closeWithExpiredToken,
  noTokenAcrossRedirect,
  ...AUTHORIZATION_FAMILIES,
];
