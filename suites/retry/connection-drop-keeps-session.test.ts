// A client with a session per operation (read from the wire before the first drop) opens a session for each operation:
// the drop binds it within that operation (no new session to finish it), not across its later operations, which open
// sessions of their own, whether or not it ended the dropped session with a DELETE. One that gives up the session the
// drop hit and opens another to finish the operation is still blamed.
import { beforeAll, describe, expect, test } from 'vitest';
import { shapedReference } from '../../clients/reference/shapes.ts';
import { HEADERS } from '../../protocol/http.ts';
import type { WireExchange } from '../../servers/wire-record.ts';
import { explain } from '../evidence.ts';
import { runCase } from '../runner.ts';
import type { Evidence } from '../scenario.ts';
import { carries, noted, sessionOf } from '../wire.ts';
import { connectionDropKeepsSession } from './connection-drop-keeps-session.ts';

const REVISION = '2025-11-25';
const outcomeOf = (evidence: Evidence, name: string) => connectionDropKeepsSession.judge(evidence).find((check) => check.name === name)?.outcome;

describe('retry/connection-drop-keeps-session on a session per operation', () => {
  let perOperation: Evidence;
  beforeAll(async () => {
    const result = await runCase(connectionDropKeepsSession, shapedReference('per-operation'), REVISION, { strict: true });
    expect(result.verdict, explain(result)).toBe('pass');
    perOperation = result.evidence!;
  });

  test('the operation the drop hit stays on its session until the client ends it', () => {
    expect(outcomeOf(perOperation, 'same-session-after-drop')).toBe('pass');
    expect(outcomeOf(perOperation, 'no-new-initialize')).toBe('pass');
  });

  test('a session per operation abandoned without a DELETE after the drop (mcp 1.30) is judged within the operation it hit', () => {
    // mcp 1.30 gives up a dropped session without its DELETE: every DELETE of a session a drop hit removed. The client's
    // shape is read from the wire before the first drop, so its later operations' own sessions are not held against it.
    const hit = new Set(['dropped-before-handler', 'dropped-after-handler'].flatMap((note) => noted(perOperation.exchanges, note).map((x) => sessionOf(x)!)));
    const abandoned = { ...perOperation, exchanges: perOperation.exchanges.filter((x) => !(x.method === 'DELETE' && hit.has(sessionOf(x)!))) };
    expect(outcomeOf(abandoned, 'same-session-after-drop')).toBe('pass');
    expect(outcomeOf(abandoned, 'no-new-initialize')).toBe('pass');
  });

  test('abandoning the session the drop hit without a DELETE and finishing the operation on a new one fails', () => {
    const drop = noted(perOperation.exchanges, 'dropped-before-handler')[0]!;
    const hit = sessionOf(drop)!;
    const handshake = perOperation.exchanges.find((x) => carries(x, 'initialize') && x.responseHeaders[HEADERS.session] === hit)!;
    const deleting = perOperation.exchanges.find((x) => x.seq > drop.seq && x.method === 'DELETE' && sessionOf(x) === hit)!;
    const moved = (x: WireExchange): WireExchange => ({ ...x, requestHeaders: { ...x.requestHeaders, [HEADERS.session]: 'replacement' } });
    const inserted = { ...structuredClone(handshake), seq: drop.seq + 0.2, responseHeaders: { ...handshake.responseHeaders, [HEADERS.session]: 'replacement' } };
    const exchanges = perOperation.exchanges.flatMap((x) => (x === drop ? [x, inserted] : x === deleting ? [] : x.seq > drop.seq && x.seq < deleting.seq ? [moved(x)] : [x]));
    const doctored = { ...perOperation, exchanges };
    expect(outcomeOf(doctored, 'same-session-after-drop')).toBe('fail');
    expect(outcomeOf(doctored, 'no-new-initialize')).toBe('fail');
  });

  test('ending the session the drop hit and finishing the operation on a new one fails', () => {
    // After the first drop: the client DELETEs the session it hit, initializes another and sends the tools/list again there.
    const drop = noted(perOperation.exchanges, 'dropped-before-handler')[0]!;
    const hit = sessionOf(drop)!;
    const handshake = perOperation.exchanges.find((x) => carries(x, 'initialize') && x.responseHeaders[HEADERS.session] === hit)!;
    const deleting = perOperation.exchanges.find((x) => x.seq > drop.seq && x.method === 'DELETE' && sessionOf(x) === hit)!;
    const moved = (x: WireExchange): WireExchange => ({ ...x, requestHeaders: { ...x.requestHeaders, [HEADERS.session]: 'replacement' } });
    const inserted: WireExchange[] = [
      { ...structuredClone(deleting), seq: drop.seq + 0.1 },
      { ...structuredClone(handshake), seq: drop.seq + 0.2, responseHeaders: { ...handshake.responseHeaders, [HEADERS.session]: 'replacement' } },
    ];
    const exchanges = perOperation.exchanges.flatMap((x) => (x === drop ? [x, ...inserted] : x.seq > drop.seq && x.seq <= deleting.seq ? [moved(x)] : [x]));
    const doctored = { ...perOperation, exchanges };
    expect(outcomeOf(doctored, 'same-session-after-drop')).toBe('fail');
    expect(outcomeOf(doctored, 'no-new-initialize')).toBe('fail');
  });
});
