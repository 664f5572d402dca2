// The JSON Schema of the line protocol validates every message both ways: the lines both drivers and the harness
// actually exchange in real scenarios (cancellation and a stdio target included), the example in docs/line-protocol.md,
// and it rejects what version 1.2 does not allow. Its enumerations are the harness's own. A 1.0 program (no
// transports in its hello) is never given a stdio target: a stdio scenario is not applicable to it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
// ajv is not a dependency of this project; it is installed with the official harness and the SDK. Tests only.
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, test } from 'vitest';
import { basePolicy } from '../../config/settings.ts';
import { REVISIONS } from '../../protocol/revisions.ts';
import { startReferenceServer } from '../../servers/server.ts';
import { SCENARIOS } from '../../suites/index.ts';
import { plannedCases, transportOf } from '../../suites/plan.ts';
import { notApplicable, runScenario } from '../../suites/runner.ts';
import { stdioHandshake } from '../../suites/stdio/handshake.ts';
import { FEATURES, TRANSPORTS } from '../adapter.ts';
import { ClientProcessError, helloProblems, processAdapter } from './adapter.ts';
import { BASIC_SCENARIOS, MISBEHAVING, NO_PYTHON, NODE, NODE_DRIVER, PYTHON_DRIVER, ROOT } from './testdata/support.ts';

const time = basePolicy();
const schema = JSON.parse(readFileSync(join(import.meta.dirname, 'line-protocol.schema.json'), 'utf8'));
const ajv = new Ajv2020({ strict: true, allErrors: true });
ajv.addSchema(schema);
const validateLine = ajv.getSchema(schema.$id)!;
const validateResult = (op: string) => ajv.getSchema(`${schema.$id}#/$defs/results/${op === 'start' || op === 'cancel' || op === 'close' || op === 'dispose' || op === 'shutdown' ? 'empty' : op}`)!;

function problems(message: unknown, validate = validateLine): string | undefined {
  return validate(message) ? undefined : ajv.errorsText(validate.errors);
}

/** Checks every line of a run: each is valid, and each answer is a valid result of the op it answers. */
function checkTraffic(lines: { direction: 'out' | 'in'; line: string }[]): void {
  const ops = new Map<number, string>();
  for (const { direction, line } of lines) {
    const message = JSON.parse(line);
    expect(problems(message), `${direction} ${line}`).toBeUndefined();
    if (direction === 'out') ops.set(message.id, message.op);
    else if ('result' in message) expect(problems(message.result, validateResult(ops.get(message.id)!)), `answer to ${ops.get(message.id)}: ${line}`).toBeUndefined();
  }
}

test('the schema is draft 2020-12 and its revisions and features are the harness’s', () => {
  expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
  expect(schema.$defs.Revision.enum).toEqual([...REVISIONS]);
  expect(schema.$defs.Feature.enum).toEqual(Object.keys(FEATURES));
  expect(schema.$defs.Transport.enum).toEqual(Object.keys(TRANSPORTS));
  expect(schema.$defs.Hello.properties.protocol.const).toBe(1);
  expect(schema.$id).toBe('urn:mcp-client-conformance:line-protocol:1.2');
});

