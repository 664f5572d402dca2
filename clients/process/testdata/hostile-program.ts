#!/usr/bin/env node
// More misbehaviours for the process adapter's tests, next to misbehaving.ts (which hangs, crashes with an exit code
// and prints non-JSON): a fake client with canned answers. Each flag names the op it misbehaves on.
//   --signal <op>        kills itself with SIGKILL instead of answering it
//   --wrong-shape <op>   answers it with a JSON line that is not a line-protocol answer (an array)
//   --wrong-result <op>  answers it with a result of the wrong shape for the op (every member a number)
//   --huge <op>          answers it with one line of --bytes bytes (valid JSON, padded)
//   --endless <op>       starts a line that never ends instead of answering it (writes until it is killed)
//   --bytes <n>          the size of --huge's line (default 16 MiB)
//   --leak-sockets <n>   on connect, opens n TCP connections to the URL and never closes them (nor sends anything)
//   --tag <text>         ignored: lets a test find this process by its command line
import { connect as tcpConnect, type Socket } from 'node:net';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { CANNED } from './canned.ts';

const { values } = parseArgs({
  options: {
    signal: { type: 'string' },
    'wrong-shape': { type: 'string' },
    'wrong-result': { type: 'string' },
    huge: { type: 'string' },
    endless: { type: 'string' },
    bytes: { type: 'string', default: String(16 * 1024 * 1024) },
    'leak-sockets': { type: 'string' },
    tag: { type: 'string' },
  },
});

const send = (message: unknown) => process.stdout.write(`${JSON.stringify(message)}\n`);
send({ protocol: 1, name: 'hostile-program', description: 'a test program that misbehaves on request', revisions: ['2025-06-18'], features: ['mode-legacy'] });

const leakedSockets: Socket[] = [];

function writeEndlessly(): void {
  const chunk = 'x'.repeat(64 * 1024);
  // Writes as fast as the pipe drains, and never a newline.
  const more = () => {
    while (process.stdout.write(chunk));
    process.stdout.once('drain', more);
  };
  process.stdout.write('{"id":1,"result":{"padding":"');
  more();
}

const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  const request = JSON.parse(line) as { id: number; op: string; url?: string };
  const { id, op } = request;
  if (op === values.signal) return void process.kill(process.pid, 'SIGKILL');
  if (op === values['wrong-shape']) return send([{ id, result: CANNED[op] }]);
  if (op === values['wrong-result']) return send({ id, result: Object.fromEntries(Object.keys(CANNED[op] as object).map((key) => [key, 42])) });
  if (op === values.huge) {
    const answer = JSON.stringify({ id, result: { ...(CANNED[op] as object), padding: '' } });
    // The answer's empty padding string, filled so the whole line (newline included) is --bytes long.
    return void process.stdout.write(`${answer.slice(0, -3)}${'x'.repeat(Math.max(0, Number(values.bytes) - answer.length - 1))}"}}\n`);
  }
  if (op === values.endless) return writeEndlessly();
  if (op === 'connect' && values['leak-sockets'] !== undefined && request.url !== undefined) {
    const { hostname, port } = new URL(request.url);
    for (let i = 0; i < Number(values['leak-sockets']); i++) leakedSockets.push(tcpConnect({ host: hostname, port: Number(port) }).on('error', () => {}));
  }
  if (op === 'shutdown') {
    send({ id, result: {} });
    process.exit(0);
  }
  send({ id, result: CANNED[op] ?? {} });
});
lines.on('close', () => process.exit(0));
