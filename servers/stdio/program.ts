// The reference stdio server program (main.ts starts it): what the client under test launches. It connects to the
// side channel named in MCP_CONFORMANCE_STDIO_CHANNEL, says hello, records its stdin from the first byte, and only then
// loads the era's server (serve.ts: the SDK is most of the start-up), so no byte goes unrecorded.
// With the `wrapper` personality it is instead an npx-like parent: it spawns itself without that personality, with
// inherited stdio, and never forwards a signal.
import { spawn } from 'node:child_process';
import { ProgramChannel } from './channel.ts';
import { procStart, ProgramIo } from './io.ts';
import { machineNow, parseProgramArgs, programArgs, STDIO_CHANNEL_ENV, type StdioEra, type StdioPersonalitySpec } from './protocol.ts';

/** The wrapper: spawns the real server, reports its pid, exits as it exits; a signal kills the wrapper alone. */
function runWrapper(programFile: string, channel: ProgramChannel, io: ProgramIo, era: StdioEra, personalities: StdioPersonalitySpec[]): void {
  const inner = personalities.filter((p) => p.name !== 'wrapper');
  const child = spawn(process.execPath, [...process.execArgv, programFile, ...programArgs(era, inner)], { stdio: 'inherit', env: process.env });
  if (child.pid !== undefined) channel.report({ t: 'child', at: machineNow(), pid: child.pid });
  // Not forwarded: the wrapper records the signal and dies of it, as an unwary launcher does; the server lives on.
  io.onSignal((signal) => void io.exit({ signal }, `${signal} received (not forwarded to the server)`));
  child.on('exit', (code, signal) => {
    void io.exit({ code: code ?? 1 }, `the server exited (${signal ?? `code ${code}`})`);
  });
  child.on('error', (error) => {
    void io.exit({ code: 1 }, `could not start the server: ${error.message}`);
  });
}

/** The program's exit code when it ends because the harness is gone (no one reads it: its client may be gone too). */
export const HARNESS_GONE_EXIT = 70;

export async function main(programFile: string): Promise<void> {
  const { era, personalities, channel: channelArg } = parseProgramArgs(process.argv.slice(2));
  const channel = new ProgramChannel(process.env[STDIO_CHANNEL_ENV] ?? channelArg);
  const wrapper = personalities.find((p) => p.name === 'wrapper');
  const io = new ProgramIo(channel, personalities);
  // The harness is gone (a test worker or a CLI that ended, a SIGKILL included): nobody will judge this process or
  // clean it up, and its client may be gone too, or never close stdin, so it ends now, whatever its personality says
  // about EOF or signals. The channel is the one link to the harness every launch has: the client, not the harness,
  // is its parent (so no parent to watch), and the kernel closes the harness's end at once (so nothing to poll).
  channel.onHarnessGone(() => process.exit(HARNESS_GONE_EXIT));
  io.watchSignals();
  // A slow start counts from here: the moment the record says the process started (its hello), on the same clock.
  const helloAt = machineNow();
  channel.report({
    t: 'hello',
    at: helloAt,
    pid: process.pid,
    ppid: process.ppid,
    role: wrapper ? 'wrapper' : 'server',
    era,
    personalities,
    argv: process.argv.slice(1),
    ...(procStart() !== undefined && { procStart: procStart()! }),
  });
  process.on('uncaughtException', (error) => {
    void io.stderr(`${error.stack ?? error.message}\n`).then(() => io.exit({ code: 1 }, `uncaught exception: ${error.message}`));
  });
  if (wrapper) return runWrapper(programFile, channel, io, era, personalities);

  io.watchStdout();
  io.readStdin();
  io.onSignal((signal) => {
    if (signal === 'SIGTERM' && io.has('ignores-sigterm')) return io.note('ignored-sigterm');
    void io.exit({ signal }, `${signal} received`);
  });
  // Nothing is handled before the harness said which launch this is (a personality may be bound to one), nor during
  // a slow start, counted from the hello (the record's start of the process).
  io.hold(
    channel.welcome.then(async (launch) => {
      io.setLaunch(launch);
      const slow = io.has('probe-slow-start');
      const slowMs = slow ? (slow.ms ?? 1_000) : 0;
      // A timer may fire a little early (libuv counts from its loop's cached time, stale after a busy turn): wait
      // again until the start is really over.
      for (let left = slowMs - (machineNow() - helloAt); left > 0; left = slowMs - (machineNow() - helloAt)) {
        await new Promise((resolve) => setTimeout(resolve, left));
      }
    }),
  );
  const { serveEra } = await import('./serve.ts');
  await serveEra(io, channel, era);
}

