// Every finding of a stdio case cites the stdio transport's own sections, never Streamable HTTP's or HTTP+SSE's (issue
// 28). A twin shares its judge with the HTTP scenario, so each stdio scenario's own citations are held here at every
// revision, on a bare record (no exchanges, nothing observed) and on one with a client error; and whatever a shared
// judge cites on a path these records do not take, the case's judgement (judgeCase) cites the stdio transport.
import { describe, expect, test } from 'vitest';
import { timePolicy } from '../../config/time.ts';
import { check } from '../checks.ts';
import { SCENARIOS } from '../index.ts';
import { judgeCase, recordOf } from '../judge.ts';
import { transportOf } from '../plan.ts';
import { defineScenario, type Evidence, type Scenario } from '../scenario.ts';
import { citesHttpTransport, sessionManagement, stdio } from '../spec.ts';

const stdioScenarios = SCENARIOS.filter((scenario) => transportOf(scenario) === 'stdio');

function bare(revision: Evidence['revision'], clientError?: string): Evidence {
  return {
    revision,
    time: timePolicy(),
    exchanges: [],
    otherServers: [],
    issuedSessions: [],
    clientRevisions: [revision],
    toolRuns: [],
    observed: {},
    ...(clientError !== undefined ? { clientError } : {}),
    stdio: { era: revision, personalities: [], shutdownGraceMs: 1000, processes: [], survivors: [] },
  };
}

const httpCitations = (checks: readonly { name: string; spec: Scenario['source']['spec'] }[]) => checks.filter((c) => citesHttpTransport(c.spec)).map((c) => `${c.name}: ${c.spec.url} (${c.spec.section})`);

describe('a stdio case cites its own transport', () => {
  test.for(stdioScenarios.flatMap((scenario) => scenario.revisions.map((revision) => ({ scenario, revision, title: `${scenario.id} @ ${revision}` }))))('$title', ({ scenario, revision }) => {
    for (const evidence of [bare(revision), bare(revision, 'Error: connection closed')]) {
      expect(httpCitations(scenario.judge(evidence)), `${scenario.id} @ ${revision}: its judge cites an HTTP transport`).toEqual([]);
      const { checks } = judgeCase(scenario, { ...recordOf(evidence), ending: { findings: [], problems: ['close did not settle within 5000 ms'], breaches: [] } });
      expect(httpCitations(checks), `${scenario.id} @ ${revision}: its case cites an HTTP transport`).toEqual([]);
    }
  });

  test('a shared judge that cites Streamable HTTP on some path is, in a stdio case, the stdio rule in the same words', () => {
    const shared = defineScenario({
      id: 'stdio/shared-judge',
      title: 'a judge written for HTTP',
      revisions: ['2025-11-25'],
      requires: [],
      transport: 'stdio',
      source: { spec: stdio('2025-11-25', 'the rule', 'MUST') },
      run: async () => {},
      judge: (evidence) => [check('handler-aborted', sessionManagement(evidence.revision, 'the handler sees the end of its session', 'SHOULD'), false, 'never aborted')],
    });
    const [judged] = judgeCase(shared, recordOf(bare('2025-11-25'))).checks.filter((c) => c.name === 'handler-aborted');
    expect(judged!.spec).toEqual(stdio('2025-11-25', 'the handler sees the end of its session', 'SHOULD'));
  });
});
