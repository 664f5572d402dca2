// Small helpers the judges share.
import type { SentMessage, WireExchange } from '../servers/wire-record.ts';
import type { Check, Evidence, SpecRef } from './scenario.ts';

export function check(name: string, spec: SpecRef, ok: boolean, detail: string, exchanges: readonly WireExchange[] = []): Check {
  return { name, spec, ok, detail, exchanges: exchanges.map((exchange) => exchange.seq) };
}

/** Every JSON-RPC message the client sent, in arrival order, with its exchange. */
export function sentMessages(evidence: Evidence): SentMessage[] {
  return evidence.exchanges.flatMap((exchange) => exchange.requestMessages.map((message) => ({ message, exchange })));
}

export function isRequest(sent: SentMessage): boolean {
  return sent.message.method !== undefined && sent.message.id !== undefined;
}

/** When the server wrote its answer to the first `initialize`, or undefined if it never did. */
export function initializeAnsweredAt(evidence: Evidence): { at: number; exchange: WireExchange } | undefined {
  for (const exchange of evidence.exchanges) {
    const init = exchange.requestMessages.find((m) => m.method === 'initialize');
    if (!init) continue;
    const answer = exchange.responseMessages.find(({ message }) => message.method === undefined && message.id === init.id);
    return answer ? { at: answer.at, exchange } : undefined;
  }
  return undefined;
}

/** The scenario's client script ran to the end without the client raising an error. */
export function clientCompleted(evidence: Evidence, spec: SpecRef): Check {
  return check(
    'client-completed',
    spec,
    evidence.clientError === undefined,
    evidence.clientError === undefined ? 'the client completed every operation' : `the client failed: ${evidence.clientError}`,
  );
}
