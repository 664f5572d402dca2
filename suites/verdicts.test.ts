// The verdict rules, on synthetic results (the baseline comparison: suites/baselines.test.ts).
import { describe, expect, test } from 'vitest';
import type { ClientAdapter } from '../clients/adapter.ts';
import { handshakeOrder } from './negotiation/handshake-order.ts';
import { deleteIssuedSession } from './disposal/delete-issued-session.ts';
import { notApplicable, runScenario } from './runner.ts';
import { verdictOf, type Check, type Level } from './scenario.ts';

const checkAt = (level: Level, ok: boolean): Check => ({ name: `${level}-${ok}`, spec: { url: 'u', section: 's', level }, outcome: ok ? 'pass' : 'fail', detail: '', exchanges: [] });

describe('verdictOf', () => {
  test('a failed MUST fails, a failed SHOULD warns (fails when strict), a failed MAY is informational', () => {
    expect(verdictOf([checkAt('MUST', true), checkAt('SHOULD', true)])).toBe('pass');
    expect(verdictOf([checkAt('MUST', false), checkAt('SHOULD', false)])).toBe('fail');
    expect(verdictOf([checkAt('SHOULD', false)])).toBe('warn');
    expect(verdictOf([checkAt('SHOULD', false)], true)).toBe('fail');
    expect(verdictOf([checkAt('MAY', false)], true)).toBe('pass');
  });
});

describe('not applicable', () => {
  const bare: ClientAdapter = {
    name: 'bare',
    description: 'declares one revision and only the legacy mode',
    revisions: ['2025-03-26'],
    features: ['mode-legacy'],
    start: () => Promise.reject(new Error('must not be called')),
  };
  test('a scenario needing an undeclared feature or revision is not applicable, with the reason, and never connects', async () => {
    const needsResume = { ...deleteIssuedSession, requires: ['resume', 'keep-session'] as const };
    expect(notApplicable(needsResume, { ...bare, revisions: ['2025-06-18'] }, '2025-06-18')).toBe('bare does not declare resume, keep-session');
    const result = await runScenario(handshakeOrder, bare, '2025-06-18');
    expect(result).toMatchObject({ verdict: 'n/a', reason: 'bare does not speak 2025-06-18' });
    expect(notApplicable(handshakeOrder, { ...bare, revisions: ['2026-07-28'] }, '2026-07-28')).toBe('bare declares no negotiation mode that reaches 2026-07-28');
  });
});
