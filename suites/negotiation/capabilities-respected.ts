// Lifecycle › Operation: both parties only use capabilities that were successfully negotiated (SHOULD at 2024-11-05 and
// 2025-03-26, MUST from 2025-06-18). Against a server whose InitializeResult advertises `tools` alone (personality
// tools-only), the client connects, lists and calls tools and closes; no request it sends may need a server capability
// the server did not advertise. Real clients list prompts and resources or set a log level whatever the server said:
// against the suite's other servers, which advertise everything, that passes unseen.
import { L, type Revision } from '../../protocol/revisions.ts';
import { TOOLS_ONLY_NOTE, toolsOnly } from '../../servers/personalities/tools-only.ts';
import type { SentMessage } from '../../servers/wire-record.ts';
import { check, clientCompleted, precondition } from '../checks.ts';
import type { Evidence, Scenario } from '../scenario.ts';
import { negotiatedCapabilities } from '../spec.ts';
import { answerTo, label, labels, mcpExchanges, requests } from '../wire.ts';
import { plainSession } from './support.ts';

export const TOOLS_ONLY_ADVERTISED = 'tools-only-advertised';
export const ONLY_ADVERTISED_CAPABILITIES = 'only-advertised-capabilities';

/**
 * The server capability each client request needs (a path `a.b` is `capabilities.a.b`), from the revision it exists in:
 * lifecycle › Capability Negotiation and each feature's page ("servers that support X MUST declare the X capability";
 * resources › Capabilities for `subscribe`; tasks › Capabilities for `tasks.list` and `tasks.cancel`). The project keeps
 * no table of the schema's capabilities (suites/schema.ts checks the shapes of messages against each revision's own JSON Schema), so it is
 * here. Requests not listed need no server capability (initialize, ping). 2024-11-05 defines completion/complete but no
 * capability for it, so there it is not judged.
 */
const NEEDS: readonly { method: string; capability: string; from?: Revision }[] = [
  { method: 'tools/list', capability: 'tools' },
  { method: 'tools/call', capability: 'tools' },
  { method: 'resources/list', capability: 'resources' },
  { method: 'resources/templates/list', capability: 'resources' },
  { method: 'resources/read', capability: 'resources' },
  { method: 'resources/subscribe', capability: 'resources.subscribe' },
  { method: 'resources/unsubscribe', capability: 'resources.subscribe' },
  { method: 'prompts/list', capability: 'prompts' },
  { method: 'prompts/get', capability: 'prompts' },
  { method: 'logging/setLevel', capability: 'logging' },
  { method: 'completion/complete', capability: 'completions', from: '2025-03-26' },
  { method: 'tasks/get', capability: 'tasks', from: '2025-11-25' },
  { method: 'tasks/result', capability: 'tasks', from: '2025-11-25' },
  { method: 'tasks/list', capability: 'tasks.list', from: '2025-11-25' },
  { method: 'tasks/cancel', capability: 'tasks.cancel', from: '2025-11-25' },
];

/** The capability a request of `method` needs at `revision`, if any. */
export function capabilityNeeded(revision: Revision, method: string | undefined): string | undefined {
  return NEEDS.find((need) => need.method === method && (need.from === undefined || revision >= need.from))?.capability;
}

/** The capabilities object holds `path` (`a.b`: capabilities.a.b), with any value but false or null. */
function holds(capabilities: Record<string, unknown>, path: string): boolean {
  let at: unknown = capabilities;
  for (const key of path.split('.')) {
    if (at === null || typeof at !== 'object') return false;
    at = (at as Record<string, unknown>)[key];
  }
  return at !== undefined && at !== null && at !== false;
}

const capabilitiesOf = (result: Record<string, unknown>): Record<string, unknown> => {
  const capabilities = result['capabilities'];
  return capabilities !== null && typeof capabilities === 'object' ? (capabilities as Record<string, unknown>) : {};
};

