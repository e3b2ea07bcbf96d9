// The progress reporter as Playwright drives it: progress, failures as they happen, errors outside
// the tests, and no tally of tests at the end.
import { expect, test } from '@playwright/test';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FullConfig, FullResult, Suite, TestCase, TestResult } from '@playwright/test/reporter';
import { emptyEvidence, EVIDENCE_ATTACHMENT } from '../harness/test-evidence.ts';
import ProgressReporter, { type Output, QUIET_MS } from './progress.ts';
import type { TestStep } from '@playwright/test/reporter';

const testCase = (n: number, tags: string[] = []): TestCase =>
  ({
    id: `t${n}`,
    title: `test ${n}`,
    tags,
    annotations: [],
    location: { file: '/x/suites/agent-server/threads.spec.ts', line: n, column: 1 },
    titlePath: () => ['', 'agent-server', 'agent-server/threads.spec.ts', `test ${n}`],
  }) as unknown as TestCase;
const tests = [1, 2, 3].map((n) => testCase(n));
const suite = { allTests: () => tests } as unknown as Suite;
const config = { workers: 2, metadata: {}, shard: null } as unknown as FullConfig;
const result = (status: TestResult['status'], failedRules: string[] = []) => {
  const evidence = { ...emptyEvidence(), failures: failedRules.map((rule) => ({ rule, message: 'failed' })) };
  const attachments = [{ name: EVIDENCE_ATTACHMENT, contentType: 'application/json', body: Buffer.from(JSON.stringify(evidence)) }];
  return { status, errors: [], annotations: [], attachments } as unknown as TestResult;
};

function capture(isTTY = false): Output & { text: string } {
  const out = { text: '', isTTY, columns: 60, write: (t: string) => void (out.text += t) };
  return out;
}

function drive(reporter: ProgressReporter, statuses: TestResult['status'][]): void {
  reporter.onBegin(config, suite);
  tests.forEach((t, i) => {
    reporter.onTestBegin(t);
    reporter.onTestEnd(t, result(statuses[i]));
  });
  reporter.onEnd({ status: 'failed' } as FullResult);
}

test('a log gets a line per test and one per failure, and no tally of tests', () => {
  const out = capture();
  drive(new ProgressReporter({ style: 'line' }, out, capture()), ['passed', 'failed', 'skipped']);
  expect(out.text).toBe(
    [
      'Running 3 tests using 2 workers',
      '[1/3] [agent-server] › agent-server/threads.spec.ts:1 › test 1',
      '[2/3] [agent-server] › agent-server/threads.spec.ts:2 › test 2',
      '  ✘ [agent-server] › agent-server/threads.spec.ts:2 › test 2 (failed)',
      '[3/3] [agent-server] › agent-server/threads.spec.ts:3 › test 3',
      '',
    ].join('\n'),
  );
  expect(out.text).not.toMatch(/\d+ (passed|skipped|failed)\b/);
});

test('a terminal gets one line rewritten in place, failures kept', () => {
  const out = capture(true);
  drive(new ProgressReporter({ style: 'line' }, out, capture(true)), ['passed', 'timedOut', 'passed']);
  const kept = out.text.split('\n').map((l) => l.split('\r\u001b[2K').at(-1));
  expect(kept).toEqual(['Running 3 tests using 2 workers', '  ✘ [agent-server] › agent-server/threads.spec.ts:2 › test 2 (timed out)', '']);
});

test('dots: one per test, then the line ends, and a legend says what each mark that appeared means', () => {
  const out = capture();
  drive(new ProgressReporter({ style: 'dots' }, out, capture()), ['passed', 'failed', 'skipped']);
  expect(out.text).toBe('Running 3 tests using 2 workers\n·F°\n· passed, F failed, ° skipped\n');
});

test('an error outside the tests (a global setup that failed) is printed with where it happened', () => {
  const err = capture();
  const reporter = new ProgressReporter({ style: 'dots' }, capture(), err);
  reporter.onError({ message: "TargetError: target 't' is not ready", location: { file: '/x/global-setup.ts', line: 3, column: 5 } });
  reporter.onError({ message: 'No tests found' });
  expect(err.text).toBe("TargetError: target 't' is not ready\n    at /x/global-setup.ts:3:5\nError: No tests found\n");
});