describe.each([
  { driver: 'node', command: NODE, args: [NODE_DRIVER], skip: false },
  { driver: 'python', command: 'python3', args: [PYTHON_DRIVER], skip: NO_PYTHON },
])('every line the $driver driver and the harness exchange is valid', ({ command, args, skip }) => {
  test.skipIf(skip)('over a scenario at each revision and a cancelled call', async () => {
    const lines: { direction: 'out' | 'in'; line: string }[] = [];
    const adapter = await processAdapter({ command, args, trace: (direction, line) => lines.push({ direction, line }) });
    try {
      for (const revision of ['2025-03-26', '2025-06-18', '2025-11-25'] as const) {
        for (const scenario of BASIC_SCENARIOS) expect((await runScenario(scenario, adapter, revision)).verdict).toBe('pass');
      }
      // Over stdio: the hello declares it, and the connect carries the target instead of a URL.
      expect(adapter.transports).toEqual(['http', 'stdio']);
      expect((await runScenario(stdioHandshake, adapter, '2025-11-25')).verdict).toBe('pass');
      const server = await startReferenceServer({ era: '2025-06-18' });
      try {
        const client = await adapter.start('cancel');
        const connection = await client.connect(server.url, { timeoutMs: time.ms.operation });
        const abort = new AbortController();
        // Work and a client timeout longer than the test waits: the cancel ends the call.
        const call = connection.callTool('slow', { ms: 6 * time.ms.operation }, { signal: abort.signal, timeoutMs: 4 * time.ms.operation });
        await server.fixtures.waitForRun((run) => run.tool === 'slow', 'the slow call to start');
        abort.abort();
        await expect(call).rejects.toThrow();
        expect(await connection.listTools({ timeoutMs: time.ms.operation })).toContainEqual({ name: 'echo' });
        await connection.close();
        await client.dispose();
      } finally {
        await server.close();
      }
    } finally {
      await adapter.shutdown();
    }
    const ops = new Set(lines.filter((l) => l.direction === 'out').map((l) => JSON.parse(l.line).op));
    expect([...ops].sort()).toEqual(['callTool', 'cancel', 'close', 'connect', 'dispose', 'info', 'listTools', 'shutdown', 'start']);
    const connects = lines.filter((l) => l.direction === 'out' && JSON.parse(l.line).op === 'connect').map((l) => JSON.parse(l.line));
    expect(connects.filter((c) => c.target !== undefined)).toHaveLength(1);
    expect(connects.find((c) => c.target !== undefined)).toMatchObject({ target: { transport: 'stdio', command: NODE }, options: { shutdownGraceMs: 2 * time.ms.react } });
    // Only the stdio connect carries the stdio-only option: an HTTP connect is what a 1.0 program reads.
    expect(connects.filter((c) => c.url !== undefined).every((c) => c.options.shutdownGraceMs === undefined)).toBe(true);
    expect(lines.some((l) => l.direction === 'in' && 'error' in JSON.parse(l.line))).toBe(true);
    checkTraffic(lines);
  });
});

test('the example session in docs/line-protocol.md is valid, line by line', () => {
  const doc = readFileSync(join(ROOT, 'docs', 'line-protocol.md'), 'utf8');
  const example = doc.slice(doc.indexOf('## A session, line by line'));
  const lines = [...example.matchAll(/^([←→]) (\{.*\})$/gm)].map(([, arrow, line]) => ({ direction: arrow === '→' ? ('out' as const) : ('in' as const), line: line! }));
  expect(lines.length).toBeGreaterThan(15);
  checkTraffic(lines);
});

test.each([
  ['a request with an unknown member', { id: 1, case: 'c', op: 'start', extra: true }],
  ['a request without its case', { id: 1, op: 'dispose' }],
  ['an unknown op', { id: 1, case: 'c', op: 'teleport' }],
  ['a callTool without arguments', { id: 1, case: 'c', op: 'callTool', connection: 'c1', name: 'echo' }],
  ['a connect without options.timeoutMs', { id: 1, case: 'c', op: 'connect', url: 'http://127.0.0.1:1/mcp', options: {} }],
  ['an id that is not a positive integer', { id: '1', result: {} }],
  ['an answer with both result and error', { id: 1, result: {}, error: { message: 'x' } }],
  ['an error without a message', { id: 1, error: { code: 'aborted' } }],
  ['a hello of protocol 2', { protocol: 2, name: 'x', description: '', revisions: [], features: [] }],
  ['a hello with an unknown feature', { protocol: 1, name: 'x', description: '', revisions: [], features: ['teleport'] }],
  ['a hello with an unknown transport', { protocol: 1, name: 'x', description: '', revisions: [], features: [], transports: ['carrier-pigeon'] }],
  ['a hello declaring no transport at all', { protocol: 1, name: 'x', description: '', revisions: [], features: [], transports: [] }],
  ['a connect with both a url and a target', { id: 1, case: 'c', op: 'connect', url: 'http://127.0.0.1:1/mcp', target: { transport: 'stdio', command: 'srv', args: [] }, options: { timeoutMs: 1 } }],
  ['a connect with neither a url nor a target', { id: 1, case: 'c', op: 'connect', options: { timeoutMs: 1 } }],
  ['a connect to a stdio target without args', { id: 1, case: 'c', op: 'connect', target: { transport: 'stdio', command: 'srv' }, options: { timeoutMs: 1 } }],
  ['a hello without a name', { protocol: 1, description: '', revisions: [], features: [] }],
])('the schema rejects %s', (_what, message) => {
  expect(problems(message)).toBeDefined();
});

