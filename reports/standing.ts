// How each rule counts for the run's outcome, the same in every format. A failure fails the
// run (a MUST rule that failed; with expectations, any verdict that differs from them; a
// regression against the baseline); a MUST rule left unjudged for a reason the target did not
// declare fails it too (unjudged); an error leaves the rule unjudged (exit 2); an expected
// failure, a failed SHOULD rule (a warning) and a failed interpretation (a warning shown apart:
// our reading, which neither the spec nor the service states) do not fail the run.
import type { ConformanceReport, RuleResult } from './conformance-report.ts';

export type Standing =
  | { kind: 'failure'; why: string }
  | { kind: 'unjudged'; why: string }
  | { kind: 'error'; why: string }
  | { kind: 'expected'; why: string }
  | { kind: 'warning'; why: string }
  | { kind: 'interpretation'; why: string }
  | { kind: 'skipped'; why: string }
  | { kind: 'passed'; why?: string };

const INTERPRETATION_FAILED = 'interpretation failed (a warning: our reading, which neither the spec nor the service states; it does not fail the run)';

export function standingOf(report: ConformanceReport, rule: RuleResult): Standing {
  const regression = report.summary.baseline?.regressions.find((c) => c.id === rule.id);
  if (regression) return { kind: 'failure', why: `regression: ${regression.before} in ${report.summary.baseline!.file}, ${regression.after} now` };
  if (rule.asExpected === false) {
    const expected = rule.expected ? `${rule.expected.verdict} (${rule.expected.reason})` : 'not to fail';
    return { kind: 'failure', why: `unexpected: ${rule.verdict}, expected ${expected}` };
  }
  if (rule.verdict === 'fail' && rule.asExpected) return { kind: 'expected', why: `expected failure: ${rule.expected?.reason ?? ''}` };
  const unexplained = rule.tests.find((t) => t.unexplained)?.unexplained;
  if (rule.verdict === 'error') return { kind: 'error', why: `not judged: ${unexplained ?? 'the target did not answer its tests'}` };
  const notJudged = (report.summary.mustNotJudged ?? []).find((n) => n.id === rule.id && n.counted && n.cause !== 'stopped');
  if (notJudged)
    return notJudged.cause === 'machine'
      ? { kind: 'error', why: `MUST rule not judged here (the machine or what the target holds): ${notJudged.why}` }
      : { kind: 'unjudged', why: `MUST rule not judged (${notJudged.cause}): ${notJudged.why}` };
  if (rule.verdict === 'fail' && rule.source === 'interpretation') return { kind: 'interpretation', why: INTERPRETATION_FAILED };
  if (rule.verdict === 'fail')
    return rule.level === 'MUST'
      ? { kind: 'failure', why: 'MUST rule failed' }
      : { kind: 'warning', why: 'SHOULD rule failed (a warning: it does not fail the run)' };
  if (rule.verdict === 'not-run' && rule.tests.length === 0) return { kind: 'skipped', why: rule.reason ?? 'no test of this rule ran' };
  if (rule.verdict === 'skipped' || rule.verdict === 'not-run')
    return { kind: 'skipped', why: [...new Set(rule.tests.map((t) => t.reason ?? t.status))].join('; ') };
  if (rule.verdict === 'not-tested') return { kind: 'skipped', why: `not tested: ${rule.unobservable ?? rule.reason ?? 'no test checks this rule'}` };
  if (rule.verdict === 'observed') return { kind: 'passed', why: rule.tests.flatMap((t) => t.observed).join('\n') || 'observed' };
  return { kind: 'passed' };
}
