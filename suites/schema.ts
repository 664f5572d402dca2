// Every JSON-RPC message a client sent, validated against the JSON Schema of the revision under test: the spec's own
// schema.json of each revision (protocol/schemas/, copied unchanged; SOURCE.md there says from where, under which
// licence), with ajv. The judge is the spec, not the codec of an SDK: the SDKs are what the matrix judges.
//
// - JSON-RPC framing: the revision's JSONRPCRequest, JSONRPCNotification and its result and error responses.
// - Method payloads: the definition the revision's ClientRequest or ClientNotification union holds for the method
//   (CallToolRequest …), 2026-07-28's required `_meta` envelope included (its RequestMetaObject).
// - A client's answer to a server request: the result definition named after the request (CreateMessageRequest →
//   CreateMessageResult; a task-augmented one → CreateTaskResult; ping, which has none → Result).
// - Which methods a client may send: the method constants of those two unions; any other method is a violation.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv, type AnySchema, type ErrorObject, type Format, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
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

// ── the spec's schemas, one per revision ───────────────────────────────────────────────────────────────────

/** protocol/schemas/, beside the modules in both layouts (scripts/build.ts copies it into dist/). */
const SCHEMA_DIR = join(import.meta.dirname, '..', 'protocol', 'schemas');

type Schema = { readonly [keyword: string]: unknown };

/**
 * The formats the schemas use. `uri`: an absolute URI has a scheme (RFC 3986 §3); `byte`: base64 (RFC 4648 §4);
 * `uri-template` is left an annotation (2020-12's default for every format; a client never sends one).
 */
const FORMATS: Record<string, Format> = {
  uri: /^[A-Za-z][A-Za-z0-9+.-]*:/,
  byte: (value: string) => value.length % 4 === 0 && /^[A-Za-z0-9+/]*={0,2}$/.test(value),
  'uri-template': true,
};

interface SchemaSet {
  readonly revision: Revision;
  /** Where the definitions are: `definitions` (draft-07: 2024-11-05 … 2025-06-18) or `$defs` (2020-12: 2025-11-25 on). */
  readonly defsKey: string;
  readonly defs: Readonly<Record<string, Schema>>;
  /** Client requests and notifications by method: the JSON pointer of each one's definition. */
  readonly requests: ReadonlyMap<string, string>;
  readonly notifications: ReadonlyMap<string, string>;
  /** Server-to-client requests by method: the name of each one's definition (`CreateMessageRequest`). */
  readonly serverRequests: ReadonlyMap<string, string>;
  /** The validator of the definition at a JSON pointer (`#/$defs/CallToolRequest`), compiled on first use. */
  validator(pointer: string): ValidateFunction;
  /** The JSON pointer of a schema object of this document, for the subschemas an error names (anyOf branches). */
  pointerOf(schema: unknown): string | undefined;
}

const SETS = new Map<Revision, SchemaSet>();

/** A revision's schema set, loaded on first use and kept for the process. */
function schemaSet(revision: Revision): SchemaSet {
  let set = SETS.get(revision);
  if (!set) SETS.set(revision, (set = loadSet(revision)));
  return set;
}

