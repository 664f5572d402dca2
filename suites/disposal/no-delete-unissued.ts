import { isModern, S_AND_M, type Revision } from '../../protocol/revisions.ts';
import { echoSessionHeaders, type EchoSessionHeaders } from '../../servers/personalities/echo-session-headers.ts';
import type { WireExchange } from '../../servers/wire-record.ts';
import { check, clientCompleted, precondition } from '../checks.ts';
import { ordinaryRejection } from '../outcome.ts';
import { defineScenario, type Check, type Evidence, type Level } from '../scenario.ts';
import { sessionManagement, transports } from '../spec.ts';
import { label, noted, seqNow, serverName, sessionOf } from '../wire.ts';

/** The id the proxy injects on a response that is not the InitializeResult: no server ever issued it. */
export const INJECTED_ID = 'injected-by-a-proxy';
/** The client-minted affinity key of the 2026-07-28 leg. */
export const AFFINITY_KEY = 'client-minted-affinity-key';
/** The note the proxy puts on the response it injected the id on. */
const INJECTED = `injected-session-id:${INJECTED_ID}`;
/** The sessionful server of the legacy leg: the first the script starts. */
const SESSIONFUL = 0;

const SEED_000 = 'seed 000: disposal sent DELETE for a session the server never issued, tearing down the instance the routing key pinned';

function rule(revision: Revision, section: string, level: Level = 'SHOULD') {
  return isModern(revision)
    ? transports(
        revision,
        'earlier-streamable-http-revisions',
        `Earlier Streamable HTTP Revisions (sessions and DELETE are not part of 2026-07-28; a client-minted affinity key is no session): ${section}; ${SEED_000}`,
        level,
      )
    : sessionManagement(revision, `DELETE is for the session id the server issued with the InitializeResult: ${section}; ${SEED_000}`, level);
}

/** A close() that fails because its DELETE named a bogus id is this scenario's finding, not a client error (a hang is). */
async function closeObserved(closing: Promise<void>, key: string, observe: (key: string, value: unknown) => void): Promise<void> {
  try {
    await closing;
  } catch (error) {
    observe(key, ordinaryRejection(error));
  }
}

const deletes = (exchanges: readonly WireExchange[]) => exchanges.filter((exchange) => exchange.method === 'DELETE');
const describe = (list: readonly WireExchange[]) => list.map((e) => `${label(e)} with Mcp-Session-Id ${sessionOf(e) ?? '(none)'}`).join(', ');

/** Why a leg did not set up what its rule needs (the proxy's injection seen, then close() called), or undefined when it did. */
function legNotReached(exchanges: readonly WireExchange[] | undefined, closeFromSeq: unknown, where: string): string | undefined {
  if (exchanges === undefined) return `the script did not reach ${where}`;
  if (noted(exchanges, INJECTED).length === 0) return `the proxy in front of ${where} never injected ${INJECTED_ID} (no tools/list was answered)`;
  if (closeFromSeq === undefined) return `the script did not reach close() on ${where}`;
  return undefined;
}

