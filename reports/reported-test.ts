// A test as the report is built from it: Playwright's own outcome of the test (its status, error
// text and skip reason) joined with the one record of evidence the harness attached to it
// (harness/test-evidence.ts). Pure: the reporter feeds it what Playwright hands over.
import type { RuleFailure, RuleNotJudged, TestEvidence } from '../harness/test-evidence.ts';
import type { TargetLoss } from '../harness/target-watch.ts';
import type { TestOutcome } from './conformance-report.ts';

/** What Playwright says of a test that ended. */
export interface PlayedTest {
  id: string;
  title: string;
  /** The spec file, relative to the run's root. */
  file: string;
  /** The rules the test is tagged with. */
  ruleIds: string[];
  status: 'passed' | 'failed' | 'timedOut' | 'skipped' | 'interrupted';
  /** The test's errors, one message after another. */
  error?: string;
  /** Why it was skipped, as its skip said. */
  skipReason?: string;
}

/** A test as buildReport takes it. */
export interface ReportedTest {
  outcome: TestOutcome;
  ruleIds: string[];
  /** For a failed test of several rules: the rules it says failed, each with its check's exchange. */
  failures?: RuleFailure[];
  /** It ran to its end judging each rule apart: its rules that did not fail passed. */
  judgedApart?: boolean;
  notJudged?: RuleNotJudged[];
}

/** A test as the report takes it, from Playwright's outcome and the test's evidence. */
export function reportedTest(played: PlayedTest, evidence: TestEvidence): ReportedTest {
  const { status } = played;
  const skipped = status === 'skipped';
  const skip: TestOutcome['skip'] = evidence.skip ? { kind: evidence.skip.kind } : { kind: 'unclassified' };
  if (evidence.skip?.kind === 'precondition') skip.explainedBy = evidence.skip.explainedBy;
  // The exchange the failure names: what an assertion judged, or the step a precondition needed.
  const failedExchange = status === 'passed' ? undefined : skipped ? evidence.skip?.exchange : evidence.failedExchange;
  const outcome: TestOutcome = {
    id: played.id,
    title: played.title,
    file: played.file,
    status: status !== 'passed' && !skipped && evidence.unreachable ? 'error' : status,
    error: played.error,
    reason: skipped ? played.skipReason || 'skipped' : undefined,
    ...(skipped ? { skip } : {}),
    observed: evidence.observations.map((o) => `${o.rule}: ${o.observation}`),
    exchanges: evidence.exchanges.map((e) => e.id),
    ...(failedExchange ? { failedExchange } : {}),
  };
  return { outcome, ruleIds: played.ruleIds, failures: evidence.failures, judgedApart: evidence.judgedApart, notJudged: evidence.notJudged };
}

/** How the error of a test begins that failed once the target had stopped answering. */
export const LOST_WHILE_RUNNING = 'the target stopped answering while this test ran';

/**
 * A test that failed (or timed out) after the target's last answer, in a run that then lost the
 * target, says nothing of its rules, whatever it failed on (a request refused or cut off, a
 * delivery that never came, a wait that ran out): its verdict is `error`. `endedAt`: when it ended.
 */
export function afterTargetLost(test: ReportedTest, endedAt: number, loss: TargetLoss): ReportedTest {
  const { outcome } = test;
  if ((outcome.status !== 'failed' && outcome.status !== 'timedOut') || endedAt < loss.since) return test;
  const error = `${LOST_WHILE_RUNNING} (${loss.reason})${outcome.error ? `: ${outcome.error}` : ''}`;
  return { ...test, outcome: { ...outcome, status: 'error', error }, failures: [] };
}
