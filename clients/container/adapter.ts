// The container adapter: a line-protocol program (docs/line-protocol.md) that runs inside a container. The container is
// started with testcontainers (host network, so the client reaches the reference servers on 127.0.0.1, with the
// program's files copied in, kept alive by `sleep`), and the program is driven through the process adapter as
// `docker exec -i <container> <command…>`, so every deadline, all hang and crash handling and the restarts of the
// process adapter apply unchanged (a program that died is started again by another `docker exec`). Nothing is
// pulled: the image must already be in the local engine (scripts/build-python-image.sh).
//
// A container never outlives its run for long: shutdown() removes it (bounded); an exit or a SIGINT/SIGTERM/SIGHUP of
// the harness removes every live one synchronously; and one whose harness was killed outright (SIGKILL) ends when its
// keep-alive does and is then removed by the engine (AutoRemove).
import { execFile, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { basePolicy } from '../../config/settings.ts';
import type { TimePolicy } from '../../config/time.ts';
import type { ClientAdapter } from '../adapter.ts';
import { processAdapter, type ProcessAdapter } from '../process/adapter.ts';

// Ryuk, testcontainers' reaper, is itself a container that would have to be pulled, and nothing can be pulled here:
// off, before testcontainers is loaded (below, lazily), unless the environment says otherwise. The clean-up it would do
// is done here (see above).
process.env.TESTCONTAINERS_RYUK_DISABLED ??= 'true';
// With /.dockerenv present (this sandbox has one) testcontainers believes it runs inside a container and asks for the
// gateway of the `bridge` network, which an engine started with --bridge=none does not have, and gives up. The host
// it looks for is where mapped ports are reached; these containers share the host's network and map none.
process.env.TESTCONTAINERS_HOST_OVERRIDE ??= 'localhost';

/** The signals on which live containers are removed before the harness ends. */
const HOOKED_SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

type Testcontainers = typeof import('testcontainers');
let testcontainers: Promise<Testcontainers> | undefined;
/**
 * Signal listeners that loading testcontainers installs (signal-exit, through proper-lockfile). Each ends the process
 * only when it is the last listener left, so it does nothing when it runs before ours; ours re-raises the signal
 * when nothing but these is left (see onSignal).
 */
const deferringListeners = new Set<unknown>();
const loadTestcontainers = () =>
  (testcontainers ??= (async () => {
    const before = new Set(HOOKED_SIGNALS.flatMap((signal) => process.listeners(signal)));
    const loaded = await import('testcontainers');
    for (const listener of HOOKED_SIGNALS.flatMap((signal) => process.listeners(signal))) if (!before.has(listener)) deferringListeners.add(listener);
    return loaded;
  })());

/**
 * The container's bounds, from the one time policy (config/settings.ts basePolicy): how long engineAvailable() and
 * imageAvailable() wait for the engine (two operations, 10 s at scale 1: where no engine runs the CLI fails at once, so
 * the bound costs only a wedged engine, while a running one on a loaded CI runner answered `docker version` in over 2 s),
 * starting the container (create, copy the files in, start; the image is known to be here by then: six operations,
 * 30 s) and removing it (two operations, 10 s).
 */
export function containerBounds(time: TimePolicy = basePolicy()): { engineCheckMs: number; startMs: number; removeMs: number } {
  return { engineCheckMs: 2 * time.ms.operation, startMs: 6 * time.ms.operation, removeMs: 2 * time.ms.operation };
}
/** The keep-alive's lifetime: longer than any run (CI's limit is 90 minutes), short enough that a leak ends by itself. */
export const KEEP_ALIVE_SECONDS = 4 * 60 * 60;
/** Labels every container started here, for `docker ps --filter label=…`. */
export const CONTAINER_LABEL = 'mcp-client-conformance.adapter';

/** The images this repository knows how to build, and the command that builds each. */
export const IMAGE_RECIPES: Readonly<Record<string, string>> = {
  'mcp-client-conformance/python:local': 'bash scripts/build-python-image.sh',
};
export const START_ENGINE_COMMAND = 'bash scripts/docker-engine.sh';

export interface ContainerAdapterConfig {
  /** The adapter's name (the matrix row); the program's hello names the client, this names the entry. */
  name: string;
  /** A local image; nothing is pulled. */
  image: string;
  /** The line-protocol program and its arguments, inside the container. */
  command: string[];
  /** Files or folders copied in before the container starts: host path (absolute, or relative to the working directory) → container path. */
  copy?: Record<string, string>;
  /** The program's working directory inside the container (default: the image's). */
  cwd?: string;
  /** As for the process adapter: each operation's deadline and the hello's (default: from the time policy, 4 s and 30 s at scale 1). */
  operationTimeoutMs?: number;
  helloTimeoutMs?: number;
}

/** A container adapter: the contract, plus the container it runs in. */
export interface ContainerAdapter extends ClientAdapter {
  readonly containerId: string;
  readonly containerName: string;
  /** Shuts the program down, then removes the container; bounded, and safe to call twice. */
  shutdown(): Promise<void>;
}

export type Availability = { ok: true } | { ok: false; reason: string };

/** Runs the docker CLI, bounded; resolves with its stdout, or with why it failed in one line. */
function docker(args: readonly string[], timeoutMs: number, env: NodeJS.ProcessEnv = process.env): Promise<{ ok: true; stdout: string } | { ok: false; why: string }> {
  return new Promise((settle) => {
    execFile('docker', [...args], { timeout: timeoutMs, env, encoding: 'utf8' }, (error, stdout, stderr) => {
      if (!error) return settle({ ok: true, stdout });
      const failure = error as NodeJS.ErrnoException & { killed?: boolean };
      if (failure.code === 'ENOENT') return settle({ ok: false, why: 'the docker CLI is not installed (apt-get install docker.io)' });
      if (failure.killed) return settle({ ok: false, why: `\`docker ${args.join(' ')}\` did not answer within ${timeoutMs} ms` });
      const said = stderr.trim().split('\n').at(-1)?.trim();
      settle({ ok: false, why: said || `\`docker ${args.join(' ')}\` failed: ${failure.message}` });
    });
  });
}

/** Whether a Docker engine answers `docker version` within containerBounds().engineCheckMs; if not, why, and the command that starts one. */
export async function engineAvailable(env: NodeJS.ProcessEnv = process.env): Promise<Availability> {
  const answer = await docker(['version', '--format', '{{.Server.Version}}'], containerBounds().engineCheckMs, env);
  if (answer.ok) return { ok: true };
  return { ok: false, reason: `no Docker engine answers: ${answer.why}; start one with \`${START_ENGINE_COMMAND}\`` };
}

/** Whether the local engine has the image (nothing is pulled); if not, why, and the command that builds it if known. */
export async function imageAvailable(image: string, env: NodeJS.ProcessEnv = process.env): Promise<Availability> {
  const engine = await engineAvailable(env);
  if (!engine.ok) return engine;
  const answer = await docker(['image', 'inspect', '--format', '{{.Id}}', image], containerBounds().engineCheckMs, env);
  if (answer.ok) return { ok: true };
  if (!/no such image/i.test(answer.why)) return { ok: false, reason: `cannot inspect image ${image}: ${answer.why}` };
  const recipe = IMAGE_RECIPES[image];
  return { ok: false, reason: `image ${image} is not in the local Docker engine, and nothing is pulled: ${recipe ? `build it with \`${recipe}\`` : 'build or load it first'}` };
}

export class ContainerAdapterError extends Error {
  override name = 'ContainerAdapterError';
}

// Containers started here and not yet removed, by name: removed synchronously if the harness exits or is interrupted
// first. The process adapter hooks the same signals for its process groups and re-raises only when no listener is
// left, which never happens once signal-exit listens too: so ours is moved after the process adapter's, and re-raises.
const liveContainers = new Set<string>();
let hooked = false;
function removeLiveContainersNow(): void {
  if (liveContainers.size === 0) return;
  spawnSync('docker', ['rm', '--force', ...liveContainers], { stdio: 'ignore', timeout: containerBounds().removeMs });
  liveContainers.clear();
}
const onSignal = (signal: NodeJS.Signals) => {
  removeLiveContainersNow();
  unhook();
  // Nobody else handles it: the harness ends as it would have (signal-exit, now alone, ends it on the re-raise).
  if (process.listeners(signal).every((listener) => deferringListeners.has(listener))) process.kill(process.pid, signal);
};
function hook(): void {
  if (hooked) return;
  hooked = true;
  process.on('exit', removeLiveContainersNow);
  for (const signal of HOOKED_SIGNALS) process.on(signal, onSignal);
}
function unhook(): void {
  if (!hooked) return;
  hooked = false;
  process.off('exit', removeLiveContainersNow);
  for (const signal of HOOKED_SIGNALS) process.off(signal, onSignal);
}

function withDeadline<T>(operation: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ContainerAdapterError(`${what} did not finish within ${timeoutMs} ms`)), timeoutMs);
  });
  return Promise.race([operation, deadline]).finally(() => clearTimeout(timer));
}

/** Removes a container (by name or id) and waits until the engine says it is gone; bounded, and quiet if it is gone already. */
async function removeContainer(nameOrId: string): Promise<void> {
  const { getContainerRuntimeClient } = await loadTestcontainers();
  const container = (await getContainerRuntimeClient()).container.getById(nameOrId);
  const status = (error: unknown) => (error as { statusCode?: number }).statusCode;
  const unless = (...expected: number[]) => (error: unknown) => {
    if (!expected.includes(status(error) ?? 0)) throw error;
  };
  await withDeadline(
    (async () => {
      // Waiting for "removed" first sees the end of the removal whoever does it (404: gone already).
      const removed = container.wait({ condition: 'removed' }).catch(unless(404));
      // A running container is killed and the engine removes it (AutoRemove); one that is not running (409: never
      // started, or already exited) is removed here, unless the engine is at it already (409 again).
      await container.kill().catch(async (error: unknown) => {
        unless(404, 409)(error);
        if (status(error) === 409) await container.remove({ force: true, v: true }).catch(unless(404, 409));
      });
      await removed;
    })(),
    containerBounds().removeMs,
    `removing container ${nameOrId} (\`docker rm -f ${nameOrId}\` by hand)`,
  );
  liveContainers.delete(nameOrId);
  if (liveContainers.size === 0) unhook();
}

/** The copies as testcontainers wants them, each host path checked first so a typo is named, not a tar error. */
function copiesOf(copy: Record<string, string>): { files: { source: string; target: string }[]; directories: { source: string; target: string }[] } {
  const files: { source: string; target: string }[] = [];
  const directories: { source: string; target: string }[] = [];
  for (const [hostPath, target] of Object.entries(copy)) {
    const source = resolve(hostPath);
    const stats = statSync(source, { throwIfNoEntry: false });
    if (!stats) throw new ContainerAdapterError(`cannot copy ${source} into the container: it does not exist`);
    if (!target.startsWith('/')) throw new ContainerAdapterError(`cannot copy ${source} to ${JSON.stringify(target)}: the container path must be absolute`);
    (stats.isDirectory() ? directories : files).push({ source, target });
  }
  return { files, directories };
}

/**
 * Starts the container, then the program inside it through the process adapter, and reads its hello. Fails with a
 * plain ContainerAdapterError when the engine does not answer or the image is not here (within the engine check's bound, nothing pulled),
 * and with the process adapter's error when the program does not start; the container is removed in every case.
 */
export async function containerAdapter(config: ContainerAdapterConfig): Promise<ContainerAdapter> {
  if (config.command.length === 0) throw new ContainerAdapterError(`${config.name}: the container command is empty`);
  const copies = copiesOf(config.copy ?? {});
  const image = await imageAvailable(config.image);
  if (!image.ok) throw new ContainerAdapterError(`${config.name}: ${image.reason}`);

  const { GenericContainer, PullPolicy } = await loadTestcontainers();
  // AutoRemove lives in the host config testcontainers keeps to itself.
  class SelfRemovingContainer extends GenericContainer {
    constructor(imageName: string) {
      super(imageName);
      this.hostConfig.AutoRemove = true;
    }
  }
  // Named up front, so a start that times out half-way still leaves a name to remove.
  const containerName = `mcp-conformance-${config.name.replace(/[^\w.-]+/g, '_')}-${process.pid}-${randomBytes(3).toString('hex')}`;
  const container = new SelfRemovingContainer(config.image)
    .withName(containerName)
    .withNetworkMode('host')
    .withEntrypoint(['sleep'])
    .withCommand([String(KEEP_ALIVE_SECONDS)])
    .withPullPolicy(PullPolicy.neverPull())
    .withLabels({ [CONTAINER_LABEL]: config.name, 'mcp-client-conformance.harness-pid': String(process.pid) })
    .withCopyFilesToContainer(copies.files)
    .withCopyDirectoriesToContainer(copies.directories);
  liveContainers.add(containerName);
  hook();
  let containerId: string;
  try {
    containerId = (await withDeadline(container.start(), containerBounds().startMs, `starting a container from ${config.image}`)).getId();
  } catch (error) {
    await removeContainer(containerName).catch(() => {});
    throw new ContainerAdapterError(`${config.name}: could not start a container from ${config.image}: ${(error as Error).message}`);
  }

  let program: ProcessAdapter;
  try {
    program = await processAdapter({
      command: 'docker',
      args: ['exec', '--interactive', ...(config.cwd !== undefined ? ['--workdir', config.cwd] : []), containerName, ...config.command],
      ...(config.operationTimeoutMs !== undefined ? { operationTimeoutMs: config.operationTimeoutMs } : {}),
      ...(config.helloTimeoutMs !== undefined ? { helloTimeoutMs: config.helloTimeoutMs } : {}),
    });
  } catch (error) {
    await removeContainer(containerName).catch(() => {});
    throw error;
  }
  // After the process adapter's hooks, so ours runs last on a signal (see onSignal).
  unhook();
  hook();

  return {
    name: config.name,
    description: `${program.description} (in a container of ${config.image})`,
    revisions: program.revisions,
    features: program.features,
    containerId,
    containerName,
    start: (caseId, time) => program.start(caseId, time),
    // A program that dies is started again by another `docker exec` in the same container; one that cannot be (the
    // container is gone) leaves later cases "not running since" the case it died in.
    interrupted: (caseId) => program.interrupted(caseId),
    async shutdown() {
      try {
        await program.shutdown();
      } finally {
        await removeContainer(containerName);
      }
    },
  };
}