test("--max-duration's stop is said in the option's words, not as Playwright's timeout", () => {
  const err = capture();
  new ProgressReporter({ style: 'dots' }, capture(), err).onError({ message: '\u001b[31mTimed out waiting 120s for the test suite to run\u001b[39m' });
  expect(err.text).toBe('The run reached --max-duration 120 s: it stops now, and the report counts what did not run as not-run (exit 3).\n');
});

test("a log gets Playwright's code snippet without colour codes", () => {
  const err = capture();
  new ProgressReporter({}, capture(), err).onError({ message: 'Error: boom', snippet: '\u001b[31m> 1 |\u001b[39m throw' });
  expect(err.text).toBe('Error: boom\n\n> 1 | throw\n');
});

test('a failure the expectations file lists is counted at the end, not shown as a failure; any other failure is', () => {
  const expectations = join(mkdtempSync(join(tmpdir(), 'apc-progress-')), 'expectations.yaml');
  writeFileSync(expectations, 'target: t\nexpected:\n  - rule: THREAD-SHAPE\n    verdict: fail\n    reason: known\n');
  const listed = testCase(1, ['@THREAD-SHAPE']);
  const named = testCase(2, ['@THREAD-SHAPE', '@THREAD-CREATE-IDLE']);
  const other = testCase(3, ['@THREAD-SHAPE', '@THREAD-CREATE-IDLE']);
  const line = capture();
  const dots = capture();
  for (const [reporter] of [
    [new ProgressReporter({ style: 'line', expectations }, line, capture())],
    [new ProgressReporter({ style: 'dots', expectations }, dots, capture())],
  ]) {
    reporter.onBegin(config, { allTests: () => [listed, named, other] } as unknown as Suite);
    for (const [t, r] of [
      [listed, result('failed')],
      // The test says which of its rules failed: the one expected to.
      [named, result('failed', ['THREAD-SHAPE'])],
      // Failed without naming a rule: all its rules count, and one of them is not expected to fail.
      [other, result('failed')],
    ] as const) {
      reporter.onTestBegin(t);
      reporter.onTestEnd(t, r);
    }
    reporter.onEnd({ status: 'failed' } as FullResult);
  }
  expect(line.text.match(/✘.*/g)).toEqual(['✘ [agent-server] › agent-server/threads.spec.ts:3 › test 3 (failed)']);
  expect(dots.text).toBe('Running 3 tests using 2 workers\nxxF\nF failed, x failed as expected\n');
});

test('after a quiet spell the progress names each test under way and the wait it is in', () => {
  let now = 0;
  const out = capture();
  const reporter = new ProgressReporter({ style: 'dots' }, out, capture(), () => now);
  reporter.onBegin(config, suite);
  const [waiting, running] = tests;
  reporter.onTestBegin(waiting);
  reporter.onTestBegin(running);
  const wait = { category: 'test.step', title: 'waiting for revision r1 to build (real clock ×1, up to 30 min)' } as TestStep;
  reporter.onStepBegin(waiting, result('passed'), { category: 'test.step', title: 'another step' } as TestStep);
  now = 5_000;
  reporter.onStepBegin(waiting, result('passed'), wait);
  now = QUIET_MS - 1;
  reporter.tick();
  expect(out.text).toBe('Running 3 tests using 2 workers\n');
  now = 95_000;
  reporter.tick();
  expect(out.text.split('\n').slice(1)).toEqual([
    '  … [1/3] [agent-server] › agent-server/threads.spec.ts:1 › test 1: waiting for revision r1 to build (real clock ×1, up to 30 min), 90 s so far',
    '  … [2/3] [agent-server] › agent-server/threads.spec.ts:2 › test 2: running for 95 s',
    '',
  ]);
  // Said once per quiet spell; the wait's end and the test's end take it off the list.
  reporter.tick();
  reporter.onStepEnd(waiting, result('passed'), wait);
  reporter.onTestEnd(running, result('passed'));
  now += QUIET_MS;
  reporter.tick();
  reporter.onEnd({ status: 'passed' } as FullResult);
  expect(out.text.split('\n').slice(3)).toEqual(['·', '  … [1/3] [agent-server] › agent-server/threads.spec.ts:1 › test 1: running for 2 min', '· passed', '']);
});
