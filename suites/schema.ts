// Every JSON-RPC message a client sent, validated against the message schemas of the revision under test, as
// the official SDKs define them (no hand-written message shapes here):
//
// - JSON-RPC framing: @modelcontextprotocol/core's JSONRPCRequest/Notification/ResultResponse/ErrorResponse
//   schemas (strict objects: `jsonrpc: "2.0"`, an integer-or-string id on requests, none on notifications).
// - Method payloads: the v2 SDK's per-era wire codecs, the ones its own Client and Server validate inbound
//   traffic with: the frozen 2025-11-25 codec for every legacy revision (the SDK has no older schema sets), the
//   2026-07-28 codec for 2026-07-28, including its required per-request `_meta` envelope. The SDK keeps the
//   codecs internal; they are reached through the public `Protocol` class (see `sdkWireCodec`).
// - Which methods a client may send: the SDKs' ClientRequest/ClientNotification unions (v1 for the 2025-11-25
//   tasks methods the v2 neutral union dropped, v2 core for 2026-07-28) intersected with the era codec's
//   registry, minus what did not exist yet at an older legacy revision (`INTRODUCED_AT`).
import { Protocol } from '@modelcontextprotocol/client';
import {
  ClientNotificationSchema as V2ClientNotificationSchema,
  ClientRequestSchema as V2ClientRequestSchema,
  JSONRPCErrorResponseSchema,
  JSONRPCNotificationSchema,
  JSONRPCRequestSchema,
  JSONRPCResultResponseSchema,
  ServerRequestSchema as V2ServerRequestSchema,
} from '@modelcontextprotocol/core';
import {
  ClientNotificationSchema as V1ClientNotificationSchema,
  ClientRequestSchema as V1ClientRequestSchema,
  ServerRequestSchema as V1ServerRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { META } from '../protocol/http.ts';
import { LEGACY_REVISIONS, REVISIONS, specUrl, type Revision } from '../protocol/revisions.ts';
import type { JsonRpcMessage, WireExchange } from '../servers/wire-record.ts';
import { check } from './checks.ts';
import { envelopeOf, initializeResult, mcpExchanges } from './wire.ts';
import type { Check, Evidence, SpecRef } from './scenario.ts';

export const SCHEMA_CHECK = 'messages-match-schema';

const MODERN: Revision = '2026-07-28';
/** How many violations the detail lists before "and N more". */
const SHOWN = 5;

// ── the SDK's per-era wire codecs ──────────────────────────────────────────────────────────────────────────

type Outcome = { readonly ok: true } | { readonly ok: false; readonly reason: 'not-in-era' } | { readonly ok: false; readonly reason: 'invalid'; readonly message: string };

/** The part of the v2 SDK's internal `WireCodec` (core-internal/src/wire/codec.ts) this check uses. */
export interface SdkWireCodec {
  readonly era: '2025-11-25' | '2026-07-28';
  hasRequestMethod(method: string): boolean;
  hasNotificationMethod(method: string): boolean;
  validateRequest(method: string, raw: unknown): Outcome;
  validateNotification(method: string, raw: unknown): Outcome;
  validateResult(method: string, raw: unknown): Outcome;
  samplingResultVariant(hasTools: boolean, raw: unknown): Outcome;
  /** Required-key pre-pass plus the wire-exact RequestMetaEnvelopeSchema parse; always [] on the 2025 era. */
  validateEnvelopeMeta(meta: Readonly<Record<string, unknown>>): { key: string; problem: string }[];
}

/**
 * The wire codec the v2 SDK (@modelcontextprotocol/client) uses for a negotiated protocol version. The codecs
 * are not exported; `Protocol` (exported) resolves them in its protected `_wireCodec()` from the instance's
 * negotiated version, so a bare object on its prototype with that version set gets exactly the codec a
 * connection at that version validates with. Throws when an SDK upgrade moved this seam.
 */
export function sdkWireCodec(version: string): SdkWireCodec {
  const probe = Object.create(Protocol.prototype) as { _negotiatedProtocolVersion?: string; _wireCodec?: () => unknown };
  probe._negotiatedProtocolVersion = version;
  const codec = typeof probe._wireCodec === 'function' ? (probe._wireCodec() as Partial<SdkWireCodec> | undefined) : undefined;
  const era = version >= MODERN ? '2026-07-28' : '2025-11-25';
  const needed = ['hasRequestMethod', 'hasNotificationMethod', 'validateRequest', 'validateNotification', 'validateResult', 'samplingResultVariant', 'validateEnvelopeMeta'] as const;
  if (codec?.era !== era || needed.some((name) => typeof codec[name] !== 'function')) {
    throw new Error(`@modelcontextprotocol/client no longer exposes its ${era} wire codec through Protocol.prototype._wireCodec(): suites/schema.ts needs updating`);
  }
  return codec as SdkWireCodec;
}

/** The `method` literals of a zod union of request or notification schemas (an SDK's ClientRequestSchema …). */
function methodsOf(union: { options: readonly unknown[] }): string[] {
  return union.options.flatMap((option) => {
    const literal = (option as { shape?: { method?: { value?: unknown } } }).shape?.method?.value;
    return typeof literal === 'string' ? [literal] : [];
  });
}

/**
 * Client methods that the SDK's frozen 2025-11-25 registry holds but that earlier revisions' schemas do not
 * have (the tasks utility arrived with 2025-11-25). The SDKs validate every legacy revision with one schema set;
 * this is the only per-revision difference in what a client may send (compared with the spec's schema.json of
 * 2025-03-26, 2025-06-18 and 2025-11-25; 2024-11-05 has the same client methods as 2025-03-26).
 */
const INTRODUCED_AT: Readonly<Record<string, Revision>> = {
  'tasks/get': '2025-11-25',
  'tasks/result': '2025-11-25',
  'tasks/list': '2025-11-25',
  'tasks/cancel': '2025-11-25',
  'notifications/tasks/status': '2025-11-25',
};

interface Rules {
  revision: Revision;
  codec: SdkWireCodec;
  /** Requests a client may send at this revision. */
  requests: ReadonlySet<string>;
  notifications: ReadonlySet<string>;
}

function buildRules(revision: Revision): Rules {
  const codec = sdkWireCodec(revision);
  const exists = (method: string) => (INTRODUCED_AT[method] ?? revision) <= revision;
  const modern = revision >= MODERN;
  const requestUnions = modern ? [V2ClientRequestSchema] : [V1ClientRequestSchema, V2ClientRequestSchema];
  const notificationUnions = modern ? [V2ClientNotificationSchema] : [V1ClientNotificationSchema, V2ClientNotificationSchema];
  return {
    revision,
    codec,
    requests: new Set(requestUnions.flatMap(methodsOf).filter((method) => codec.hasRequestMethod(method) && exists(method))),
    notifications: new Set(notificationUnions.flatMap(methodsOf).filter((method) => codec.hasNotificationMethod(method) && exists(method))),
  };
}

/** Built once per process: every revision's method sets, with the codecs' schemas warmed. */
const RULES = Object.fromEntries(REVISIONS.map((revision) => [revision, buildRules(revision)])) as Record<Revision, Rules>;
for (const rules of Object.values(RULES)) rules.codec.validateRequest('tools/list', undefined);

/** Server-to-client requests, for naming the result a client response answers. */
const SERVER_REQUESTS = new Set([...methodsOf(V1ServerRequestSchema), ...methodsOf(V2ServerRequestSchema)]);

/** The client methods defined at a revision, as this check derives them from the SDKs (for tests and reports). */
export function clientMethods(revision: Revision): { requests: string[]; notifications: string[] } {
  return { requests: [...RULES[revision].requests], notifications: [...RULES[revision].notifications] };
}

// ── one message ────────────────────────────────────────────────────────────────────────────────────────────

interface Issue {
  path: readonly PropertyKey[];
  message: string;
  code?: string;
  expected?: string;
  errors?: readonly (readonly Issue[])[];
}

/** `params.messages[0].content` */
function formatPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((text, key) => (typeof key === 'number' ? `${text}[${key}]` : `${text}${text === '' ? '' : '.'}${String(key)}`), '');
}