test('the harness checks a hello’s transports as the schema does, and takes no transports for HTTP only', () => {
  const hello = { protocol: 1, name: 'x', description: '', revisions: ['2025-11-25'], features: ['mode-legacy'] };
  expect(helloProblems(hello)).toEqual([]);
  expect(helloProblems({ ...hello, transports: ['http', 'stdio'] })).toEqual([]);
  expect(helloProblems({ ...hello, transports: ['stdio', 'pigeon'] })).toEqual(['transports[1] ("pigeon") is not a known transport']);
  expect(helloProblems({ ...hello, transports: [] })).toEqual(['transports is empty (leave it out to declare HTTP only)']);
  expect(problems({ ...hello, transports: ['http', 'stdio'] })).toBeUndefined();
  expect(problems({ id: 1, case: 'c', op: 'connect', target: { transport: 'stdio', command: 'srv', args: ['--x'], env: { A: 'b' }, cwd: '/tmp' }, options: { timeoutMs: 1, shutdownGraceMs: 1 } })).toBeUndefined();
});

test('a hello’s stdioRevisions: known revisions (1.5: those spoken only over stdio too), only beside the stdio transport', () => {
  const hello = { protocol: 1, name: 'x', description: '', revisions: ['2025-06-18', '2025-11-25'], features: ['mode-legacy'], transports: ['http', 'stdio'] };
  expect(helloProblems({ ...hello, stdioRevisions: ['2025-11-25'] })).toEqual([]);
  expect(problems({ ...hello, stdioRevisions: ['2025-11-25'] })).toBeUndefined();
  expect(helloProblems({ ...hello, stdioRevisions: ['1999-01-01'] })).toEqual(['stdioRevisions[0] ("1999-01-01") is not a known revision']);
  expect(helloProblems({ ...hello, stdioRevisions: ['2024-11-05', '2025-11-25'] })).toEqual([]);
  expect(problems({ ...hello, stdioRevisions: ['2024-11-05', '2025-11-25'] })).toBeUndefined();
  expect(helloProblems({ ...hello, transports: ['http'], stdioRevisions: ['2025-11-25'] })).toEqual(['stdioRevisions is declared, but transports does not list stdio']);
  expect(problems({ ...hello, stdioRevisions: ['1999-01-01'] })).toBeDefined();
});

test('a hello’s wraps (1.6): a package and a version, checked by the harness as by the schema', () => {
  const hello = { protocol: 1, name: 'x', description: '', revisions: ['2025-11-25'], features: ['mode-legacy'] };
  const wraps = { package: 'mcp', version: '2.3.0' };
  expect(helloProblems({ ...hello, wraps })).toEqual([]);
  expect(problems({ ...hello, wraps })).toBeUndefined();
  expect(helloProblems({ ...hello, wraps: { package: '@modelcontextprotocol/client', version: '^2.0.0' } })).toEqual([]);
  for (const [malformed, said] of [
    ['mcp', ['wraps is not an object { package, version }']],
    [{ package: 'mcp' }, ['wraps.version is missing']],
    [{ package: ' ', version: 2 }, ['wraps.package is not a non-empty string', 'wraps.version is not a non-empty string']],
    [{ ...wraps, ecosystem: 'pypi' }, ['wraps.ecosystem is not a known member (package, version)']],
  ] as const) {
    expect(helloProblems({ ...hello, wraps: malformed })).toEqual(said);
    expect(problems({ ...hello, wraps: malformed })).toBeDefined();
  }
});

