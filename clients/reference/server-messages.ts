// What the reference client answers a message the server sends on its own (not an answer to one of its requests, not
// progress, which each session routes to its call): one response to each request, none to a notification. Ping gets
// an empty result; roots/list, sampling/createMessage and elicitation/create the answer its handlers were given (and
// the client declares those capabilities, capabilitiesOf); every other request is refused with -32601.
import type { ClientHandlers } from '../adapter.ts';
import type { ReferenceRules } from './rules.ts';
import type { JsonRpcMessage, Params } from './protocol.ts';

/** The handler answering each server request, by method. */
const HANDLED: Record<string, keyof ClientHandlers> = { 'roots/list': 'roots', 'sampling/createMessage': 'sampling', 'elicitation/create': 'elicitation' };

/** The capabilities the client declares: one for each handler it was given. */
export function capabilitiesOf(handlers: ClientHandlers, rules: ReferenceRules): Params {
  if (Object.values(handlers).every((answer) => answer === undefined)) return {};
  // The habit declareHandledCapabilities rules out: handlers answering, no capability declared for them.
  if (!rules.declareHandledCapabilities) return {};
  return Object.fromEntries((Object.keys(handlers) as (keyof ClientHandlers)[]).filter((name) => handlers[name] !== undefined).map((name) => [name, {}]));
}

/** The capabilities an InitializeResult advertised (none when it names none). */
export function advertisedCapabilities(result: Params | undefined): Params {
  const capabilities = result?.['capabilities'];
  return capabilities !== null && typeof capabilities === 'object' && !Array.isArray(capabilities) ? (capabilities as Params) : {};
}

const METHOD_NOT_FOUND = { code: -32601, message: 'Method not found' };
const URL_MODE_UNDECLARED = { code: -32602, message: 'URL mode elicitation was not declared in the client capabilities' };

/** The reply to send for a message from the server, or undefined when none is due. */
export function replyTo(message: JsonRpcMessage, rules: ReferenceRules, handlers: ClientHandlers): JsonRpcMessage | undefined {
  if (message.method === undefined) return undefined;
  if (message.id === undefined || message.id === null) {
    // The habit neverAnswerNotifications rules out: a notification it has no handler for answered as a request (id null).
    return rules.neverAnswerNotifications ? undefined : { jsonrpc: '2.0', id: null, error: METHOD_NOT_FOUND };
  }
  if (message.method === 'ping' && rules.answerPing) return { jsonrpc: '2.0', id: message.id, result: {} };
  const handler = HANDLED[message.method];
  const answer = handler === undefined ? undefined : handlers[handler];
  // It declares elicitation as {} (form only): a URL mode request is for a mode it does not support. The habit
  // refuseUndeclaredElicitationMode rules out: any elicitation handed to the form handler.
  if (handler === 'elicitation' && answer !== undefined && message.params?.['mode'] === 'url' && rules.refuseUndeclaredElicitationMode) return { jsonrpc: '2.0', id: message.id, error: URL_MODE_UNDECLARED };
  if (handler === 'roots' && answer !== undefined) return { jsonrpc: '2.0', id: message.id, result: { roots: answer } };
  if (answer !== undefined) return { jsonrpc: '2.0', id: message.id, result: answer as Params };
  // The habit answerServerRequests rules out: a request the client has no handler for is never answered.
  if (message.method !== 'ping' && !rules.answerServerRequests) return undefined;
  return { jsonrpc: '2.0', id: message.id, error: METHOD_NOT_FOUND };
}

/**
 * The inputResponses for an InputRequiredResult's inputRequests (2026-07-28): each answered as the same request from
 * the server would be; or the first the client has no handler for (it cannot construct that input).
 */
export function inputResponsesFor(inputRequests: unknown, rules: ReferenceRules, handlers: ClientHandlers): { responses: Params } | { missing: string } {
  const responses: Params = {};
  if (typeof inputRequests !== 'object' || inputRequests === null) return { responses };
  for (const [key, request] of Object.entries(inputRequests as Record<string, { method?: unknown; params?: Params }>)) {
    const method = typeof request?.method === 'string' ? request.method : undefined;
    const reply = method === undefined ? undefined : replyTo({ jsonrpc: '2.0', id: key, method, ...(request.params ? { params: request.params } : {}) }, rules, handlers);
    if (reply?.result === undefined) return { missing: `${String(method)} (${key})` };
    responses[key] = reply.result;
  }
  return { responses };
}
