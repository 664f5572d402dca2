// The verdict rules, on synthetic results (the baseline comparison: suites/baselines.test.ts).
import { describe, expect, test } from 'vitest';
import type { ClientAdapter } from '../clients/adapter.ts';
import { handshakeOrder } from './negotiation/handshake-order.ts';
import { deleteIssuedSession } from './disposal/delete-issued-session.ts';
import { timePolicy, provisionally } from '../config/time.ts';
import { referenceClient } from '../clients/reference/index.ts';
import { clientCompleted, precondition } from './checks.ts';
import { watchMachine } from './outcome.ts';
import { checkInTime, machineWasQuiet, promptAtFirstBound, timeMayCure } from './deadlines.ts';
import { progressResetsTimeout } from './cancellation/progress-resets-timeout.ts';
import { sdkV1StreamableHttp } from '../clients/sdk-v1.ts';
import { legacyNotification } from './cancellation/legacy-notification.ts';
import { calibratedPolicy, notApplicable, runCase, runScenario } from './runner.ts';
import { defineScenario, reasonOf, verdictOf, type Check, type Evidence, type Level } from './scenario.ts';
import { sendingMessages, shutdown } from './spec.ts';
import { HEADERS } from '../protocol/http.ts';
import type { TimePolicy } from '../config/time.ts';
import { explain } from './evidence.ts';
import { autoFallsBack } from './negotiation/auto-falls-back.ts';
import { connectBound } from './negotiation/support.ts';
import { expired404 } from './resume/expired-404.ts';
import { sessionLoss } from './resume/support.ts';
import { noRetryOnAuth } from './retry/no-retry-on-auth.ts';
import { httpSseFallback } from './retry/http-sse-fallback.ts';
import { sigtermWaitMs, stdioShutdownSequence } from './stdio/shutdown-sequence.ts';
import { shapedReference } from '../clients/reference/shapes.ts';

const checkAt = (level: Level, ok: boolean): Check => ({ name: `${level}-${ok}`, spec: { url: 'u', section: 's', level }, outcome: ok ? 'pass' : 'fail', detail: '', exchanges: [] });