test('a program whose hello declares wraps is the adapter that wraps it; a malformed one is refused, saying what is wrong', async () => {
  // Says hello, and answers shutdown by exiting (nothing else is asked of it).
  const program = (wraps: unknown) =>
    `console.log(JSON.stringify(${JSON.stringify({ protocol: 1, name: 'wrapper', description: '', revisions: ['2025-11-25'], features: ['mode-legacy'], wraps })})); ` +
    `process.stdin.on('data', (data) => { for (const line of String(data).split('\\n').filter(Boolean)) { const { id, op } = JSON.parse(line); console.log(JSON.stringify({ id, result: {} })); if (op === 'shutdown') process.exit(0); } });`;
  const adapter = await processAdapter({ command: NODE, args: ['-e', program({ package: 'mcp', version: '2.3.0' })] });
  try {
    expect(adapter.wraps).toEqual({ package: 'mcp', version: '2.3.0' });
  } finally {
    await adapter.shutdown();
  }
  await expect(processAdapter({ command: NODE, args: ['-e', program({ package: 'mcp' })] })).rejects.toThrow(/sent an invalid hello: wraps\.version is missing/);
});

test('a program whose stdioRevisions name a revision its revisions do not (1.5) is given stdio cases at it, and no HTTP case', async () => {
  // A Streamable HTTP client whose stdio transport also speaks 2024-11-05.
  const adapter = await processAdapter({ command: NODE, args: [MISBEHAVING, '--stdio-revisions', '2024-11-05,2025-03-26,2025-06-18,2025-11-25'] });
  try {
    expect(adapter.revisions).toEqual(['2025-03-26', '2025-06-18', '2025-11-25']);
    expect(adapter.stdioRevisions).toContain('2024-11-05');
    const atOldest = plannedCases(SCENARIOS).filter(({ revision }) => revision === '2024-11-05');
    const given = atOldest.filter(({ scenario }) => notApplicable(scenario, adapter, '2024-11-05') === undefined).map(({ scenario }) => scenario);
    expect(given.filter((scenario) => transportOf(scenario) === 'stdio').length).toBeGreaterThan(0);
    expect(given.filter((scenario) => transportOf(scenario) === 'http').map((scenario) => scenario.id)).toEqual([]);
    expect(notApplicable(stdioHandshake, adapter, '2024-11-05')).toBeUndefined();
  } finally {
    await adapter.shutdown();
  }
});

test('a 1.0 program (no transports in its hello) is not offered a stdio case, and is never sent a stdio target', async () => {
  const adapter = await processAdapter({ command: NODE, args: [MISBEHAVING] });
  try {
    expect(adapter.transports).toBeUndefined();
    const result = await runScenario(stdioHandshake, adapter, '2025-11-25');
    expect(result.verdict).toBe('n/a');
    expect(result.reason).toBe('misbehaving does not declare the stdio transport');
    const client = await adapter.start('direct');
    await expect(client.connect({ transport: 'stdio', command: NODE, args: [] }, { timeoutMs: time.ms.operation })).rejects.toThrow(ClientProcessError);
    await client.dispose();
  } finally {
    await adapter.shutdown();
  }
});

test('an answer is checked against the result of the op it answers', () => {
  expect(problems({ tools: [{ name: 'echo', description: 'open for client data' }] }, validateResult('listTools'))).toBeUndefined();
  expect(problems({ tools: 'echo' }, validateResult('listTools'))).toBeDefined();
  expect(problems({ content: [], structuredContent: {} }, validateResult('callTool'))).toBeUndefined();
  expect(problems({ isError: true }, validateResult('callTool'))).toBeDefined();
  expect(problems({ connection: '' }, validateResult('connect'))).toBeDefined();
  expect(problems({ surprise: 1 }, validateResult('close'))).toBeDefined();
});
