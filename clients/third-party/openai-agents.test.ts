// The OpenAI Agents adapter loads through its factory as the matrix loads it, on both transports, and drives the
// installed @openai/agents-core: a handshake, a disposal, a cancellation and a modern probe reach the reference server
// with a verdict; over stdio (MCPServerStdio) the handshake passes and no process is left.
import { expect, test } from 'vitest';
import { legacyNotification } from '../../suites/cancellation/legacy-notification.ts';
import { deleteIssuedSession } from '../../suites/disposal/delete-issued-session.ts';
import { failOnLeakedHandles } from '../../suites/leaks.ts';
import { handshakeOrder } from '../../suites/negotiation/handshake-order.ts';
import { modernEnvelope } from '../../suites/negotiation/modern-envelope.ts';
import { loadAdapter } from '../load.ts';
import { expectStdioHandshake, smokeCases, type SmokeCase } from './testdata/support.ts';

const http = await loadAdapter('./clients/third-party/openai-agents.ts', { factoryOptions: { name: 'openai-agents' } });
const sse = await loadAdapter('./clients/third-party/openai-agents.ts', { factoryOptions: { name: 'openai-agents-sse', transport: 'sse' } });

failOnLeakedHandles();

test('each transport loads under its name and names the installed packages', () => {
  expect([http.name, sse.name]).toEqual(['openai-agents', 'openai-agents-sse']);
  for (const adapter of [http, sse]) expect(adapter.description).toMatch(/^@openai\/agents-core \d+\.\d+\.\d+ .* over @modelcontextprotocol\/client \d+\.\d+\.\d+$/);
  expect(http.features).toEqual(['mode-auto', 'cancellation']);
  expect(sse.revisions).toEqual(['2024-11-05']);
  // stdio on the Streamable HTTP row only, so no stdio cell is doubled.
  expect([http.transports, sse.transports]).toEqual([['http', 'stdio'], ['http']]);
  // The SDK v2 client its package.json names, as installed for it.
  for (const adapter of [http, sse]) expect(adapter.wraps).toEqual({ package: '@modelcontextprotocol/client', version: expect.stringMatching(/^2\.\d+\.\d+$/) });
});

const CASES: SmokeCase[] = [
  { adapter: http, scenario: handshakeOrder, revision: '2025-11-25', opening: 'initialize' },
  { adapter: http, scenario: deleteIssuedSession, revision: '2025-06-18', opening: 'initialize' },
  { adapter: http, scenario: legacyNotification, revision: '2025-11-25', opening: 'initialize' },
  { adapter: http, scenario: modernEnvelope, revision: '2026-07-28', opening: 'server/discover' },
  { adapter: sse, scenario: handshakeOrder, revision: '2024-11-05', opening: 'initialize' },
];

smokeCases(CASES);

test('over stdio it launches the suite’s server, passes the handshake and leaves no process', () => expectStdioHandshake(http));
