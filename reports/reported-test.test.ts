// A report built from evidence records alone: Playwright's outcome of each test and the one record
// the harness attached to it, no annotation and no message read back.
import { expect, test } from '@playwright/test';
import type { Rule } from '../specs/contract.ts';
import type { Exchange } from '../specs/evidence-protocol.ts';
import { emptyEvidence, type TestEvidence } from '../harness/test-evidence.ts';
import { buildReport } from './build.ts';
import { afterTargetLost, LOST_WHILE_RUNNING, type PlayedTest, reportedTest } from './reported-test.ts';

const rule = (id: string, level: Rule['level'] = 'MUST'): Rule => ({
  id,
  level,
  source: 'spec',
  plane: 'agent-server',
  area: 'threads',
  section: '4.5',
  text: `${id} text`,
});

const exchange = (id: string): Exchange => ({
  id,
  test: 't',
  plane: 'agent-server',
  base: 'http://127.0.0.1:1',
  startedDateTime: '2026-01-01T00:00:00.000Z',
  time: 1,
  request: { method: 'GET', url: '/threads/t', headers: [] },
  response: { status: 200, headers: [] },
  violations: [],
});

const played = (id: string, ruleIds: string[], status: PlayedTest['status'], extra: Partial<PlayedTest> = {}): PlayedTest => ({
  id,
  title: id,
  file: 'suites/agent-server/x.spec.ts',
  ruleIds,
  status,
  ...extra,
});

const evidence = (extra: Partial<TestEvidence>): TestEvidence => ({ ...emptyEvidence(), ...extra });

test('each rule comes out of the records: a failure with its exchange, a rule judged apart, a skip and what explains it, an observation', () => {
  const tests = [
    reportedTest(
      played('multi', ['R-ONE', 'R-TWO', 'R-THREE'], 'failed', { error: 'R-TWO: … \n\nR-THREE: …' }),
      evidence({
        exchanges: [exchange('e-1'), exchange('e-2'), exchange('e-3')],
        failures: [
          { rule: 'R-TWO', message: 'expected status 200: GET /threads/t answered 500', exchange: 'e-2' },
          { rule: 'R-THREE', message: 'expected the thread: GET /threads/t answered 200', exchange: 'e-3' },
        ],
        failedExchange: 'e-2',
        judgedApart: true,
      }),
    ),
    reportedTest(
      played('skipped', ['R-FOUR'], 'skipped', { skipReason: 'precondition failed: create a thread' }),
      evidence({ exchanges: [exchange('e-4')], skip: { kind: 'precondition', explainedBy: ['R-TWO'], exchange: 'e-4' } }),
    ),
    reportedTest(played('declared', ['R-FIVE'], 'skipped', { skipReason: 'needs a capability' }), evidence({ skip: { kind: 'declared', explainedBy: [] } })),
    reportedTest(played('seen', ['R-SEEN'], 'passed'), evidence({ observations: [{ rule: 'R-SEEN', observation: 'answered 204' }] })),
    reportedTest(played('lost', ['R-LOST'], 'failed', { error: 'GET /threads/t: ECONNREFUSED' }), evidence({ unreachable: true })),
  ];
  const report = buildReport({
    rules: [rule('R-ONE'), rule('R-TWO'), rule('R-THREE'), rule('R-FOUR'), rule('R-FIVE'), rule('R-SEEN', 'unspecified'), rule('R-LOST')],
    tests,
    exchanges: tests.flatMap((t) => t.outcome.exchanges).map((id) => ({ ...exchange(id), startedDateTime: undefined })) as never,
    target: { name: 't', kind: 'url', planes: ['agent-server'], capabilities: [] },
    seed: '1',
    run: { status: 'complete', profile: 'full', created: {}, cleanedUp: {}, left: {} },
    tool: { name: 'x', version: '0' },
  });
  const byId = Object.fromEntries(report.rules.map((r) => [r.id, r]));
  expect(Object.fromEntries(report.rules.map((r) => [r.id, r.verdict]))).toEqual({
    'R-ONE': 'pass',
    'R-TWO': 'fail',
    'R-THREE': 'fail',
    'R-FOUR': 'skipped',
    'R-FIVE': 'skipped',
    'R-SEEN': 'observed',
    'R-LOST': 'error',
  });
  // Each failed rule shows the exchange its own check named.
  expect(byId['R-TWO'].tests[0].failedExchange).toBe('e-2');
  expect(byId['R-THREE'].tests[0].failedExchange).toBe('e-3');
  expect(byId['R-ONE'].tests[0].failedExchange).toBeUndefined();
  // The precondition is explained by a rule that failed in the run: not an error.
  expect(byId['R-FOUR'].tests[0]).toMatchObject({ skip: { kind: 'precondition', explainedBy: ['R-TWO'] }, failedExchange: 'e-4' });
  expect(byId['R-FOUR'].tests[0].unexplained).toBeUndefined();
  expect(byId['R-FIVE'].tests[0]).toMatchObject({ status: 'skipped', reason: 'needs a capability', skip: { kind: 'declared' } });
  expect(byId['R-SEEN'].tests[0].observed).toEqual(['answered 204']);
  expect(report.summary.mustNotJudged.map((n) => n.id)).toEqual(['R-FOUR', 'R-FIVE']);
});

test('a skip the harness gave no kind is unclassified, and a test without a record has no evidence', () => {
  const { outcome } = reportedTest(played('bare', ['R-ONE'], 'skipped'), emptyEvidence());
  expect(outcome).toMatchObject({ status: 'skipped', reason: 'skipped', skip: { kind: 'unclassified' }, exchanges: [], observed: [] });
});

test('once the target is lost, a test that failed or timed out after its last answer is an error; one that ended before, or passed, stays', () => {
  const loss = { reason: 'the target stopped answering: agent-server http://127.0.0.1:1 (connect ECONNREFUSED)', since: 1_000 };
  const failed = reportedTest(
    played('late', ['R-ONE'], 'failed', { error: 'no webhook delivery within 2000 ms' }),
    evidence({ failures: [{ rule: 'R-ONE', message: 'no delivery' }] }),
  );
  const late = afterTargetLost(failed, 1_000, loss);
  expect(late.outcome).toMatchObject({ status: 'error', error: `${LOST_WHILE_RUNNING} (${loss.reason}): no webhook delivery within 2000 ms` });
  expect(late.failures).toEqual([]);
  expect(afterTargetLost(reportedTest(played('hung', ['R-ONE'], 'timedOut'), emptyEvidence()), 5_000, loss).outcome.status).toBe('error');
  expect(afterTargetLost(failed, 999, loss)).toBe(failed);
  const passed = reportedTest(played('fine', ['R-ONE'], 'passed'), emptyEvidence());
  expect(afterTargetLost(passed, 5_000, loss)).toBe(passed);
});