/** The first zod issue as `path: message`; a union failure is followed into its closest branch. */
function formatIssue(issue: Issue, prefix: readonly PropertyKey[] = []): string {
  const path = [...prefix, ...issue.path];
  const branches = issue.code === 'invalid_union' ? (issue.errors ?? []).filter((branch) => branch.length > 0) : [];
  // `id: string | number` and the like: every branch is one wrong type at the union's own path.
  const types = branches.map((branch) => (branch.length === 1 && branch[0]!.code === 'invalid_type' && branch[0]!.path.length === 0 ? branch[0]!.expected : undefined));
  if (types.length > 1 && types.every((type) => type !== undefined)) {
    const received = / received (.+)$/.exec(branches[0]![0]!.message)?.[1];
    return formatIssue({ path: issue.path, message: `Invalid input: expected ${[...new Set(types)].join(' | ')}${received ? `, received ${received}` : ''}` }, prefix);
  }
  if (branches.length > 0) {
    const closest = branches.reduce((best, branch) => (branch.length < best.length ? branch : best));
    return formatIssue(closest[0]!, path);
  }
  const where = formatPath(path);
  return where === '' ? issue.message : `${where}: ${issue.message}`;
}

/** The first issue of a codec outcome (the SDK stringifies the ZodError: a JSON array of issues). */
function outcomeProblem(outcome: Outcome, prefix: readonly PropertyKey[] = []): string | undefined {
  if (outcome.ok || outcome.reason === 'not-in-era') return undefined;
  try {
    const issues = JSON.parse(outcome.message) as Issue[];
    if (Array.isArray(issues) && issues[0]) return formatIssue(issues[0], prefix);
  } catch {
    // not the JSON issue list: fall through to the message itself
  }
  return outcome.message.split('\n')[0];
}

