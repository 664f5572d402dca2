import { check, clientCompleted } from '../checks.ts';
import { defineScenario, type Evidence } from '../scenario.ts';
import { L_AND_M, labels, S, sessionManagement, shutdown } from './support.ts';

export const idempotentClose = defineScenario({
  id: 'disposal/idempotent-close',
  title: 'Closing twice is harmless: no error, at most one DELETE',
  revisions: L_AND_M,
  requires: [],
  source: { spec: shutdown('2025-06-18', 'closing an already closed connection changes nothing', 'SHOULD') },
  async run({ connect, bounded, observe }) {
    const client = await connect();
    await bounded(client.listTools(), 'tools/list');
    await bounded(client.close(), 'close');
    try {
      await bounded(client.close(), 'close again');
    } catch (error) {
      observe('secondCloseError', error instanceof Error ? `${error.constructor.name}: ${error.message}` : String(error));
    }
  },
  judge(evidence) {
    const { revision } = evidence;
    const deletes = evidence.exchanges.filter((exchange) => exchange.method === 'DELETE');
    const secondCloseError = evidence.observed.secondCloseError;
    // Only the Streamable HTTP revisions end a session with DELETE; elsewhere the rule is the shutdown's.
    const deleteRule = (S as readonly string[]).includes(revision)
      ? sessionManagement(revision, 'one DELETE ends the session; a second one names an id the server has already ended', 'SHOULD')
      : shutdown(revision, 'closing twice sends no second termination', 'SHOULD');
    return [
      clientCompleted(evidence, shutdown(revision, 'the client connects and closes', 'MUST')),
      check(
        'second-close-harmless',
        shutdown(revision, 'closing an already closed connection is not an error', 'SHOULD'),
        secondCloseError === undefined,
        secondCloseError === undefined ? 'the second close() resolved' : `the second close() failed: ${String(secondCloseError)}`,
      ),
      check(
        'at-most-one-delete',
        deleteRule,
        deletes.length <= 1,
        deletes.length <= 1 ? `${deletes.length} DELETE sent for two close() calls` : `${deletes.length} DELETEs sent for two close() calls (${labels(deletes)})`,
        deletes,
      ),
    ];
  },
  doctored: [
    {
      check: 'second-close-harmless',
      how: 'the second close() rejected',
      doctor: (e: Evidence) => ({ ...e, observed: { ...e.observed, secondCloseError: 'Error: already closed' } }),
    },
  ],
});
