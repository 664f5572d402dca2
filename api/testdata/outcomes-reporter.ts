// A vitest reporter for api/vitest.test.ts: one JSON line per test on stdout, with what it came to and why.
import type { Reporter, TestCase } from 'vitest/node';

export default class OutcomesReporter implements Reporter {
  onTestCaseResult(test: TestCase): void {
    const result = test.result();
    const line = {
      suite: test.parent.type === 'suite' ? test.parent.name : '',
      name: test.name,
      state: result.state,
      ...(result.state === 'skipped' ? { note: result.note } : {}),
      ...(result.state === 'failed' ? { errors: result.errors.map((error) => error.message) } : {}),
      annotations: test.annotations().map((annotation) => `${annotation.type}: ${annotation.message}`),
    };
    process.stdout.write(`outcome ${JSON.stringify(line)}\n`);
  }
}
