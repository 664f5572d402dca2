// api/node-test.ts as a client author uses it: `node --test` on a consumer file (the same clients and baselines as the
// vitest helper's test), its TAP output read back test by test.
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { runChild } from './testdata/child.ts';

const TESTDATA = join(import.meta.dirname, 'testdata');

test('node --test: a regression and a stale entry fail with the explanation; not applicable and inconclusive are skipped with the reason', { timeout: 0 }, async () => {
  const { code, stdout, stderr } = await runChild(['--test', '--test-reporter=tap', 'consumer.node-test.ts'], TESTDATA);
  expect(code, stderr).toBe(1);
  // `    ok 1 - <case> # SKIP <reason>` or `    not ok 1 - <case>`, under `# Subtest: mcp-client-conformance: <suite>`.
  const tests = new Map<string, string>();
  const suites = new Map<string, string>();
  let suite = '';
  for (const line of stdout.split('\n')) {
    const header = /^# Subtest: mcp-client-conformance: (\S+)$/.exec(line);
    if (header) suite = header[1]!;
    const result = /^ {4}((?:not )?ok) \d+ - (.+)$/.exec(line);
    if (result) tests.set(`${suite}: ${result[2]}`, result[1]!);
    const ended = /^((?:not )?ok) \d+ - mcp-client-conformance: (\S+)$/.exec(line);
    if (ended) suites.set(ended[2]!, ended[1]!);
  }
  expect(Object.fromEntries(tests)).toEqual({
    'regression: negotiation/handshake-order @ 2025-06-18': 'not ok',
    'regression: the baseline has no stale or unknown entry': 'ok',
    'inconclusive: negotiation/handshake-order @ 2025-06-18 # SKIP inconclusive: client-running: the client process exited with code 1 before this case': 'ok',
    'narrow: negotiation/handshake-order @ 2025-03-26 # SKIP not applicable: narrow-client does not speak 2025-03-26': 'ok',
    'narrow: negotiation/handshake-order @ 2025-06-18': 'ok',
    'stale: negotiation/handshake-order @ 2025-06-18': 'not ok',
    'stale: the baseline has no stale or unknown entry': 'not ok',
  });
  // A client judged in no case (its one case inconclusive) fails its suite, once every case has finished, saying why.
  expect(Object.fromEntries(suites)).toEqual({ regression: 'not ok', inconclusive: 'not ok', narrow: 'ok', stale: 'not ok' });
  expect(stdout).toContain("error: 'nothing was judged: the one case that applied to dead-client got no verdict, the suite could not judge it (client-running: the client process exited with code 1 before this case)'");
  // The failures carry the explanation (TAP's YAML block quotes the error's lines).
  expect(stdout).toMatch(/does not match the baseline \(regression\):\n\s+regression: expected pass, got fail/);
  expect(stdout).toMatch(/does not match the baseline \(stale\):\n\s+stale: expected fail \(baselined: said to fail\), got pass/);
  expect(stdout).toContain('entry negotiation/no-such-scenario [anything]: no scenario negotiation/no-such-scenario');
});
