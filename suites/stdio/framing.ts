// What the client writes on the server's stdin: one JSON-RPC message per line, nothing else, UTF-8. The stimulus is a
// tool argument with a newline and characters beyond ASCII, the two things a serializer gets wrong; the evidence is the
// server's stdin as it read it (servers/stdio/record.ts notes every line that is not one message, not JSON-RPC, or not
// UTF-8) and the call as the server parsed it.
import { isModern, L_AND_M, specUrl, type Revision } from '../../protocol/revisions.ts';
import type { JsonRpcMessage } from '../../servers/wire-record.ts';
import { checkIf, clientCompleted } from '../checks.ts';
import { defineScenario, type Evidence } from '../scenario.ts';
import { spec, stdio } from '../spec.ts';
import { isStdioLine, noted } from '../wire.ts';
import { ECHO_TEXT, isEchoSeen, misframed, watchEcho } from './calls.ts';
import { serverRecorded, serverRecordedProof } from './support.ts';

/**
 * "JSON-RPC messages MUST be UTF-8 encoded": the opening of the transports page from 2025-03-26 on (2026-07-28: its
 * index page). 2024-11-05 says it only through JSON (RFC 8259 §8.1): a line that is not UTF-8 is no valid MCP message.
 */
export function utf8Rule(revision: Revision, section = 'the client writes UTF-8') {
  if (revision === '2024-11-05') return stdio(revision, `only valid MCP messages on stdio, and JSON text exchanged is UTF-8 (RFC 8259 §8.1): ${section}`, 'MUST');
  return spec(specUrl(revision, isModern(revision) ? 'basic/transports/index' : 'basic/transports'), `Transports: JSON-RPC messages MUST be UTF-8 encoded: ${section}`, 'MUST');
}

const lines = (evidence: Pick<Evidence, 'exchanges'>) => evidence.exchanges.filter(isStdioLine);
const isResponse = (m: JsonRpcMessage) => m.method === undefined && m.id !== undefined && ('result' in m || 'error' in m);
const described = (exchanges: readonly { requestBody: string; notes: readonly string[] }[]) =>
  exchanges
    .slice(0, 3)
    .map((x) => `${JSON.stringify(x.requestBody.slice(0, 60))} (${x.notes.join(', ')})`)
    .join('; ');

/**
 * Responses the client wrote that no server request called for: at 2026-07-28 every response (the client writes none
 * on stdio); before, a response whose id names no request that server process wrote.
 */
function strayResponses(evidence: Pick<Evidence, 'exchanges' | 'revision'>) {
  const asked = new Set(
    evidence.exchanges
      .filter((x) => x.method === 'STDOUT')
      .flatMap((x) => x.responseMessages.filter(({ message }) => message.method !== undefined && message.id !== undefined).map(({ message }) => `${(x as { process?: number }).process}:${JSON.stringify(message.id)}`)),
  );
  return lines(evidence).filter((x) =>
    x.requestMessages.some((m) => isResponse(m) && (isModern(evidence.revision) || !asked.has(`${(x as { process?: number }).process}:${JSON.stringify(m.id)}`))),
  );
}

