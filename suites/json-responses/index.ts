// The same scenarios against a server that answers every POST with one application/json body instead of an SSE
// stream (personality json-responses): the transport lets a server choose either (2025-03-26 on: Sending Messages to
// the Server), and a client that handles only streams breaks there. Twins of scenarios whose rules do not depend on
// a stream (no progress, no server requests, no resumption on a POST).
import { S } from '../../protocol/revisions.ts';
import { jsonResponses } from '../../servers/personalities/json-responses.ts';
import { timeoutCancels } from '../cancellation/timeout-cancels.ts';
import { deleteIssuedSession } from '../disposal/delete-issued-session.ts';
import { inFlightSettled } from '../disposal/in-flight-settled.ts';
import { handshakeOrder } from '../negotiation/handshake-order.ts';
import { versionPerRevision } from '../negotiation/version-per-revision.ts';
import { HANDLER_ABORTED_PROOF } from '../outcome.ts';
import type { Scenario } from '../scenario.ts';

/** `scenario` against the json-responses server, at the sessionful Streamable HTTP revisions: json-responses/<its name>. */
export function overJson(scenario: Scenario): Scenario {
  const { setup } = scenario;
  return {
    ...scenario,
    id: `json-responses/${scenario.id.slice(scenario.id.indexOf('/') + 1)}`,
    twinOf: scenario.id,
    revisions: scenario.revisions.filter((revision) => (S as readonly string[]).includes(revision)),
    setup: (revision, time) => {
      const base = setup?.(revision, time) ?? { state: undefined };
      return { ...base, server: { ...base.server, personalities: [...(base.server?.personalities ?? []), jsonResponses()] } };
    },
  };
}

/** Against a server answering JSON no variant leaves the handler running (the DELETE ends it): a doctored record shows the check fail. */
const inFlightSettledOverJson: Scenario = {
  ...overJson(inFlightSettled),
  doctored: [
    ...(inFlightSettled.doctored ?? []),
    HANDLER_ABORTED_PROOF,
  ],
};

export const JSON_RESPONSES: readonly Scenario[] = [...[handshakeOrder, versionPerRevision, timeoutCancels].map(overJson), inFlightSettledOverJson, overJson(deleteIssuedSession)];
