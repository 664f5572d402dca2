// api/vitest.ts as a client author uses it: directly here (the reference client, one case, an empty baseline), and in
// a child vitest on consumer files whose cases fail, are skipped or fail the baseline test, each read back with why.
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { failOnLeakedHandles } from '../suites/leaks.ts';
import { conformanceTests, JUDGED_TITLE } from './vitest.ts';
import { runChild } from './testdata/child.ts';

failOnLeakedHandles();

conformanceTests({ name: 'the reference client, from this file', adapter: 'reference', scenarios: ['negotiation/handshake-order'], revisions: ['2025-06-18'], baseline: { adapter: 'reference', format: 2, known: [] } });

const TESTDATA = join(import.meta.dirname, 'testdata');
const VITEST = join(import.meta.dirname, '..', 'node_modules', 'vitest', 'vitest.mjs');

interface Outcome {
  suite: string;
  name: string;
  state: string;
  note?: string;
  errors?: string[];
}

test('a regression and a stale entry fail with the explanation; not applicable and inconclusive are skipped with the reason', { timeout: 0 }, async () => {
  const { code, stdout, stderr } = await runChild([VITEST, 'run', '--config', 'vitest.consumer.config.ts', '--reporter', './outcomes-reporter.ts'], TESTDATA);
  const outcomes: Outcome[] = stdout.split('\n').filter((line) => line.startsWith('outcome ')).map((line) => JSON.parse(line.slice('outcome '.length)));
  const of = (suite: string, name: string) => outcomes.find((o) => o.suite === `mcp-client-conformance: ${suite}` && o.name === name);
  expect(code, stderr).toBe(1);
  expect(outcomes).toHaveLength(7 + 4);

  const regression = of('regression', 'negotiation/handshake-order @ 2025-06-18');
  expect(regression?.state).toBe('failed');
  expect(regression?.errors?.[0]).toMatch(/^does not match the baseline \(regression\):\n {2}regression: expected pass, got fail\n {2}regression: new failing check initialized-sent \[MUST\]/);
  // The explanation: each failed check with its rule, and the wire record that decided it.
  expect(regression?.errors?.[0]).toMatch(/✗ initialized-sent \[MUST, .*https:\/\/modelcontextprotocol\.io\/specification\/2025-06-18\/basic\/lifecycle/);
  expect(regression?.errors?.[0]).toContain('wire record:');
  expect(of('regression', 'the baseline has no stale or unknown entry')?.state).toBe('passed');

  expect(of('inconclusive', 'negotiation/handshake-order @ 2025-06-18')).toMatchObject({ state: 'skipped', note: 'inconclusive: client-running: the client process exited with code 1 before this case' });
  expect(of('narrow', 'negotiation/handshake-order @ 2025-03-26')).toMatchObject({ state: 'skipped', note: 'not applicable: narrow-client does not speak 2025-03-26' });
  expect(of('narrow', 'negotiation/handshake-order @ 2025-06-18')?.state).toBe('passed');

  const stale = of('stale', 'negotiation/handshake-order @ 2025-06-18');
  expect(stale?.state).toBe('failed');
  expect(stale?.errors?.[0]).toMatch(/^does not match the baseline \(stale\):\n {2}stale: expected fail \(baselined: said to fail\), got pass\n {2}stale: check initialized-sent of entry negotiation\/handshake-order \[initialized-sent\] now passes at 2025-06-18/);
  expect(of('stale', 'the baseline has no stale or unknown entry')).toMatchObject({ state: 'failed', errors: ['the baseline has 1 stale or unknown entry:\nentry negotiation/no-such-scenario [anything]: no scenario negotiation/no-such-scenario'] });

  // A client judged in no case (here its one case inconclusive) fails the last test, saying why: the run proves nothing.
  expect(of('inconclusive', JUDGED_TITLE)).toMatchObject({ state: 'failed', errors: ['nothing was judged: the one case that applied to dead-client got no verdict, the suite could not judge it (client-running: the client process exited with code 1 before this case)'] });
  for (const judged of ['regression', 'narrow', 'stale']) expect(of(judged, JUDGED_TITLE)?.state, judged).toBe('passed');
});
