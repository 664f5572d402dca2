// security/endpoint-origin (2024-11-05 HTTP+SSE): the `endpoint` event names another origin. The client refuses
// it and POSTs nothing there. The spec itself says only that every client message goes to the endpoint the event
// names; refusing a foreign origin is security practice (the endpoint steers every later POST, with whatever the
// client sends), so the checks are SHOULD, not MUST. What reaches the other origin is recorded by a decoy there.
import { endpointOtherOrigin, type EndpointOtherOrigin } from '../../servers/personalities/endpoint-other-origin.ts';
import { ClientHung } from '../outcome.ts';
import { check } from '../checks.ts';
import { defineScenario, type Check, type Evidence } from '../scenario.ts';
import { transports } from './support.ts';

const PRACTICE =
  'HTTP with SSE: the endpoint event names the URI for every POST (security practice, not a spec MUST: a client refuses an endpoint on another origin than the SSE URL)';
/** After connect settled: the quiet window in which nothing may reach the decoy either (the check itself, not a synchronization). */
const QUIET_MS = 150;

interface DecoyHit {
  method: string;
  path: string;
  messages: string[];
}

const hitsOf = (evidence: Evidence): DecoyHit[] => (Array.isArray(evidence.observed.decoy) ? (evidence.observed.decoy as DecoyHit[]) : []);

export const endpointOrigin = defineScenario<{ endpoint: EndpointOtherOrigin }>({
  id: 'security/endpoint-origin',
  title: 'An HTTP+SSE endpoint event naming another origin is refused: nothing is POSTed there',
  revisions: ['2024-11-05'],
  requires: [],
  source: { spec: transports('2024-11-05', 'http-with-sse', PRACTICE, 'SHOULD') },
  setup: () => {
    const endpoint = endpointOtherOrigin();
    return { server: { personalities: [endpoint] }, state: { endpoint } };
  },
  async run({ connect, bounded, state, observe }) {
    observe('otherOrigin', state.endpoint.origin());
    try {
      const client = await connect();
      observe('connected', true);
      // A client that took the endpoint gets the decoy's 404s: what it does next is recorded, not required.
      await bounded(client.listTools(), 'tools/list').catch(() => {});
      await bounded(client.close(), 'close').catch(() => {});
    } catch (error) {
      // Refusing is the expected outcome; hanging is not.
      if (error instanceof ClientHung) throw error;
      observe('connectError', String(error));
    }
    await state.endpoint.decoyRecord.waitFor((record) => record.exchanges.length > 0, 'a request at the other origin', QUIET_MS).catch(() => {});
    observe(
      'decoy',
      state.endpoint.decoyRecord.exchanges.map((exchange): DecoyHit => ({
        method: exchange.method,
        path: exchange.path,
        messages: exchange.requestMessages.map((message) => message.method ?? 'response'),
      })),
    );
  },
  judge(evidence) {
    const spec = transports(evidence.revision, 'http-with-sse', PRACTICE, 'SHOULD');
    const stream = evidence.exchanges.find((exchange) => exchange.notes.includes('endpoint-other-origin'));
    const hits = hitsOf(evidence);
    const other = String(evidence.observed.otherOrigin ?? 'the other origin');
    const checks: Check[] = [
      check(
        'client-completed',
        { ...spec, section: `${spec.section}; the connect settles (a refusal is expected) instead of hanging` },
        evidence.clientError === undefined,
        evidence.clientError === undefined
          ? evidence.observed.connectError !== undefined
            ? `the connect was refused: ${String(evidence.observed.connectError)}`
            : 'the client connected and completed every operation'
          : `the client failed: ${evidence.clientError}`,
      ),
      check(
        'nothing-sent-to-other-origin',
        spec,
        stream !== undefined && hits.length === 0,
        stream === undefined
          ? 'the client never received the endpoint event naming another origin (the scenario could not run)'
          : hits.length === 0
            ? `the endpoint event on ${`#${stream.seq}`} named ${other}; nothing reached it (watched ${QUIET_MS} ms after the connect settled)`
            : `the endpoint event on #${stream.seq} named ${other}, and the client sent it ${hits.map((hit) => `${hit.method} ${hit.path} [${hit.messages.join(' ')}]`).join(', ')}`,
        stream ? [stream] : [],
      ),
    ];
    return checks;
  },
});
