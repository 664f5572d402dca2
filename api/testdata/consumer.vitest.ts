// A client author's vitest file, run as a child vitest by api/vitest.test.ts, which reads what each test came to.
import { conformanceTests } from '../vitest.ts';
import { CONSUMERS } from './consumers.ts';

for (const [name, options] of Object.entries(CONSUMERS)) conformanceTests({ ...options, name });
