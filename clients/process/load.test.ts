// clients/load.ts: where an adapter comes from, and one exact line for each way that can go wrong.
import { join, relative } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import type { ClientAdapter } from '../adapter.ts';
import { referenceClient } from '../reference/index.ts';
import { basePolicy } from '../../config/settings.ts';
import { ATTEMPT_GROWTH, scaledBy, timePolicy } from '../../config/time.ts';
import { programOperationMs } from './adapter.ts';
import { adapterProblems, adaptersFromEnv, AdapterLoadError, loadAdapter, loadAdapterCommand, loadChosenAdapter, runnerOperationTimeoutMs, splitCommandLine, timeoutsFromEnv } from '../load.ts';
import { groupExists, MISBEHAVING, NODE, NODE_DRIVER, ROOT } from './testdata/support.ts';

const MODULES = join(import.meta.dirname, 'testdata', 'modules');
/** A module path as a user would type it from the project root. */
const module = (name: string) => `./${relative(ROOT, join(MODULES, name))}`;
/**
 * The time policy's deadlines (config/settings.ts), for everything that settles by itself, however slowly the
 * machine starts a program; a short hello bound only where nothing else can end the wait (a program that says
 * nothing, a factory that never settles), so it is the bound that fires, and the message names it.
 */
const options = { cwd: ROOT };
const SHORT_HELLO_MS = basePolicy().ms.react;
const silent = { cwd: ROOT, helloTimeoutMs: SHORT_HELLO_MS };

const loaded: ClientAdapter[] = [];
afterEach(async () => {
  await Promise.all(loaded.splice(0).map((adapter) => adapter.shutdown?.()));
});

/** The one-line message a load fails with. */
async function failure(loading: Promise<ClientAdapter | ClientAdapter[]>): Promise<string> {
  const error = await loading.then(
    (adapter) => {
      loaded.push(...[adapter].flat());
      return new Error('it loaded');
    },
    (e: Error) => e,
  );
  expect(error).toBeInstanceOf(AdapterLoadError);
  expect(error.message).not.toContain('\n');
  return error.message;
}

describe('what loads', () => {
  test('a built-in name', async () => {
    expect(await loadAdapter('reference')).toBe(referenceClient);
  });

  test('a module whose default export is a ClientAdapter', async () => {
    const adapter = await loadAdapter(module('reference-copy.ts'), options);
    expect(adapter.name).toBe('my-reference');
    expect(adapter.start).toBe(referenceClient.start);
  });

  test('a module whose export "adapter" is an async function returning one', async () => {
    expect((await loadAdapter(module('factory.ts'), options)).name).toBe('from-factory');
  });

  test('a module exporting a processAdapter config: the program runs from the module’s folder', async () => {
    const adapter = await loadAdapter(module('driver-config.ts'), options);
    loaded.push(adapter);
    expect(adapter.name).toBe('sdk-v1-process');
    expect(groupExists((adapter as unknown as { pid: number }).pid)).toBe(true);
  });

  test('a command line, split like a shell splits words', async () => {
    expect(splitCommandLine(`python3  'my driver.py' --flag="a b" plain\\ space ""`)).toEqual(['python3', 'my driver.py', '--flag=a b', 'plain space', '']);
    const adapter = await loadAdapterCommand(`${NODE} '${NODE_DRIVER}' --adapter=sdk-v1 --name "node driver"`, options);
    loaded.push(adapter);
    expect(adapter.name).toBe('node driver');
  });

  test('the environment adds a module and a program, each loaded once', async () => {
    const adapters = await adaptersFromEnv(
      { MCP_CONFORMANCE_ADAPTER: join(MODULES, 'reference-copy.ts'), MCP_CONFORMANCE_ADAPTER_COMMAND: `${NODE} ${NODE_DRIVER}` },
      { cwd: ROOT },
    );
    loaded.push(...adapters);
    expect(adapters.map((a) => a.name)).toEqual(['my-reference', 'sdk-v2-legacy-process']);
    expect(await adaptersFromEnv({})).toEqual([]);
  });
});

test('the timeouts come from the time policy of the settings: the runner’s bound on an operation, and a program’s own deadline below it', () => {
  const env = { MCP_CONFORMANCE_OPERATION_TIMEOUT_MS: '3000', MCP_CONFORMANCE_TIME_SCALE: '2' };
  // Scaled like every base: the runner's bound 6 s; the program's two reaction times (2 × 500 ms × 2) below it; the hello 30 s × 2.
  expect(runnerOperationTimeoutMs(env)).toBe(6_000);
  expect(timeoutsFromEnv(env)).toEqual({ operationTimeoutMs: 4_000, helloTimeoutMs: 60_000 });
  expect(runnerOperationTimeoutMs({})).toBeUndefined();
  // Unset, each case's program deadline comes from the case's own policy (it grows when the case is run again).
  expect(timeoutsFromEnv({})).toEqual({ helloTimeoutMs: 30_000 });
});

test('a loaded program takes each case’s deadline from the case’s policy: a case run again with larger bounds gives it longer', async () => {
  // Fixed at load (as it was), a rerun's program still said "hung" at the first run's deadline, and the case's
  // operation was never settled: every out-of-process row failed disposal/close-with-hung-delete on the rerun.
  const adapter = await loadAdapterCommand(`${NODE} ${MISBEHAVING} --hang info`, options);
  loaded.push(adapter);
  const again = scaledBy(timePolicy({ overrides: { operation: 400, react: 50 } }), ATTEMPT_GROWTH);
  const client = await adapter.start('deadline@again', again);
  const connection = await client.connect('http://127.0.0.1:9/mcp', { timeoutMs: 50 });
  await expect(connection.info()).rejects.toThrow(`did not answer info within ${programOperationMs(again)} ms`);
});