type Framing = typeof JSONRPCRequestSchema | typeof JSONRPCNotificationSchema | typeof JSONRPCResultResponseSchema | typeof JSONRPCErrorResponseSchema;

function framingProblem(schema: Framing, message: unknown): string | undefined {
  const parsed = schema.safeParse(message);
  return parsed.success ? undefined : formatIssue(parsed.error.issues[0] as Issue);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The server-to-client request a client response answers. */
export interface AnsweredRequest {
  method: string;
  params?: Record<string, unknown>;
}

export interface MessageVerdict {
  /** What the message is: its method, `response to <method>`, `response #<id>`. */
  label: string;
  /** The first problem, when the message does not match; undefined when it does. */
  problem?: string;
  /** A `server/discover` at a legacy revision: judged by the 2026-07-28 schema as a dual-era client's probe. */
  probe?: boolean;
}

/** Validates one client-to-server message against the schemas of `revision`. */
export function validateClientMessage(message: unknown, revision: Revision, answering?: AnsweredRequest): MessageVerdict {
  if (!isObject(message)) return { label: '(not JSON-RPC)', problem: 'not a JSON object' };
  const method = message['method'];
  const label = typeof method === 'string' ? method : method === undefined ? responseLabel(message, answering) : '(no method name)';
  if (method !== undefined) {
    const isRequest = 'id' in message;
    const framing = framingProblem(isRequest ? JSONRPCRequestSchema : JSONRPCNotificationSchema, message);
    if (framing !== undefined || typeof method !== 'string') return { label, problem: framing ?? 'method is not a string' };
    return isRequest ? validateRequest(message, method, revision) : validateNotification(message, method, revision);
  }
  if (!('result' in message) && !('error' in message) && !('id' in message)) {
    return { label: '(not JSON-RPC)', problem: 'neither a request, a notification nor a response: no method, result or error' };
  }
  const framing = framingProblem('error' in message ? JSONRPCErrorResponseSchema : JSONRPCResultResponseSchema, message);
  if (framing !== undefined) return { label, problem: framing };
  if (!('result' in message) || answering === undefined) return { label };
  const problem = resultProblem(answering, message['result'], RULES[revision].codec);
  return { label, ...(problem !== undefined && { problem }) };
}

function responseLabel(message: Record<string, unknown>, answering: AnsweredRequest | undefined): string {
  if (answering) return `${'error' in message ? 'error response' : 'response'} to ${answering.method}`;
  return `${'error' in message ? 'error response' : 'response'} #${JSON.stringify(message['id'])}`;
}

function validateRequest(message: Record<string, unknown>, method: string, revision: Revision): MessageVerdict {
  // A dual-era client probes with server/discover before initialize: judged as what it is, a 2026-07-28 request.
  const probe = method === 'server/discover' && revision < MODERN;
  const rules = RULES[probe ? MODERN : revision];
  const verdict = (problem?: string): MessageVerdict => ({ label: probe ? `${method} (probe, judged by ${MODERN})` : method, ...(problem !== undefined && { problem }), ...(probe && { probe }) });
  if (!rules.requests.has(method)) {
    if (rules.notifications.has(method)) return verdict(`a notification must not have an id (id ${JSON.stringify(message['id'])})`);
    return verdict(`not a client request at ${revision}${elsewhere(method, 'requests', revision)}`);
  }
  const params = message['params'];
  const meta = isObject(params) && isObject(params['_meta']) ? params['_meta'] : {};
  const envelope = rules.codec.validateEnvelopeMeta(meta)[0];
  if (envelope) return verdict(`${envelopePath(envelope.key)}: ${envelope.problem}`);
  return verdict(outcomeProblem(rules.codec.validateRequest(method, message)));
}

function validateNotification(message: Record<string, unknown>, method: string, revision: Revision): MessageVerdict {
  const rules = RULES[revision];
  if (!rules.notifications.has(method)) {
    if (rules.requests.has(method)) return { label: method, problem: 'a request without an id' };
    return { label: method, problem: `not a client notification at ${revision}${elsewhere(method, 'notifications', revision)}` };
  }
  const problem = outcomeProblem(rules.codec.validateNotification(method, message));
  return { label: method, ...(problem !== undefined && { problem }) };
}

/** `params._meta["io.modelcontextprotocol/clientCapabilities"].roots` for the codec's envelope key `io.modelcontextprotocol/clientCapabilities.roots`. */
function envelopePath(key: string): string {
  const reserved = /^(io\.modelcontextprotocol\/[^.]+)(.*)$/.exec(key);
  if (reserved) return `params._meta[${JSON.stringify(reserved[1])}]${reserved[2]}`;
  return key === '_meta' ? 'params._meta' : `params._meta.${key}`;
}

/** ` (it exists at 2026-07-28)`, when another revision has the method: the likely era mix-up. */
function elsewhere(method: string, kind: 'requests' | 'notifications', revision: Revision): string {
  const at = REVISIONS.filter((other) => other !== revision && RULES[other][kind].has(method));
  if (at.length === 0) return '';
  return ` (it exists at ${at.length === 1 ? at[0] : `${at[0]} … ${at.at(-1)}`})`;
}

function resultProblem(answering: AnsweredRequest, result: unknown, codec: SdkWireCodec): string | undefined {
  if (answering.method === 'sampling/createMessage') {
    const variant = codec.samplingResultVariant(Array.isArray(answering.params?.['tools']), result);
    if (variant.ok || variant.reason === 'invalid') return outcomeProblem(variant, ['result']);
  }
  return outcomeProblem(codec.validateResult(answering.method, result), ['result']);
}

// ── one evidence ───────────────────────────────────────────────────────────────────────────────────────────

export interface SchemaViolation {
  exchange: WireExchange;
  label: string;
  problem: string;
}

/** Why a non-empty body yielded no message, or why a batch body is not one of this revision's messages. */
function bodyProblem(exchange: WireExchange, revision: Revision): string | undefined {
  const body = exchange.requestBody.trim();
  if (body === '') return undefined;
  const batch = body.startsWith('[');
  if (!batch && exchange.requestMessages.length > 0) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return `the body is not JSON: ${JSON.stringify(body.length > 40 ? `${body.slice(0, 40)}…` : body)}`;
  }
  if (!Array.isArray(parsed)) return `the body is JSON but not a JSON-RPC message (${parsed === null ? 'null' : typeof parsed})`;
  if (parsed.length === 0) return 'the body is an empty JSON array, not a JSON-RPC message';
  const notObject = parsed.findIndex((item) => !isObject(item));
  if (notObject >= 0) return `batch element ${notObject} is not a JSON-RPC message object`;
  // JSON-RPC batches are in the 2025-03-26 schema only (added there, removed in 2025-06-18).
  if (revision !== '2025-03-26') return `a JSON-RPC batch of ${parsed.length}: the ${revision} schema has no batches (only 2025-03-26 does)`;
  return undefined;
}

