// 2025-11-25 brought URL mode elicitation, and with it a client rule: an elicitation/create in a mode the client did
// not declare is refused with -32602 (client/elicitation › Error Handling). A client given a form handler declares
// elicitation as {} or { form: {} } (form only); the server sends it a URL mode request during a call. Handing that
// to the form handler would accept a URL the user never saw, with the form's content.
import { FIXTURE_TOOLS } from '../../servers/fixtures.ts';
import { clientCompleted, precondition } from '../checks.ts';
import { checkInTime } from '../deadlines.ts';
import { defineScenario, type Evidence } from '../scenario.ts';
import { clientFeature, messages } from '../spec.ts';
import { label, labels } from '../wire.ts';
import { HANDLER_ANSWERS } from './handler-answered.ts';
import { declaredCapabilities, describeReply, notAnsweredWithin, serverRequestsOf } from './support.ts';

const METHOD = 'elicitation/create';
const INVALID_PARAMS = -32602;

/** The URL mode elicitation the server sent (the fixture's `mode: "url"`), with the client's reply. */
const urlRequestOf = (evidence: Evidence) => serverRequestsOf(evidence.exchanges, [METHOD]).find((r) => r.exchange.responseMessages.some(({ message }) => message.id === r.id && message.params?.['mode'] === 'url'));

export const elicitationUrlUndeclared = defineScenario({
  id: 'server-requests/elicitation-url-undeclared',
  title: 'A client that declared form mode elicitation only refuses a URL mode elicitation/create with -32602 (Invalid params)',
  revisions: ['2025-11-25'],
  requires: ['elicitation'],
  source: { spec: clientFeature('2025-11-25', 'elicitation', 'error-handling', 'an elicitation/create with a mode not declared in client capabilities is answered -32602 (Invalid params)', 'MUST') },
  async run({ connect, bounded, time }) {
    const client = await connect({ handlers: { elicitation: HANDLER_ANSWERS.elicitation } });
    await bounded(client.callTool(FIXTURE_TOOLS.ask, { method: METHOD, mode: 'url', timeoutMs: time.ms.react }), `tools/call ${FIXTURE_TOOLS.ask} (${METHOD}, URL mode)`);
    await bounded(client.callTool(FIXTURE_TOOLS.echo, { text: 'after the URL mode elicitation' }), 'tools/call echo');
  },
  judge(evidence) {
    const { revision } = evidence;
    const rule = clientFeature(revision, 'elicitation', 'error-handling', 'an elicitation/create with a mode not declared in client capabilities is answered -32602 (Invalid params)', 'MUST');
    const sent = urlRequestOf(evidence);
    const declared = declaredCapabilities(evidence)?.['elicitation'];
    const modes = typeof declared === 'object' && declared !== null ? (declared as Record<string, unknown>) : undefined;
    const reply = sent?.reply;
    return [
      precondition(
        'request-sent',
        rule,
        sent !== undefined,
        sent ? `the server sent a URL mode ${METHOD} during the call` : `the server sent no URL mode ${METHOD} (${labels(evidence.exchanges)})`,
        sent ? [sent.exchange] : [],
      ),
      // A client that declares URL mode supports it: nothing undeclared to send it, whatever time it is given. Its own
      // declaration (an SDK that declares URL mode with any elicitation handler, as the Python SDK does) puts the rule
      // out of reach of any driver: n/a for it, read from its initialize.
      precondition(
        'url-mode-undeclared',
        rule,
        modes !== undefined && modes['url'] === undefined,
        modes === undefined
          ? `initialize declared no elicitation capability (${JSON.stringify(declaredCapabilities(evidence) ?? {})})`
          : modes['url'] !== undefined
            ? `initialize declared elicitation ${JSON.stringify(modes)}: URL mode is declared, by the client's own choice with a form handler, so no mode it did not declare is left to refuse`
            : `initialize declared elicitation ${JSON.stringify(modes)}: form mode only`,
        [],
        modes !== undefined && modes['url'] !== undefined ? { by: 'shape' } : { lasting: true },
      ),
      clientCompleted(evidence, messages(revision, 'responses', `a refused ${METHOD} leaves the call and the session working`, 'MUST')),
      checkInTime(
        evidence.time,
        'undeclared-mode-refused',
        rule,
        reply === undefined ? 'late' : reply.error?.code === INVALID_PARAMS ? (notAnsweredWithin(sent!, evidence.time.ms.react) ? 'late' : true) : false,
        sent === undefined
          ? `no URL mode ${METHOD} was sent`
          : `${describeReply(sent, `the URL mode ${METHOD}`)}${reply?.result !== undefined ? ' (accepted: handed to the form handler)' : reply?.error !== undefined && reply.error.code !== INVALID_PARAMS ? `, not ${INVALID_PARAMS}` : ''}${sent.replyExchange ? ` on ${label(sent.replyExchange)}` : ''}`,
        sent?.replyExchange ? [sent.exchange, sent.replyExchange] : sent ? [sent.exchange] : [],
      ),
    ];
  },
  doctored: [
    {
      check: 'request-sent',
      unmet: true,
      how: `the server sent no ${METHOD}`,
      doctor: (e: Evidence) => ({ ...e, exchanges: e.exchanges.map((x) => ({ ...x, responseMessages: x.responseMessages.filter(({ message }) => message.method !== METHOD) })) }),
    },
    {
      check: 'url-mode-undeclared',
      unmet: true,
      how: 'initialize declared elicitation { form: {}, url: {} }',
      doctor: (e: Evidence) => ({
        ...e,
        exchanges: e.exchanges.map((x) => ({
          ...x,
          requestMessages: x.requestMessages.map((m) => (m.method === 'initialize' ? { ...m, params: { ...m.params, capabilities: { elicitation: { form: {}, url: {} } } } } : m)),
        })),
      }),
    },
    {
      check: 'undeclared-mode-refused',
      how: 'refused with -32601 instead of -32602',
      doctor: (e: Evidence) => ({
        ...e,
        exchanges: e.exchanges.map((x) => ({ ...x, requestMessages: x.requestMessages.map((m) => (m.method === undefined && m.error?.code === INVALID_PARAMS ? { ...m, error: { code: -32601, message: 'Method not found' } } : m)) })),
      }),
    },
  ],
});
