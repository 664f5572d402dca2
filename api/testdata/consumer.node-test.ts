// A client author's node:test file, run as `node --test` by api/node-test.test.ts, which reads what each test came to.
import { conformanceTests } from '../node-test.ts';
import { CONSUMERS } from './consumers.ts';

for (const [name, options] of Object.entries(CONSUMERS)) conformanceTests({ ...options, name });