/** Every server-to-client request in the record, by id, in the order the server wrote them. */
function serverRequests(exchanges: readonly WireExchange[]): Map<string, { at: number; request: AnsweredRequest }[]> {
  const byId = new Map<string, { at: number; request: AnsweredRequest }[]>();
  for (const exchange of exchanges) {
    for (const { message, at } of exchange.responseMessages) {
      if (typeof message.method !== 'string' || message.id === undefined || !SERVER_REQUESTS.has(message.method)) continue;
      const key = JSON.stringify(message.id);
      const list = byId.get(key) ?? [];
      list.push({ at, request: { method: message.method, ...(isObject(message.params) && { params: message.params }) } });
      byId.set(key, list);
    }
  }
  for (const list of byId.values()) list.sort((a, b) => a.at - b.at);
  return byId;
}

/** The request a client response answers: the last one with its id the server wrote before the response arrived. */
function answeredBy(message: JsonRpcMessage, exchange: WireExchange, requests: Map<string, { at: number; request: AnsweredRequest }[]>): AnsweredRequest | undefined {
  if (message.method !== undefined || message.id === undefined) return undefined;
  const candidates = requests.get(JSON.stringify(message.id));
  if (!candidates) return undefined;
  return (candidates.findLast(({ at }) => at <= exchange.startedAt) ?? candidates[0])?.request;
}

