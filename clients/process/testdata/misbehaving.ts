#!/usr/bin/env node
// A line-protocol program for the process adapter's tests: a fake client with canned answers that misbehaves on
// request. Each flag names the op it misbehaves on.
//   --hang <op>        never answers that op (answers everything else)
//   --says-hung <op>   answers that op at once with the error code hung (1.4: its client has not settled it)
//   --garbage <op>     prints a line that is not JSON instead of answering it
//   --crash <op>       writes to stderr and exits with code 3 instead of answering it
//   --unknown-id <op>  answers it under an id that was never sent
//   --unknown-op <op>  answers it with the line protocol's error code unknown-op (the program does not know it)
//   --no-hello         prints nothing at all (stays alive)
//   --bad-hello        prints a hello with wrong members
//   --exit-early       writes to stderr and exits with code 1 before its hello
//   --stubborn         ignores SIGTERM, the shutdown request and the end of stdin
//   --grandchild       starts a long `sleep` in its process group first
//   --stderr <text>    writes this line to stderr at start
//   --tag <text>       ignored: lets a test find this process by its command line
//   --stdio-revisions <r,r>  declares the stdio transport too, speaking these revisions over it (1.5: any of them)
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { CANNED } from './canned.ts';

const { values } = parseArgs({
  options: {
    hang: { type: 'string' },
    'says-hung': { type: 'string' },
    garbage: { type: 'string' },
    crash: { type: 'string' },
    'unknown-id': { type: 'string' },
    'unknown-op': { type: 'string' },
    'no-hello': { type: 'boolean' },
    'bad-hello': { type: 'boolean' },
    'exit-early': { type: 'boolean' },
    stubborn: { type: 'boolean' },
    grandchild: { type: 'boolean' },
    stderr: { type: 'string' },
    tag: { type: 'string' },
    'stdio-revisions': { type: 'string' },
  },
});

const send = (message: unknown) => process.stdout.write(`${JSON.stringify(message)}\n`);

if (values.stderr) process.stderr.write(`${values.stderr}\n`);
if (values.grandchild) spawn('sleep', ['60'], { stdio: 'ignore' });
if (values['exit-early']) {
  process.stderr.write('misbehaving: giving up before the hello\n');
  process.exit(1);
}
if (values.stubborn) process.on('SIGTERM', () => process.stderr.write('misbehaving: ignoring SIGTERM\n'));
if (values['bad-hello']) send({ protocol: 2, name: '', revisions: ['2025-06-18', '2099-01-01'], features: 'all' });
else if (!values['no-hello']) {
  const stdio = values['stdio-revisions'] === undefined ? {} : { transports: ['http', 'stdio'], stdioRevisions: values['stdio-revisions'].split(',') };
  send({ protocol: 1, name: 'misbehaving', description: 'a test program that misbehaves on request', revisions: ['2025-03-26', '2025-06-18', '2025-11-25'], features: ['mode-legacy', 'cancellation'], ...stdio });
}


const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  const request = JSON.parse(line) as { id: number; op: string };
  if (request.op === values.hang) return;
  if (request.op === values['says-hung']) return send({ id: request.id, error: { message: `the client did not settle ${request.op}`, name: 'ClientHung', code: 'hung' } });
  if (request.op === values.garbage) return void process.stdout.write('this is not JSON\n');
  if (request.op === values.crash) {
    process.stderr.write(`misbehaving: crashing on ${request.op}\n`);
    process.exit(3);
  }
  if (request.op === values['unknown-id']) return send({ id: 9999, result: {} });
  if (request.op === values['unknown-op']) return send({ id: request.id, error: { message: `this program does not know ${request.op}`, code: 'unknown-op' } });
  if (request.op === 'shutdown') {
    if (values.stubborn) return;
    send({ id: request.id, result: {} });
    process.exit(0);
  }
  send({ id: request.id, result: CANNED[request.op] ?? {} });
});
lines.on('close', () => {
  if (!values.stubborn) process.exit(0);
});
// Stay alive whatever stdin does (a stubborn program is only ended by the harness).
setInterval(() => {}, 1_000);
