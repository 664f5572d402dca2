// The verdict table `run` prints, on fixed results: problems first (fail, warn, inconclusive with why), a recap by
// rule, passes counted rather than listed, every line within the width; --verbose cuts nothing and lists every case.
import { describe, expect, test } from 'vitest';
import { DEFAULT_WIDTH, terminalWidth, verdictTable, type TableCase } from './table.ts';
import type { CellCheck } from './results.ts';

const LONG = 'the client failed: StreamableHTTPError: Streamable HTTP error: Error POSTing to endpoint: '.repeat(8);
const SECTION_404 = 'Transports › Session Management: on HTTP 404 to a request containing the session id the client MUST start a new session with an InitializeRequest without a session ID';

function check(name: string, outcome: CellCheck['outcome'], level: CellCheck['level'], section: string, detail: string, extra: Partial<CellCheck> = {}): CellCheck {
  return { name, outcome, level, section, url: 'https://modelcontextprotocol.io/specification/2025-11-25/basic/transports', detail, exchanges: [5], ...extra };
}

function row(scenario: string, revision: TableCase['revision'], verdict: TableCase['verdict'], checks: CellCheck[], reason?: string): TableCase {
  return { scenario, revision, verdict, durationMs: 42, checks, ...(reason !== undefined ? { reason } : {}) };
}

const passing = (scenario: string, revision: TableCase['revision']) => row(scenario, revision, 'pass', [check('initialize-first', 'pass', 'MUST', 'Lifecycle › Initialization', 'initialize came first')]);
const expired = (revision: TableCase['revision']) =>
  row('resume/expired-404', revision, 'fail', [
    check('client-completed', 'fail', 'MUST', SECTION_404, LONG),
    check('new-initialize', 'fail', 'MUST', SECTION_404, '#5 POST tools/call → 404 was answered 404; no initialize followed'),
    check('timers-released', 'fail', 'MAY', 'Lifecycle › Shutdown', 'the client left 1 timer running'),
  ], `client-completed: ${LONG}; new-initialize: #5 POST tools/call → 404 was answered 404; no initialize followed`);
const stdioCancel = (revision: TableCase['revision']) => row('stdio/in-flight-settled', revision, 'warn', [check('cancelled-on-the-wire', 'fail', 'SHOULD', 'Cancellation › Cancellation Flow', 'no notifications/cancelled named the call’s id 1')], 'cancelled-on-the-wire: no notifications/cancelled named the call’s id 1');
const noProgress = row('cancellation/progress-resets-timeout', '2025-11-25', 'inconclusive', [check('progress-during-call', 'inconclusive', 'SHOULD', 'Lifecycle › Timeouts', '#4 POST tools/call → 200 carried no progress token', { precondition: true })], 'progress-during-call: #4 POST tools/call → 200 carried no progress token');

/** A run in catalogue order: the problems scattered among passes and n/a cases. */
const RUN: TableCase[] = [
  passing('negotiation/handshake-order', '2025-06-18'),
  expired('2025-03-26'),
  row('negotiation/modern-envelope', '2025-06-18', 'n/a', [], 'sdk-v1 does not speak 2026-07-28'),
  stdioCancel('2024-11-05'),
  passing('negotiation/handshake-order', '2025-11-25'),
  noProgress,
  expired('2025-11-25'),
  stdioCancel('2025-11-25'),
  passing('stdio/handshake-order', '2025-11-25'),
];

