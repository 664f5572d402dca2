// Sections `servers` (the start time of each era's reference server) and `record` (what the wire record costs).
import { Agent, request } from 'undici';
import { ERAS } from '../../servers/era.ts';
import { startReferenceServer } from '../../servers/server.ts';
import { ms, percentile } from './stats.ts';

/** Start-and-close of each era's server, `runs` timed after three warm-ups; the time to listening is reported. */
export async function serverStarts(options: { runs: number }) {
  const rows = [];
  for (const era of ERAS) {
    const times: number[] = [];
    try {
      for (let i = 0; i < 3 + options.runs; i++) {
        const started = performance.now();
        const server = await startReferenceServer({ era });
        const listening = performance.now();
        await server.close();
        if (i >= 3) times.push(listening - started);
      }
    } catch (error) {
      console.log(`${era.padEnd(12)} skipped: ${(error as Error).message}`);
      continue;
    }
    const row = { era, medianStartMs: percentile(times, 0.5), p90StartMs: percentile(times, 0.9), runs: times.length };
    rows.push(row);
    console.log(`${era.padEnd(12)} start median ${ms(row.medianStartMs)}  p90 ${ms(row.p90StartMs)}`);
  }
  const medians = rows.map((r) => r.medianStartMs);
  const summary = { medianStartMs: medians.length > 0 ? percentile(medians, 0.5) : undefined };
  console.log(`median server start across eras: ${summary.medianStartMs?.toFixed(1)} ms`);
  return { summary, rows };
}

/** Requests per second of `tools/call echo` in one session, with the wire record on and off, rounds interleaved. */
export async function recordCost(options: { requests: number }) {
  const total = options.requests;
  const concurrency = 16;
  const rounds = 3;
  const measure = async (recording: boolean) => {
    const server = await startReferenceServer({ era: '2025-06-18', recording });
    const agent = new Agent({ connections: concurrency });
    try {
      const post = async (body: unknown, headers: Record<string, string> = {}) => {
        const response = await request(server.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
          body: JSON.stringify(body),
          dispatcher: agent,
        });
        await response.body.text();
        return response;
      };
      const init = await post({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '0' } } });
      const headers = { 'mcp-session-id': String(init.headers['mcp-session-id']), 'mcp-protocol-version': '2025-06-18' };
      await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, headers);
      let next = 1;
      const started = performance.now();
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (next <= total) {
            const id = next++;
            const response = await post({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: { text: 'x' } } }, headers);
            if (response.statusCode !== 200) throw new Error(`request ${id}: HTTP ${response.statusCode}`);
          }
        }),
      );
      const seconds = (performance.now() - started) / 1000;
      return { requestsPerSecond: total / seconds, recorded: server.record.exchanges.length };
    } finally {
      await agent.close();
      await server.close();
    }
  };
  const withRecord: number[] = [];
  const without: number[] = [];
  for (let round = 0; round < rounds; round++) {
    withRecord.push((await measure(true)).requestsPerSecond);
    without.push((await measure(false)).requestsPerSecond);
  }
  const summary = {
    requests: total,
    concurrency,
    rounds,
    withRecordRps: percentile(withRecord, 0.5),
    withoutRecordRps: percentile(without, 0.5),
  };
  const cost = 1 - summary.withRecordRps / summary.withoutRecordRps;
  console.log(
    `wire record: ${summary.withRecordRps.toFixed(0)} req/s with, ${summary.withoutRecordRps.toFixed(0)} req/s without (median of ${rounds} interleaved rounds of ${total} tools/call, ${concurrency} concurrent): ${(cost * 100).toFixed(1)}% cost`,
  );
  return { ...summary, costFraction: cost };
}