/**
 * Every client-to-server message of the record that does not match the schemas of `evidence.revision`. Only what went
 * to the MCP endpoint is an MCP message: OAuth discovery, client registration and token requests (a JSON or form body
 * of their own, to other paths) are not judged here.
 */
export function schemaViolations(evidence: Pick<Evidence, 'revision' | 'exchanges'>): { violations: SchemaViolation[]; messages: number; probes: number; fallbacks: number } {
  const { revision, exchanges } = evidence;
  const violations: SchemaViolation[] = [];
  let messages = 0;
  let probes = 0;
  let fallbacks = 0;
  let requests: ReturnType<typeof serverRequests> | undefined;
  // At 2026-07-28, a client that falls back to initialize (after a modern request: the era detection the revision
  // asks for) speaks the legacy era it fell back to from there on: its initialize and every envelope-less message after
  // it are judged by that era's schema, as the dual-era server routes them (the SDK's isLegacyRequest). Whether it
  // should have fallen back at all is its scenario's own check. An initialize before any modern request is no fallback:
  // a 2026-07-28 client opened with a message its revision does not have.
  let triedModern = false;
  let fellBackTo: Revision | undefined;
  for (const exchange of mcpExchanges(exchanges, revision)) {
    const body = bodyProblem(exchange, revision);
    if (body !== undefined) violations.push({ exchange, label: exchange.requestMessages.length === 0 ? '(not JSON-RPC)' : '(batch)', problem: body });
    for (const message of exchange.requestMessages) {
      messages++;
      if (revision >= MODERN && message.method === 'initialize' && triedModern) fellBackTo ??= fallbackRevision(message, exchange);
      const enveloped = envelopeOf(message)?.[META.version] !== undefined;
      if (message.method === 'server/discover' || enveloped) triedModern = true;
      const legacy = fellBackTo !== undefined && !enveloped;
      const judgedBy = legacy ? fellBackTo! : revision;
      const isResponse = message.method === undefined;
      if (isResponse) requests ??= serverRequests(exchanges);
      const verdict = validateClientMessage(message, judgedBy, isResponse ? answeredBy(message, exchange, requests!) : undefined);
      if (verdict.probe) probes++;
      if (legacy) fallbacks++;
      const label = legacy ? `${verdict.label} (fallback, judged by ${judgedBy})` : verdict.label;
      if (verdict.problem !== undefined) violations.push({ exchange, label, problem: verdict.problem });
    }
  }
  return { violations, messages, probes, fallbacks };
}

