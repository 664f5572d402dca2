import { AUTH_NOTES } from '../../servers/authorization/protected-resource.ts';
import { M } from '../../protocol/revisions.ts';
import { FIXTURE_TOOLS } from '../../servers/fixtures.ts';
import { check, clientCompleted, precondition } from '../checks.ts';
import { defineScenario } from '../scenario.ts';
import { authorization, sendingMessages, streamableHttp } from '../spec.ts';
import { carries, label, labels } from '../wire.ts';
import { bearerOf, protectedSetup, type Protected } from './support.ts';

/**
 * 2026-07-28: a 401 to the `server/discover` probe is an authorization challenge, not a legacy server's answer (the
 * binding falls back only after a 400 without a modern error): the client authorizes and probes again, and never
 * sends `initialize`.
 */
export const probeChallengeNotLegacy = defineScenario<Protected>({
  id: 'authorization/probe-challenge-not-legacy',
  title: 'A 401 to the server/discover probe: authorize and probe again, not a legacy server',
  revisions: M,
  requires: ['oauth', 'mode-auto'],
  source: { spec: streamableHttp('backward-compatibility', 'Backward Compatibility (fall back after a 400 without a modern error only)', 'SHOULD') },
  setup: () => protectedSetup(),
  async run({ connect, bounded, state }) {
    const client = await connect({ negotiation: 'auto', authorization: state.resource.clientAuthorization() });
    await bounded(client.callTool(FIXTURE_TOOLS.echo, { text: 'after the probe' }), 'tools/call after the probe');
    await bounded(client.close(), 'close');
  },
  judge(evidence) {
    const { revision, exchanges } = evidence;
    const probes = exchanges.filter((x) => carries(x, 'server/discover'));
    const challenged = probes.find((x) => x.status === 401);
    const authorized = challenged === undefined ? undefined : probes.find((x) => x.seq > challenged.seq && bearerOf(x) !== undefined && x.notes.includes(AUTH_NOTES.accepted));
    const initializes = challenged === undefined ? [] : exchanges.filter((x) => x.seq > challenged.seq && carries(x, 'initialize'));
    return [
      precondition(
        'probe-challenged',
        authorization(revision, 'error-handling', 'the probe without a token is answered 401', 'MUST'),
        challenged !== undefined,
        challenged !== undefined ? `${label(challenged)} was answered 401 with a Bearer challenge` : probes.length > 0 ? `no probe was answered 401 (${labels(probes)})` : 'the client sent no server/discover probe',
        challenged === undefined ? [] : [challenged],
        // A client that does not probe (it knows the era, or speaks one) has no probe to challenge.
        { by: challenged === undefined && probes.length === 0 ? 'shape' : undefined },
      ),
      clientCompleted(evidence, sendingMessages(revision, 'the script runs to its end', 'MUST')),
      check(
        'probe-authorized',
        authorization(revision, 'error-handling', 'a 401 is answered by authorizing and sending the request again', 'MUST'),
        authorized !== undefined,
        authorized !== undefined ? `${label(authorized)} probed again with a token, and was answered` : 'no probe with a token followed the challenge',
        [...(challenged ? [challenged] : []), ...(authorized ? [authorized] : [])],
      ),
      check(
        'no-legacy-fallback',
        streamableHttp('backward-compatibility', 'a 401 to the probe says nothing of the era: no fallback to initialize', 'SHOULD'),
        initializes.length === 0,
        initializes.length === 0 ? 'no initialize followed the challenged probe' : `the client took the server for a legacy one: ${labels(initializes)}`,
        initializes,
      ),
    ];
  },
  doctored: [
    {
      check: 'probe-challenged',
      unmet: true,
      how: 'the first probe answered 200 (the personality did not act)',
      doctor: (e) => ({ ...e, exchanges: e.exchanges.map((x) => (x.status === 401 ? { ...x, status: 200 } : x)) }),
    },
    {
      check: 'no-legacy-fallback',
      how: 'an initialize after the challenged probe',
      doctor: (e) => {
        const challenged = e.exchanges.find((x) => x.status === 401)!;
        const initialize = { ...structuredClone(challenged), requestMessages: [{ jsonrpc: '2.0', id: 99, method: 'initialize', params: {} }], status: 200 };
        const at = e.exchanges.indexOf(challenged) + 1;
        return { ...e, exchanges: [...e.exchanges.slice(0, at), initialize, ...e.exchanges.slice(at)].map((x, index) => ({ ...x, seq: index + 1 })) };
      },
    },
  ],
});
