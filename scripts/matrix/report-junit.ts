// The matrix as JUnit XML (junit.xml) for CI test views: one <testsuite> per client, one <testcase> per cell
// (classname = client, name = `scenario @ revision`). fail → <failure>, error → <error>, n/a → <skipped>, and a warn
// passes with its warning in <system-out>. Evidence is whatever a client sent or printed, so every text is escaped and
// the characters XML 1.0 forbids are written out (`printable`).
import { cellsByClient, escapeMarkup, packageLabel } from './report-markdown.ts';
import { verdictCounts, type Cell, type ClientInfo, type MatrixResults } from './results.ts';

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

/** The failed checks of a cell, one line each with level and rule. */
function failedChecks(cell: Cell): string {
  return cell.checks
    .filter((check) => !check.ok)
    .map((check) => `✗ ${check.name} [${check.level}, ${check.section}: ${check.url}]\n  ${check.detail}`)
    .join('\n');
}

function testcase(cell: Cell): string {
  const head = `    <testcase${attributes({ classname: cell.client, name: `${cell.scenario} @ ${cell.revision}`, time: seconds(cell.durationMs) })}`;
  const reason = cell.reason ?? '';
  switch (cell.verdict) {
    case 'pass':
      return `${head}/>`;
    case 'n/a':
      return `${head}>\n      <skipped${attributes({ message: `not applicable: ${reason}` })}/>\n    </testcase>`;
    case 'error':
      return `${head}>\n      <error${attributes({ message: reason, type: 'error' })}>${escapeMarkup(cell.evidence ?? reason)}</error>\n    </testcase>`;
    case 'fail': {
      const levels = [...new Set(cell.checks.filter((check) => !check.ok).map((check) => check.level))].join(', ');
      return `${head}>\n      <failure${attributes({ message: reason, type: levels || 'fail' })}>${escapeMarkup(cell.evidence ?? failedChecks(cell))}</failure>\n    </testcase>`;
    }
    case 'warn':
      return `${head}>\n      <system-out>${escapeMarkup(`warning (SHOULD): ${reason}\n\n${cell.evidence ?? failedChecks(cell)}`)}</system-out>\n    </testcase>`;
  }
}

function testsuite(client: ClientInfo | undefined, name: string, cells: Cell[], results: MatrixResults): string {
  const counts = verdictCounts(cells);
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
  };
  const label = client ? packageLabel(client) : undefined;
  return [
    `  <testsuite${attributes({ name: label ? `${name} (${label})` : name, tests: cells.length, failures: counts.fail, errors: counts.error, skipped: counts['n/a'], time: seconds(time), timestamp: results.generatedAt })}>`,
    '    <properties>',
    ...Object.entries(properties)
      .filter(([, value]) => value !== undefined && value !== '')
      .map(([key, value]) => `      <property${attributes({ name: key, value })}/>`),
    '    </properties>',
    ...cells.map(testcase),
    ...(client?.loadError !== undefined ? [`    <system-err>${escapeMarkup(`the client could not be loaded:\n${client.loadError}`)}</system-err>`] : []),
    '  </testsuite>',
  ].join('\n');
}

export function renderJunit(results: MatrixResults): string {
  const counts = verdictCounts(results.cells);
  const clients = new Map(results.clients.map((client) => [client.name, client]));
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites${attributes({ name: 'mcp-client-conformance matrix', tests: results.cells.length, failures: counts.fail, errors: counts.error, skipped: counts['n/a'], time: seconds(results.run.durationMs), timestamp: results.generatedAt })}>`,
    ...[...cellsByClient(results)].map(([name, cells]) => testsuite(clients.get(name), name, cells, results)),
    '</testsuites>',
    '',
  ].join('\n');
}