/** The legacy revision a fallback initialize speaks: the one its answer negotiated, else the one it asked for, else the last legacy one. */
function fallbackRevision(initialize: JsonRpcMessage, exchange: WireExchange): Revision {
  const legacy = (version: unknown): Revision | undefined => (LEGACY_REVISIONS as readonly unknown[]).includes(version) ? (version as Revision) : undefined;
  return legacy(initializeResult(exchange)?.['protocolVersion']) ?? legacy(initialize.params?.['protocolVersion']) ?? LEGACY_REVISIONS.at(-1)!;
}

/** The rule: the schema reference page where the revision has one (2025-06-18 on), else Base Protocol › Messages. */
export function schemaSpec(revision: Revision): SpecRef {
  if (revision >= '2025-06-18') {
    return { url: specUrl(revision, 'schema'), section: 'Schema Reference: every message the client sends matches the revision’s schema', level: 'MUST' };
  }
  return { url: specUrl(revision, 'basic', 'messages'), section: 'Base Protocol › Messages: every message the client sends matches the revision’s schema', level: 'MUST' };
}

/**
 * `messages-match-schema`: every JSON-RPC message the client sent to the MCP endpoint (requests, notifications, and its responses to
 * server requests) matches the message schemas of the revision under test, per the official SDKs; a body that
 * is not JSON-RPC at all is a violation too. A `server/discover` probe at a legacy revision is judged by the
 * 2026-07-28 schema; at 2026-07-28, a fallback to initialize by the legacy revision it negotiated (schemaViolations).
 * Every server of the case counts: the case's own and those its script started (`otherServers`).
 */
export function schemaCheck(evidence: Pick<Evidence, 'revision' | 'exchanges'> & Partial<Pick<Evidence, 'otherServers'>>): Check {
  const { revision } = evidence;
  const own = schemaViolations(evidence);
  // What the client sent to the servers a script started besides the case's own (one per answer, say) counts too.
  const others = (evidence.otherServers ?? []).map((server, index) => ({ server: index + 2, ...schemaViolations({ revision, exchanges: server.exchanges }) }));
  const all = [own, ...others];
  const violations = [...own.violations.map((v) => ({ ...v, at: `#${v.exchange.seq}` })), ...others.flatMap((o) => o.violations.map((v) => ({ ...v, at: `server ${o.server} #${v.exchange.seq}` })))];
  const sum = (key: 'messages' | 'probes' | 'fallbacks') => all.reduce((total, part) => total + part[key], 0);
  const [messages, probes, fallbacks] = [sum('messages'), sum('probes'), sum('fallbacks')];
  const notes = [
    ...(probes > 0 ? [`${probes} server/discover probe${probes === 1 ? '' : 's'} judged by the ${MODERN} schema`] : []),
    ...(fallbacks > 0 ? [`${fallbacks} message${fallbacks === 1 ? '' : 's'} after a fallback to initialize judged by the legacy era's schema`] : []),
  ];
  const note = notes.length > 0 ? ` (${notes.join('; ')})` : '';
  if (violations.length === 0) {
    return check(SCHEMA_CHECK, schemaSpec(revision), true, `all ${messages} messages the client sent match the ${revision} schema${note}`);
  }
  const listed = violations.slice(0, SHOWN).map((v) => `${v.at} ${v.label}: ${v.problem}`);
  const more = violations.length > SHOWN ? `; and ${violations.length - SHOWN} more` : '';
  // The check's exchanges are the case server's own (the record its sequence numbers refer to).
  const offending = [...new Set(own.violations.map((v) => v.exchange))].sort((a, b) => a.seq - b.seq);
  return check(SCHEMA_CHECK, schemaSpec(revision), false, `${listed.join('; ')}${more}`, offending);
}
