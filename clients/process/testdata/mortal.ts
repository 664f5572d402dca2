#!/usr/bin/env node
// A line-protocol program that dies on command, for the tests of a program started again after it died. It passes
// every line on to a real program given after `--` (the Node driver, say), or gives canned answers when none is
// given, and:
//   --exit-on <op>     exits with --code (default 3) when the harness sends this op, instead of passing it on;
//                      `callTool:<name>` for a call of that tool only
//   --signal <name>    kills itself with this signal there instead (SIGKILL, say)
//   --state <file>     counts its starts across restarts in this file (for the two below)
//   --deaths <n>       dies on --exit-on only in its first n starts; later ones pass everything on (default: every start)
//   --hellos <n>       says its hello only in its first n starts; later ones print nothing and stay alive
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { CANNED } from './canned.ts';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    'exit-on': { type: 'string' },
    code: { type: 'string', default: '3' },
    signal: { type: 'string' },
    state: { type: 'string' },
    deaths: { type: 'string' },
    hellos: { type: 'string' },
  },
});

const starts = (() => {
  if (values.state === undefined) return 1;
  let count = 0;
  try {
    count = Number(readFileSync(values.state, 'utf8')) || 0;
  } catch {
    // the first start: no file yet
  }
  writeFileSync(values.state, String(count + 1));
  return count + 1;
})();
const dies = values['exit-on'] !== undefined && (values.deaths === undefined || starts <= Number(values.deaths));
const mute = values.hellos !== undefined && starts > Number(values.hellos);

const send = (message: unknown) => process.stdout.write(`${JSON.stringify(message)}\n`);
const [command, ...args] = positionals;
// The real program, in this program's process group (so the harness's kill of the group takes it too).
const real = command !== undefined && !mute ? spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] }) : undefined;
if (real) {
  real.stdout!.pipe(process.stdout);
  real.on('exit', (code) => process.exit(code ?? 1));
} else if (!mute) {
  send({ protocol: 1, name: 'mortal', description: 'a test program that dies on command', revisions: ['2025-06-18'], features: ['mode-legacy'] });
}

const [deadlyOp, deadlyTool] = (values['exit-on'] ?? '').split(':');
const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  const request = JSON.parse(line) as { id: number; op: string; name?: string };
  if (dies && request.op === deadlyOp && (deadlyTool === undefined || request.name === deadlyTool)) {
    process.stderr.write(`mortal: dying on ${request.op} in start ${starts}\n`);
    if (values.signal !== undefined) process.kill(process.pid, values.signal as NodeJS.Signals);
    else process.exit(Number(values.code));
  }
  if (real) return void real.stdin!.write(`${line}\n`);
  if (mute) return;
  send({ id: request.id, result: CANNED[request.op] ?? {} });
  if (request.op === 'shutdown') process.exit(0);
});
lines.on('close', () => {
  if (real) real.stdin!.end();
  else process.exit(0);
});
