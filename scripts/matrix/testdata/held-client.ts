// A matrix entry for the interruption tests (matrix.test.ts): the reference client, except that while `holdFile`
// exists, a case whose id contains `hold` never starts — the test worker running it writes its pid to `pidFile` and
// waits. So a test can stop a matrix run mid-way (some cells finished, one in flight) without guessing at times, then
// interrupt or kill it; without the file, the resumed run goes through.
import { existsSync, writeFileSync } from 'node:fs';
import type { ClientAdapter } from '../../../clients/adapter.ts';
import { referenceClient } from '../../../clients/reference/index.ts';

export interface HeldClientOptions {
  name: string;
  hold: string;
  holdFile: string;
  pidFile: string;
}

export default function heldClient(options: HeldClientOptions): ClientAdapter {
  return {
    ...referenceClient,
    name: options.name,
    description: `The reference client, holding its cases "${options.hold}" while ${options.holdFile} exists`,
    async start(caseId) {
      if (caseId.includes(options.hold) && existsSync(options.holdFile)) {
        writeFileSync(options.pidFile, String(process.pid));
        await new Promise(() => {});
      }
      return referenceClient.start(caseId);
    },
  };
}
