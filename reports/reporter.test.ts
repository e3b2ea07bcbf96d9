// The conformance reporter as Playwright drives it: each test's exchanges from its evidence record,
// the webhook deliveries global teardown hands over listed under the tests whose receiver path
// they reached, and the exchange a failure names kept as the test's failed exchange.
import { expect, test } from '@playwright/test';
import { recordTargetLost } from '../harness/conformance-end.ts';
import { defaultPlan } from '../harness/conformance-options.ts';
import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FullConfig, FullResult, Suite, TestCase, TestResult } from '@playwright/test/reporter';
import { emptyEvidence, EVIDENCE_ATTACHMENT, type TestEvidence } from '../harness/test-evidence.ts';
import { Redaction } from '../harness/proxy/redact.ts';
import { deliveryExchange, hooksPath, recordDeliveries } from '../harness/webhook-evidence.ts';
import type { ReceivedRequest } from '../harness/webhook-receiver.ts';
import { reportProblems } from './load.ts';
import type { ConformanceReport } from './conformance-report.ts';
import ConformanceReporter from './reporter.ts';
import type { Exchange } from '../specs/evidence-protocol.ts';

const testCase = (id: string, rule: string): TestCase =>
  ({
    id,
    title: id,
    tags: [`@${rule}`],
    annotations: [],
    location: { file: join(process.cwd(), 'suites/agent-server/x.spec.ts'), line: 1, column: 1 },
    titlePath: () => ['', 'agent-server', 'suites/agent-server/x.spec.ts', id],
  }) as unknown as TestCase;

const proxied = (n: number, testId: string): Exchange => ({
  id: `agent-server-${n}`,
  test: testId,
  plane: 'agent-server',
  base: 'http://127.0.0.1:1',
  startedDateTime: '2026-01-01T00:00:00.000Z',
  time: 1,
  request: { method: 'POST', url: '/threads/t/runs', headers: [['host', '127.0.0.1:1']] },
  response: { status: 200, headers: [['date', 'today']], body: '{}' },
  violations: [],
});

const result = (status: TestResult['status'], evidence: Partial<TestEvidence>, extra: Partial<TestResult> = {}): TestResult =>
  ({
    status,
    startTime: new Date('2026-01-01T00:00:00.000Z'),
    duration: 1,
    errors: [],
    annotations: [],
    attachments: [{ name: EVIDENCE_ATTACHMENT, contentType: 'application/json', body: Buffer.from(JSON.stringify({ ...emptyEvidence(), ...evidence })) }],
    ...extra,
  }) as unknown as TestResult;

/** A delivery the receiver got, as global setup records it. */
function delivery(seq: number, path: string, nth: number): Exchange {
  const request = {
    seq,
    exchange: `webhook:${path}#${nth}`,
    method: 'POST',
    url: path,
    path,
    query: {},
    headers: { host: 'r' },
    body: '{}',
    json: {},
    answered: 200,
  };
  return deliveryExchange(request as ReceivedRequest, 'http://receiver.apc.test', new Redaction(), 0, 0);
}

/** Ends the run as Playwright would, and reads the report it wrote; the summary it prints is not what the tests read. */
function endRun(reporter: ConformanceReporter, status: FullResult['status'], out: string): ConformanceReport {
  const log = console.log;
  console.log = () => {};
  try {
    reporter.onEnd({ status } as FullResult);
  } finally {
    console.log = log;
  }
  return JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as ConformanceReport;
}

