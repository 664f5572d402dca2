// What the reference client answers a message the server sends on its own (not an answer to one of its requests, not
// progress, which each session routes to its call): one response to each request, none to a notification. The client
// declares no capability, so of the requests only ping gets a result; every other is refused with -32601.
import type { ReferenceRules } from './rules.ts';
import type { JsonRpcMessage } from './protocol.ts';

const METHOD_NOT_FOUND = { code: -32601, message: 'Method not found' };

/** The reply to send for a message from the server, or undefined when none is due. */
export function replyTo(message: JsonRpcMessage, rules: ReferenceRules): JsonRpcMessage | undefined {
  if (message.method === undefined) return undefined;
  if (message.id === undefined || message.id === null) {
    // The habit neverAnswerNotifications rules out: a notification it has no handler for answered as a request (id null).
    return rules.neverAnswerNotifications ? undefined : { jsonrpc: '2.0', id: null, error: METHOD_NOT_FOUND };
  }
  if (message.method === 'ping' && rules.answerPing) return { jsonrpc: '2.0', id: message.id, result: {} };
  // The habit answerServerRequests rules out: a request the client has no handler for is never answered.
  if (message.method !== 'ping' && !rules.answerServerRequests) return undefined;
  return { jsonrpc: '2.0', id: message.id, error: METHOD_NOT_FOUND };
}
