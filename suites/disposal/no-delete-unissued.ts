import { echoSessionHeaders, type EchoSessionHeaders } from '../../servers/personalities/echo-session-headers.ts';
import { specUrl, type Revision } from '../../protocol/revisions.ts';
import type { WireExchange } from '../../servers/wire-record.ts';
import { check, clientCompleted } from '../checks.ts';
import { defineScenario, type Check } from '../scenario.ts';
import { isModern, labels, S_AND_M, sessionManagement, spec } from './support.ts';

/** The id the proxy injects on a response that is not the InitializeResult: no server ever issued it. */
export const INJECTED_ID = 'injected-by-a-proxy';
/** The client-minted affinity key of the 2026-07-28 leg. */
export const AFFINITY_KEY = 'client-minted-affinity-key';

const SEED_000 = 'seed 000: disposal sent DELETE for a session the server never issued, tearing down the instance the routing key pinned';

function rule(revision: Revision, section: string, level: 'MUST' | 'SHOULD' = 'SHOULD') {
  return isModern(revision)
    ? spec(
        specUrl(revision, 'basic/transports/streamable-http', 'earlier-streamable-http-revisions'),
        `Streamable HTTP › Earlier Streamable HTTP Revisions (sessions and DELETE are not part of 2026-07-28; a client-minted affinity key is no session): ${section}; ${SEED_000}`,
        level,
      )
    : sessionManagement(revision, `DELETE is for the session id the server issued with the InitializeResult: ${section}; ${SEED_000}`, level);
}

/** A close() that fails because its DELETE named a bogus id is this scenario's finding, not a client error. */
async function closeObserved(closing: Promise<void>, key: string, observe: (key: string, value: unknown) => void): Promise<void> {
  try {
    await closing;
  } catch (error) {
    observe(key, error instanceof Error ? `${error.constructor.name}: ${error.message}` : String(error));
  }
}

const deletes = (exchanges: readonly WireExchange[]) => exchanges.filter((exchange) => exchange.method === 'DELETE');
const describe = (list: readonly WireExchange[]) => list.map((e) => `${labels([e])} with Mcp-Session-Id ${e.requestHeaders['mcp-session-id'] ?? '(none)'}`).join(', ');

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
  async run({ connect, bounded, startServer, state, revision, features, observe }) {
    state.proxy.injectOnNextResponse(INJECTED_ID, { method: 'tools/list' });
    const affinityKey = isModern(revision) && features.includes('affinity-key') ? AFFINITY_KEY : undefined;
    if (affinityKey !== undefined) observe('affinityKey', affinityKey);
    const client = await connect(affinityKey !== undefined ? { affinityKey } : {});
    await bounded(client.listTools(), 'tools/list (answered with an injected Mcp-Session-Id)');
    await closeObserved(bounded(client.close(), 'close'), 'closeError', observe);
    if (isModern(revision)) return;
    // A sessionful server behind the same kind of proxy: only the issued id may be DELETEd.
    const proxy = echoSessionHeaders();
    const sessionful = await startServer({ personalities: [proxy] });
    proxy.injectOnNextResponse(INJECTED_ID, { method: 'tools/list' });
    const second = await connect({}, { server: sessionful });
    await bounded(second.listTools(), 'tools/list on the sessionful server (answered with an injected Mcp-Session-Id)');
    await closeObserved(bounded(second.close(), 'close the sessionful connection'), 'secondCloseError', observe);
  },
  judge(evidence) {
    const { revision } = evidence;
    const first = deletes(evidence.exchanges);
    const checks: Check[] = [
      clientCompleted(evidence, rule(revision, 'the client connects through the proxy and closes', 'MUST')),
      check(
        'no-delete-without-issued-id',
        rule(revision, isModern(revision) ? 'no DELETE, whatever key the client sends' : 'a server that issued no id gets no DELETE'),
        first.length === 0,
        first.length === 0
          ? isModern(revision)
            ? `no DELETE (${evidence.observed.affinityKey === undefined ? 'the adapter declares no affinity key' : `the client sent its affinity key ${AFFINITY_KEY}`}; the proxy injected ${INJECTED_ID})`
            : `no DELETE to the stateless server (the proxy injected ${INJECTED_ID})`
          : `DELETE sent although no server issued a session: ${describe(first)}${evidence.observed.closeError === undefined ? '' : `; close() then failed: ${String(evidence.observed.closeError)}`}`,
        first,
      ),
    ];
    if (!isModern(revision)) {
      const other = evidence.otherServers[0];
      const issued = other?.issuedSessions ?? [];
      const second = deletes(other?.exchanges ?? []);
      const injected = second.filter((exchange) => exchange.requestHeaders['mcp-session-id'] === INJECTED_ID);
      checks.push(
        check(
          'no-delete-for-injected-id',
          rule(revision, 'an id a proxy injected on a later response was never issued'),
          other !== undefined && injected.length === 0,
          other === undefined
            ? 'the script did not reach the sessionful server'
            : injected.length === 0
              ? `no DELETE for the injected id on the sessionful server (server 2)${second.length > 0 ? `: ${describe(second)}; issued: ${issued.join(', ') || 'none'}` : ''}`
              : `DELETE for the id only the proxy injected, on the sessionful server (server 2): ${describe(injected)} (issued: ${issued.join(', ') || 'none'}, never ended)${
                  evidence.observed.secondCloseError === undefined ? '' : `; close() then failed: ${String(evidence.observed.secondCloseError)}`
                }`,
          injected,
        ),
      );
    }
    return checks;
  },
});