export const stdioFraming = defineScenario({
  id: 'stdio/framing',
  title: 'What the client writes on stdin: one JSON-RPC message per line, nothing but MCP messages, UTF-8; a tool argument with a newline and non-ASCII text arrives intact',
  revisions: L_AND_M,
  requires: [],
  transport: 'stdio',
  source: { spec: stdio('2025-11-25', 'messages are delimited by newlines, and MUST NOT contain embedded newlines', 'MUST') },
  async run(context) {
    const client = await context.connect();
    context.observe('call', await watchEcho(context, client));
    await context.bounded(client.close(), 'close');
  },
  judge(evidence) {
    const { revision } = evidence;
    const written = lines(evidence);
    const wroteNothing = written.length === 0 ? 'the client wrote nothing on the server’s stdin' : undefined;
    const broken = misframed(written);
    const notJsonRpc = noted(written, 'stdin-not-jsonrpc');
    const stray = strayResponses(evidence);
    const notUtf8 = noted(written, 'stdin-not-utf8');
    const calls = written.filter((x) => x.requestMessages.some((m) => m.method === 'tools/call' && (m.params as { name?: unknown } | undefined)?.name === 'echo'));
    const intact = calls.filter((x) =>
      x.requestMessages.some((m) => {
        const params = m.params as { arguments?: { text?: unknown } } | undefined;
        return m.method === 'tools/call' && params?.arguments?.text === ECHO_TEXT && evidence.toolRuns.some((run) => run.tool === 'echo' && run.requestId === m.id);
      }),
    );
    const call = isEchoSeen(evidence.observed['call']) ? evidence.observed['call'] : undefined;
    const arrived = calls
      .flatMap((x) => x.requestMessages.map((m) => (m.params as { arguments?: { text?: unknown } } | undefined)?.arguments?.text))
      .filter((text) => text !== undefined);
    return [
      serverRecorded(evidence),
      clientCompleted(evidence, stdio(revision, 'the client writes its messages on the server’s stdin', 'MUST')),
      checkIf(
        wroteNothing,
        'one-message-per-line',
        stdio(revision, 'each line is one JSON-RPC message: messages are delimited by newlines and MUST NOT contain embedded newlines', 'MUST'),
        () => broken.length === 0,
        () =>
          broken.length === 0
            ? `each of the ${written.length} lines written was one JSON message`
            : `${broken.length} of ${written.length} lines were no single message (a message spread over lines, or a line that is none): ${described(broken)}`,
        broken,
      ),
      checkIf(
        wroteNothing,
        'only-mcp-messages',
        isModern(revision)
          ? stdio(revision, 'the client MUST NOT write anything to the server’s stdin that is not a valid MCP message, and MUST NOT write JSON-RPC responses', 'MUST', 'sending-messages')
          : stdio(revision, 'the client MUST NOT write anything to the server’s stdin that is not a valid MCP message', 'MUST'),
        () => notJsonRpc.length === 0 && stray.length === 0,
        () =>
          notJsonRpc.length > 0
            ? `${notJsonRpc.length} lines were JSON but no JSON-RPC message: ${described(notJsonRpc)}`
            : stray.length > 0
              ? `${stray.length} lines carried a JSON-RPC response ${isModern(revision) ? '(at 2026-07-28 the client writes none)' : 'to no request the server had written'}: ${described(stray)}`
              : 'every line was a JSON-RPC request or notification',
        [...notJsonRpc, ...stray],
      ),
      checkIf(
        wroteNothing,
        'utf8',
        utf8Rule(revision, 'every line the client writes is valid UTF-8'),
        () => notUtf8.length === 0,
        () => (notUtf8.length === 0 ? 'every line was valid UTF-8' : `${notUtf8.length} lines were not valid UTF-8: ${described(notUtf8)}`),
        notUtf8,
      ),
      checkIf(
        call === undefined ? 'the script never got to the echo call' : undefined,
        'argument-intact',
        stdio(revision, 'a newline inside a string travels escaped (\\n) inside its one line: the tool’s argument reaches the server as the caller gave it', 'MUST'),
        () => intact.length > 0,
        () =>
          intact.length > 0
            ? 'the echo call reached the server with its argument intact, and the tool ran'
            : calls.length === 0
              ? `no tools/call of echo reached the server as a message (the call ${call!.state}${call!.misframed ? '; the server read lines that were no message' : ''})`
              : `the echo tool was given ${arrived.map((text) => JSON.stringify(text)).join(', ') || 'no text'}, not ${JSON.stringify(ECHO_TEXT)}`,
        intact.length > 0 ? intact : calls,
      ),
    ];
  },
  doctored: [
    {
      check: 'only-mcp-messages',
      how: 'a line that is JSON but no JSON-RPC message (a bare string) added',
      doctor: (e) => ({ ...e, exchanges: [...e.exchanges, strayLine(e, '"hello"', [], ['stdin-not-jsonrpc'])] }),
    },
    {
      check: 'only-mcp-messages',
      how: 'a JSON-RPC response to a request the server never wrote added',
      doctor: (e) => ({ ...e, exchanges: [...e.exchanges, strayLine(e, '{"jsonrpc":"2.0","id":99,"result":{}}', [{ jsonrpc: '2.0', id: 99, result: {} }], [])] }),
    },
    {
      check: 'utf8',
      how: 'a line noted as not UTF-8 (a Latin-1 "naïve")',
      doctor: (e) => ({ ...e, exchanges: e.exchanges.map((x) => (x.requestMessages.some((m) => m.method === 'tools/call') ? { ...x, notes: [...x.notes, 'stdin-not-utf8'] } : x)) }),
    },
    {
      check: 'argument-intact',
      how: 'the newline of the echo argument dropped, as a client that strips control characters would',
      doctor: (e) => ({
        ...e,
        exchanges: e.exchanges.map((x) => ({
          ...x,
          requestMessages: x.requestMessages.map((m) =>
            m.method === 'tools/call' ? { ...m, params: { ...(m.params as object), arguments: { text: ECHO_TEXT.replace('\n', '') } } } : m,
          ),
        })),
      }),
    },
    serverRecordedProof,
  ],
});

/** A line added to a doctored record, after every other. */
function strayLine(evidence: Evidence, body: string, messages: JsonRpcMessage[], notes: string[]) {
  const last = evidence.exchanges.at(-1)!;
  return { ...last, seq: last.seq + 1, method: 'STDIN', requestBody: body, requestMessages: messages, responseMessages: [], notes };
}
