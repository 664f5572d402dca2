// The container path: the Python driver runs inside a container of the local image and is driven through the container
// adapter, against real reference servers on 127.0.0.1 (the container shares the host's network). Needs a Docker
// engine (bash scripts/docker-engine.sh) and the image (bash scripts/build-python-image.sh); without them the tests are
// skipped, each saying which is missing and the command that fixes it (failed, with MCP_CONFORMANCE_REQUIRE_CONTAINERS=1).
import { execFileSync } from 'node:child_process';
import { afterEach, expect, test, type TestContext } from 'vitest';
import { SCENARIOS } from '../../suites/index.ts';
import { failOnLeakedHandles } from '../../suites/leaks.ts';
import { basePolicy } from '../../config/settings.ts';
import { runScenario } from '../../suites/runner.ts';
import { PYTHON_DRIVER } from '../process/testdata/support.ts';
import { CONTAINER_LABEL, ContainerAdapterError, containerAdapter, containerBounds, engineAvailable, imageAvailable, type ContainerAdapter, type ContainerAdapterConfig } from './adapter.ts';

/** Every bound here from the time policy (config/settings.ts), as the adapter's own are. */
const time = basePolicy();
const { engineCheckMs } = containerBounds(time);

const PYTHON_IMAGE = 'mcp-client-conformance/python:local';
const engine = await engineAvailable();
const image = engine.ok ? await imageAvailable(PYTHON_IMAGE) : engine;
if (!image.ok) console.warn(`container tests skipped: ${image.reason}`);

/** The scenarios run in the container: one per suite the driver can take, the cancellation one among those it declares. */
const SCENARIO_IDS = ['negotiation/handshake-order', 'disposal/delete-issued-session', 'cancellation/legacy-notification'];
const REVISION = '2025-11-25';

const PYTHON_IN_CONTAINER: ContainerAdapterConfig = {
  name: 'python-stdlib-container',
  image: PYTHON_IMAGE,
  command: ['python3', '/driver/driver.py'],
  copy: { [PYTHON_DRIVER]: '/driver/driver.py' },
};

failOnLeakedHandles();

const adapters: ContainerAdapter[] = [];
async function start(config: ContainerAdapterConfig): Promise<ContainerAdapter> {
  const adapter = await containerAdapter(config);
  adapters.push(adapter);
  return adapter;
}
afterEach(async () => {
  await Promise.all(adapters.splice(0).map((adapter) => adapter.shutdown()));
});

/**
 * Skips the test, saying what is missing and the command that fixes it; with MCP_CONFORMANCE_REQUIRE_CONTAINERS=1 (for
 * a CI that provides both) fails it instead, so a broken engine cannot pass as a skip.
 */
function needs(what: typeof engine, context: TestContext): void {
  if (what.ok) return;
  if (process.env.MCP_CONFORMANCE_REQUIRE_CONTAINERS === '1') throw new Error(`MCP_CONFORMANCE_REQUIRE_CONTAINERS=1, but ${what.reason}`);
  context.skip(what.reason);
}

/** The containers, running or not, that carry a label (docker ps -a). */
function containersLabelled(value: string): string[] {
  return execFileSync('docker', ['ps', '--all', '--quiet', '--filter', `label=${CONTAINER_LABEL}=${value}`], { encoding: 'utf8', timeout: time.ms.operation }).split('\n').filter(Boolean);
}

test('engineAvailable() answers within its bound, and names what is wrong and the command that starts an engine', async () => {
  const begun = performance.now();
  const absent = await engineAvailable({ ...process.env, DOCKER_HOST: 'unix:///nonexistent/docker.sock' });
  // Its one docker call is bounded by the engine check; twice that leaves the harness room to see it end.
  expect(performance.now() - begun).toBeLessThan(2 * engineCheckMs);
  expect(absent.ok).toBe(false);
  expect(!absent.ok && absent.reason).toMatch(/^no Docker engine answers: .+; start one with `bash scripts\/docker-engine\.sh`$/);
});

test('a missing image is refused within the engine checks’ bounds, without a pull, saying so', async (context) => {
  needs(engine, context);
  const begun = performance.now();
  const refused = await containerAdapter({ ...PYTHON_IN_CONTAINER, name: 'absent-image', image: 'mcp-client-conformance/absent:local' }).catch((error: Error) => error);
  // Two docker calls (the engine, the image), each bounded by the engine check; twice that for the harness to see them end.
  expect(performance.now() - begun).toBeLessThan(2 * 2 * engineCheckMs);
  expect(refused).toBeInstanceOf(ContainerAdapterError);
  expect((refused as Error).message).toBe('absent-image: image mcp-client-conformance/absent:local is not in the local Docker engine, and nothing is pulled: build or load it first');
  expect(containersLabelled('absent-image')).toEqual([]);
});

