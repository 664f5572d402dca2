// resume/affinity-first-request (seed 000: AgentHub routes serverless MCP instances by mcp-session-id; in
// 2026-07-28 the client mints its own key "before negotiating, so it is on the very first request (server/discover
// included)"). A gateway over two instances routes by the key: a client that sends it from the first request
// lands on one instance only. A convention, not spec text: it binds only clients that declare `affinity-key`
// (the adapter contract: "a client-minted routing key sent from the very first request"), and only they run it.
import { M, MODERN_REVISION } from '../../protocol/revisions.ts';
import { affinityGateway, hashInstance, type AffinityGateway } from '../../servers/personalities/affinity-gateway.ts';
import type { WireExchange } from '../../servers/wire-record.ts';
import { check, clientCompleted, precondition } from '../checks.ts';
import { defineScenario, type Check, type SpecRef } from '../scenario.ts';
import { transports } from '../spec.ts';
import { label, labels, sessionOf } from '../wire.ts';

const SEED = 'seed 000 (a client-minted affinity key on Mcp-Session-Id from the very first request, server/discover included); a convention binding clients that declare affinity-key';

/**
 * The key the client is given: one the gateway hashes to instance B, while the first keyless request goes to A
 * (round-robin starts there), so a key sent late shows up as traffic split across instances.
 */
export const AFFINITY_KEY = (() => {
  for (let n = 1; ; n++) {
    const key = `conformance-affinity-${n}`;
    if (hashInstance(key) === 'B') return key;
  }
})();

const instanceOf = (exchange: WireExchange) => exchange.notes.find((note) => note.startsWith('instance:'))?.slice('instance:'.length);

export const affinityFirstRequest = defineScenario<{ gateway: AffinityGateway }>({
  id: 'resume/affinity-first-request',
  title: 'A declared client-minted affinity key rides on the very first request (server/discover included) and every later one, so a gateway pins all traffic to one instance',
  revisions: M,
  requires: ['affinity-key'],
  source: { spec: transports(MODERN_REVISION, 'earlier-streamable-http-revisions', 'Earlier Streamable HTTP Revisions (no sessions: Mcp-Session-Id is only a routing key)', 'MUST'), seed: SEED },
  setup: () => {
    const gateway = affinityGateway();
    return { server: { personalities: [gateway] }, state: { gateway } };
  },
  async run({ connect, bounded }) {
    const client = await connect({ affinityKey: AFFINITY_KEY });
    await bounded(client.listTools(), 'tools/list');
    await bounded(client.callTool('echo', { text: 'pinned' }), 'tools/call echo');
    await bounded(client.close(), 'close');
  },
  judge(evidence) {
    const { revision } = evidence;
    const contract: SpecRef = transports(revision, 'earlier-streamable-http-revisions', `Earlier Streamable HTTP Revisions (the server ignores Mcp-Session-Id); ${SEED}`, 'MUST');
    const all = evidence.exchanges;
    const first = all[0];
    // Where the key rides is the behaviour under test: a connect that never reached the gateway showed nothing.
    const checks: Check[] = [
      precondition('connect-reached-server', contract, first !== undefined, first ? `the client opened with ${label(first)}` : 'nothing reached the gateway: the client never opened', first ? [first] : []),
      clientCompleted(evidence, transports(revision, 'sending-messages', 'Sending Messages', 'MUST')),
    ];
    checks.push(
      check(
        'key-on-first-request',
        contract,
        first !== undefined && sessionOf(first) === AFFINITY_KEY,
        first === undefined
          ? 'the client sent nothing'
          : sessionOf(first) === AFFINITY_KEY
            ? `the first request, ${label(first)}, carried the affinity key ${AFFINITY_KEY}`
            : `the first request, ${label(first)}, carried ${sessionOf(first) === undefined ? 'no Mcp-Session-Id' : `Mcp-Session-Id: ${sessionOf(first)}`}, not the affinity key ${AFFINITY_KEY}`,
        first ? [first] : [],
      ),
    );
    const unkeyed = all.filter((exchange) => sessionOf(exchange) !== AFFINITY_KEY);
    checks.push(
      check(
        'key-on-every-request',
        contract,
        unkeyed.length === 0,
        unkeyed.length === 0
          ? `all ${all.length} requests carried the affinity key`
          : `${labels(unkeyed)} did not carry the affinity key (${[...new Set(unkeyed.map((e) => sessionOf(e) ?? 'no Mcp-Session-Id'))].join(', ')})`,
        unkeyed,
      ),
    );
    const instances = [...new Set(all.map(instanceOf))];
    const byInstance = instances.map((instance) => `${instance ?? 'unrouted'}: ${labels(all.filter((e) => instanceOf(e) === instance), 3)}`);
    checks.push(
      check(
        'one-instance',
        { ...contract, section: `${contract.section}; the gateway routing by the key pins all traffic to one instance` },
        instances.length === 1 && instances[0] !== undefined,
        instances.length === 1 ? `the gateway routed all ${all.length} requests to instance ${instances[0]}` : `the traffic was split across instances (${byInstance.join('; ')})`,
        instances.length === 1 ? [] : all,
      ),
    );
    return checks;
  },
  doctored: [{ check: 'connect-reached-server', unmet: true, how: 'the client never reached the gateway (its start-up outlasted the connect)', doctor: (e) => ({ ...e, exchanges: [], observed: {} }) }],
});