test('deliveries are listed under the tests whose receiver path they reached, and the exchange a failure names is marked', () => {
  const out = mkdtempSync(join(tmpdir(), 'apc-reporter-'));
  const hooked = testCase('t-hooked', 'WEBHOOK-TRIGGER');
  const other = testCase('t-other', 'WEBHOOK-RETRY');
  const skipped = testCase('t-skipped', 'WEBHOOK-ONE-DELIVERY');
  const plan = defaultPlan(out);
  const reporter = new ConformanceReporter({ plan });
  reporter.onBegin(
    { rootDir: process.cwd() } as FullConfig,
    { allTests: () => [hooked, other, skipped], suites: [{ title: 'agent-server' }] } as unknown as Suite,
  );
  const failing = delivery(3, `${hooksPath('t-hooked')}/b`, 1);
  reporter.onTestEnd(
    hooked,
    result('failed', { exchanges: [proxied(1, 't-hooked')], failedExchange: failing.id }, { errors: [{ message: 'payload.status: POST /x delivered {}' }] }),
  );
  // A failure naming an exchange the test does not list marks none.
  reporter.onTestEnd(other, result('failed', { exchanges: [proxied(2, 't-other')], failedExchange: 'agent-server-99' }, { errors: [{ message: 'boom' }] }));
  reporter.onTestEnd(
    skipped,
    result(
      'skipped',
      { exchanges: [proxied(3, 't-skipped')], skip: { kind: 'precondition', explainedBy: ['RUN-CREATE'], exchange: 'agent-server-3' } },
      { annotations: [{ type: 'skip', description: 'precondition failed: create a run: POST /threads/t/runs answered 500 {}' }] },
    ),
  );
  // Arrival order races between paths; one came after its test ended; others reached no test of the run.
  recordDeliveries(plan, [
    failing,
    delivery(1, `${hooksPath('t-hooked')}/a`, 1),
    delivery(2, '/apc-discard/accepted', 1),
    delivery(4, `${hooksPath('t-hooked')}/a`, 2),
    delivery(5, `${hooksPath('t-gone')}`, 1),
  ]);
  const report = endRun(reporter, 'failed', out);
  expect(reportProblems(report)).toEqual([]);
  const [trigger, retry, once] = ['WEBHOOK-TRIGGER', 'WEBHOOK-RETRY', 'WEBHOOK-ONE-DELIVERY'].map((id) => report.rules.find((r) => r.id === id)!.tests[0]);
  expect(trigger.exchanges).toEqual([
    'agent-server-1',
    'webhook:/apc-hooks/t-hooked/a#1',
    'webhook:/apc-hooks/t-hooked/a#2',
    'webhook:/apc-hooks/t-hooked/b#1',
  ]);
  expect(trigger.failedExchange).toBe('webhook:/apc-hooks/t-hooked/b#1');
  expect(retry.failedExchange).toBeUndefined();
  expect(once.failedExchange).toBe('agent-server-3');
  // As every exchange in the report: no clock, no address, no volatile header.
  expect(report.exchanges['webhook:/apc-hooks/t-hooked/b#1']).toEqual({
    id: 'webhook:/apc-hooks/t-hooked/b#1',
    test: 't-hooked',
    plane: 'agent-server',
    delivery: true,
    request: { method: 'POST', url: '/apc-hooks/t-hooked/b', headers: [], body: '{}' },
    response: { status: 200, headers: [['content-type', 'application/json']], body: '{"received":true}', contentType: 'application/json' },
    violations: [],
  });
  expect(Object.keys(report.exchanges).filter((id) => id.startsWith('webhook:'))).toHaveLength(3);
});

test('a test Playwright ends as skipped when the run stops, with no skip of its own, is reported as not run', () => {
  const out = mkdtempSync(join(tmpdir(), 'apc-reporter-'));
  const plan = defaultPlan(out);
  mkdirSync(plan.scratch, { recursive: true });
  const ran = testCase('t-ran', 'ASSISTANT-SEARCH-LIMIT');
  const queued = testCase('t-queued', 'ASSISTANT-SEARCH-OFFSET');
  const skipped = testCase('t-skipped', 'ASSISTANT-SEARCH');
  const reporter = new ConformanceReporter({ plan });
  reporter.onBegin({ rootDir: process.cwd() } as FullConfig, { allTests: () => [ran, queued, skipped], suites: [] } as unknown as Suite);
  reporter.onTestEnd(ran, result('passed', { exchanges: [proxied(1, 't-ran')] }));
  // What Playwright hands over for a test left in the queue of a worker stopped by the run's SIGINT.
  reporter.onTestEnd(queued, { ...result('skipped', {}), attachments: [], duration: 0 } as TestResult);
  reporter.onTestEnd(skipped, result('skipped', {}, { annotations: [{ type: 'skip', description: 'needs a second graph' }] }));
  recordTargetLost(plan, { reason: 'the target stopped answering: agent-server http://127.0.0.1:1 (connect ECONNREFUSED)', since: 0 });
  const report = endRun(reporter, 'interrupted', out);
  const verdict = (id: string) => report.rules.find((r) => r.id === id)!;
  expect(verdict('ASSISTANT-SEARCH-OFFSET').verdict).toBe('not-run');
  expect(verdict('ASSISTANT-SEARCH-OFFSET').tests[0].reason).toMatch(/^the target stopped answering: .*; the tests after it did not run$/);
  // A skip the test gave stays a skip.
  expect(verdict('ASSISTANT-SEARCH').tests[0]).toMatchObject({ status: 'skipped', reason: 'needs a second graph' });
  expect(verdict('ASSISTANT-SEARCH-LIMIT').verdict).toBe('pass');
});
