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

/**
 * When the server wrote its result for the first `initialize` that succeeded, and the exchange that carried
 * that request. The answer may come on another exchange (HTTP+SSE answers on the GET stream), and an
 * earlier `initialize` may have been refused (a Streamable HTTP attempt before the HTTP+SSE fallback).
 */
export function initializeAnsweredAt(evidence: Evidence): { at: number; exchange: WireExchange } | undefined {
  const answers = evidence.exchanges.flatMap((exchange) => exchange.responseMessages);
  for (const { message, exchange } of sentMessages(evidence)) {
    if (message.method !== 'initialize' || message.id === undefined) continue;
    const answer = answers.find((a) => a.message.method === undefined && a.message.id === message.id && a.message.result !== undefined);
    if (answer) return { at: answer.at, exchange };
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
