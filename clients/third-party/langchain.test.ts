// The LangChain adapter loads through its factory as the matrix loads it, on both transports, and drives the installed
// @langchain/mcp-adapters: a handshake, a disposal, a cancellation, and a handshake reached through its own fallback to
// HTTP+SSE, each reach the reference server with a verdict; over stdio (a `transport: "stdio"` server) the handshake
// passes and no process is left.
import { expect, test } from 'vitest';
import { legacyNotification } from '../../suites/cancellation/legacy-notification.ts';
import { deleteIssuedSession } from '../../suites/disposal/delete-issued-session.ts';
import { failOnLeakedHandles } from '../../suites/leaks.ts';
import { handshakeOrder } from '../../suites/negotiation/handshake-order.ts';
import { loadAdapter } from '../load.ts';
import { expectStdioHandshake, smokeCases, type SmokeCase } from './testdata/support.ts';

const http = await loadAdapter('./clients/third-party/langchain.ts', { factoryOptions: { name: 'langchain' } });
const sse = await loadAdapter('./clients/third-party/langchain.ts', { factoryOptions: { name: 'langchain-sse', transport: 'sse' } });

failOnLeakedHandles();

test('each transport loads under its name and names the installed packages', () => {
  expect([http.name, sse.name]).toEqual(['langchain', 'langchain-sse']);
  for (const adapter of [http, sse]) expect(adapter.description).toMatch(/^@langchain\/mcp-adapters \d+\.\d+\.\d+ .* over @modelcontextprotocol\/sdk \d+\.\d+\.\d+$/);
  expect(http.features).toContain('transport-fallback');
  expect(sse.features).not.toContain('transport-fallback');
  // stdio on the Streamable HTTP row only, so no stdio cell is doubled.
  expect([http.transports, sse.transports]).toEqual([['http', 'stdio'], ['http']]);
  // The SDK v1 its package.json depends on, as installed for it.
  for (const adapter of [http, sse]) expect(adapter.wraps).toEqual({ package: '@modelcontextprotocol/sdk', version: expect.stringMatching(/^1\.\d+\.\d+$/) });
});

const CASES: SmokeCase[] = [
  { adapter: http, scenario: handshakeOrder, revision: '2025-11-25' },
  { adapter: http, scenario: deleteIssuedSession, revision: '2025-06-18' },
  { adapter: http, scenario: legacyNotification, revision: '2025-11-25' },
  // An HTTP+SSE server: the initialize POST is refused, the client falls back by itself.
  { adapter: http, scenario: handshakeOrder, revision: '2024-11-05' },
  { adapter: sse, scenario: handshakeOrder, revision: '2024-11-05' },
];

smokeCases(CASES);

test('over stdio it launches the suite’s server, passes the handshake and leaves no process', () => expectStdioHandshake(http));