describe('the verdict table', () => {
  test('problems first (fail, then warn, then inconclusive with why), a recap by rule, passes counted, the counts last', () => {
    const lines = verdictTable(RUN, { width: 100 });
    expect(lines.join('\n')).toBe(
      [
        'FAIL (2): a MUST rule broken (a SHOULD rule too, with --strict)',
        '  ✗ resume/expired-404 @ 2025-03-26, 2025-11-25',
        '      broke client-completed, new-initialize',
        '',
        'WARN (2): a SHOULD rule broken',
        '  ! stdio/in-flight-settled @ 2024-11-05, 2025-11-25',
        '      broke cancelled-on-the-wire',
        '',
        'INCONCLUSIVE (1): the suite could not judge these, which is no verdict on the client',
        '  ? cancellation/progress-resets-timeout @ 2025-11-25',
        '      why: progress-during-call: #4 POST tools/call → 200 carried no progress token',
        '',
        'BY RULE: 2 rules broken, 1 rule not judged',
        '  ✗ MUST Transports › Session Management: on HTTP 404 to a request containing the session id the cl…',
        '      2 cases (2 revisions; http): resume/expired-404: client-completed, new-initialize',
        // The why of a rule: a scenario's own check before the generic client-completed.
        '      why: #5 POST tools/call → 404 was answered 404; no initialize followed',
        '  ! SHOULD Cancellation › Cancellation Flow',
        '      2 cases (2 revisions; stdio): stdio/in-flight-settled: cancelled-on-the-wire',
        '      why: no notifications/cancelled named the call’s id 1',
        '  ? SHOULD Lifecycle › Timeouts',
        '      1 case (1 revision; http): cancellation/progress-resets-timeout: progress-during-call',
        '      why: #4 POST tools/call → 200 carried no progress token',
        '',
        '3 passes and 1 n/a not listed (--verbose lists every case)',
        '',
        '3 pass, 2 fail, 2 warn, 1 inconclusive, 1 n/a',
      ].join('\n'),
    );
  });

  test('every line fits the width, however narrow; --verbose cuts nothing and lists every case with its whole reason', () => {
    for (const width of [60, 80, 120]) {
      const lines = verdictTable(RUN, { width });
      for (const line of lines) expect([...line].length, line).toBeLessThanOrEqual(width);
    }
    const verbose = verdictTable(RUN, { width: 60, verbose: true });
    expect(verbose.some((line) => [...line].length > 60)).toBe(true);
    expect(verbose.join('\n')).not.toContain('…');
    const every = verbose.indexOf('EVERY CASE (9), in run order');
    expect(every).toBeGreaterThan(0);
    expect(verbose[every + 1]).toMatch(/^scenario +revision +verdict +time +reason$/);
    expect(verbose.slice(every + 2, every + 2 + RUN.length).map((line) => line.split(/\s+/).slice(0, 3).join(' '))).toEqual(RUN.map((r) => `${r.scenario} ${r.revision} ${r.verdict === 'inconclusive' ? '?' : r.verdict}`));
    expect(verbose).toContain(`resume/expired-404                    2025-03-26  fail            42 ms  ${RUN[1]!.reason}`);
    expect(verbose.at(-1)).toBe('3 pass, 2 fail, 2 warn, 1 inconclusive, 1 n/a');
  });

  test('a run without problems says so in one line, then the counts', () => {
    expect(verdictTable([passing('negotiation/handshake-order', '2025-06-18'), row('negotiation/modern-envelope', '2025-06-18', 'n/a', [], 'not spoken')], { width: 80 })).toEqual(['no problems: 1 case passed, 1 n/a', '', '1 pass, 0 fail, 0 warn, 0 inconclusive, 1 n/a']);
    expect(verdictTable([], { width: 80 })).toEqual(['no case finished', '', '0 pass, 0 fail, 0 warn, 0 inconclusive, 0 n/a']);
  });

  test('the width: the terminal’s, else $COLUMNS, else a default; never so narrow that a cut line says nothing', () => {
    expect(terminalWidth({ isTTY: true, columns: 150 }, {})).toBe(150);
    expect(terminalWidth({ isTTY: true, columns: 20 }, {})).toBe(60);
    expect(terminalWidth({}, { COLUMNS: '90' })).toBe(90);
    expect(terminalWidth({}, {})).toBe(DEFAULT_WIDTH);
    expect(terminalWidth({ isTTY: false, columns: 150 }, { COLUMNS: 'wide' })).toBe(DEFAULT_WIDTH);
  });
});
