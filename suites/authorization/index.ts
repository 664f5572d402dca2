// The lifecycle around authorization (issue 29): the server is a protected resource with a real authorization server
// (servers/authorization/), and the client is driven headlessly (ConnectOptions.authorization, the feature oauth).
import type { Scenario } from '../scenario.ts';
import { noAuthorizationLoop } from './no-authorization-loop.ts';
import { oneRenewalInFlight } from './one-renewal-in-flight.ts';
import { probeChallengeNotLegacy } from './probe-challenge-not-legacy.ts';
import { issRequiredWhenAdvertised, metadataIssuerChecked } from './issuer.ts';
import { resourceAsPublished, resourceMismatchRefused } from './resource.ts';
import { stepUp, stepUpRetryLimit } from './step-up.ts';
import { tokenEndpointAuthAsRegistered } from './token-endpoint-auth.ts';
import { tokenExpiryKeepsSession } from './token-expiry-keeps-session.ts';
import { tokenOnlyWhereItBelongs } from './token-only-where-it-belongs.ts';

/** The official suite's families as scenarios (step-up, resource, issuer checks, token endpoint authentication). */
const AUTHORIZATION_FAMILIES: readonly Scenario[] = [stepUp, stepUpRetryLimit, resourceAsPublished, resourceMismatchRefused, metadataIssuerChecked, issRequiredWhenAdvertised, tokenEndpointAuthAsRegistered];

export const AUTHORIZATION: readonly Scenario[] = [tokenExpiryKeepsSession, oneRenewalInFlight, noAuthorizationLoop, tokenOnlyWhereItBelongs, probeChallengeNotLegacy, ...AUTHORIZATION_FAMILIES];
