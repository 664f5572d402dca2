// The era probe (2026-07-28 basic/versioning.mdx, streamable-http.mdx › Backward Compatibility): POST
// `server/discover` with the `_meta` envelope and read the answer.
// - a DiscoverResult → modern;
// - a recognised modern error (-32020, -32021, -32022) → modern: -32022 naming a mutually supported version
//   is retried once with it, anything else is surfaced (never a fallback);
// - any other JSON-RPC error, an empty body, a 4xx without a modern error body → legacy (fallback to initialize);
// - 5xx, 401/403 (and 407/408/429), a broken connection or a timeout → surfaced: that is not the server's era.
import { ConnectionDropped, HttpStatusError, JsonRpcError, ProtocolError, StreamCut } from './errors.ts';
import { isOk, readAnswer, send, statusError } from './http.ts';
import { isModernErrorCode, type JsonRpcErrorBody, type Params } from './protocol.ts';
import { modernRequest } from './modern-wire.ts';
import type { SessionContext } from './session.ts';

export type ProbeOutcome = { era: 'modern'; version: string; discover: Params } | { era: 'legacy'; reason: string };

/** HTTP statuses that say nothing about the era: the attempt failed. */
function isFailureStatus(status: number): boolean {
  return status === 401 || status === 403 || status === 407 || status === 408 || status === 429 || status >= 500;
}

export interface ProbeOptions {
  url: string;
  /** The modern revisions acceptable, newest first (the client's own, or the pinned one). */
  versions: readonly string[];
  affinityKey: string | undefined;
  signal: AbortSignal;
}

export async function probe(ctx: SessionContext, options: ProbeOptions): Promise<ProbeOutcome> {
  const { rules } = ctx;
  let version = options.versions[0]!;
  let retried = false;
  for (;;) {
    const id = ctx.nextId();
    const affinityKey = rules.affinityKeyFromFirstRequest ? options.affinityKey : undefined;
    const { body, headers } = modernRequest({ id, method: 'server/discover', params: {}, version, affinityKey }, ctx);
    let rpcError: JsonRpcErrorBody | undefined;
    let status: number;
    try {
      const http = await send(ctx.agent, { method: 'POST', url: options.url, headers, body, signal: options.signal });
      status = http.status;
      if (!isOk(http)) {
        const error = await statusError('server/discover', http, options.signal);
        if (isFailureStatus(http.status)) {
          // A probe's 401 its authorizer passed on (a broken variant): a challenge taken for a legacy answer.
          if (http.status === 401 && !rules.authorizeTheProbe) return { era: 'legacy', reason: 'the probe was answered 401, taken as a legacy answer' };
          if (rules.surfaceProbeFailures) throw error;
          return { era: 'legacy', reason: `the probe failed (${error.message}), taken as a legacy answer` };
        }
        if (error.rpcError === undefined) {
          if (rules.fallBackOnAnyLegacyAnswer) return { era: 'legacy', reason: `HTTP ${http.status} without a JSON-RPC error` };
          throw error;
        }
        rpcError = error.rpcError;
      } else {
        let message;
        try {
          ({ message } = await readAnswer(http, id, options.signal, () => {}, rules));
        } catch (error) {
          if (!(error instanceof ProtocolError)) throw error instanceof StreamCut ? new ConnectionDropped(error.message) : error;
          // No JSON-RPC answer at all: an empty body (202), another content type.
          if (rules.fallBackOnAnyLegacyAnswer) return { era: 'legacy', reason: `HTTP ${http.status} without a JSON-RPC answer` };
          throw error;
        }
        if (message.error) rpcError = message.error;
        else {
          const discover = message.result ?? {};
          const supported = discover['supportedVersions'];
          if (!Array.isArray(supported)) {
            if (rules.fallBackOnAnyLegacyAnswer) return { era: 'legacy', reason: 'a result that is not a DiscoverResult' };
            throw new ProtocolError('server/discover was answered with a result that is not a DiscoverResult');
          }
          const chosen = supported.includes(version) ? version : options.versions.find((v) => supported.includes(v));
          if (chosen === undefined) throw new ProtocolError(`the server supports ${JSON.stringify(supported)}, none of ${JSON.stringify(options.versions)}`);
          return { era: 'modern', version: chosen, discover };
        }
      }
    } catch (error) {
      if (options.signal.aborted) throw error;
      if (error instanceof ConnectionDropped && !rules.surfaceProbeFailures) return { era: 'legacy', reason: `the probe failed (${error.message}), taken as a legacy answer` };
      throw error;
    }

    // A JSON-RPC error: modern if it is one of the modern errors, legacy otherwise.
    if (rpcError === undefined) throw new ProtocolError('server/discover: no answer');
    if (isModernErrorCode(rpcError.code)) {
      if (!rules.honourModernErrors) return { era: 'legacy', reason: `modern error ${rpcError.code}, taken as a legacy answer` };
      const data = rpcError.data as { supported?: unknown } | undefined;
      const mutual = Array.isArray(data?.supported) ? options.versions.find((v) => (data.supported as unknown[]).includes(v)) : undefined;
      if (rpcError.code === -32022 && mutual !== undefined && !retried) {
        retried = true;
        version = mutual;
        continue;
      }
      throw new JsonRpcError(rpcError, status);
    }
    if (rules.fallBackOnAnyLegacyAnswer || rpcError.code === -32601) return { era: 'legacy', reason: `JSON-RPC ${rpcError.code} (${rpcError.message})` };
    throw new HttpStatusError('server/discover', status, '', rpcError);
  }
}
