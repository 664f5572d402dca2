// A harness that starts a process adapter on a stubborn program (it ignores SIGTERM, shutdown and the end of its
// stdin), prints the program's pid, and then never shuts it down: it exits (`--exit`) or waits to be signalled
// (`--wait`). The adapter's exit and signal hooks must kill the program's group anyway.
import { join } from 'node:path';
import { processAdapter } from '../adapter.ts';

const adapter = await processAdapter({
  command: process.execPath,
  args: [join(import.meta.dirname, 'misbehaving.ts'), '--stubborn'],
  operationTimeoutMs: 2_000,
});
process.stdout.write(`${adapter.pid}\n`);
if (process.argv.includes('--exit')) process.exit(0);
setInterval(() => {}, 1_000);
