// The shape of a 2026-07-28 request on the wire: the `_meta` envelope in params, and the headers that mirror it.
import { ACCEPT_BOTH, CLIENT_INFO, H, JSON_CONTENT, mcpNameOf, META, type Params } from './protocol.ts';
import { capabilitiesOf } from './server-messages.ts';
import type { SessionContext } from './session.ts';
import { ProtocolError } from './errors.ts';

export interface ModernMessage {
  /** Absent for a notification. */
  id?: number;
  method: string;
  params: Params;
  version: string;
  /** A client-minted routing key, sent in Mcp-Session-Id (a convention, not a session). */
  affinityKey?: string | undefined;
}

/** The `_meta` every request carries: the revision, the capabilities (one per handler the client was given), clientInfo. */
export function modernEnvelope(version: string, ctx: Pick<SessionContext, 'rules' | 'handlers'>): Params {
  return {
    [META.protocolVersion]: version,
    [META.clientCapabilities]: capabilitiesOf(ctx.handlers, ctx.rules),
    ...(ctx.rules.modernEnvelopeComplete ? { [META.clientInfo]: CLIENT_INFO } : {}),
  };
}

/** The body and headers of one modern POST. */
export function modernRequest(message: ModernMessage, ctx: Pick<SessionContext, 'rules' | 'handlers'>): { body: string; headers: Record<string, string> } {
  const existing = message.params['_meta'];
  const meta = { ...(existing && typeof existing === 'object' ? (existing as Params) : {}), ...modernEnvelope(message.version, ctx) };
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

/**
 * What is wrong with a 2026-07-28 result, if anything: a resultType the client does not know, or an input_required
 * (which the connection answers and retries) carrying neither inputRequests nor a requestState.
 */
export function invalidModernResult(method: string, result: Params): ProtocolError | undefined {
  const resultType = result['resultType'];
  if (resultType !== undefined && resultType !== 'complete' && resultType !== 'input_required') {
    return new ProtocolError(`${method} was answered with resultType ${JSON.stringify(resultType)}, which this client does not handle`);
  }
  const requests = result['inputRequests'];
  const asks = typeof requests === 'object' && requests !== null && Object.keys(requests).length > 0;
  if (resultType === 'input_required' && !asks && typeof result['requestState'] !== 'string') {
    return new ProtocolError(`${method} was answered input_required with neither inputRequests nor a requestState`);
  }
  return undefined;
}
