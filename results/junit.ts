// The matrix as JUnit XML (junit.xml) for CI test views: one <testsuite> per client, one <testcase> per cell
// (classname = client, name = `scenario @ revision`). fail → <failure> (a failure the run's baseline expects → <skipped>), error → <error>, n/a → <skipped>,
// inconclusive → <skipped message="inconclusive: …"> (the suite could not judge: never a failure), and a warn passes
// with its warning in <system-out>, where a case run again also says so. Evidence is whatever a client sent or printed, so every text is escaped and
// the characters XML 1.0 forbids are written out (`printable`).
import { cellsByClient, escapeMarkup, incompleteLine, packageLabel } from './markdown.ts';
import { attemptsNote, decidingChecks, forReports, verdictCounts, type Cell, type CellVerdict, type ClientInfo, type MatrixResults } from './results.ts';

/** Escapes an attribute value; tab, newline and carriage return as references, or parsers would fold them to spaces. */
function escapeAttribute(value: string): string {
  return escapeMarkup(value).replace(/\t/g, '&#9;').replace(/\n/g, '&#10;').replace(/\r/g, '&#13;');
}

function attributes(values: Record<string, string | number | undefined>): string {
  return Object.entries(values)
    .filter(([, value]) => value !== undefined)
    .map(([name, value]) => ` ${name}="${escapeAttribute(String(value))}"`)
    .join('');
}

const seconds = (ms: number) => (ms / 1000).toFixed(3);

/** The checks that decided a cell, one line each with level and rule. */
function decidedBy(cell: Cell): string {
  return decidingChecks(cell)
    .map((check) => `${check.outcome === 'fail' ? '✗' : '?'} ${check.name}${check.precondition ? ' (precondition)' : ''} [${check.level}, ${check.section}: ${check.url}]\n  ${check.detail}`)
    .join('\n');
}

/** What a test case's <system-out> holds: a warning or why it could not be judged, and what its reruns say. */
function output(cell: Cell): string | undefined {
  const note = attemptsNote(cell);
  const parts = [
    ...(note !== undefined ? [note] : []),
    ...(cell.verdict === 'warn' ? [`warning (SHOULD): ${cell.reason ?? ''}`, cell.evidence ?? decidedBy(cell)] : []),
    ...(cell.verdict === 'inconclusive' ? [cell.evidence ?? decidedBy(cell)] : []),
  ];
  return parts.length > 0 ? parts.join('\n\n') : undefined;
}

/** Which cells a baseline expects to fail as they did (run --baseline): each becomes a skipped test case, not a failure. */
export type KnownFailures = (cell: Cell) => boolean;

/** The element that carries a cell's verdict, or undefined for a pass. */
function outcomeElement(cell: Cell, known: KnownFailures): string | undefined {
  const reason = cell.reason ?? '';
  if (cell.verdict === 'fail' && known(cell)) return `<skipped${attributes({ message: `known failure, as the baseline expects: ${reason}` })}/>`;
  switch (cell.verdict) {
    case 'pass':
    case 'warn':
      return undefined;
    case 'n/a':
      return `<skipped${attributes({ message: `not applicable: ${reason}` })}/>`;
    case 'inconclusive':
      return `<skipped${attributes({ message: `inconclusive: ${reason}` })}/>`;
    case 'error':
      return `<error${attributes({ message: reason, type: 'error' })}>${escapeMarkup(cell.evidence ?? reason)}</error>`;
    case 'fail': {
      const levels = [...new Set(decidingChecks(cell).map((check) => check.level))].join(', ');
      return `<failure${attributes({ message: reason, type: levels || 'fail' })}>${escapeMarkup(cell.evidence ?? decidedBy(cell))}</failure>`;
    }
  }
}

function testcase(cell: Cell, known: KnownFailures): string {
  const head = `    <testcase${attributes({ classname: cell.client, name: `${cell.scenario} @ ${cell.revision}`, time: seconds(cell.durationMs) })}`;
  const out = known(cell) && cell.verdict === 'fail' ? [attemptsNote(cell), cell.evidence ?? decidedBy(cell)].filter(Boolean).join('\n\n') : output(cell);
  const children = [outcomeElement(cell, known), out !== undefined ? `<system-out>${escapeMarkup(out)}</system-out>` : undefined].filter((child) => child !== undefined);
  return children.length === 0 ? `${head}/>` : `${head}>\n${children.map((child) => `      ${child}`).join('\n')}\n    </testcase>`;
}

/** JUnit's counts: failures (a known failure aside), errors, and skipped (not applicable, could not judge, known failures). */
function junitCounts(cells: readonly Cell[], known: KnownFailures): { failures: number; errors: number; skipped: number } {
  const counts: Record<CellVerdict, number> = verdictCounts(cells);
  const knownFailures = cells.filter((cell) => cell.verdict === 'fail' && known(cell)).length;
  return { failures: counts.fail - knownFailures, errors: counts.error, skipped: counts['n/a'] + counts.inconclusive + knownFailures };
}

function testsuite(client: ClientInfo | undefined, name: string, cells: Cell[], results: MatrixResults, known: KnownFailures): string {
  const time = cells.reduce((sum, cell) => sum + cell.durationMs, 0);
  const properties = {
    package: client?.package,
    version: client?.version,
    kind: client?.kind,
    description: client?.description,
    revisions: client?.revisions.join(' '),
    features: client?.features.join(' '),
    'suite.version': results.run.suiteVersion,
    'suite.commit': results.run.commit,
    node: results.run.node,
    strict: String(results.run.strict),
    'run.complete': String(results.run.complete),
    'run.incomplete': incompleteLine(results),
  };
  const label = client ? packageLabel(client) : undefined;
  return [
    `  <testsuite${attributes({ name: label ? `${name} (${label})` : name, tests: cells.length, ...junitCounts(cells, known), time: seconds(time), timestamp: results.generatedAt })}>`,
    '    <properties>',
    ...Object.entries(properties)
      .filter(([, value]) => value !== undefined && value !== '')
      .map(([key, value]) => `      <property${attributes({ name: key, value })}/>`),
    '    </properties>',
    ...cells.map((cell) => testcase(cell, known)),
    ...(client?.loadError !== undefined ? [`    <system-err>${escapeMarkup(`the client could not be loaded:\n${client.loadError}`)}</system-err>`] : []),
    '  </testsuite>',
  ].join('\n');
}

/** The results as JUnit XML; `known` names the failures a baseline expects (run --baseline), reported as skipped. */
export function renderJunit(saved: MatrixResults, known: KnownFailures = () => false): string {
  const results = forReports(saved);
  const clients = new Map(results.clients.map((client) => [client.name, client]));
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites${attributes({ name: 'mcp-client-conformance matrix', tests: results.cells.length, ...junitCounts(results.cells, known), time: seconds(results.run.durationMs), timestamp: results.generatedAt })}>`,
    ...[...cellsByClient(results)].map(([name, cells]) => testsuite(clients.get(name), name, cells, results, known)),
    '</testsuites>',
    '',
  ].join('\n');
}
