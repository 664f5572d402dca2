// The shape of a 2026-07-28 request on the wire: the `_meta` envelope in params, and the headers that mirror it.
import { ACCEPT_BOTH, CLIENT_CAPABILITIES, CLIENT_INFO, H, JSON_CONTENT, mcpNameOf, META, type Params } from './protocol.ts';
import type { ReferenceRules } from './rules.ts';

export interface ModernMessage {
  /** Absent for a notification. */
  id?: number;
  method: string;
  params: Params;
  version: string;
  /** A client-minted routing key, sent in Mcp-Session-Id (a convention, not a session). */
  affinityKey?: string | undefined;
}

export function modernEnvelope(version: string, rules: ReferenceRules): Params {
  return {
    [META.protocolVersion]: version,
    [META.clientCapabilities]: CLIENT_CAPABILITIES,
    ...(rules.modernEnvelopeComplete ? { [META.clientInfo]: CLIENT_INFO } : {}),
  };
}

/** The body and headers of one modern POST. */
export function modernRequest(message: ModernMessage, rules: ReferenceRules): { body: string; headers: Record<string, string> } {
  const existing = message.params['_meta'];
  const meta = { ...(existing && typeof existing === 'object' ? (existing as Params) : {}), ...modernEnvelope(message.version, rules) };
  const params = { ...message.params, _meta: meta };
  const body = JSON.stringify(message.id === undefined ? { jsonrpc: '2.0', method: message.method, params } : { jsonrpc: '2.0', id: message.id, method: message.method, params });
  const headers: Record<string, string> = {
    [H.contentType]: JSON_CONTENT,
    [H.accept]: ACCEPT_BOTH,
    [H.version]: message.version,
    [H.method]: message.method,
  };
  const name = mcpNameOf(message.method, message.params);
  if (name !== undefined) headers[H.name] = name;
  if (message.affinityKey !== undefined) headers[H.session] = message.affinityKey;
  return { body, headers };
}
