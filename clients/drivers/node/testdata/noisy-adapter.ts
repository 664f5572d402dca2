// An in-process adapter that prints to stdout, as careless client libraries do: the Node driver must keep those
// lines off the protocol stream (they go to stderr).
import { referenceClient } from '../../../reference/index.ts';
import type { ClientAdapter } from '../../../adapter.ts';

export const adapter: ClientAdapter = {
  ...referenceClient,
  name: 'noisy-reference',
  async start(caseId) {
    console.log(`noisy: starting ${caseId}`);
    process.stdout.write('noisy: a raw write to stdout\n');
    return referenceClient.start(caseId);
  },
};
