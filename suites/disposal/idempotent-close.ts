import { isStreamable, L_AND_M } from '../../protocol/revisions.ts';
import { check, checkIf, clientCompleted, precondition } from '../checks.ts';
import { describeOutcome, outcomeOf, settle } from '../outcome.ts';
import { defineScenario, type Evidence } from '../scenario.ts';
import { sessionManagement, shutdown } from '../spec.ts';
import { labels, seqNow } from '../wire.ts';

export const idempotentClose = defineScenario({
  id: 'disposal/idempotent-close',
  title: 'Closing twice is harmless: no error, at most one DELETE',
  revisions: L_AND_M,
  requires: [],
  source: { spec: shutdown('2025-06-18', 'closing an already closed connection changes nothing', 'SHOULD') },
  async run({ connect, bounded, observe, server }) {
    const client = await connect();
    await bounded(client.listTools(), 'tools/list');
    observe('closeFromSeq', seqNow(server.record));
    await bounded(client.close(), 'close');
    // A rejection is the check's finding; a hang is recorded as one too (and the runner fails client-completed for it).
    observe('secondClose', await settle(bounded(client.close(), 'close again')));
  },
  judge(evidence) {
    const { revision } = evidence;
    const deletes = evidence.exchanges.filter((exchange) => exchange.method === 'DELETE');
    const secondClose = outcomeOf(evidence, 'secondClose');
    // Only the Streamable HTTP revisions end a session with DELETE; elsewhere the rule is the shutdown's.
    const deleteRule = isStreamable(revision)
      ? sessionManagement(revision, 'one DELETE ends the session; a second one names an id the server has already ended', 'SHOULD')
      : shutdown(revision, 'closing twice sends no second termination', 'SHOULD');
    return [
      precondition(
        'close-reached',
        shutdown(revision, 'closing an already closed connection changes nothing', 'SHOULD'),
        evidence.observed.closeFromSeq !== undefined,
        evidence.observed.closeFromSeq === undefined ? 'the script did not reach close(): the client did not connect and list its tools' : 'the client connected, listed its tools and closed',
      ),
      clientCompleted(evidence, shutdown(revision, 'the client connects and closes', 'MUST')),
      checkIf(
        secondClose === undefined ? 'the first close() did not resolve, so there was no second one (client-completed says why)' : undefined,
        'second-close-harmless',
        shutdown(revision, 'closing an already closed connection is not an error', 'SHOULD'),
        () => secondClose?.state === 'resolved',
        () => describeOutcome(secondClose, 'the second close()'),
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
      doctor: (e: Evidence) => ({ ...e, observed: { ...e.observed, secondClose: { state: 'rejected', afterMs: 1, detail: 'Error: already closed' } } }),
    },
    {
      check: 'close-reached',
      unmet: true,
      how: 'the script stopped before close()',
      doctor: (e: Evidence) => ({ ...e, observed: { ...e.observed, closeFromSeq: undefined, secondClose: undefined } }),
    },
  ],
});
