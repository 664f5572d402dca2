// How the matrix command line reaches the test workers and the reporter: environment variables, so that a plain
// `vitest --config vitest.matrix.config.ts` (CI shards, merged blob reports) takes the same settings.
import { join } from 'node:path';
import type { MatrixEntry } from './matrix-file.ts';
import { namePatternMatches } from '../../results/results.ts';

export const MATRIX_ENV = {
  /** The matrix file (default: matrix.json at the top of the repository). */
  file: 'MCP_CONFORMANCE_MATRIX',
  /** Comma-separated client names (or name prefixes ending in `*`) to run; default all. */
  clients: 'MCP_CONFORMANCE_MATRIX_CLIENTS',
  /** Only scenarios whose id contains this text. */
  scenario: 'MCP_CONFORMANCE_MATRIX_SCENARIO',
  /** The reports folder (default: reports/matrix). */
  out: 'MCP_CONFORMANCE_MATRIX_OUT',
  /** `1`: SHOULD violations fail instead of warning. */
  strict: 'MCP_CONFORMANCE_STRICT',
  /** `0`: no progress display. */
  progress: 'MCP_CONFORMANCE_MATRIX_PROGRESS',
  /** A reports folder to complete (`matrix --resume`): its finished cells are kept and only the others run. */
  resume: 'MCP_CONFORMANCE_MATRIX_RESUME',
} as const;

/** The reports folder when none is given, relative to the working directory (never inside an installed package). */
export const DEFAULT_REPORTS_DIR = join('reports', 'matrix');

/** The entries a `--clients a,b,sdk-v2-*` selection keeps, in matrix file order; an unknown name is an error. */
export function selectEntries(entries: readonly MatrixEntry[], selection: string | undefined): MatrixEntry[] {
  if (selection === undefined || selection.trim() === '') return [...entries];
  const wanted = selection.split(',').map((name) => name.trim()).filter(Boolean);
  const unknown = wanted.filter((pattern) => !entries.some((entry) => namePatternMatches(pattern, entry.name)));
  if (unknown.length > 0) throw new Error(`no matrix entry named ${unknown.map((name) => `"${name}"`).join(', ')} (names: ${entries.map((e) => e.name).join(', ')})`);
  return entries.filter((entry) => wanted.some((pattern) => namePatternMatches(pattern, entry.name)));
}