/** Every initialize the client sent that was answered with a result, with the capabilities that result advertised. */
function answeredInitializes(evidence: Evidence): { request: SentMessage; capabilities: Record<string, unknown> }[] {
  return requests(mcpExchanges(evidence.exchanges, evidence.revision), 'initialize').flatMap((request) => {
    const result = answerTo(evidence.exchanges, request)?.result;
    return result === undefined ? [] : [{ request, capabilities: capabilitiesOf(result) }];
  });
}

export const capabilitiesRespected: Scenario = {
  id: 'negotiation/capabilities-respected',
  title: 'Against a server that advertises only `tools`, the client sends no request needing a capability the server did not advertise (resources, prompts, logging, completion)',
  revisions: L,
  requires: [],
  source: { spec: negotiatedCapabilities('2025-06-18', 'no request for a server capability the InitializeResult did not advertise') },
  setup: () => ({ server: { personalities: [toolsOnly()] }, state: undefined }),
  run: plainSession,
  judge(evidence) {
    const { revision } = evidence;
    const rule = negotiatedCapabilities(revision, 'no request for a server capability the InitializeResult did not advertise');
    const answered = answeredInitializes(evidence);
    const initializes = answered.map(({ request }) => request.exchange);
    const unnoted = answered.filter(({ request }) => !request.exchange.notes.includes(TOOLS_ONLY_NOTE));
    const beyond = answered.flatMap(({ capabilities }) => Object.keys(capabilities).filter((key) => key !== 'tools'));
    // The rule says something only once the server has said what it offers, and only tools at that.
    const met = answered.length > 0 && unnoted.length === 0 && beyond.length === 0;
    const why =
      answered.length === 0
        ? `no initialize was answered with a result (${labels(evidence.exchanges)}): nothing was negotiated to keep to`
        : unnoted.length > 0
          ? `${labels(unnoted.map(({ request }) => request.exchange))} was not answered by the tools-only server`
          : beyond.length > 0
            ? `the server advertised ${[...new Set(beyond)].join(', ')} besides tools (${labels(initializes)})`
            : `the server advertised only tools in its answer to ${labels(initializes)}`;
    // Every answer the precondition admits advertises tools alone: one set of capabilities for every session.
    const advertised = answered[0]?.capabilities ?? {};
    const offending = requests(mcpExchanges(evidence.exchanges, revision)).flatMap((sent) => {
      const needed = capabilityNeeded(revision, sent.message.method);
      return needed === undefined || holds(advertised, needed) ? [] : [{ sent, needed }];
    });
    const offered = Object.keys(advertised).join(', ') || 'nothing';
    return [
      precondition(TOOLS_ONLY_ADVERTISED, rule, met, why, initializes),
      clientCompleted(evidence, negotiatedCapabilities(revision, 'against a server that advertises only tools, the client connects, lists and calls them and closes')),
      check(
        ONLY_ADVERTISED_CAPABILITIES,
        rule,
        offending.length === 0,
        offending.length === 0
          ? `the server advertised ${offered}; no request needed anything else`
          : `the server advertised ${offered}, yet the client sent ${offending.map(({ sent, needed }) => `${sent.message.method} (needs ${needed}) in ${label(sent.exchange)}`).join(', ')}`,
        offending.map(({ sent }) => sent.exchange),
      ),
    ];
  },
  doctored: [
    {
      check: TOOLS_ONLY_ADVERTISED,
      unmet: true,
      how: 'the initialize answered by a server whose personality did not act (its note removed)',
      doctor: (e) => ({ ...e, exchanges: e.exchanges.map((x) => ({ ...x, notes: x.notes.filter((note) => note !== TOOLS_ONLY_NOTE) })) }),
    },
    {
      check: TOOLS_ONLY_ADVERTISED,
      unmet: true,
      how: 'the initialize answered with prompts advertised besides tools',
      doctor: (e) => ({
        ...e,
        exchanges: e.exchanges.map((x) => ({
          ...x,
          responseMessages: x.responseMessages.map((m) => {
            const result = m.message.result;
            return result !== undefined && 'capabilities' in result ? { ...m, message: { ...m.message, result: { ...result, capabilities: { ...capabilitiesOf(result), prompts: {} } } } } : m;
          }),
        })),
      }),
    },
  ],
};
