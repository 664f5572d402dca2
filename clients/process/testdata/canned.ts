// The well-formed answer to each line-protocol operation that the test programs give when not misbehaving.
export const CANNED: Record<string, unknown> = {
  start: {},
  connect: { connection: 'c1' },
  info: { negotiatedVersion: '2025-06-18', era: 'legacy' },
  listTools: { tools: [{ name: 'echo' }] },
  callTool: { content: [{ type: 'text', text: 'ok' }] },
  cancel: {},
  close: {},
  dispose: {},
};