test(`the Python driver in a container passes ${SCENARIO_IDS.join(', ')}; the server sees its initialize; shutdown removes the container`, async (context) => {
  needs(image, context);
  const begun = performance.now();
  const adapter = await start(PYTHON_IN_CONTAINER);
  const startMs = performance.now() - begun;
  expect(adapter.name).toBe('python-stdlib-container');
  expect(adapter.description).toMatch(/^Python 3\.\d+ standard-library MCP client .* \(in a container of mcp-client-conformance\/python:local\)$/);
  expect(adapter.features).toContain('cancellation');
  const inspected = execFileSync('docker', ['inspect', '--format', '{{.HostConfig.NetworkMode}} {{.State.Running}}', adapter.containerId], { encoding: 'utf8', timeout: time.ms.operation });
  expect(inspected.trim()).toBe('host true');

  const timings: string[] = [`container and hello ${startMs.toFixed(0)} ms`];
  for (const id of SCENARIO_IDS) {
    const scenario = SCENARIOS.find((candidate) => candidate.id === id);
    if (!scenario) throw new Error(`scenario ${id} is gone: update SCENARIO_IDS`);
    const result = await runScenario(scenario, adapter, REVISION);
    timings.push(`${id} ${result.durationMs.toFixed(0)} ms`);
    expect({ id, verdict: result.verdict, reason: result.reason }).toEqual({ id, verdict: 'pass', reason: undefined });
    const initialize = result.evidence!.exchanges.flatMap((exchange) => exchange.requestMessages).find((message) => message.method === 'initialize');
    expect(initialize?.params, `${id}: the server saw the driver's initialize`).toMatchObject({ clientInfo: { name: 'mcp-client-conformance-python' } });
  }

  const stopping = performance.now();
  await adapter.shutdown();
  timings.push(`shutdown ${(performance.now() - stopping).toFixed(0)} ms`);
  expect(containersLabelled('python-stdlib-container')).toEqual([]);
  console.log(`container timings: ${timings.join(', ')}`);
});

test('a program that dies before its hello is reported with its stderr, and its container is removed', async (context) => {
  needs(image, context);
  const dying = { ...PYTHON_IN_CONTAINER, name: 'dies-early', command: ['python3', '-c', 'import sys; print("no client here", file=sys.stderr); sys.exit(3)'] };
  await expect(containerAdapter(dying)).rejects.toThrow(/exited with code 3 before its hello; last stderr lines: no client here$/);
  expect(containersLabelled('dies-early')).toEqual([]);
});

test('a program that hangs is killed at its deadline, and shutdown still removes its container', async (context) => {
  needs(image, context);
  const hello = { protocol: 1, name: 'hangs', description: 'answers nothing', revisions: ['2025-11-25'], features: ['mode-legacy'] };
  const hanging = {
    ...PYTHON_IN_CONTAINER,
    name: 'hangs',
    command: ['python3', '-c', `import time; print(${JSON.stringify(JSON.stringify(hello))}, flush=True); time.sleep(3600)`],
    operationTimeoutMs: 2 * time.ms.react,
  };
  const adapter = await start(hanging);
  await expect(adapter.start('hang')).rejects.toThrow(`client hangs did not answer start within ${2 * time.ms.react} ms`);
  await adapter.shutdown();
  expect(containersLabelled('hangs')).toEqual([]);
});

test('a program that dies during a case is started again in the same container; only that case is interrupted', async (context) => {
  needs(image, context);
  const hello = { protocol: 1, name: 'dies', description: 'exits on connect', revisions: ['2025-11-25'], features: ['mode-legacy'] };
  const script = [
    'import json, sys',
    `print(${JSON.stringify(JSON.stringify(hello))}, flush=True)`,
    'for line in sys.stdin:',
    '    request = json.loads(line)',
    "    if request['op'] == 'connect': sys.exit(3)",
    "    print(json.dumps({'id': request['id'], 'result': {}}), flush=True)",
    "    if request['op'] == 'shutdown': sys.exit(0)",
  ].join('\n');
  const adapter = await start({ ...PYTHON_IN_CONTAINER, name: 'dies', command: ['python3', '-c', script] });
  const first = await adapter.start('first');
  await expect(first.connect('http://127.0.0.1:9/mcp', { timeoutMs: time.ms.react })).rejects.toThrow('client dies exited with code 3 before it answered connect');
  await expect(first.dispose()).rejects.toThrow('client dies is not running');
  expect(adapter.interrupted?.('first')).toBe('the client process exited with code 3 during this case');
  // Another `docker exec` in the same container, with a fresh hello.
  await (await adapter.start('second')).dispose();
  expect(adapter.interrupted?.('second')).toBeUndefined();
  await adapter.shutdown();
  expect(containersLabelled('dies')).toEqual([]);
});