export const noDeleteUnissued = defineScenario<{ proxy: EchoSessionHeaders }>({
  id: 'disposal/no-delete-unissued',
  title: 'No DELETE when the server issued no session id (stateless legacy), never in 2026-07-28 (not for a client-minted affinity key), never for an id only a proxy injected',
  revisions: S_AND_M,
  requires: [],
  // At 2026-07-28 an adapter that declares a client-minted affinity key connects with one: it must not be DELETEd either.
  optional: ['affinity-key'],
  source: { spec: sessionManagement('2025-06-18', 'DELETE ends the session the server issued', 'SHOULD'), seed: '000' },
  setup(revision) {
    // Every leg goes through a proxy that injects an id of its own on the tools/list response.
    const proxy = echoSessionHeaders();
    // Legacy: a stateless server (it issues no id); 2026-07-28: the modern server (no sessions at all).
    return { server: { era: isModern(revision) ? revision : 'stateless', personalities: [proxy] }, state: { proxy } };
  },
  async run({ connect, bounded, startServer, server, state, revision, features, observe }) {
    state.proxy.injectOnNextResponse(INJECTED_ID, { method: 'tools/list' });
    const affinityKey = isModern(revision) && features.includes('affinity-key') ? AFFINITY_KEY : undefined;
    if (affinityKey !== undefined) observe('affinityKey', affinityKey);
    const client = await connect(affinityKey !== undefined ? { affinityKey } : {});
    await bounded(client.listTools(), 'tools/list (answered with an injected Mcp-Session-Id)');
    observe('closeFromSeq', seqNow(server.record));
    await closeObserved(bounded(client.close(), 'close'), 'closeError', observe);
    if (isModern(revision)) return;
    // A sessionful server behind the same kind of proxy: only the issued id may be DELETEd.
    const proxy = echoSessionHeaders();
    const sessionful = await startServer({ personalities: [proxy] });
    proxy.injectOnNextResponse(INJECTED_ID, { method: 'tools/list' });
    const second = await connect({}, { server: sessionful });
    await bounded(second.listTools(), 'tools/list on the sessionful server (answered with an injected Mcp-Session-Id)');
    observe('sessionfulCloseFromSeq', seqNow(sessionful.record));
    await closeObserved(bounded(second.close(), 'close the sessionful connection'), 'secondCloseError', observe);
  },
  judge(evidence) {
    const { revision, observed } = evidence;
    const first = deletes(evidence.exchanges);
    const firstLeg = isModern(revision) ? 'the modern server' : 'the stateless server';
    const firstNotReached = legNotReached(evidence.exchanges, observed.closeFromSeq, firstLeg);
    const checks: Check[] = [
      precondition(
        'injected-before-close',
        rule(revision, 'the client connects through the proxy and closes'),
        firstNotReached === undefined,
        firstNotReached ?? `the proxy injected ${INJECTED_ID} on a tools/list answer of ${firstLeg}, then the client closed`,
      ),
      clientCompleted(evidence, rule(revision, 'the client connects through the proxy and closes', 'MUST')),
      check(
        'no-delete-without-issued-id',
        rule(revision, isModern(revision) ? 'no DELETE, whatever key the client sends' : 'a server that issued no id gets no DELETE'),
        first.length === 0,
        first.length === 0
          ? isModern(revision)
            ? `no DELETE (${observed.affinityKey === undefined ? 'the adapter declares no affinity key' : `the client sent its affinity key ${AFFINITY_KEY}`}; the proxy injected ${INJECTED_ID})`
            : `no DELETE to the stateless server (the proxy injected ${INJECTED_ID})`
          : `DELETE sent although no server issued a session: ${describe(first)}${observed.closeError === undefined ? '' : `; close() then failed: ${String(observed.closeError)}`}`,
        first,
      ),
    ];
    if (!isModern(revision)) {
      const other = evidence.otherServers[SESSIONFUL];
      const where = `the sessionful server (${serverName(SESSIONFUL)})`;
      const sessionfulNotReached = legNotReached(other?.exchanges, observed.sessionfulCloseFromSeq, where);
      const issued = other?.issuedSessions ?? [];
      const second = deletes(other?.exchanges ?? []);
      const injected = second.filter((exchange) => sessionOf(exchange) === INJECTED_ID);
      checks.push(
        precondition(
          'sessionful-server-reached',
          rule(revision, 'an id a proxy injected on a later response was never issued'),
          sessionfulNotReached === undefined,
          sessionfulNotReached ?? `the proxy injected ${INJECTED_ID} on a tools/list answer of ${where}, then the client closed`,
        ),
        check(
          'no-delete-for-injected-id',
          rule(revision, 'an id a proxy injected on a later response was never issued'),
          injected.length === 0,
          injected.length === 0
            ? `no DELETE for the injected id on ${where}${second.length > 0 ? `: ${describe(second)}; issued: ${issued.join(', ') || 'none'}` : ''}`
            : `DELETE for the id only the proxy injected, on ${where}: ${describe(injected)} (issued: ${issued.join(', ') || 'none'}, never ended)${
                observed.secondCloseError === undefined ? '' : `; close() then failed: ${String(observed.secondCloseError)}`
              }`,
          injected,
        ),
      );
    }
    return checks;
  },
  doctored: [
    {
      check: 'injected-before-close',
      unmet: true,
      how: 'the proxy never injected its id (no tools/list was answered)',
      doctor: (e: Evidence) => ({ ...e, exchanges: e.exchanges.map((x) => ({ ...x, notes: x.notes.filter((note) => note !== INJECTED) })) }),
    },
    {
      check: 'sessionful-server-reached',
      unmet: true,
      how: 'the script stopped before the sessionful server (a connect that timed out on a loaded machine)',
      doctor: (e: Evidence) => ({ ...e, otherServers: [], observed: { ...e.observed, sessionfulCloseFromSeq: undefined } }),
    },
  ],
});
