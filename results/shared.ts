// Which verdicts a client shares with the SDK it wraps. A client built on an SDK (ClientInfo.wraps, declared by its
// adapter) fails where that SDK fails, and its author must see at once whether a fail is the SDK's or its own: a fail
// or warn cell is shared when a row of the same matrix that is that SDK (its package, at the version the client wraps)
// gives the same verdict with the same failed checks at the same scenario and revision. Pure: reports call it.
import { cellKey, decidingChecks, type Cell, type ClientInfo, type MatrixResults } from './results.ts';

export interface Attribution {
  /** true: a row of the wrapped SDK gives the same verdict with the same failed checks; false: it judged the case otherwise. */
  shared: boolean;
  /** The SDK's rows: those sharing the verdict when shared, else those that judged the case otherwise (matrix order). */
  rows: string[];
  /** The package and version of those rows. */
  sdk: { package: string; version: string };
  /** What the client declares it wraps, when no row has that exact version and the nearest one was taken. */
  declared?: string;
}

/** Verdicts a wrapping client's cell is compared on: the others are not the client's behaviour or say nothing to share. */
const COMPARED = new Set(['fail', 'warn']);
/** The SDK's verdicts that judged a case: an n/a, inconclusive or error cell of the SDK says nothing about the client's. */
const JUDGED = new Set(['pass', 'fail', 'warn']);

/**
 * For every fail and warn cell of a client that wraps an SDK with a row in this matrix, whether that row shares its
 * verdict: cellKey → Attribution. Cells with no comparable SDK cell (none at that case, or one not judged) are left out.
 */
export function sharedVerdicts(results: MatrixResults): Map<string, Attribution> {
  const attributions = new Map<string, Attribution>();
  const cells = new Map(results.cells.map((cell) => [cellKey(cell), cell]));
  for (const client of results.clients) {
    if (client.wraps === undefined) continue;
    const matched = sdkRows(results.clients, client);
    if (matched === undefined) continue;
    for (const cell of results.cells) {
      if (cell.client !== client.name || !COMPARED.has(cell.verdict)) continue;
      const theirs = matched.rows.flatMap((row) => {
        const other = cells.get(cellKey({ client: row.name, scenario: cell.scenario, revision: cell.revision }));
        return other !== undefined && JUDGED.has(other.verdict) ? [other] : [];
      });
      if (theirs.length === 0) continue;
      const sharing = theirs.filter((other) => sameVerdict(cell, other));
      attributions.set(cellKey(cell), {
        shared: sharing.length > 0,
        rows: (sharing.length > 0 ? sharing : theirs).map((other) => other.client),
        sdk: matched.sdk,
        ...(matched.declared !== undefined ? { declared: matched.declared } : {}),
      });
    }
  }
  return attributions;
}

/** "shared with sdk-v1@latest", or "not shared: sdk-v1@latest judges it otherwise", naming the nearest version when it was one. */
export function attributionText(attribution: Attribution): string {
  const rows = attribution.rows.join(', ');
  const nearest = attribution.declared !== undefined ? ` (nearest: ${attribution.sdk.package} ${attribution.sdk.version}; it wraps ${attribution.declared})` : '';
  return attribution.shared ? `shared with ${rows}${nearest}: the SDK's verdict` : `not shared: ${rows}${nearest} judges it otherwise, the client's own`;
}

/** Same verdict, and the same failed checks (by name). */
function sameVerdict(cell: Cell, other: Cell): boolean {
  if (cell.verdict !== other.verdict) return false;
  const names = (of: Cell) => [...new Set(decidingChecks(of).map((check) => check.name))].sort().join('\n');
  return names(cell) === names(other);
}

/**
 * The rows that are the SDK a client wraps: loaded rows of its package at the version it declares; else at the version
 * nearest to it (for a range, the highest the range admits, as a fresh install would resolve it), saying so.
 */
function sdkRows(clients: readonly ClientInfo[], client: ClientInfo): { rows: ClientInfo[]; sdk: { package: string; version: string }; declared?: string } | undefined {
  const wraps = client.wraps!;
  const candidates = clients.filter((row) => row !== client && row.loadError === undefined && row.package === wraps.package && row.version !== undefined);
  const exact = candidates.filter((row) => row.version === wraps.version);
  if (exact.length > 0) return { rows: exact, sdk: { ...wraps } };
  const version = nearestVersion(
    candidates.map((row) => row.version!),
    wraps.version,
  );
  if (version === undefined) return undefined;
  return { rows: candidates.filter((row) => row.version === version), sdk: { package: wraps.package, version }, declared: wraps.version };
}

type Triple = [number, number, number];

/** The first `x.y.z` (missing parts 0) of a version or range, or undefined when it has none. */
function parse(version: string): Triple | undefined {
  const found = /(\d+)(?:\.(\d+))?(?:\.(\d+))?/.exec(version);
  return found === null ? undefined : [Number(found[1]), Number(found[2] ?? 0), Number(found[3] ?? 0)];
}

const compare = (a: Triple, b: Triple) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];

/** Whether a version is in a caret, tilde or `>=` range (npm's reading); undefined for anything else. */
function inRange(version: Triple, range: string): boolean | undefined {
  const base = parse(range);
  if (base === undefined) return undefined;
  const operator = /^\s*(\^|~|>=)/.exec(range)?.[1];
  if (operator === undefined || compare(version, base) < 0) return operator === undefined ? undefined : false;
  if (operator === '>=') return true;
  if (operator === '~') return version[0] === base[0] && version[1] === base[1];
  // Caret: the leftmost non-zero part stays.
  if (base[0] !== 0) return version[0] === base[0];
  return base[1] !== 0 ? version[0] === 0 && version[1] === base[1] : version[0] === 0 && version[1] === 0 && version[2] === base[2];
}

/**
 * The version among `versions` a declared version or range is nearest to: the highest the range admits, else the one
 * closest to its first `x.y.z` (major first, then minor, then patch; a tie goes to the higher).
 */
export function nearestVersion(versions: readonly string[], declared: string): string | undefined {
  const target = parse(declared);
  const parsed = versions.flatMap((version) => {
    const triple = parse(version);
    return triple === undefined ? [] : [{ version, triple }];
  });
  if (target === undefined || parsed.length === 0) return undefined;
  const admitted = parsed.filter(({ triple }) => inRange(triple, declared) === true).sort((a, b) => compare(b.triple, a.triple));
  if (admitted.length > 0) return admitted[0]!.version;
  // Part by part: while the parts before are the target's, how far this one is; past the first that differs, the one
  // nearer the target in order (the highest of those below it, the lowest of those above).
  const distance = (triple: Triple): Triple => {
    const below = compare(triple, target) < 0;
    const first = triple.findIndex((part, index) => part !== target[index]);
    return triple.map((part, index) => (first === -1 || index <= first ? Math.abs(part - target[index]!) : below ? -part : part)) as Triple;
  };
  const sorted = [...parsed].sort((a, b) => compare(distance(a.triple), distance(b.triple)) || compare(b.triple, a.triple));
  return sorted[0]!.version;
}