function loadSet(revision: Revision): SchemaSet {
  const file = `protocol/schemas/${revision}.schema.json`;
  const document = JSON.parse(readFileSync(join(SCHEMA_DIR, `${revision}.schema.json`), 'utf8')) as Schema;
  const draft = String(document['$schema']);
  const is2020 = draft === 'https://json-schema.org/draft/2020-12/schema';
  if (!is2020 && draft !== 'http://json-schema.org/draft-07/schema#') throw new Error(`${file} declares ${draft}: suites/schema.ts reads draft-07 and 2020-12 only`);
  const defsKey = is2020 ? '$defs' : 'definitions';
  const defs = document[defsKey] as Record<string, Schema>;
  // The server sends no requests at 2026-07-28: no ServerRequest there. A client union missing is a schema this cannot read.
  const union = (name: string): Map<string, string> => {
    const definition = defs[name];
    if (!definition && name === 'ServerRequest') return new Map();
    if (!definition) throw new Error(`${file} has no ${name}`);
    // A union is an anyOf of $refs; one of a single member is that member itself (2026-07-28's ClientNotification).
    const members = Array.isArray(definition['anyOf']) ? (definition['anyOf'] as Schema[]).map((member, index) => ({ member, at: `#/${defsKey}/${name}/anyOf/${index}` })) : [{ member: definition, at: `#/${defsKey}/${name}` }];
    return new Map(
      members.flatMap(({ member, at }) => {
        const ref = member['$ref'];
        const pointer = typeof ref === 'string' ? ref : at;
        const target = typeof ref === 'string' ? defs[ref.slice(`#/${defsKey}/`.length)] : member;
        const method = (target?.['properties'] as { method?: { const?: unknown } } | undefined)?.method?.const;
        if (typeof method !== 'string') throw new Error(`${file}: ${name} has a member without a method constant (${pointer})`);
        return [[method, pointer] as const];
      }),
    );
  };
  let ajv: Ajv | undefined;
  const validators = new Map<string, ValidateFunction>();
  let pointers: Map<unknown, string> | undefined;
  return {
    revision,
    defsKey,
    defs,
    requests: union('ClientRequest'),
    notifications: union('ClientNotification'),
    serverRequests: new Map([...union('ServerRequest')].map(([method, pointer]) => [method, pointer.split('/').pop()!])),
    validator(pointer) {
      let validate = validators.get(pointer);
      if (!validate) {
        // verbose: an anyOf error carries its branches and the value, for following it into the branch meant (firstProblem).
        // The files are the spec's, unchanged: their meta-schema validation (a tenth of a second each) is a test's job.
        const options = { verbose: true, allowUnionTypes: true, formats: FORMATS, validateSchema: false };
        if (!ajv) (ajv = is2020 ? new Ajv2020(options) : new Ajv(options)).addSchema(document as AnySchema, revision);
        validate = ajv.getSchema(`${revision}${pointer}`);
        if (!validate) throw new Error(`${file} has no schema at ${pointer}`);
        validators.set(pointer, validate);
      }
      return validate;
    },
    pointerOf(schema) {
      if (!pointers) {
        pointers = new Map();
        const walk = (node: unknown, pointer: string): void => {
          if (typeof node !== 'object' || node === null) return;
          pointers!.set(node, pointer);
          for (const [key, child] of Object.entries(node)) walk(child, `${pointer}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`);
        };
        walk(document, '#');
      }
      return pointers.get(schema);
    },
  };
}

/** The first definition of `names` the revision's schema has, as a JSON pointer (the names changed in 2025-11-25). */
function definition(set: SchemaSet, ...names: string[]): string {
  const name = names.find((candidate) => set.defs[candidate] !== undefined);
  if (name === undefined) throw new Error(`the ${set.revision} schema defines none of ${names.join(', ')}`);
  return `#/${set.defsKey}/${name}`;
}

/** The client methods defined at a revision: the method constants of its ClientRequest and ClientNotification unions. */
export function clientMethods(revision: Revision): { requests: string[]; notifications: string[] } {
  const set = schemaSet(revision);
  return { requests: [...set.requests.keys()], notifications: [...set.notifications.keys()] };
}

// ── what an error says ─────────────────────────────────────────────────────────────────────────────────────

type Segment = string | number;

/** `/params/messages/0` → ['params', 'messages', 0] */
function segments(instancePath: string): Segment[] {
  if (instancePath === '') return [];
  return instancePath
    .slice(1)
    .split('/')
    .map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'))
    .map((part) => (/^(0|[1-9]\d*)$/.test(part) ? Number(part) : part));
}

