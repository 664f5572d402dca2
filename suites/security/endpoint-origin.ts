// security/endpoint-origin (2024-11-05 HTTP+SSE): the `endpoint` event names another origin. The client refuses
// it and POSTs nothing there. The spec itself says only that every client message goes to the endpoint the event
// names; refusing a foreign origin is security practice (the endpoint steers every later POST, with whatever the
// client sends), so the checks are SHOULD, not MUST. What reaches the other origin is recorded by a decoy there.
import { endpointOtherOrigin, type EndpointOtherOrigin } from '../../servers/personalities/endpoint-other-origin.ts';
import { check, precondition } from '../checks.ts';
import { holdsWithin, ordinaryRejection } from '../outcome.ts';
import { defineScenario, type Check, type Evidence } from '../scenario.ts';
import { sendingMessages } from '../spec.ts';
import { label, noted } from '../wire.ts';

const PRACTICE = 'the endpoint event names the URI for every POST (security practice, not a spec MUST: a client refuses an endpoint on another origin than the SSE URL)';

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
  source: { spec: sendingMessages('2024-11-05', PRACTICE, 'SHOULD') },
  setup: () => {
    const endpoint = endpointOtherOrigin();
    return { server: { personalities: [endpoint] }, state: { endpoint } };
  },
  async run({ connect, bounded, state, observe, time }) {
    observe('otherOrigin', state.endpoint.origin());
    try {
      const client = await connect();
      observe('connected', true);
      // A client that took the endpoint gets the decoy's 404s: an error then is recorded, not required; a hang is not.
      await bounded(client.listTools(), 'tools/list').catch(ordinaryRejection);
      await bounded(client.close(), 'close').catch(ordinaryRejection);
    } catch (error) {
      // Refusing is the expected outcome; hanging (or breaking the adapter contract) is the client's error.
      observe('connectError', ordinaryRejection(error));
    }
    // After the connect settled: a quiet window in which nothing may reach the decoy either (the check itself, not a synchronization).
    await holdsWithin(state.endpoint.decoyRecord, (record) => record.exchanges.length > 0, 'a request at the other origin', time.ms.quiet);
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
    const spec = sendingMessages(evidence.revision, PRACTICE, 'SHOULD');
    const stream = noted(evidence.exchanges, 'endpoint-other-origin')[0];
    const hits = hitsOf(evidence);
    const other = String(evidence.observed.otherOrigin ?? 'the other origin');
    const checks: Check[] = [
      // The stimulus: the server sent the client an endpoint event naming another origin.
      precondition(
        'endpoint-event-received',
        spec,
        stream !== undefined,
        stream ? `${label(stream)} named the endpoint on ${other}` : 'no stream carried the endpoint event naming another origin: the client never opened one',
        stream ? [stream] : [],
      ),
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
        hits.length === 0,
        hits.length === 0
          ? `the endpoint event named ${other}; nothing reached it (watched ${evidence.time.ms.quiet} ms after the connect settled)`
          : `the endpoint event named ${other}, and the client sent it ${hits.map((hit) => `${hit.method} ${hit.path} [${hit.messages.join(' ')}]`).join(', ')}`,
        stream ? [stream] : [],
      ),
    ];
    return checks;
  },
  doctored: [
    {
      check: 'endpoint-event-received',
      unmet: true,
      how: 'the client never opened the SSE stream: no endpoint event was sent',
      doctor: (e) => ({ ...e, exchanges: e.exchanges.map((x) => ({ ...x, notes: x.notes.filter((n) => n !== 'endpoint-other-origin') })) }),
    },
  ],
});
