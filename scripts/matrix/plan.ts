// Which cells a matrix run plans: every selected client × every case of the suites it covers that the scenario filter
// keeps. The test files (define.ts), the reporter (to count what is missing) and `matrix --resume` (to run only that)
// all plan from this one function, so they agree on what "complete" means.
import { basename } from 'node:path';
import { MODULE_EXTENSION } from '../../config/layout.ts';
import { SUITES } from '../../suites/index.ts';
import { plannedCases } from '../../suites/plan.ts';
import type { Revision } from '../../protocol/revisions.ts';
import type { Scenario } from '../../suites/scenario.ts';
import { readMatrixFile, type MatrixEntry } from './matrix-file.ts';
import { cellKey, type Selection } from '../../results/results.ts';
import { selectEntries } from './settings.ts';

export type SuiteName = keyof typeof SUITES;

export const SUITE_NAMES = Object.keys(SUITES) as SuiteName[];

/** The suite a matrix test file runs (`shards/negotiation.matrix.ts` → `negotiation`), or undefined for another file. */
export function suiteOfFile(moduleId: string): SuiteName | undefined {
  const name = basename(moduleId, `.matrix${MODULE_EXTENSION}`);
  return (SUITE_NAMES as string[]).includes(name) ? (name as SuiteName) : undefined;
}

/** The test file of a suite, as a vitest filter (compiled to .js in the package: config/layout.ts). */
export const suiteFile = (suite: SuiteName): string => `scripts/matrix/shards/${suite}.matrix${MODULE_EXTENSION}`;

/** A suite's cases that the scenario filter keeps: ids that contain any of its comma-separated texts. */
export function suiteCases(suite: SuiteName, scenarioFilter: string | undefined): { scenario: Scenario; revision: Revision }[] {
  const texts = scenarioFilter?.split(',').filter((text) => text !== '');
  return plannedCases(SUITES[suite]).filter(({ scenario }) => texts === undefined || texts.some((text) => scenario.id.includes(text)));
}

export interface PlannedCell {
  client: string;
  scenario: string;
  revision: Revision;
  suite: SuiteName;
}

/** Every cell the selection plans, in matrix file order, then suite and case order. */
export function matrixPlan(entries: readonly MatrixEntry[], selection: Selection): PlannedCell[] {
  const suites = selection.suites.filter((suite): suite is SuiteName => (SUITE_NAMES as string[]).includes(suite));
  return entries.flatMap((entry) => suites.flatMap((suite) => suiteCases(suite, selection.scenario).map(({ scenario, revision }) => ({ client: entry.name, scenario: scenario.id, revision, suite }))));
}

/** The plan of a matrix file and selection; empty when the file cannot be read (merging reports elsewhere, say). */
export function planOf(matrixFile: string, selection: Selection): PlannedCell[] {
  try {
    return matrixPlan(selectEntries(readMatrixFile(matrixFile).clients, selection.clients), selection);
  } catch {
    return [];
  }
}

/** The planned cells without a result among `done` (cell keys). */
export function missingCells(plan: readonly PlannedCell[], done: ReadonlySet<string>): PlannedCell[] {
  return plan.filter((cell) => !done.has(cellKey(cell)));
}
