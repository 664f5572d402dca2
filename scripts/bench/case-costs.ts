// Section `cases`: what one case costs, by how the client is reached (in process, or a program speaking the line
// protocol), by transport (HTTP, or stdio: the client launches the suite's stdio server) and by language. The same
// scenario, negotiation/handshake-order (connect, tools/list, tools/call, close) and its stdio twin, at the newest
// legacy revision each client speaks over that transport, run as the suites run a case (runScenario with the client's
// calibrated bounds; the program's start and hello are paid once, as in a run, and not counted). Rows: the reference
// client and the SDK v2 client in process, the same SDK client through the Node driver (the line protocol's own cost),
// and one client per language beyond npm, as matrix.json names them; a row whose client is not set up
// (`npm run clients:setup`) is reported skipped, with why.
import { join } from 'node:path';
import type { ClientAdapter, Transport } from '../../clients/adapter.ts';
import { transportsOf } from '../../clients/adapter.ts';
import { LEGACY_REVISIONS, type Revision } from '../../protocol/revisions.ts';
import { SCENARIOS } from '../../suites/index.ts';
import { calibratedPolicy, runScenario } from '../../suites/runner.ts';
import { loadClient } from '../matrix/clients.ts';
import { readMatrixFile } from '../matrix/matrix-file.ts';
import { ms, percentile } from './stats.ts';

/** The rows: a matrix.json client, how it is reached, and its language. */
export const CASE_COST_ROWS = [
  { client: 'reference', path: 'in process', language: 'TypeScript' },
  { client: 'sdk-v2-legacy@latest', path: 'in process', language: 'TypeScript' },
  { client: 'sdk-v2-legacy@latest', path: 'line protocol (Node driver)', language: 'TypeScript' },
  { client: 'python-mcp-legacy@2', path: 'line protocol', language: 'Python' },
  { client: 'go-sdk', path: 'line protocol', language: 'Go' },
  { client: 'rmcp-legacy', path: 'line protocol', language: 'Rust' },
  { client: 'java-sdk', path: 'line protocol', language: 'Java' },
] as const;

const SCENARIO_OVER: Record<Transport, string> = { http: 'negotiation/handshake-order', stdio: 'stdio/handshake-order' };
const NODE_DRIVER = join(import.meta.dirname, '..', '..', 'clients', 'drivers', 'node', 'driver.ts');

/** The row's adapter: the matrix's client, or for the Node driver the same client's adapter wrapped in a program. */
async function rowAdapter(row: (typeof CASE_COST_ROWS)[number]): Promise<{ adapter?: ClientAdapter; skipped?: string }> {
  const matrix = readMatrixFile();
  const entry = matrix.clients.find((c) => c.name === row.client);
  if (!entry) return { skipped: `matrix.json has no client ${row.client}` };
  const viaDriver = row.path.startsWith('line protocol (Node');
  const loaded = await loadClient(viaDriver ? { name: row.client, command: `${process.execPath} ${NODE_DRIVER} --adapter sdk-v2-legacy --name ${row.client}` } : entry, matrix);
  return loaded.adapter ? { adapter: loaded.adapter } : { skipped: loaded.info.loadError ?? 'not loaded' };
}

export async function caseCosts(options: { runs: number; rows?: readonly (typeof CASE_COST_ROWS)[number][] }) {
  const rows = [];
  for (const row of options.rows ?? CASE_COST_ROWS) {
    const label = `${row.client} (${row.path}, ${row.language})`;
    const { adapter, skipped } = await rowAdapter(row);
    if (!adapter) {
      console.log(`${label}: ${skipped?.startsWith('skipped') ? skipped : `skipped: ${skipped}`}`);
      rows.push({ ...row, skipped });
      continue;
    }
    try {
      for (const transport of transportsOf(adapter)) {
        const scenario = SCENARIOS.find((s) => s.id === SCENARIO_OVER[transport])!;
        const speaks = transport === 'stdio' ? (adapter.stdioRevisions ?? adapter.revisions) : adapter.revisions;
        const revision = [...LEGACY_REVISIONS].reverse().find((r) => speaks.includes(r) && scenario.revisions.includes(r)) as Revision | undefined;
        if (revision === undefined) continue;
        const time = await calibratedPolicy(adapter, transport);
        const times: number[] = [];
        const verdicts: Record<string, number> = {};
        for (let i = 0; i <= options.runs; i++) {
          const started = performance.now();
          const result = await runScenario(scenario, adapter, revision, { time, caseId: `bench-${i}` });
          if (i > 0) times.push(performance.now() - started);
          verdicts[result.verdict] = (verdicts[result.verdict] ?? 0) + 1;
        }
        const cost = { ...row, transport, scenario: scenario.id, revision, medianMs: percentile(times, 0.5), p90Ms: percentile(times, 0.9), runs: times.length, verdicts };
        console.log(`${label.padEnd(62)} ${transport.padEnd(5)} ${revision}  median ${ms(cost.medianMs)}  p90 ${ms(cost.p90Ms)}  (${Object.entries(verdicts).map(([v, n]) => `${n} ${v}`).join(', ')})`);
        rows.push(cost);
      }
    } finally {
      await adapter.shutdown?.();
    }
  }
  return { runs: options.runs, rows };
}
