// Protocol constants and small pure helpers the reference client's modules share.
import type { Revision } from '../../protocol/revisions.ts';
import type { JsonRpcMessage } from '../../servers/wire-record.ts';

export type { JsonRpcMessage };
export type Params = Record<string, unknown>;
export type JsonRpcErrorBody = { code: number; message: string; data?: unknown };

/** Every revision the reference client speaks. */
export const REFERENCE_REVISIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28'] as const satisfies readonly Revision[];

/** Handshake revisions, newest first: `initialize` offers the first. */
export const LEGACY_REVISIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'] as const;
/** Per-request-metadata revisions, newest first: a probe offers the first. */
export const MODERN_REVISIONS = ['2026-07-28'] as const;

export const CLIENT_INFO = { name: 'mcp-client-conformance-reference', version: '0.2.0' };

export const ACCEPT_BOTH = 'application/json, text/event-stream';
export const JSON_CONTENT = 'application/json';

export const META = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
} as const;

/** The JSON-RPC errors only a modern (2026-07-28) server sends: seeing one means the server is modern. */
export const MODERN_ERRORS = { headerMismatch: -32020, missingClientCapability: -32021, unsupportedVersion: -32022 } as const;
const MODERN_ERROR_CODES: readonly number[] = Object.values(MODERN_ERRORS);

export function isModernErrorCode(code: number | undefined): boolean {
  return code !== undefined && MODERN_ERROR_CODES.includes(code);
}

export function isLegacyRevision(version: unknown): version is (typeof LEGACY_REVISIONS)[number] {
  return typeof version === 'string' && (LEGACY_REVISIONS as readonly string[]).includes(version);
}

export function isModernRevision(version: unknown): boolean {
  return typeof version === 'string' && (MODERN_REVISIONS as readonly string[]).includes(version);
}

/** The JSON-RPC messages of a parsed body (a batch flattened), objects only. */
export function messagesIn(body: unknown): JsonRpcMessage[] {
  const items = Array.isArray(body) ? body : body === undefined || body === null ? [] : [body];
  return items.filter((item): item is JsonRpcMessage => typeof item === 'object' && item !== null && !Array.isArray(item));
}

export function parseJson(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The first JSON-RPC error object in a body, if the body carries one. */
export function jsonRpcErrorIn(body: unknown): (JsonRpcErrorBody & { id?: unknown }) | undefined {
  for (const message of messagesIn(body)) {
    const error = message.error;
    if (error && typeof error === 'object' && typeof error.code === 'number') return { ...error, id: message.id };
  }
  return undefined;
}

/** A response (no method) to a request id. */
export function isAnswerTo(message: JsonRpcMessage, id: number | string): boolean {
  return message.method === undefined && message.id === id && (message.result !== undefined || message.error !== undefined);
}

/** A server answer that says the session is gone although the spec's 404 is not used (the SDK examples). */
export function namesLostSession(error: JsonRpcErrorBody | undefined): boolean {
  return error !== undefined && error.code === -32000 && /session/i.test(error.message);
}

/**
 * A header value per the 2026-07-28 value encoding: plain when it is visible ASCII without leading or
 * trailing whitespace and not itself a sentinel, otherwise `=?base64?…?=` of its UTF-8 bytes.
 */
export function encodeHeaderValue(value: string): string {
  const plain = /^[\x21-\x7e]([\x20-\x7e\t]*[\x21-\x7e])?$/.test(value) && !(value.startsWith('=?base64?') && value.endsWith('?='));
  return plain ? value : `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`;
}

/** The value of Mcp-Name for a request, when its method has one (tools/call, prompts/get: name; resources/read: uri). */
export function mcpNameOf(method: string, params: Params): string | undefined {
  const value = method === 'tools/call' || method === 'prompts/get' ? params['name'] : method === 'resources/read' ? params['uri'] : undefined;
  return typeof value === 'string' ? encodeHeaderValue(value) : undefined;
}

/** Header names, lower-cased. */
export const H = {
  session: 'mcp-session-id',
  version: 'mcp-protocol-version',
  method: 'mcp-method',
  name: 'mcp-name',
  lastEventId: 'last-event-id',
  accept: 'accept',
  contentType: 'content-type',
} as const;
