// Renders the exchanges behind a verdict so a client author sees exactly what their client sent.
import type { JsonRpcMessage, WireExchange } from '../servers/wire-record.ts';
import type { ScenarioResult } from './scenario.ts';

/** The request headers that matter to lifecycle checks, in the order they are shown. */
const SHOWN_HEADERS = ['mcp-session-id', 'mcp-protocol-version', 'last-event-id', 'mcp-method', 'mcp-name'];

function describeMessage(message: JsonRpcMessage): string {
  if (message.method !== undefined) return message.id === undefined ? message.method : `${message.method}#${message.id}`;
  if (message.error) return `error#${message.id} ${message.error.code} ${message.error.message}`;
  return `result#${message.id}`;
}

/** One line per exchange: `#3 +12ms POST {session, version} [tools/list#2] → 200 sse [result#2]`. */
export function formatExchange(exchange: WireExchange): string {
  const headers = SHOWN_HEADERS.filter((name) => exchange.requestHeaders[name] !== undefined)
    .map((name) => `${name}: ${exchange.requestHeaders[name]}`)
    .join(', ');
  const sent = exchange.requestMessages.map(describeMessage).join(' ');
  const answered = exchange.responseMessages.map(({ message }) => describeMessage(message)).join(' ');
  const status = exchange.status === undefined ? 'no answer' : String(exchange.status);
  const issued = exchange.responseHeaders['mcp-session-id'];
  return [
    `#${exchange.seq} +${exchange.startedAt.toFixed(0)}ms ${exchange.method} ${exchange.path}`,
    headers && `{${headers}}`,
    sent && `[${sent}]`,
    `→ ${status}${exchange.sse ? ' sse' : ''}`,
    issued && `{issued mcp-session-id: ${issued}}`,
    answered && `[${answered}]`,
    exchange.endedBy === 'client' ? '(client closed the connection)' : exchange.endedBy === 'server-dropped' ? '(server dropped the connection)' : '',
    exchange.notes.length > 0 ? `<${exchange.notes.join(', ')}>` : '',
  ]
    .filter(Boolean)
    .join(' ');
}

/** A multi-line explanation of a result: verdict, each failed check with its rule, then the whole exchange log. */
export function explain(result: ScenarioResult): string {
  const lines = [`${result.scenarioId} @ ${result.revision} on ${result.adapter}: ${result.verdict}${result.reason ? ` (${result.reason})` : ''}`];
  for (const check of result.checks.filter((c) => c.outcome !== 'pass')) {
    lines.push(`  ${check.outcome === 'fail' ? '✗' : '?'} ${check.name}${check.outcome === 'inconclusive' ? ' (inconclusive)' : ''} [${check.spec.level}, ${check.spec.section}: ${check.spec.url}]`, `    ${check.detail}`);
    if (check.exchanges.length > 0) lines.push(`    decided by exchanges ${check.exchanges.map((n) => `#${n}`).join(', ')}`);
  }
  if (result.evidence?.clientError) lines.push(`  client error: ${result.evidence.clientError}`);
  if (result.evidence) {
    lines.push('  wire record:');
    for (const exchange of result.evidence.exchanges) lines.push(`    ${formatExchange(exchange)}`);
    for (const [index, other] of result.evidence.otherServers.entries()) {
      const kind = [other.era, ...other.personalities].join(' + ');
      lines.push(`  wire record of server ${index + 2} (${kind}, ${other.url}):`);
      for (const exchange of other.exchanges) lines.push(`    ${formatExchange(exchange)}`);
    }
  }
  return lines.join('\n');
}
