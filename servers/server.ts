// Starts a reference server: an era backend behind the shared pipeline, with personalities composed in.
import express from 'express';
import { localhostOriginValidation } from '@modelcontextprotocol/node';
import { DEFAULT_MAX_REQUEST_BODY_SIZE } from '@modelcontextprotocol/server';
import type { Era, EraBackend } from './era.ts';
import { ERA_FACTORIES } from './eras/index.ts';
import { FixtureState } from './fixtures.ts';
import { answerBodyProblem, compose, type Middleware } from './http.ts';
import { listenOnLoopback } from './listen.ts';
import type { Personality } from './personality.ts';
import type { ReferenceServer } from './reference-server.ts';
import { WireRecord, type BodyLimits } from './wire-record.ts';

/** The SDK's own request body limit (4 MiB, `toNodeHandler` and the transports): a longer body is answered 413. */
export const DEFAULT_MAX_BODY_BYTES = DEFAULT_MAX_REQUEST_BODY_SIZE;
/**
 * How long a request body may take to arrive once its headers are in; then 408. Loopback clients send a body in
 * one go: this only bounds a client that stalls or dribbles, and leaves room for a CPU-starved one.
 */
export const DEFAULT_BODY_TIMEOUT_MS = 10_000;

export interface ServerOptions {
  era: Era;
  personalities?: readonly Personality[];
  /** 0 (default): a free port. */
  port?: number;
  /** Keep the wire record (default). Off only to measure what recording costs. */
  recording?: boolean;
  /** The largest request body read, in bytes; a longer one is answered 413. Default DEFAULT_MAX_BODY_BYTES (4 MiB). */
  maxBodyBytes?: number;
  /** Milliseconds a request body may take to arrive once its headers are in; then 408. Default DEFAULT_BODY_TIMEOUT_MS (10 s). */
  bodyTimeoutMs?: number;
}

interface Instance {
  url: string;
  record: WireRecord;
  backend: EraBackend;
  close(): Promise<void>;
}

/** Every server: loopback only (see listen.ts), and a request with a non-local Origin gets 403. */
function originCheck(): Middleware {
  const validate = localhostOriginValidation();
  return async (context, next) => {
    if (validate(context.req, context.res)) await next();
  };
}

async function startInstance(
  era: Era,
  personalities: readonly Personality[],
  fixtures: FixtureState,
  port: number,
  recording: boolean,
  bodyLimits: BodyLimits,
): Promise<Instance> {
  const record = new WireRecord({ enabled: recording });
  const backend = await ERA_FACTORIES[era]({ fixtures, record });
  for (const personality of personalities) personality.attach?.({ era, backend, record, fixtures });
  const middlewares = personalities.flatMap((p) => (p.middleware ? [p.middleware] : []));
  const pipeline = compose([originCheck(), ...middlewares], (context) => backend.handle(context));

  const app = express();
  app.disable('x-powered-by');
  app.use(async (req, res, next) => {
    try {
      const { exchange, parsedBody, bodyProblem } = await record.begin(req, res, bodyLimits);
      // A body too large, too slow or cut off never reaches personalities or the era: the shared answer, recorded.
      if (bodyProblem) return answerBodyProblem(res, bodyProblem, bodyLimits);
      await pipeline({ req, res, exchange, body: parsedBody, record });
    } catch (error) {
      next(error);
    }
  });
  const listening = await listenOnLoopback(app, port);
  let closed: Promise<void> | undefined;
  return {
    url: `${listening.origin}${backend.entryPath}`,
    record,
    backend,
    close() {
      closed ??= listening.close().then(() => backend.close());
      return closed;
    },
  };
}

export async function startReferenceServer(options: ServerOptions): Promise<ReferenceServer> {
  const { era } = options;
  const personalities = options.personalities ?? [];
  for (const personality of personalities) {
    if (personality.eras && !personality.eras.includes(era)) {
      throw new Error(`personality ${personality.name} does not apply to era ${era} (only ${personality.eras.join(', ')})`);
    }
  }
  const fronts = personalities.filter((p) => p.front !== undefined);
  if (fronts.length > 1) throw new Error(`only one front per server: ${fronts.map((p) => p.name).join(' and ')} both are`);
  const inner = personalities.filter((p) => p.front === undefined);
  const started: Personality[] = [];
  const stopPersonalities = () => Promise.all(started.map((p) => p.close?.()));
  try {
    for (const personality of personalities) {
      await personality.start?.();
      started.push(personality);
    }
  } catch (error) {
    await stopPersonalities();
    throw error;
  }
  const fixtures = new FixtureState();
  const recording = options.recording ?? true;
  const bodyLimits: BodyLimits = { maxBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES, timeoutMs: options.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS };
  const instances: Instance[] = [];
  let front;
  try {
    const main = await startInstance(era, inner, fixtures, fronts.length > 0 ? 0 : (options.port ?? 0), recording, bodyLimits);
    instances.push(main);
    front = await fronts[0]?.front?.({
      backendUrl: main.url,
      backendRecord: main.record,
      recording,
      async startInstance() {
        const instance = await startInstance(era, inner, fixtures, 0, recording, bodyLimits);
        instances.push(instance);
        return instance;
      },
    });
  } catch (error) {
    await Promise.all(instances.map((i) => i.close()));
    await stopPersonalities();
    throw error;
  }
  const main = instances[0]!;
  let closed: Promise<void> | undefined;
  return {
    url: front?.url ?? main.url,
    era,
    revisions: main.backend.revisions,
    record: front?.record ?? main.record,
    fixtures,
    issuedSessions: () => instances.flatMap((i) => i.backend.issuedSessions()),
    liveSessions: () => instances.flatMap((i) => i.backend.liveSessions()),
    async expireSession(sessionId) {
      for (const instance of instances) await instance.backend.expireSession(sessionId);
    },
    close() {
      closed ??= (async () => {
        await front?.close();
        await Promise.all(instances.map((i) => i.close()));
        await stopPersonalities();
      })();
      return closed;
    },
  };
}