describe('each bad input is one exact line', () => {
  test.concurrent.each([
    ['an unknown built-in name', () => loadAdapter('nope'), 'no built-in adapter named "nope"; see `mcp-client-conformance adapters`'],
    ['a missing file', () => loadAdapter('./no/such-adapter.ts', options), `adapter module ./no/such-adapter.ts not found (looked for ${join(ROOT, 'no', 'such-adapter.ts')})`],
    // The parser's own words differ under vitest (vite transforms imports); the command-line test has Node's exactly.
    ['a module that does not parse', () => loadAdapter(module('broken-syntax.mjs'), options), new RegExp(`^adapter module ${module('broken-syntax.mjs').replaceAll('.', '\\.')} failed to load: \\w*Error: `)],
    [
      'a module without the export',
      () => loadAdapter(module('no-export.ts'), options),
      `adapter module ${module('no-export.ts')} exports no adapter: expected a default export or an export named "adapter" (a ClientAdapter, or a function returning one), or an export named "processAdapter" (a process adapter config)`,
    ],
    [
      'an export of the wrong shape, every field named',
      () => loadAdapter(module('wrong-shape.ts'), options),
      `adapter module ${module('wrong-shape.ts')}: export "default" is not a ClientAdapter: name is not a non-empty string; description is missing; revisions[1] ("2099-01-01") is not a known revision; features[0] ("teleport") is not a known feature; start is not a function; shutdown is not a function`,
    ],
    [
      'a factory returning the wrong shape',
      () => loadAdapter(module('wrong-factory.ts'), options),
      `adapter module ${module('wrong-factory.ts')}: the function exported as "adapter" returned something that is not a ClientAdapter: features is missing; start is missing`,
    ],
    ['a factory that throws', () => loadAdapter(module('throwing-factory.ts'), options), `adapter module ${module('throwing-factory.ts')}: the function exported as "default" threw Error: no client configured`],
    ['a factory that never settles', () => loadAdapter(module('hanging-factory.ts'), silent), `adapter module ${module('hanging-factory.ts')}: the function exported as "default" did not settle within ${SHORT_HELLO_MS} ms`],
    [
      'a processAdapter config of the wrong shape',
      () => loadAdapter(module('bad-config.ts'), options),
      `adapter module ${module('bad-config.ts')}: export "processAdapter" is not a process adapter config: command is missing; args[1] is not a string; operationTimeoutMs is not a positive number; comand is not a config member (command, args, cwd, env, operationTimeoutMs, helloTimeoutMs, shutdownStepMs, trace)`,
    ],
    [
      'a processAdapter config whose program prints no hello',
      () => loadAdapter(module('silent-config.ts'), options),
      `adapter module ${module('silent-config.ts')}: client "${NODE} ../misbehaving.ts --no-hello" printed no hello within 300 ms (does it flush stdout after each line?)`,
    ],
    [
      'a program that prints no hello',
      () => loadAdapterCommand(`${NODE} ${MISBEHAVING} --no-hello`, silent),
      `client "${NODE} ${MISBEHAVING} --no-hello" printed no hello within ${SHORT_HELLO_MS} ms (does it flush stdout after each line?)`,
    ],
    [
      'a program that exits before its hello (its last stderr lines shown)',
      () => loadAdapterCommand(`${NODE} ${MISBEHAVING} --exit-early`, options),
      `client "${NODE} ${MISBEHAVING} --exit-early" exited with code 1 before its hello; last stderr lines: misbehaving: giving up before the hello`,
    ],
    ['a program that does not exist', () => loadAdapterCommand('no-such-program-anywhere --flag', options), 'cannot start client "no-such-program-anywhere --flag": spawn no-such-program-anywhere ENOENT'],
    ['an empty command', () => loadAdapterCommand('   ', options), 'the adapter command is empty'],
    ['an unterminated quote', () => loadAdapterCommand(`python3 'driver.py`, options), `the adapter command has an unterminated ' quote: python3 'driver.py`],
    ['both --adapter and --adapter-command', () => loadChosenAdapter({ adapter: 'reference', command: 'python3 x.py' }), 'give --adapter or --adapter-command, not both'],
    ['neither', () => loadChosenAdapter({}), 'run needs --adapter <name or module> or --adapter-command "<program>"; see `mcp-client-conformance adapters`'],
    ['a bad timeout in the environment', () => adaptersFromEnv({ MCP_CONFORMANCE_HELLO_TIMEOUT_MS: 'soon', MCP_CONFORMANCE_ADAPTER: 'reference' }), 'MCP_CONFORMANCE_HELLO_TIMEOUT_MS must be a positive number, not "soon"'],
    ['an environment variable naming a missing module', () => adaptersFromEnv({ MCP_CONFORMANCE_ADAPTER: './gone.ts' }, { cwd: ROOT }), `MCP_CONFORMANCE_ADAPTER: adapter module ./gone.ts not found (looked for ${join(ROOT, 'gone.ts')})`],
  ] as const)('%s', async (_what, load, expected) => {
    if (typeof expected === 'string') expect(await failure(load())).toBe(expected);
    else expect(await failure(load())).toMatch(expected);
  });

  test('adapterProblems names what is wrong with values that are not objects at all', () => {
    expect(adapterProblems(42)).toEqual(['it is a number']);
    expect(adapterProblems(undefined)).toEqual(['it is undefined']);
    expect(adapterProblems({ ...referenceClient })).toEqual([]);
  });
});