/** `params.messages[0].content`, `params._meta["io.modelcontextprotocol/clientCapabilities"]` */
function formatPath(path: readonly Segment[]): string {
  return path.reduce<string>((text, key) => {
    if (typeof key === 'number') return `${text}[${key}]`;
    if (/^[A-Za-z_$][\w$]*$/.test(key)) return `${text}${text === '' ? '' : '.'}${key}`;
    return `${text}[${JSON.stringify(key)}]`;
  }, '');
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/** A value as a detail quotes it: short. */
function quoted(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Whether `value` is of one of a schema's `type`s (integer counting as number). */
function ofType(value: unknown, type: unknown): boolean {
  const types = [type].flat();
  const actual = jsonType(value);
  return types.includes(actual) || (actual === 'integer' && types.includes('number'));
}

interface Problem {
  path: Segment[];
  message: string;
  /** The value has nothing at `path` (a required property missing): a weaker sign of the branch meant than a wrong value. */
  missing?: boolean;
}

/** An error as `path: message`, the path from the message's top (`params.name: missing`). */
function describe(error: ErrorObject, prefix: readonly Segment[]): Problem {
  const path = [...prefix, ...segments(error.instancePath)];
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return { path: [...path, String(params['missingProperty'])], message: 'missing', missing: true };
    case 'additionalProperties':
      return { path: [...path, String(params['additionalProperty'])], message: 'not allowed here' };
    case 'type':
      return { path, message: `must be ${[params['type']].flat().join(' | ')}, received ${jsonType(error.data)}` };
    case 'const':
      return { path, message: `must be ${quoted(params['allowedValue'])}, received ${quoted(error.data)}` };
    case 'enum':
      return { path, message: `must be one of ${(params['allowedValues'] as unknown[]).map(quoted).join(' | ')}, received ${quoted(error.data)}` };
    default:
      return { path, message: error.message ?? `fails ${error.keyword}` };
  }
}

/**
 * What failed a validation, from ajv's errors (first-error mode: the last one is the keyword that failed). An anyOf
 * failure is followed into the branch the value meant: among the branches of its JSON type, the ones whose constants
 * (`type: "text"`) it does not contradict, then the one it got furthest into, a wrong value counting over a missing
 * one; when every branch of its type has another constant, the constants it could have had are listed. A union of bare
 * types (`string | integer`) is said as one.
 */
function firstProblem(set: SchemaSet, errors: readonly ErrorObject[], prefix: readonly Segment[]): Problem {
  const error = errors.at(-1);
  if (error === undefined) return { path: [...prefix], message: 'does not match its schema' };
  if (error.keyword !== 'anyOf') return describe(error, prefix);
  const at = [...prefix, ...segments(error.instancePath)];
  const value: unknown = error.data;
  const pointers = (error.schema as Schema[]).map((branch) => set.pointerOf(branch));
  // Branches this cannot find in the document (an ajv that copied them): the anyOf said as ajv says it.
  if (pointers.some((pointer) => pointer === undefined)) return describe(error, prefix);
  const branches = (error.schema as Schema[]).map((branch, index) => {
    const validate = set.validator(pointers[index]!);
    validate(value);
    const problem = firstProblem(set, [...(validate.errors ?? [])], at);
    const target = resolve(set, branch);
    const constants = Object.entries((target['properties'] ?? {}) as Record<string, Schema>).filter(([, property]) => property['const'] !== undefined);
    const clash = isObject(value) ? constants.find(([key, property]) => value[key] !== undefined && value[key] !== property['const']) : undefined;
    const typed = target['type'] === undefined || ofType(value, target['type']);
    return { problem, clash, typed, bareType: !typed && Object.keys(target).every((key) => key === 'type' || key === 'description') };
  });
  if (branches.every((branch) => branch.bareType)) {
    const types = branches.map((branch) => /^must be (.+), received/.exec(branch.problem.message)?.[1]);
    return { path: at, message: `must be ${[...new Set(types)].join(' | ')}, received ${jsonType(value)}` };
  }
  const typed = branches.filter((branch) => branch.typed);
  const agreeing = typed.filter((branch) => branch.clash === undefined);
  const key = typed[0]?.clash?.[0];
  if (agreeing.length === 0 && isObject(value) && key !== undefined && typed.every((branch) => branch.clash?.[0] === key)) {
    // No branch has the value's discriminator: which values it could have had (`content.type: must be one of …`).
    const allowed = typed.map((branch) => quoted(branch.clash![1]['const']));
    return { path: [...at, key], message: `must be one of ${[...new Set(allowed)].join(' | ')}, received ${quoted(value[key])}` };
  }
  const closeness = ({ problem }: { problem: Problem }) => problem.path.length * 2 + (problem.missing ? 0 : 1);
  const candidates = agreeing.length > 0 ? agreeing : typed.length > 0 ? typed : branches;
  return candidates.reduce((best, branch) => (closeness(branch) > closeness(best) ? branch : best)).problem;
}

/** A branch schema itself, its `$ref` followed. */
function resolve(set: SchemaSet, schema: Schema): Schema {
  const ref = schema['$ref'];
  if (typeof ref !== 'string') return schema;
  const target = set.defs[ref.split('/').pop()!];
  return target ? resolve(set, target) : schema;
}

/** The first problem of `value` against the definition at `pointer`, with paths from `prefix`; undefined when it matches. */
function problemOf(set: SchemaSet, pointer: string, value: unknown, prefix: readonly Segment[] = []): string | undefined {
  const validate = set.validator(pointer);
  if (validate(value)) return undefined;
  const { path, message } = firstProblem(set, [...(validate.errors ?? [])], prefix);
  const where = formatPath(path);
  return where === '' ? message : `${where}: ${message}`;
}

// ── one message ────────────────────────────────────────────────────────────────────────────────────────────

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

/** Validates one client-to-server message against the schema of `revision`. */
export function validateClientMessage(message: unknown, revision: Revision, answering?: AnsweredRequest): MessageVerdict {
  if (!isObject(message)) return { label: '(not JSON-RPC)', problem: 'not a JSON object' };
  const set = schemaSet(revision);
  const method = message['method'];
  const label = typeof method === 'string' ? method : method === undefined ? responseLabel(message, answering) : '(no method name)';
  if (method !== undefined) {
    const isRequest = 'id' in message;
    const framing = problemOf(set, definition(set, isRequest ? 'JSONRPCRequest' : 'JSONRPCNotification'), message);
    if (framing !== undefined || typeof method !== 'string') return { label, problem: framing ?? 'method is not a string' };
    return isRequest ? validateRequest(message, method, revision) : validateNotification(message, method, revision);
  }
  if (!('result' in message) && !('error' in message) && !('id' in message)) {
    return { label: '(not JSON-RPC)', problem: 'neither a request, a notification nor a response: no method, result or error' };
  }
  // Named JSONRPCResponse and JSONRPCError until 2025-11-25, which made JSONRPCResponse the union of the two.
  const framing = 'error' in message ? definition(set, 'JSONRPCErrorResponse', 'JSONRPCError') : definition(set, 'JSONRPCResultResponse', 'JSONRPCResponse');
  const problem = problemOf(set, framing, message) ?? (answering !== undefined && 'result' in message ? resultProblem(set, answering, message['result']) : undefined);
  return { label, ...(problem !== undefined && { problem }) };
}

function responseLabel(message: Record<string, unknown>, answering: AnsweredRequest | undefined): string {
  if (answering) return `${'error' in message ? 'error response' : 'response'} to ${answering.method}`;
  return `${'error' in message ? 'error response' : 'response'} #${JSON.stringify(message['id'])}`;
}

function validateRequest(message: Record<string, unknown>, method: string, revision: Revision): MessageVerdict {
  // A dual-era client probes with server/discover before initialize: judged as what it is, a 2026-07-28 request.
  const probe = method === 'server/discover' && revision < MODERN;
  const set = schemaSet(probe ? MODERN : revision);
  const verdict = (problem?: string): MessageVerdict => ({ label: probe ? `${method} (probe, judged by ${MODERN})` : method, ...(problem !== undefined && { problem }), ...(probe && { probe }) });
  const pointer = set.requests.get(method);
  if (pointer === undefined) {
    if (set.notifications.has(method)) return verdict(`a notification must not have an id (id ${JSON.stringify(message['id'])})`);
    return verdict(`not a client request at ${revision}${elsewhere(method, 'requests', revision)}`);
  }
  return verdict(problemOf(set, pointer, message));
}

function validateNotification(message: Record<string, unknown>, method: string, revision: Revision): MessageVerdict {
  const set = schemaSet(revision);
  const pointer = set.notifications.get(method);
  if (pointer === undefined) {
    if (set.requests.has(method)) return { label: method, problem: 'a request without an id' };
    return { label: method, problem: `not a client notification at ${revision}${elsewhere(method, 'notifications', revision)}` };
  }
  const problem = problemOf(set, pointer, message);
  return { label: method, ...(problem !== undefined && { problem }) };
}

/** ` (it exists at 2026-07-28)`, when another revision has the method: the likely era mix-up. */
function elsewhere(method: string, kind: 'requests' | 'notifications', revision: Revision): string {
  const at = REVISIONS.filter((other) => other !== revision && schemaSet(other)[kind].has(method));
  if (at.length === 0) return '';
  return ` (it exists at ${at.length === 1 ? at[0] : `${at[0]} … ${at.at(-1)}`})`;
}

/**
 * A client's result against the result its request names: `<Name>Result` for a `<Name>Request` (CreateMessageRequest →
 * CreateMessageResult), CreateTaskResult when the request was task-augmented (2025-11-25: `params.task`), plain Result
 * when there is none (ping). A method the revision's server does not send is judged by its framing only.
 */
function resultProblem(set: SchemaSet, answering: AnsweredRequest, result: unknown): string | undefined {
  const request = set.serverRequests.get(answering.method);
  if (request === undefined) return undefined;
  const named = `${request.replace(/Request$/, '')}Result`;
  const pointer = isObject(answering.params?.['task']) && set.defs['CreateTaskResult'] ? definition(set, 'CreateTaskResult') : definition(set, named, 'Result');
  return problemOf(set, pointer, result, ['result']);
}

/** Every method a server sends a client at some revision: what a client response may answer. */
let serverRequestMethods: ReadonlySet<string> | undefined;
function isServerRequest(method: string): boolean {
  serverRequestMethods ??= new Set(REVISIONS.flatMap((revision) => [...schemaSet(revision).serverRequests.keys()]));
  return serverRequestMethods.has(method);
}

/** The revisions whose schema has JSON-RPC batches (JSONRPCBatchRequest: 2025-03-26 only). */
function batchRevisions(): Revision[] {
  return REVISIONS.filter((revision) => schemaSet(revision).defs['JSONRPCBatchRequest'] !== undefined);
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
  const batches = batchRevisions();
  if (!batches.includes(revision)) return `a JSON-RPC batch of ${parsed.length}: the ${revision} schema has no batches (only ${batches.join(', ')} ${batches.length === 1 ? 'does' : 'do'})`;
  return undefined;
}

/** Every server-to-client request in the record, by id, in the order the server wrote them. */
function serverRequests(exchanges: readonly WireExchange[]): Map<string, { at: number; request: AnsweredRequest }[]> {
  const byId = new Map<string, { at: number; request: AnsweredRequest }[]>();
  for (const exchange of exchanges) {
    for (const { message, at } of exchange.responseMessages) {
      if (typeof message.method !== 'string' || message.id === undefined || !isServerRequest(message.method)) continue;
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
 * server requests) matches the JSON Schema of the revision under test, the spec's own; a body that
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
