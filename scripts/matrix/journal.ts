// Nothing judged is lost: the matrix reporter (in the main vitest process) appends every finished cell to a JSON-lines
// journal in the reports folder the moment it sees it, so even a SIGKILL of that process leaves every cell it had
// seen; results.json is rebuilt from the cells, and `matrix --resume` reads both to run only what is missing.
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { REPORT_FILES } from './output.ts';
import { cellKey, parseResults, type Cell, type ClientInfo, type Selection } from '../../results/results.ts';

export const JOURNAL_FILE = 'cells.jsonl';

/** What a run (or a resumed run) was asked to cover: its first journal line. */
export interface RunStart {
  startedAt: string;
  /** Absolute. */
  matrixFile: string;
  strict: boolean;
  selection: Selection;
}

/** One line of the journal. */
export type JournalLine = { start: RunStart } | { client: ClientInfo } | { cell: Cell };

/** Starts the journal of a run: a fresh one, or (resuming) one that keeps the earlier lines. */
export function startJournal(dir: string, start: RunStart, keep: boolean): void {
  mkdirSync(dir, { recursive: true });
  const line = `${JSON.stringify({ start } satisfies JournalLine)}\n`;
  if (keep) appendFileSync(join(dir, JOURNAL_FILE), line);
  else writeFileSync(join(dir, JOURNAL_FILE), line);
}

/** Appends one line (one write: a line is whole unless the process dies inside the write). */
export function appendJournal(dir: string, line: JournalLine): void {
  appendFileSync(join(dir, JOURNAL_FILE), `${JSON.stringify(line)}\n`);
}

/** Client facts seen more than once (each suite file loads the client): a load error seen by any of them wins. */
export function keepClient(clients: Map<string, ClientInfo>, client: ClientInfo): void {
  if (!clients.has(client.name) || client.loadError !== undefined) clients.set(client.name, client);
}

/** What an earlier run of a reports folder saved: what it covered, its clients and cells, and how long it ran. */
export interface SavedRun {
  start: RunStart;
  clients: Map<string, ClientInfo>;
  /** By cell key; a later line of the journal wins over results.json and over earlier lines. */
  cells: Map<string, Cell>;
  durationMs: number;
}

/**
 * Reads a reports folder: results.json (the last save) and the journal (every cell the reporter saw, also after that
 * save). A line cut short by a killed process is skipped. Undefined when the folder holds neither. What the run covers
 * is the journal's first line when there is one: it names the matrix file absolutely, as the run was started, where
 * results.json names it relative to the suite's code (`root`), which only the same layout reads back the same.
 */
export function readSaved(dir: string, root: string): SavedRun | undefined {
  let start: RunStart | undefined;
  let journalStart: RunStart | undefined;
  const clients = new Map<string, ClientInfo>();
  const cells = new Map<string, Cell>();
  let durationMs = 0;
  let text: string | undefined;
  try {
    text = readFileSync(join(dir, REPORT_FILES.results), 'utf8');
  } catch {
    // Killed before its first save: the journal has it all.
  }
  if (text !== undefined) {
    const results = parseResults(text, join(dir, REPORT_FILES.results));
    start = { startedAt: results.generatedAt, matrixFile: resolve(root, results.run.matrixFile), strict: results.run.strict, selection: results.run.selection };
    for (const client of results.clients) clients.set(client.name, client);
    for (const cell of results.cells) cells.set(cellKey(cell), cell);
    durationMs = results.run.durationMs;
  }
  let journal: string;
  try {
    journal = readFileSync(join(dir, JOURNAL_FILE), 'utf8');
  } catch {
    return start && { start, clients, cells, durationMs };
  }
  for (const line of journal.split('\n')) {
    let entry: Partial<{ start: RunStart; client: ClientInfo; cell: Cell }>;
    try {
      entry = JSON.parse(line);
    } catch {
      continue;
    }
    // The first start says what the run covers; a resume appends its own, the same.
    if (entry.start) journalStart ??= entry.start;
    else if (entry.client) keepClient(clients, entry.client);
    else if (entry.cell) cells.set(cellKey(entry.cell), entry.cell);
  }
  start = journalStart ?? start;
  return start && { start, clients, cells, durationMs };
}
