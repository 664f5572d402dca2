#!/usr/bin/env node
// The Node line-protocol driver: any in-process adapter, out of process (docs/line-protocol.md, version 1.2).
//
//   node clients/drivers/node/driver.ts [--adapter <built-in name | ./module.ts>] [--name <name>]
//
// Default: the SDK v2 legacy adapter (clients/sdk-v2.ts). The hello carries the wrapped adapter's revisions,
// features, transports (when it declares them: a stdio target then comes as `target`) and description; its name is `<adapter>-process` unless --name gives another (give the wrapped
// adapter's own name to share its baseline). It is the generic bridge for running an in-process adapter out of
// process, and the point where the out-of-process overhead is measured (clients/process/bench.ts).
//
// Protocol lines go to the real stdout only: anything else the wrapped client prints (console.log, a stray
// process.stdout.write) is sent to stderr, where the harness keeps it for failure messages.
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import type { ClientAdapter, ClientConnection, ClientUnderTest, ConnectOptions, OperationOptions, StdioTarget } from '../../adapter.ts';
import { loadAdapter } from '../../load.ts';

const writeProtocol = process.stdout.write.bind(process.stdout);
// A harness that has gone away closes the pipe: there is nobody left to answer.
process.stdout.on('error', () => process.exit(0));
process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;

/** How long the driver lets leftover connections and clients close when it is told to stop. */
const CLEANUP_MS = 1_000;

interface Request {
  id: number;
  case?: string;
  op: string;
  [member: string]: unknown;
}

class OperationError extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.code = code;
  }
}

function send(message: Record<string, unknown>): void {
  writeProtocol(`${JSON.stringify(message)}\n`);
}

function errorAnswer(error: unknown): { message: string; name?: string; code?: string | number } {
  if (!(error instanceof Error)) return { message: String(error) };
  const code = (error as { code?: unknown }).code;
  return {
    message: error.message,
    name: error.constructor.name,
    ...(typeof code === 'string' || (typeof code === 'number' && Number.isInteger(code)) ? { code } : {}),
  };
}

function bounded<T>(work: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([work, new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)))]).finally(() => clearTimeout(timer));
}

const { values } = parseArgs({ options: { adapter: { type: 'string', default: 'sdk-v2-legacy' }, name: { type: 'string' } } });
let adapter: ClientAdapter;
try {
  adapter = await loadAdapter(values.adapter!, { inProcessOnly: true });
} catch (error) {
  process.stderr.write(`node driver: ${(error as Error).message}\n`);
  process.exit(2);
}

const instances = new Map<string, ClientUnderTest>();
const connections = new Map<string, { caseId: string; connection: ClientConnection }>();
const inFlight = new Map<number, AbortController>();
let nextConnection = 1;

function instance(request: Request): ClientUnderTest {
  const found = request.case === undefined ? undefined : instances.get(request.case);
  if (!found) throw new OperationError('unknown-case', `no client instance for case ${JSON.stringify(request.case)}`);
  return found;
}

function connection(request: Request): ClientConnection {
  const found = typeof request.connection === 'string' ? connections.get(request.connection) : undefined;
  if (!found) throw new OperationError('unknown-connection', `no connection ${JSON.stringify(request.connection)}`);
  return found.connection;
}

/** The operation options of a listTools or callTool: a signal the harness can abort with `cancel`, and the timeout. */
function operationOptions(request: Request): OperationOptions {
  const controller = new AbortController();
  inFlight.set(request.id, controller);
  return { signal: controller.signal, ...(typeof request.timeoutMs === 'number' ? { timeoutMs: request.timeoutMs } : {}) };
}

async function perform(request: Request): Promise<Record<string, unknown>> {
  switch (request.op) {
    case 'start': {
      if (typeof request.case !== 'string') throw new OperationError('invalid-request', 'start needs a case');
      if (instances.has(request.case)) throw new OperationError('case-live', `case ${JSON.stringify(request.case)} is already started`);
      instances.set(request.case, await adapter.start(request.case));
      return {};
    }
    case 'connect': {
      const client = instance(request);
      // 1.1: a stdio target instead of the URL, sent only because the wrapped adapter declares stdio.
      const where = request.target !== undefined ? (request.target as StdioTarget) : String(request.url);
      const opened = await client.connect(where, request.options as ConnectOptions);
      const id = `c${nextConnection++}`;
      connections.set(id, { caseId: request.case!, connection: opened });
      return { connection: id };
    }
    case 'info':
      return { ...(await connection(request).info()) };
    case 'listTools':
      return { tools: await connection(request).listTools(operationOptions(request)) };
    case 'callTool': {
      const args = (request.arguments ?? {}) as Record<string, unknown>;
      return { ...(await connection(request).callTool(String(request.name), args, operationOptions(request))) };
    }
    case 'cancel':
      // The target answers for itself, as the client decides; a target that already finished is no error.
      inFlight.get(request.target as number)?.abort();
      return {};
    case 'close': {
      const open = connection(request);
      connections.delete(request.connection as string);
      await open.close();
      return {};
    }
    case 'dispose': {
      const client = instance(request);
      instances.delete(request.case!);
      for (const [id, entry] of connections) if (entry.caseId === request.case) connections.delete(id);
      await client.dispose();
      return {};
    }
    default:
      throw new OperationError('unknown-op', `unknown op ${JSON.stringify(request.op)}`);
  }
}

/** Closes whatever is left, bounded, and exits once the last line is written. */
async function stop(answer?: number): Promise<never> {
  await bounded(
    Promise.allSettled([...connections.values()].map(({ connection: open }) => open.close())).then(() =>
      Promise.allSettled([...instances.values()].map((client) => client.dispose())),
    ),
    CLEANUP_MS,
  );
  await bounded(Promise.resolve(adapter.shutdown?.()).catch(() => {}), CLEANUP_MS);
  if (answer !== undefined) send({ id: answer, result: {} });
  process.exit(0);
}

send({
  protocol: 1,
  name: values.name ?? `${adapter.name}-process`,
  description: `${adapter.description} (out of process: Node line-protocol driver)`,
  revisions: adapter.revisions,
  features: adapter.features,
  ...(adapter.transports !== undefined ? { transports: adapter.transports } : {}),
});

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
lines.on('line', (line) => {
  if (line.trim() === '') return;
  let request: Request;
  try {
    request = JSON.parse(line) as Request;
  } catch {
    process.stderr.write(`node driver: ignoring a line that is not JSON: ${line.slice(0, 200)}\n`);
    return;
  }
  if (typeof request !== 'object' || request === null || !Number.isSafeInteger(request.id)) {
    process.stderr.write(`node driver: ignoring a request without an integer id: ${line.slice(0, 200)}\n`);
    return;
  }
  if (request.op === 'shutdown') {
    void stop(request.id);
    return;
  }
  perform(request).then(
    (result) => send({ id: request.id, result }),
    (error: unknown) => send({ id: request.id, error: errorAnswer(error) }),
  ).finally(() => inFlight.delete(request.id));
});
// The harness is gone (or closed our stdin): nothing more will come, and nobody will wait for us.
lines.on('close', () => void stop());
