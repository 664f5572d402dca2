// resume/affinity-first-request (seed 000: AgentHub routes serverless MCP instances by mcp-session-id; in
// 2026-07-28 the client mints its own key "before negotiating, so it is on the very first request (server/discover
// included)"). A gateway over two instances routes by the key: a client that sends it from the first request
// lands on one instance only. A convention, not spec text: it binds only clients that declare `affinity-key`
// (the adapter contract: "a client-minted routing key sent from the very first request"), and only they run it.
import { affinityGateway, hashInstance, type AffinityGateway } from '../../servers/personalities/affinity-gateway.ts';
import type { WireExchange } from '../../servers/wire-record.ts';
import { check, clientCompleted } from '../checks.ts';
import { defineScenario, type Check, type SpecRef } from '../scenario.ts';
import { describe, list, sessionOf, transports } from './support.ts';

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
  revisions: ['2026-07-28'],
  requires: ['affinity-key'],
  source: { spec: transports('2026-07-28', 'earlier-streamable-http-revisions', 'Earlier Streamable HTTP Revisions (no sessions: Mcp-Session-Id is only a routing key)', 'MUST'), seed: SEED },
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
    const checks: Check[] = [clientCompleted(evidence, transports(revision, 'sending-messages', 'Sending Messages', 'MUST'))];
    const all = evidence.exchanges;
    const first = all[0];
    checks.push(
      check(
        'key-on-first-request',
        contract,
        first !== undefined && sessionOf(first) === AFFINITY_KEY,
        first === undefined
          ? 'the client sent nothing'
          : sessionOf(first) === AFFINITY_KEY
            ? `the first request, ${describe(first)}, carried the affinity key ${AFFINITY_KEY}`
            : `the first request, ${describe(first)}, carried ${sessionOf(first) === undefined ? 'no Mcp-Session-Id' : `Mcp-Session-Id: ${sessionOf(first)}`}, not the affinity key ${AFFINITY_KEY}`,
        first ? [first] : [],
      ),
    );
    const unkeyed = all.filter((exchange) => sessionOf(exchange) !== AFFINITY_KEY);
    checks.push(
      check(
        'key-on-every-request',
        contract,
        all.length > 0 && unkeyed.length === 0,
        all.length === 0
          ? 'the client sent nothing'
          : unkeyed.length === 0
            ? `all ${all.length} requests carried the affinity key`
            : `${list(unkeyed)} did not carry the affinity key (${[...new Set(unkeyed.map((e) => sessionOf(e) ?? 'no Mcp-Session-Id'))].join(', ')})`,
        unkeyed,
      ),
    );
    const instances = [...new Set(all.map(instanceOf))];
    const byInstance = instances.map((instance) => `${instance ?? 'unrouted'}: ${list(all.filter((e) => instanceOf(e) === instance), 3)}`);
    checks.push(
      check(
        'one-instance',
        { ...contract, section: `${contract.section}; the gateway routing by the key pins all traffic to one instance` },
        all.length > 0 && instances.length === 1 && instances[0] !== undefined,
        instances.length === 1 ? `the gateway routed all ${all.length} requests to instance ${instances[0]}` : `the traffic was split across instances (${byInstance.join('; ')})`,
        instances.length === 1 ? [] : all,
      ),
    );
    return checks;
  },
});
