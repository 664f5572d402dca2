// Renders the exchanges behind a verdict so a client author sees exactly what their client sent.
import type { StdioProcessState } from '../servers/stdio/harness.ts';
import type { JsonRpcMessage, WireExchange } from '../servers/wire-record.ts';
import type { ScenarioResult } from './scenario.ts';

/** The request headers that matter to lifecycle checks, in the order they are shown. */
const SHOWN_HEADERS = ['mcp-session-id', 'mcp-protocol-version', 'last-event-id', 'mcp-method', 'mcp-name'];

function describeMessage(message: JsonRpcMessage): string {
  if (message.method !== undefined) return message.id === undefined ? message.method : `${message.method}#${message.id}`;
  if (message.error) return `error#${message.id} ${message.error.code} ${message.error.message}`;
  return `result#${message.id}`;
}

/** A stdio exchange (servers/stdio/record.ts): a line on the server's stdin, or a message it wrote on its own. */
function formatStdioExchange(exchange: WireExchange & { process?: number; line?: number }): string {
  const where = exchange.method === 'STDIN' ? `stdin of process ${exchange.process} line ${exchange.line}` : `stdout of process ${exchange.process}`;
  const sent = exchange.requestMessages.map(describeMessage).join(' ');
  const answered = exchange.responseMessages.map(({ message }) => describeMessage(message)).join(' ');
  return [
    `#${exchange.seq} +${exchange.startedAt.toFixed(0)}ms ${where}`,
    sent && `[${sent}]`,
    answered && `→ [${answered}]`,
    exchange.notes.length > 0 ? `<${exchange.notes.join(', ')}>` : '',
  ]
    .filter(Boolean)
    .join(' ');
}

/** One line per process a stdio client launched: what it was, and how its stdin, signals and exit went. */
function formatStdioProcess(process: StdioProcessState): string {
  const at = (ms: number | undefined) => (ms === undefined ? '' : ` +${ms.toFixed(0)}ms`);
  const stderrBytes = process.stderr.reduce((sum, write) => sum + write.bytes, 0);
  return [
    `process ${process.index} (${process.role}${process.pid !== undefined ? `, pid ${process.pid}` : ''}${process.era ? `, ${process.era}` : ''}${process.personalities.length > 0 ? `, ${process.personalities.map((p) => p.name).join(' + ')}` : ''}):`,
    `launched${at(process.connectedAt)}`,
    process.stdinEofAt !== undefined ? `stdin EOF${at(process.stdinEofAt)}` : 'stdin never closed',
    ...process.signals.map((signal) => `${signal.signal}${at(signal.at)}`),
    process.exit ? `exit ${process.exit.signal ?? process.exit.code}${process.exit.inferred ? ' (inferred: no exit record)' : ''}${at(process.exit.at)}` : process.alive ? 'still running' : 'ended',
    stderrBytes > 0 ? `stderr ${process.stderr.length} writes, ${stderrBytes} bytes` : '',
    process.killedByHarness ? `killed by the harness${at(process.killedByHarness.at)}` : '',
  ]
    .filter(Boolean)
    .join('; ');
}

/** One line per exchange: `#3 +12ms POST {session, version} [tools/list#2] → 200 sse [result#2]`. */
export function formatExchange(exchange: WireExchange): string {
  if (exchange.method === 'STDIN' || exchange.method === 'STDOUT') return formatStdioExchange(exchange);
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
    if (result.evidence.stdio !== undefined) {
      lines.push(`  stdio processes (the client was told a shutdown grace of ${result.evidence.stdio.shutdownGraceMs} ms per step):`);
      for (const process of result.evidence.stdio.processes) lines.push(`    ${formatStdioProcess(process)}`);
      if (result.evidence.stdio.survivors.length > 0) lines.push(`    still running when the script ended: pid ${result.evidence.stdio.survivors.join(', pid ')}`);
    }
    for (const [index, other] of result.evidence.otherServers.entries()) {
      const kind = [other.era, ...other.personalities].join(' + ');
      lines.push(`  wire record of server ${index + 2} (${kind}, ${other.url}):`);
      for (const exchange of other.exchanges) lines.push(`    ${formatExchange(exchange)}`);
    }
  }
  return lines.join('\n');
}
