// What running a client out of process costs: the same adapter (SDK v2 legacy) in process and through the Node
// line-protocol driver, against one server, per operation — `tools/call echo` (an HTTP round trip either way) and
// `info` (no HTTP: the line protocol's round trip alone) — with rounds interleaved so drift hits both paths alike.
// The Python driver is measured alongside for scale (another client, so not an overhead). Used by scripts/bench.ts
// (section `adapters`); by hand: node clients/process/bench.ts [calls].
import { join } from 'node:path';
import { startReferenceServer } from '../../servers/server.ts';
import type { ClientAdapter, ClientConnection, ClientUnderTest } from '../adapter.ts';
import { sdkV2Legacy } from '../sdk-v2.ts';
import { processAdapter } from './adapter.ts';

const DRIVERS = join(import.meta.dirname, '..', 'drivers');

interface Path {
  label: string;
  adapter: ClientAdapter;
  client?: ClientUnderTest;
  connection?: ClientConnection;
  call: number[];
  info: number[];
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}

async function timeEach(times: number[], count: number, operation: () => Promise<unknown>): Promise<void> {
  for (let i = 0; i < count; i++) {
    const begun = performance.now();
    await operation();
    times.push(performance.now() - begun);
  }
}

export async function adapterOverhead(options: { calls?: number; rounds?: number; warmup?: number } = {}) {
  const calls = options.calls ?? 200;
  const rounds = options.rounds ?? 4;
  const warmup = options.warmup ?? 20;
  const perRound = Math.ceil(calls / rounds);
  const server = await startReferenceServer({ era: '2025-06-18', recording: false });
  const helloMs: Record<string, number> = {};
  const spawnTimed = async (label: string, command: string, args: string[]) => {
    const begun = performance.now();
    const adapter = await processAdapter({ command, args });
    helloMs[label] = performance.now() - begun;
    return adapter;
  };
  const paths: Path[] = [
    { label: 'sdk-v2-legacy in process', adapter: sdkV2Legacy, call: [], info: [] },
    { label: 'sdk-v2-legacy via Node driver', adapter: await spawnTimed('node driver', process.execPath, [join(DRIVERS, 'node', 'driver.ts')]), call: [], info: [] },
    { label: 'python-stdlib via Python driver', adapter: await spawnTimed('python driver', 'python3', [join(DRIVERS, 'python', 'driver.py')]), call: [], info: [] },
  ];
  const lifecycle: Record<string, number[]> = {};
  try {
    for (const path of paths) {
      // One test case's worth of lifecycle, a few times: start, connect, close, dispose.
      const times: number[] = [];
      for (let i = 0; i < 10; i++) {
        const begun = performance.now();
        const client = await path.adapter.start(`bench-lifecycle-${i}`);
        const connection = await client.connect(server.url, { timeoutMs: 10_000, negotiation: 'legacy' });
        await connection.close();
        await client.dispose();
        times.push(performance.now() - begun);
      }
      lifecycle[path.label] = times;
      path.client = await path.adapter.start('bench');
      path.connection = await path.client.connect(server.url, { timeoutMs: 10_000, negotiation: 'legacy' });
      const discard: number[] = [];
      await timeEach(discard, warmup, () => path.connection!.callTool('echo', { text: 'x' }));
    }
    for (let round = 0; round < rounds; round++) {
      for (const path of paths) {
        await timeEach(path.call, perRound, () => path.connection!.callTool('echo', { text: 'x' }));
        await timeEach(path.info, perRound, () => path.connection!.info());
      }
    }
  } finally {
    for (const path of paths) {
      await path.connection?.close().catch(() => {});
      await path.client?.dispose().catch(() => {});
      await path.adapter.shutdown?.();
    }
    await server.close();
  }
  const ms = (value: number) => `${value.toFixed(3).padStart(7)} ms`;
  const rows = paths.map((path) => ({
    path: path.label,
    callMedianMs: percentile(path.call, 0.5),
    callP90Ms: percentile(path.call, 0.9),
    infoMedianMs: percentile(path.info, 0.5),
    infoP90Ms: percentile(path.info, 0.9),
    caseLifecycleMedianMs: percentile(lifecycle[path.label]!, 0.5),
    calls: path.call.length,
  }));
  for (const row of rows) {
    console.log(
      `${row.path.padEnd(32)} tools/call echo median ${ms(row.callMedianMs)}  p90 ${ms(row.callP90Ms)}   info median ${ms(row.infoMedianMs)}  p90 ${ms(row.infoP90Ms)}   case start..dispose median ${ms(row.caseLifecycleMedianMs)}`,
    );
  }
  const [inProcess, viaDriver] = rows as [(typeof rows)[number], (typeof rows)[number]];
  const overhead = {
    callMedianMs: viaDriver.callMedianMs - inProcess.callMedianMs,
    callP90Ms: viaDriver.callP90Ms - inProcess.callP90Ms,
    infoMedianMs: viaDriver.infoMedianMs - inProcess.infoMedianMs,
    infoP90Ms: viaDriver.infoP90Ms - inProcess.infoP90Ms,
  };
  console.log(
    `out of process (Node driver) costs ${overhead.callMedianMs.toFixed(3)} ms per tools/call at the median (${overhead.callP90Ms.toFixed(3)} ms at p90), ` +
      `${overhead.infoMedianMs.toFixed(3)} ms per protocol round trip (info); hello after spawn: ${Object.entries(helloMs)
        .map(([label, value]) => `${label} ${value.toFixed(0)} ms`)
        .join(', ')}; ${calls} calls per path in ${rounds} interleaved rounds\n`,
  );
  return { calls, rounds, rows, overhead, helloMs };
}

if (import.meta.main) await adapterOverhead({ calls: Number(process.argv[2] ?? 200) });