describe('verdictOf', () => {
  test('a failed MUST fails, a failed SHOULD warns (fails when strict), a failed MAY is informational', () => {
    expect(verdictOf([checkAt('MUST', true), checkAt('SHOULD', true)])).toBe('pass');
    expect(verdictOf([checkAt('MUST', false), checkAt('SHOULD', false)])).toBe('fail');
    expect(verdictOf([checkAt('SHOULD', false)])).toBe('warn');
    expect(verdictOf([checkAt('SHOULD', false)], true)).toBe('fail');
    expect(verdictOf([checkAt('MAY', false)], true)).toBe('pass');
  });

  const spec = { url: 'u', section: 's', level: 'MUST' as const };
  test('a precondition the suite could not meet makes the case inconclusive whatever failed', () => {
    expect(verdictOf([precondition('reached', spec, false, 'the server never acted'), checkAt('MUST', false)])).toBe('inconclusive');
  });

  test('a precondition the client kept from being met lets what it broke stand; with nothing broken, inconclusive', () => {
    const keptByClient = precondition('reached', spec, false, 'the client hung first', [], { by: 'client' });
    expect(keptByClient.lasting).toBe(true);
    expect(verdictOf([keptByClient, checkAt('MUST', false)])).toBe('fail');
    expect(verdictOf([keptByClient, checkAt('SHOULD', false)])).toBe('warn');
    expect(verdictOf([keptByClient, checkAt('MUST', true)])).toBe('inconclusive');
    expect(reasonOf([keptByClient, checkAt('MUST', false)], 'fail')).toContain('never reached reached: the client hung first');
  });

  test('a precondition a correct client of another shape never meets makes the case n/a, whatever else', () => {
    const shape = precondition('reached', spec, false, 'the client opens a session per operation', [], { by: 'shape' });
    expect(verdictOf([shape, checkAt('MUST', false)])).toBe('n/a');
    expect(reasonOf([shape, checkAt('MUST', false)], 'n/a')).toBe('reached: the client opens a session per operation');
    // The suite's own failure to set the case up outranks it.
    expect(verdictOf([shape, precondition('up', spec, false, 'no server')])).toBe('inconclusive');
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

describe('deadlines on provisional and firm runs', () => {
  const spec = { url: 'u', section: 's', level: 'SHOULD' as const };
  test('a deadline missed is "time ran out" (inconclusive) on a provisional run, a fail on a firm one; a rule broken whatever the time fails on both', () => {
    const firm = timePolicy();
    const provisional = provisionally(firm, true);
    expect(checkInTime(provisional, 'prompt', spec, 'late', 'still pending').outcome).toBe('inconclusive');
    expect(checkInTime(provisional, 'prompt', spec, 'late', 'still pending').detail).toMatch(/^time ran out at time scale 1 \(run again with larger bounds\): still pending/);
    expect(checkInTime(firm, 'prompt', spec, 'late', 'still pending').outcome).toBe('fail');
    expect(checkInTime(provisional, 'prompt', spec, false, 'resolved').outcome).toBe('fail');
    expect(checkInTime(provisional, 'prompt', spec, true, 'rejected').outcome).toBe('pass');
    expect(provisionally(provisional, false)).toEqual(firm);
  });

  /** The reference client with its rejections of an aborted call delayed: `lateMs(run)` for the case's nth run (1, 2, …). */
  const rejectingLate = (name: string, lateMs: (run: number) => number): ClientAdapter => {
    let runs = 0;
    return {
      ...referenceClient,
      name,
      async start(caseId) {
        const client = await referenceClient.start(caseId);
        const delay = lateMs(++runs);
        return {
          dispose: () => client.dispose(),
          async connect(url, options) {
            const connection = await client.connect(url, options);
            return {
              ...connection,
              info: () => connection.info(),
              listTools: (o) => connection.listTools(o),
              close: () => connection.close(),
              callTool: (name, args, o) => connection.callTool(name, args, o).catch(async (error: unknown) => {
                await new Promise((resolve) => setTimeout(resolve, delay));
                throw error;
              }),
            };
          },
        };
      },
    };
  };

  test('a client late only in the first run (a moment of stall) is run again with larger bounds and judged on the last run, and the result says so', async () => {
    const time = timePolicy();
    // One and a half react bounds late in its first run, prompt after.
    const late = rejectingLate('late-once-reference', (run) => (run === 1 ? Math.round(time.ms.react * 1.5) : 0));
    const result = await runCase(legacyNotification, late, '2025-06-18', { time });
    expect(result.attempts?.[0]).toMatchObject({ verdict: 'inconclusive', scale: 1 });
    expect(result.attempts?.[0]?.reason).toMatch(/time ran out at time scale 1/);
    expect(result.verdict, result.reason).toBe('pass');
    expect(result.evidence?.time.scale).toBeGreaterThan(1);
  });

  test('a client always late by more than the first react bound is judged by that bound, never passed by a rerun’s larger one: its lateness on a quiet machine, inconclusive on a busy one', async () => {
    const time = timePolicy();
    // One and a half react bounds late every time: within the rerun's doubled bound, not within the first.
    const lateMs = Math.round(time.ms.react * 1.5);
    const result = await runCase(legacyNotification, rejectingLate('always-late-reference', () => lateMs), '2025-06-18', { time });
    const rejected = result.checks.find((c) => c.name === 'call-rejected-promptly')!;
    expect(result.verdict, result.reason).not.toBe('pass');
    expect(rejected.outcome).not.toBe('pass');
    const load = result.evidence!.machine!;
    if (machineWasQuiet(load, time)) {
      expect(rejected.outcome).toBe('fail');
      expect(rejected.detail).toMatch(new RegExp(`with the first run's react bound of ${time.ms.react} ms, on a quiet machine`));
    } else {
      expect(rejected.outcome).toBe('inconclusive');
      expect(rejected.detail).toMatch(/held only within a rerun's larger bounds/);
    }
  });

  test('the first bound decides: a rerun’s pass kept when the first bound held too, taken back when not (quiet: the first run’s fail; busy: inconclusive)', () => {
    const spec = { url: 'u', section: 's', level: 'SHOULD' as const };
    const at = (name: string, outcome: Check['outcome'], detail = name): Check => ({ name, spec, outcome, detail, exchanges: [3] });
    const rerun = [at('client-completed', 'pass'), at('prompt', 'pass'), at('prompt', 'pass'), at('shape', 'pass'), at('never', 'fail')];
    const first = [at('client-completed', 'fail'), at('prompt', 'pass'), at('prompt', 'fail', 'rejected after 750 ms'), at('shape', 'pass'), at('never', 'fail')];
    const quiet = promptAtFirstBound(rerun, first, true, 'idle', 500);
    expect(quiet.map((c) => c.outcome)).toEqual(['pass', 'pass', 'fail', 'pass', 'fail']);
    expect(quiet[2]!.detail).toBe("rejected after 750 ms (with the first run's react bound of 500 ms, on a quiet machine: idle)");
    const busy = promptAtFirstBound(rerun, first, false, 'busy', 500);
    expect(busy.map((c) => c.outcome)).toEqual(['pass', 'pass', 'inconclusive', 'pass', 'fail']);
    expect(busy[2]!.exchanges).toEqual([3]);
    expect(busy[2]!.detail).toMatch(/rejected after 750 ms; the machine was busy \(busy\)/);
    // Judged by the first bound on every rerun: a larger bound cannot change it, so the case is not run again for it.
    expect(busy[2]!.lasting).toBe(true);
    expect(timeMayCure(busy)).toBe(false);
  });

  test('the machine is quiet only with CPU to spare and a loop that was never held up', () => {
    const time = timePolicy();
    expect(machineWasQuiet({ idleShare: 0.9, stalledMs: 5 }, time)).toBe(true);
    expect(machineWasQuiet({ idleShare: 0.05, stalledMs: 5 }, time)).toBe(false);
    expect(machineWasQuiet({ idleShare: 0.9, stalledMs: time.ms.react }, time)).toBe(false);
    const watch = watchMachine();
    const load = watch.stop();
    expect(watch.stop()).toBe(load);
    expect(load.idleShare).toBeGreaterThanOrEqual(0);
    expect(load.idleShare).toBeLessThanOrEqual(1);
  });
});

describe('a connect that runs out of time', () => {
  test('is "time ran out" on a provisional run, not the client’s failure: the case runs again with larger bounds', async () => {
    // A client that needs one and a half operation bounds to start, and gives up at its connect timeout as a real one
    // would. The operation bound is sized from what the reference client's start-up measures now (calibration), so the
    // connect after the slow start has room even on a loaded machine.
    const measured = await calibratedPolicy(referenceClient);
    const time = timePolicy({ overrides: { operation: Math.max(400, 2 * measured.ms.startup) } });
    const startMs = Math.round(time.ms.operation * 1.5);
    const slow: ClientAdapter = {
      ...referenceClient,
      name: 'slow-starting-reference',
      async start(caseId) {
        const client = await referenceClient.start(caseId);
        return {
          dispose: () => client.dispose(),
          async connect(url, options) {
            if (startMs > options.timeoutMs) {
              // A client's timer may fire early by the suite's clock (Node's by up to 1 ms, its loop clock): this one a
              // little earlier still, within CLOCK_SLACK_MS, and is still a client that gave up at its timeout.
              await new Promise((resolve) => setTimeout(resolve, options.timeoutMs - 3));
              throw new Error(`connect timed out after ${options.timeoutMs} ms`);
            }
            await new Promise((resolve) => setTimeout(resolve, startMs));
            return client.connect(url, options);
          },
        };
      },
    };
    const result = await runCase(handshakeOrder, slow, '2025-06-18', { time });
    expect(result.attempts?.[0]).toMatchObject({ verdict: 'inconclusive', scale: 1 });
    expect(result.attempts?.[0]?.reason).toMatch(new RegExp(`time ran out at time scale 1 .*connect timed out after ${time.ms.operation} ms`));
    expect(result.verdict, result.reason).toBe('pass');
  });
});

describe('what more time cannot cure', () => {
  const spec = { url: 'u', section: 's', level: 'SHOULD' as const };
  test('a lasting unmet precondition is not run again; an inconclusive that time may cure is', () => {
    const lateRule = checkInTime(provisionally(timePolicy(), true), 'prompt', spec, 'late', 'still pending');
    expect(timeMayCure([lateRule])).toBe(true);
    expect(timeMayCure([precondition('reached', spec, false, 'no token', [], { lasting: true }), lateRule])).toBe(false);
    expect(timeMayCure([precondition('reached', spec, false, 'not reached yet')])).toBe(true);
    expect(timeMayCure([checkAt('MUST', true)])).toBe(false);
  });

  test('an SDK whose calls carry no progress token is judged inconclusive once, not run again with larger bounds', async () => {
    const result = await runCase(progressResetsTimeout, sdkV1StreamableHttp, '2025-06-18', { time: timePolicy() });
    expect(result.verdict).toBe('inconclusive');
    expect(result.checks.find((c) => c.name === 'progress-during-call')).toMatchObject({ outcome: 'inconclusive', lasting: true });
    expect(result.attempts).toBeUndefined();
  });
});

describe('a maximum timeout on a busy machine', () => {
  // The reference client's run, then doctored: it stopped at its timeout, as a restarting timer starved of the progress
  // would have too.
  const maximum = (evidence: Evidence) => progressResetsTimeout.judge(evidence).find((c) => c.name === 'maximum-timeout-holds')!;

  test('a stop judged a maximum only when the progress came steadily and the client was awake to read it', async () => {
    // Run as the suites run a case: a machine too busy for its bounds makes it inconclusive, and it runs again with larger ones.
    const result = await runCase(progressResetsTimeout, referenceClient, '2025-06-18', { time: timePolicy() });
    expect(result.checks.find((c) => c.name === 'maximum-timeout-holds')?.outcome, explain(result)).toBe('pass');
    const evidence = result.evidence!;
    const timeoutMs = 6 * Math.round(evidence.time.ms.quiet / 4);
    // Starved for the whole timeout: its expired timer fired before it read what came meanwhile.
    const stalled = maximum({ ...evidence, observed: { ...evidence.observed, stalledMs: timeoutMs } });
    expect(stalled).toMatchObject({ outcome: 'inconclusive' });
    expect(stalled.detail).toContain('without running a timer');
    // A starved server: one progress at the start, then none until the call gave up three timeouts later, as a
    // restarting timer does in such a gap.
    let kept = false;
    const gapped: Evidence = {
      ...evidence,
      observed: { ...evidence.observed, call: { ...(evidence.observed['call'] as object), afterMs: 3 * timeoutMs } },
      exchanges: evidence.exchanges.map((x) => ({
        ...x,
        responseMessages: x.responseMessages.flatMap((m) => (m.message.method !== 'notifications/progress' ? [m] : kept ? [] : ((kept = true), [{ ...m, at: x.startedAt + 1 }]))),
      })),
    };
    expect(maximum(gapped)).toMatchObject({ outcome: 'inconclusive', detail: expect.stringContaining('a starved server') });
  });
});

describe('a stale request that may have been in flight', () => {
  // The reference client's session loss, then doctored: a request carrying the dead id arriving after the 404.
  const withResent = (evidence: Evidence, method: 'GET' | 'POST', afterMs: number): Evidence => {
    const { lost, dead } = sessionLoss(evidence, { status: 404 });
    const learnedAt = lost!.headersAt ?? lost!.startedAt;
    const resent = { ...lost!, seq: lost!.seq + 0.5, method, requestMessages: method === 'GET' ? [] : lost!.requestMessages, responseMessages: [], status: 404, startedAt: learnedAt + afterMs, requestHeaders: { ...lost!.requestHeaders, [HEADERS.session]: dead! } };
    return { ...evidence, exchanges: [...evidence.exchanges, resent].sort((a, b) => a.seq - b.seq) };
  };
  const deadIdCheck = (evidence: Evidence) => expired404.judge(evidence).find((c) => c.name === 'dead-id-never-sent-again')!;

  test('a stream GET with the dead id right after the 404 cannot be told from one sent before it: inconclusive; a POST, or a GET well after, fails', async () => {
    const result = await runScenario(expired404, referenceClient, '2025-11-25');
    expect(result.verdict, explain(result)).toBe('pass');
    const evidence = result.evidence!;
    const react = evidence.time.ms.react;
    expect(deadIdCheck(withResent(evidence, 'GET', 1))).toMatchObject({ outcome: 'inconclusive' });
    expect(deadIdCheck(withResent(evidence, 'GET', 1)).detail).toContain('may have sent before it read that answer');
    expect(deadIdCheck(withResent(evidence, 'POST', 1))).toMatchObject({ outcome: 'fail' });
    expect(deadIdCheck(withResent(evidence, 'GET', react + 1))).toMatchObject({ outcome: 'fail' });
    // The loss met first on the stream's GET: the caller's POST right after it may have been on its way already.
    const { lost } = sessionLoss(evidence, { status: 404 });
    const onStream: Evidence = { ...evidence, exchanges: evidence.exchanges.map((x) => (x === lost ? { ...x, method: 'GET', requestMessages: [] } : x)) };
    expect(deadIdCheck(withResent(onStream, 'POST', 1))).toMatchObject({ outcome: 'inconclusive', detail: expect.stringContaining('a request the client may have sent before it read that answer') });
    expect(deadIdCheck(withResent(onStream, 'POST', react + 1))).toMatchObject({ outcome: 'fail' });
  });
});

describe('a fallback whose connect ran out of time', () => {
  test('is "time ran out" on a provisional run and a failure on the last, never a plain fail on the first', async () => {
    const result = await runScenario(autoFallsBack, referenceClient, '2025-11-25');
    expect(result.verdict, explain(result)).toBe('pass');
    const evidence = result.evidence!;
    // The era case's client sent its probe, got the legacy answer, and gave up at the bound without an initialize.
    const boundMs = connectBound(evidence.time);
    const timedOut = { ...(evidence.observed['case:era'] as object), connect: { state: 'rejected', afterMs: boundMs, detail: 'Error: connect timed out' } };
    const doctored = { ...evidence, observed: { ...evidence.observed, 'case:era': timedOut }, exchanges: evidence.exchanges.filter((x) => !x.requestMessages.some((m) => m.method === 'initialize' || m.method === 'tools/list')) };
    const judged = (time: TimePolicy) => autoFallsBack.judge({ ...doctored, time }).find((c) => c.name === 'falls-back-on-every-legacy-answer')!;
    expect(judged(provisionally(evidence.time, true))).toMatchObject({ outcome: 'inconclusive' });
    expect(judged(provisionally(evidence.time, false))).toMatchObject({ outcome: 'fail' });
  });
});

describe('a scenario’s level caps its checks', () => {
  const shouldScenario = defineScenario({
    id: 'test/should-level',
    title: 'a SHOULD scenario whose client gives up after connecting',
    revisions: ['2025-06-18'],
    requires: [],
    source: { spec: { url: 'u', section: 'a SHOULD rule', level: 'SHOULD' } },
    async run({ connect }) {
      await connect();
      throw new Error('the client gave up');
    },
    judge: (evidence) => [clientCompleted(evidence, sendingMessages(evidence.revision, 'the script runs to its end', 'MUST'))],
  });

  test('a SHOULD scenario never fails at MUST: its client-completed warns, and fails only when strict', async () => {
    const result = await runScenario(shouldScenario, referenceClient, '2025-06-18');
    const completed = result.checks.find((c) => c.name === 'client-completed')!;
    expect(completed).toMatchObject({ outcome: 'fail', spec: { level: 'SHOULD' } });
    expect(completed.spec.section).toContain("judged at SHOULD, the scenario's level");
    expect(result.verdict, explain(result)).toBe('warn');
    expect((await runScenario(shouldScenario, referenceClient, '2025-06-18', { strict: true })).verdict).toBe('fail');
  });
});

describe('a stdio case cites the stdio transport', () => {
  test('client-completed from a judge shared with HTTP cites stdio, not Streamable HTTP', () => {
    const overStdio = { revision: '2026-07-28', stdio: {}, clientError: 'Error: gone' } as unknown as Evidence;
    const judged = clientCompleted(overStdio, shutdown('2026-07-28', 'the client closes a connection with calls in flight', 'MUST'));
    expect(judged.spec.url).toMatch(/\/2026-07-28\/basic\/transports\/stdio/);
    expect(judged.spec.section).toBe('Transports › stdio: the client closes a connection with calls in flight');
    expect(judged.spec.level).toBe('MUST');
    const legacy = clientCompleted({ ...overStdio, revision: '2025-06-18' }, sendingMessages('2025-06-18', 'the script runs to its end', 'MUST'));
    expect(legacy.spec.url).toMatch(/\/2025-06-18\/basic\/transports#stdio$/);
    // Over HTTP the judge's own citation stands.
    expect(clientCompleted({ ...overStdio, stdio: undefined }, shutdown('2026-07-28', 'x', 'MUST')).spec.url).toMatch(/streamable-http#cancellation$/);
  });

  test('the runner’s own client-completed (a close that hangs) and timers-released cite the stdio shutdown', async () => {
    let leftRunning: NodeJS.Timeout | undefined;
    const hangsOnClose: ClientAdapter = {
      ...referenceClient,
      name: 'close-hangs-reference',
      async start(caseId) {
        const client = await referenceClient.start(caseId);
        // A timer the client leaves running after dispose.
        leftRunning = setTimeout(() => {}, 60_000);
        return {
          dispose: () => client.dispose(),
          async connect(target, options) {
            const connection = await client.connect(target, options);
            return {
              info: () => connection.info(),
              listTools: (o) => connection.listTools(o),
              callTool: (name, args, o) => connection.callTool(name, args, o),
              close: () => new Promise<void>(() => {}),
            };
          },
        };
      },
    };
    const connectOnly = defineScenario({
      id: 'test/stdio-connect-only',
      title: 'connects over stdio and leaves the closing to the runner',
      revisions: ['2026-07-28'],
      requires: [],
      transport: 'stdio',
      source: { spec: { url: 'u', section: 'a MUST rule', level: 'MUST' } },
      async run({ connect }) {
        await connect();
      },
      judge: () => [],
    });
    try {
      const result = await runScenario(connectOnly, hangsOnClose, '2026-07-28', { time: timePolicy({ overrides: { operation: 2000 } }) });
      const completed = result.checks.find((c) => c.name === 'client-completed');
      const timers = result.checks.find((c) => c.name === 'timers-released');
      expect(completed?.outcome, explain(result)).toBe('fail');
      expect(completed?.spec.url).toMatch(/\/2026-07-28\/basic\/transports\/stdio#shutdown$/);
      expect(timers?.spec.url, explain(result)).toMatch(/\/2026-07-28\/basic\/transports\/stdio#shutdown$/);
    } finally {
      clearTimeout(leftRunning);
    }
  });
});

describe('a refusal the client kept itself from', () => {
  test('a client that hangs on the first 401 never reaches the 403: what it broke stands, never "could not judge"', async () => {
    const result = await runScenario(noRetryOnAuth, referenceClient, '2025-11-25');
    expect(result.verdict, explain(result)).toBe('pass');
    const evidence = result.evidence!;
    // The call refused 401 never settled, and the call the script then asked for (to be refused 403) never went out.
    const hung: Evidence = {
      ...evidence,
      observed: { ...evidence.observed, listRefused: { state: 'pending', afterMs: 3000, hung: true, detail: 'tools/call answered 401 did not settle within 3000 ms' } },
      exchanges: evidence.exchanges.filter((x) => !x.requestMessages.some((m) => m.method === 'tools/call' && (m.params?.['arguments'] as { text?: unknown } | undefined)?.text === 'refused 403')),
    };
    const checks = noRetryOnAuth.judge(hung);
    expect(checks.find((c) => c.name === 'refused-in-session')).toMatchObject({ outcome: 'inconclusive', unmetBy: 'client' });
    expect(checks.find((c) => c.name === 'error-reaches-caller')?.outcome).toBe('fail');
    expect(verdictOf(checks)).toBe('warn');
    expect(reasonOf(checks, 'warn')).toContain('never reached refused-in-session');
    // A tools/call that arrived and was not refused is the suite's failure: inconclusive, whatever else.
    const unrefused: Evidence = { ...hung, exchanges: evidence.exchanges.map((x) => ({ ...x, notes: x.notes.filter((note) => note !== 'auth-403') })) };
    expect(verdictOf(noRetryOnAuth.judge(unrefused))).toBe('inconclusive');
  });

  test('a client that falls back on a 401 and then hangs on the 403 server: the fallback stands', async () => {
    const result = await runScenario(httpSseFallback, referenceClient, '2024-11-05');
    expect(result.verdict, explain(result)).toBe('pass');
    const evidence = result.evidence!;
    const [first, second] = evidence.otherServers;
    // The server answering 401 got a GET for an HTTP+SSE stream after its refused initialize; the one answering 403 nothing.
    const initialize = first!.exchanges.find((x) => x.requestMessages.some((m) => m.method === 'initialize'))!;
    const get = { ...structuredClone(initialize), seq: initialize.seq + 1, method: 'GET', requestMessages: [], requestHeaders: { accept: 'text/event-stream' }, requestBody: '', status: 200 };
    const doctored: Evidence = { ...evidence, otherServers: [{ ...first!, exchanges: [...first!.exchanges, get] }, { ...second!, exchanges: [] }, ...evidence.otherServers.slice(2)] };
    const checks = httpSseFallback.judge(doctored);
    expect(checks.find((c) => c.name === 'auth-servers-reached')).toMatchObject({ outcome: 'inconclusive', unmetBy: 'client' });
    expect(checks.find((c) => c.name === 'no-fallback-on-auth')?.outcome).toBe('fail');
    expect(verdictOf(checks)).toBe('warn');
  });

  test('a client that connects lazily is driven to the refusing servers by a call, and judged', async () => {
    const fallback = await runScenario(httpSseFallback, shapedReference('lazy'), '2024-11-05');
    expect(fallback.verdict, explain(fallback)).toBe('pass');
    const result = await runScenario(noRetryOnAuth, shapedReference('lazy'), '2025-11-25');
    expect(result.verdict, explain(result)).toBe('pass');
    expect(result.checks.find((c) => c.name === 'refused-at-connect')?.outcome).toBe('pass');
  });
});

describe('a gap no load can explain', () => {
  test('SIGTERM in the same moment stdin closed, right after the last answer, fails at once; the same gap after a stalled server is "time ran out"', async () => {
    const result = await runScenario(stdioShutdownSequence, referenceClient, '2025-11-25');
    expect(result.verdict, explain(result)).toBe('pass');
    const evidence = result.evidence!;
    const provisional = provisionally(evidence.time, true);
    const wait = sigtermWaitMs(provisional);
    const waited = (at: (p: NonNullable<Evidence['stdio']>['processes'][number]) => { eof: number; term: number }) => {
      const doctored: Evidence = {
        ...evidence,
        time: provisional,
        stdio: {
          ...evidence.stdio!,
          processes: evidence.stdio!.processes.map((p) => {
            if (p.stdinEofAt === undefined) return p;
            const { eof, term } = at(p);
            return { ...p, stdinEofAt: eof, signals: p.signals.map((signal) => (signal.signal === 'SIGTERM' ? { ...signal, at: term } : signal)) };
          }),
        },
      };
      return stdioShutdownSequence.judge(doctored).find((c) => c.name === 'waited-before-sigterm')!;
    };
    const lastWrite = (p: NonNullable<Evidence['stdio']>['processes'][number]) => p.stdout.filter((chunk) => chunk.at <= p.stdinEofAt!).at(-1)!.at;
    // Closed and signalled at once, a moment after the last answer: no wait, whatever the load.
    expect(waited((p) => ({ eof: lastWrite(p) + 1, term: lastWrite(p) + 1 }))).toMatchObject({ outcome: 'fail', detail: expect.stringContaining('so no wait at all') });
    // Both seen in one turn long after the answer (a server held up): the client may have waited; time ran out — for
    // the scenario's judge, which never reads the load, and says how short of a wait the gap fell.
    const oneTurn = (p: NonNullable<Evidence['stdio']>['processes'][number]) => ({ eof: lastWrite(p) + 4 * wait, term: lastWrite(p) + 4 * wait });
    expect(waited(oneTurn)).toMatchObject({ outcome: 'inconclusive', lateByMs: wait });
  });

  test('judged with the load: a 0 ms gap on a machine that held nothing up fails at once (no rerun); one a held-up machine explains runs again', async () => {
    const { judgeCase } = await import('./judge.ts');
    const result = await runScenario(stdioShutdownSequence, referenceClient, '2025-11-25');
    expect(result.verdict, explain(result)).toBe('pass');
    const record = result.record!;
    const provisional = provisionally(record.evidence.time, true);
    const wait = sigtermWaitMs(provisional);
    const processes = record.evidence.stdio!.processes.map((p) => {
      if (p.stdinEofAt === undefined) return p;
      // Stdin closed and SIGTERM seen in one turn, long after the last answer: a 0 ms gap.
      const at = p.stdout.filter((chunk) => chunk.at <= p.stdinEofAt!).at(-1)!.at + 4 * wait;
      return { ...p, stdinEofAt: at, signals: p.signals.map((signal) => (signal.signal === 'SIGTERM' ? { ...signal, at } : signal)) };
    });
    const judged = (stalledMs: number) =>
      judgeCase(stdioShutdownSequence, { ...record, evidence: { ...record.evidence, time: provisional, machine: { idleShare: 0, stalledMs }, stdio: { ...record.evidence.stdio!, processes } } });
    const quiet = judged(0);
    expect(quiet.checks.find((c) => c.name === 'waited-before-sigterm')).toMatchObject({ outcome: 'fail', detail: expect.stringContaining("more than the") });
    expect(quiet.verdict).toBe('warn');
    expect(quiet.moreTimeMayChange).toBe(false);
    // This process held up for as long as the wait: the server may have been too, so time ran out and the case runs again.
    const busy = judged(wait);
    expect(busy.checks.find((c) => c.name === 'waited-before-sigterm')).toMatchObject({ outcome: 'inconclusive' });
    expect(busy.moreTimeMayChange).toBe(true);
  });

  test('a close with a fixed bound of its own past the scenario’s (a 5 s timeout whatever it is told) is late on any machine: failed on the first run, not run again', async () => {
    const { judgeCase } = await import('./judge.ts');
    const { closeWithHungDelete, bounds } = await import('./disposal/close-with-hung-delete.ts');
    const result = await runScenario(closeWithHungDelete, referenceClient, '2025-11-25');
    expect(result.verdict, explain(result)).toBe('pass');
    const record = result.record!;
    const provisional = provisionally(record.evidence.time, true);
    const { settleMs } = bounds(provisional);
    const closedAfter = (afterMs: number, stalledMs: number) =>
      judgeCase(closeWithHungDelete, {
        ...record,
        evidence: { ...record.evidence, time: provisional, machine: { idleShare: 0, stalledMs }, observed: { ...record.evidence.observed, close: { state: 'resolved', afterMs } } },
      });
    const fixed = closedAfter(Math.max(5_000, settleMs + 4 * provisional.ms.react), 20);
    expect(fixed.checks.find((c) => c.name === 'close-settled')).toMatchObject({ outcome: 'fail' });
    expect(fixed.moreTimeMayChange).toBe(false);
    // Just past the bound, on a machine that held this process up: the machine's doing maybe, so it runs again.
    const justPast = closedAfter(settleMs + 10, 20);
    expect(justPast.checks.find((c) => c.name === 'close-settled')).toMatchObject({ outcome: 'inconclusive' });
    expect(justPast.moreTimeMayChange).toBe(true);
  });
});

describe('a stdio connect given up whose close hangs on a server ignoring EOF', () => {
  test('is reported as that close, citing the stdio shutdown sequence, and judged at once when no load explains the missing SIGTERM', async () => {
    const { BROKEN_ADAPTERS } = await import('../clients/index.ts');
    const { judgeCase } = await import('./judge.ts');
    const waitsOnExit = BROKEN_ADAPTERS.find((v) => v.name === 'broken-connect-waits-on-exit')!;
    const scenario = (await import('./index.ts')).SCENARIOS.find((s) => s.id === 'stdio/never-initialize')!;
    const result = await runScenario(scenario, waitsOnExit, '2025-11-25', { time: provisionally(timePolicy(), true) });
    const record = result.record!;
    const judged = (stalledMs: number) => judgeCase(scenario, { ...record, evidence: { ...record.evidence, machine: { idleShare: 0, stalledMs } } });
    const quiet = judged(0);
    const gaveUp = quiet.checks.find((c) => c.name === 'connect-gives-up')!;
    expect(gaveUp, explain(result)).toMatchObject({ outcome: 'fail', detail: expect.stringMatching(/^its close hung/) });
    expect(gaveUp.spec.url).toMatch(/basic\/lifecycle#stdio$/);
    expect(gaveUp.detail).not.toContain('never gave up its connect');
    expect(quiet.moreTimeMayChange).toBe(false);
    // A machine that held this process up for longer than the missing SIGTERM's lateness: time ran out, run again.
    expect(judged(record.evidence.time.ms.operation).moreTimeMayChange).toBe(true);
  });
});

describe('the level cap', () => {
  test('no scenario is sourced at MAY: its level caps every check, so none of them could fail', async () => {
    const { SCENARIOS } = await import('./index.ts');
    expect(SCENARIOS.filter((scenario) => scenario.source.spec.level === 'MAY').map((scenario) => scenario.id)).toEqual([]);
  });
});

describe('a client that failed first', () => {
  test('keeps a precondition from being met by its own doing: what it broke stands; a suite-side unmet one, or a client the adapter says could not take part, stays inconclusive', async () => {
    const { judgeCase, recordOf } = await import('./judge.ts');
    const result = await runScenario(expired404, referenceClient, '2025-11-25');
    const evidence = result.evidence!;
    // The record of a client that failed before its session met the loss: nothing after the first tools/list, and its error.
    const { lost } = sessionLoss(evidence, { status: 404 });
    const failedFirst: Evidence = { ...evidence, exchanges: evidence.exchanges.filter((x) => lost === undefined || x.seq < lost.seq), clientError: 'Error: connection reset' };
    const judged = judgeCase(expired404, recordOf(failedFirst));
    expect(judged.verdict, judged.reason).toBe('fail');
    expect(judged.reason).toContain('never reached session-lost');
    expect(judged.checks.find((c) => c.name === 'session-lost')).toMatchObject({ outcome: 'inconclusive', unmetBy: 'client', lasting: true });
    // The same without the client's error: the suite could not drive it there.
    expect(judgeCase(expired404, recordOf({ ...failedFirst, clientError: undefined })).verdict).toBe('inconclusive');
    // A client whose connect only ran out of time (maybe the machine's doing), or whose process died: not the client's.
    expect(judgeCase(expired404, recordOf({ ...failedFirst, clientTimedOut: true })).verdict).toBe('inconclusive');
    expect(judgeCase(expired404, { ...recordOf(failedFirst), interrupted: 'the client process exited with code 1 during this case' }).verdict).toBe('inconclusive');
  });
});
