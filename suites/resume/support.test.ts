// keptNoSession reads the wire, never the client's name: a client with a session per operation is excused from the
// session-loss rules (n/a), a client that kept its session and met the loss, or may have, is judged.
import { beforeAll, describe, expect, test } from 'vitest';
import { HEADERS } from '../../protocol/http.ts';
import { referenceClient } from '../../clients/reference/index.ts';
import { shapedReference } from '../../clients/reference/shapes.ts';
import { explain } from '../evidence.ts';
import { runCase } from '../runner.ts';
import { verdictOf, type Evidence } from '../scenario.ts';
import { expired404 } from './expired-404.ts';
import { doctorExchanges, keptNoSession, SESSIONS_ENDED_AT, sessionLoss, withHeader } from './support.ts';

const REVISION = '2025-11-25';

describe('keptNoSession', () => {
  let reference: Evidence;
  let perOperation: Evidence;
  beforeAll(async () => {
    const [kept, fresh] = await Promise.all([runCase(expired404, referenceClient, REVISION), runCase(expired404, shapedReference('per-operation'), REVISION)]);
    expect(kept.verdict, explain(kept)).toBe('pass');
    expect(fresh.verdict, explain(fresh)).toBe('n/a');
    reference = kept.evidence!;
    perOperation = fresh.evidence!;
  });

  test('a session per operation: the operation after the loss went out in a session the client opened itself', () => {
    expect(keptNoSession(perOperation)?.why).toMatch(/kept no session to lose/);
  });

  test('a client that met the loss is judged, not excused', () => {
    expect(keptNoSession(reference)).toBeUndefined();
  });

  test('a client that sent the dead id after the loss, whatever the answer, is not excused', () => {
    // The dead-id request answered 200, as if the server had not ended the session: no 404 on the wire, yet the client kept its session.
    const { lost } = sessionLoss(reference, { status: 404 });
    const answered = { ...reference, exchanges: reference.exchanges.map((x) => (x === lost ? { ...x, status: 200 } : x)) };
    expect(sessionLoss(answered, { status: 404 }).lost).toBeUndefined();
    expect(keptNoSession(answered)).toBeUndefined();
    expect(verdictOf(expired404.judge(answered), true)).toBe('inconclusive');
  });

  test('an operation after the loss outside any session the client opened afterwards is not excused', () => {
    // The per-operation record with its later operations sent without a session id.
    const mark = perOperation.observed[SESSIONS_ENDED_AT] as number;
    const sessionless = doctorExchanges(perOperation, (x) => x.seq > mark, (x) => withHeader(x, HEADERS.session, undefined));
    expect(keptNoSession(sessionless)).toBeUndefined();
  });

  test('without the moment the sessions ended, nothing is excused', () => {
    const { [SESSIONS_ENDED_AT]: _mark, ...observed } = perOperation.observed;
    expect(keptNoSession({ ...perOperation, observed })).toBeUndefined();
    expect(verdictOf(expired404.judge({ ...perOperation, observed }), true)).toBe('inconclusive');
  });
});
