import { slowResponses } from '../../servers/personalities/slow-responses.ts';
import { check, clientCompleted } from '../checks.ts';
import { defineScenario } from '../scenario.ts';
import { cancellation, cancelNotifications, carrying, holdsWithin, idOf, L, labels, QUIET_MS } from './support.ts';

/** The connect's own timeout: it runs out while the server holds initialize. */
// Long enough that a client slow to start (a proxy process such as mcp-remote takes 0.3–1.2 s) or CPU-starved has
// sent initialize before it gives up: with 300 ms such a client never sent one, and the rule was never exercised.
const CONNECT_TIMEOUT_MS = 1_500;
/** Long past the timeout: initialize is never answered within the scenario (the server's close ends the hold). */
const HOLD_MS = 5_000;

export const neverInitialize = defineScenario({
  id: 'cancellation/never-initialize',
  title: 'A connect that times out during a held initialize sends no notifications/cancelled for it',
  revisions: L,
  requires: [],
  source: { spec: cancellation('2025-06-18', 'behavior-requirements', 'Behavior Requirements: the initialize request MUST NOT be cancelled by clients', 'MUST') },
  setup() {
    return { server: { personalities: [slowResponses({ method: 'initialize', ms: HOLD_MS, count: 1 })] }, state: undefined };
  },
  async run({ connect, server, observe }) {
    try {
      await connect({ timeoutMs: CONNECT_TIMEOUT_MS });
      observe('connect', 'resolved');
    } catch (error) {
      observe('connect', error instanceof Error ? `${error.constructor.name}: ${error.message}` : String(error));
    }
    // A cancellation is sent when the client gives up, or not at all: a short window, ending early if one comes.
    const initializeId = idOf(carrying(server.record.exchanges, 'initialize')[0], 'initialize');
    await holdsWithin(server.record, (record) => cancelNotifications(record.exchanges).some((c) => c.requestId === initializeId), 'notifications/cancelled for initialize', QUIET_MS);
  },
  judge(evidence) {
    const { revision } = evidence;
    const initializes = carrying(evidence.exchanges, 'initialize');
    const ids = new Set(initializes.map((exchange) => idOf(exchange, 'initialize')));
    const cancels = cancelNotifications(evidence.exchanges).filter((c) => ids.has(c.requestId as string | number));
    return [
      clientCompleted(evidence, cancellation(revision, 'behavior-requirements', 'Behavior Requirements: a connect that gives up', 'MUST')),
      check(
        'initialize-not-cancelled',
        cancellation(revision, 'behavior-requirements', 'Behavior Requirements: the initialize request MUST NOT be cancelled by clients', 'MUST'),
        initializes.length > 0 && cancels.length === 0,
        initializes.length === 0
          ? 'no initialize reached the server'
          : cancels.length === 0
            ? `the connect gave up (${String(evidence.observed.connect)}) and no notifications/cancelled named the initialize request`
            : `notifications/cancelled named the initialize request: ${labels(cancels.map((c) => c.exchange))}`,
        [...initializes, ...cancels.map((c) => c.exchange)],
      ),
    ];
  },
});
